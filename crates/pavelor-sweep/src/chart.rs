//! The sweep's chart of one instance: time per call against the length
//! from 0 to 4096 bytes, a row per implementation, each with its own
//! linear scale from 0 so that its steps show whatever its speed, and
//! beside it the same from 0 to 1024 bytes, where even Pavelor-1024's
//! 64-byte steps are far apart; the median line in the quartile band, and
//! the block boundaries dotted.
//!
//! The lengths are gathered into pixel columns (about five lengths a
//! pixel): each column draws the median of its lengths' medians, and its
//! band the median of their first and third quartiles. A column without a
//! measured length (the sparse plan) breaks the line.

use pavelor::Algorithm;
use pavelor_pages::plot::{Anchor, Px, Svg, points};

use crate::plan::DENSE_TO;
use crate::stats::Quartiles;
use crate::stats::number;

/// The file of `alg`'s chart, beside `report.md`.
pub fn file_name(alg: Algorithm) -> String {
    format!("sweep-{}.svg", alg.name().to_ascii_lowercase())
}

/// One panel: a label and the quartiles of its lengths.
pub struct Panel<'a> {
    /// What the panel shows (an implementation, with its machine on the
    /// site).
    pub label: String,
    /// Per length its quartiles, ascending.
    pub quartiles: &'a [(usize, Quartiles)],
}

const WIDTH: f64 = 900.0;
const LEFT: f64 = 70.0;
/// The width of the whole range's plot; the zoom's plot is right of it.
const WIDE: f64 = 520.0;
const ZOOM_GAP: f64 = 60.0;
const RIGHT: f64 = 20.0;
const TOP: f64 = 40.0;
const PANEL: f64 = 120.0;
const GAP: f64 = 46.0;
/// The zoom's lengths: `0..=ZOOM` bytes, where even Pavelor-1024's 64-byte
/// steps are many pixels apart.
pub const ZOOM: usize = 1024;
const COLORS: [&str; 8] = [
    "#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf", "#8c564b", "#e377c2",
];

/// Where a plot goes and which lengths it shows.
#[derive(Clone, Copy)]
struct Frame {
    left: f64,
    width: f64,
    top: f64,
    /// The longest length shown.
    to: usize,
}

/// The chart of `alg` with `panels`, in `unit` per call: a row per panel,
/// the whole range 0–4096 B on the left and 0–1024 B on the right.
pub fn render(alg: Algorithm, unit: &str, panels: &[Panel<'_>]) -> String {
    let height = TOP + panels.len() as f64 * (PANEL + GAP) + 30.0;
    let title =
        format!("{alg}: {unit} per call at every length 0–{DENSE_TO} B (right: 0–{ZOOM} B)");
    let mut svg = Svg::chart(WIDTH, height, &title);
    let zoom_left = LEFT + WIDE + ZOOM_GAP;
    let zoom_width = WIDTH - RIGHT - zoom_left;
    for (i, p) in panels.iter().enumerate() {
        let top = TOP + i as f64 * (PANEL + GAP) + 18.0;
        let color = COLORS[i % COLORS.len()];
        svg.text(
            Px(LEFT),
            Px(top - 6.0),
            Anchor::Start,
            r#" font-weight="bold""#,
            &p.label,
        );
        let whole = Frame {
            left: LEFT,
            width: WIDE,
            top,
            to: DENSE_TO,
        };
        let zoom = Frame {
            left: zoom_left,
            width: zoom_width,
            top,
            to: ZOOM,
        };
        for (frame, tick) in [(whole, 512), (zoom, 256)] {
            draw(&mut svg, frame, tick, alg.rate_len(), p.quartiles, color);
        }
    }
    svg.text(
        Px(WIDTH / 2.0),
        Px(height - 8.0),
        Anchor::Middle,
        "",
        &format!("message length, bytes (dotted: every {} B)", alg.rate_len()),
    );
    svg.finish()
}

/// One plot: its frame, the block boundaries every `rate` bytes, the scale
/// from 0, the band and the median line, and length labels every `tick`.
fn draw(
    svg: &mut Svg,
    f: Frame,
    tick: usize,
    rate: usize,
    quartiles: &[(usize, Quartiles)],
    color: &str,
) {
    let bottom = f.top + PANEL;
    let x_of = |n: f64| f.left + n / f.to as f64 * f.width;
    let columns = columns(quartiles, f.to, f.width);
    let y_max = columns
        .iter()
        .flatten()
        .map(|q| q.q3)
        .fold(0.0f64, f64::max)
        .max(1.0)
        * 1.05;
    let y_of = |v: f64| bottom - v / y_max * PANEL;
    svg.line(format_args!(
        r##"<rect x="{}" y="{}" width="{}" height="{PANEL}" fill="none" stroke="#999"/>"##,
        Px(f.left),
        Px(f.top),
        Px(f.width)
    ));
    let mut b = rate;
    let mut d = String::new();
    while b <= f.to {
        d.push_str(&format!(
            "M{:.1},{:.1}V{:.1}",
            x_of(b as f64),
            f.top,
            bottom
        ));
        b += rate;
    }
    svg.line(format_args!(
        r##"<path d="{d}" stroke="#bbb" stroke-width="0.6" stroke-dasharray="2,2" fill="none"/>"##
    ));
    for frac in [0.0, 0.5, 1.0] {
        let v = y_max / 1.05 * frac;
        svg.text(
            Px(f.left - 6.0),
            Px(y_of(v) + 4.0),
            Anchor::End,
            "",
            &number(v),
        );
    }
    // Each column's value spans the column, from its left edge to its
    // right: the line is a staircase of pixel-wide treads, and a run of
    // one column (the sparse plan) is still drawn.
    let edges = |c: usize| [f.left + c as f64, f.left + c as f64 + 1.0];
    for run in runs(&columns) {
        let band: Vec<(f64, f64)> = run
            .iter()
            .flat_map(|&(c, q)| edges(c).map(|x| (x, y_of(q.q3))))
            .chain(
                run.iter()
                    .rev()
                    .flat_map(|&(c, q)| edges(c).into_iter().rev().map(move |x| (x, y_of(q.q1)))),
            )
            .collect();
        svg.line(format_args!(
            r#"<polygon points="{}" fill="{color}" fill-opacity="0.25" stroke="none"/>"#,
            points(&band)
        ));
        let line: Vec<(f64, f64)> = run
            .iter()
            .flat_map(|&(c, q)| edges(c).map(|x| (x, y_of(q.median))))
            .collect();
        svg.line(format_args!(
            r#"<polyline points="{}" fill="none" stroke="{color}" stroke-width="1.2"/>"#,
            points(&line)
        ));
    }
    for n in (0..=f.to).step_by(tick) {
        svg.text(
            Px(x_of(n as f64)),
            Px(bottom + 14.0),
            Anchor::Middle,
            r#" font-size="10""#,
            &n.to_string(),
        );
    }
}

/// The lengths up to `to` gathered into `width` pixel columns: per column
/// the median of the medians and of the quartiles, or `None` when no
/// length falls in it.
fn columns(quartiles: &[(usize, Quartiles)], to: usize, width: f64) -> Vec<Option<Quartiles>> {
    let n = width as usize;
    let mut per: Vec<Vec<Quartiles>> = vec![Vec::new(); n];
    for &(len, q) in quartiles.iter().filter(|q| q.0 <= to) {
        let c = ((len as f64 / to as f64) * (n - 1) as f64).round() as usize;
        per[c.min(n - 1)].push(q);
    }
    let mid = |mut v: Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    per.into_iter()
        .map(|qs| {
            (!qs.is_empty()).then(|| Quartiles {
                q1: mid(qs.iter().map(|q| q.q1).collect()),
                median: mid(qs.iter().map(|q| q.median).collect()),
                q3: mid(qs.iter().map(|q| q.q3).collect()),
            })
        })
        .collect()
}

/// The runs of consecutive columns that have a value.
fn runs(columns: &[Option<Quartiles>]) -> Vec<Vec<(usize, Quartiles)>> {
    let mut out: Vec<Vec<(usize, Quartiles)>> = Vec::new();
    let mut current = Vec::new();
    for (c, q) in columns.iter().enumerate() {
        match q {
            Some(q) => current.push((c, *q)),
            None if !current.is_empty() => out.push(std::mem::take(&mut current)),
            None => {}
        }
    }
    if !current.is_empty() {
        out.push(current);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn staircase(rate: usize, lengths: impl Iterator<Item = usize>) -> Vec<(usize, Quartiles)> {
        lengths
            .map(|n| {
                let v = 100.0 * (n / rate + 1) as f64;
                (
                    n,
                    Quartiles {
                        q1: v - 5.0,
                        median: v,
                        q3: v + 5.0,
                    },
                )
            })
            .collect()
    }

    #[test]
    fn a_full_curve_draws_one_line_per_panel_and_every_boundary() {
        let q = staircase(192, 0..=4096);
        let svg = render(
            Algorithm::Pavelor512,
            "TSC ticks",
            &[Panel {
                label: "Rust <aesni>".into(),
                quartiles: &q,
            }],
        );
        // The whole range and the zoom.
        assert_eq!(svg.matches("<polyline").count(), 2);
        assert_eq!(svg.matches("<polygon").count(), 2);
        // 21 boundaries (192·1 … 192·21 = 4032), 5 in the zoom.
        let boundaries: Vec<usize> = svg
            .lines()
            .filter(|l| l.contains("stroke-dasharray"))
            .map(|l| l.matches('M').count())
            .collect();
        assert_eq!(boundaries, [21, 5]);
        assert!(svg.contains("Rust &lt;aesni&gt;"), "the label is escaped");
        assert!(svg.len() < 60_000, "{} bytes", svg.len());
    }

    #[test]
    fn a_sparse_curve_breaks_its_line_between_measured_columns() {
        let q = staircase(64, [0, 1, 2, 2000, 2001, 4096].into_iter());
        let svg = render(
            Algorithm::Pavelor1024,
            "cycles",
            &[Panel {
                label: "a".into(),
                quartiles: &q,
            }],
        );
        // Three runs in the whole range, two in the zoom (0–2).
        assert_eq!(svg.matches("<polyline").count(), 3 + 1);
    }

    #[test]
    fn columns_take_the_median_of_their_lengths() {
        let q = staircase(192, 0..=4096);
        let c = columns(&q, 4096, 100.0);
        assert_eq!(c.len(), 100);
        assert!(c.iter().all(Option::is_some));
        assert_eq!(c[0].map(|q| q.median), Some(100.0));
        assert_eq!(c[99].map(|q| q.median), Some(2200.0));
    }
}
