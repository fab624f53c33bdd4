//! A [`Comparison`] as people and scripts read it: a Markdown table
//! (stdout and `compare.md`), a self-contained `compare.html` with a chart
//! of the ratios and their intervals (`compare-ratios.svg`), and
//! `compare.json`.

use std::fmt::Write as _;
use std::path::{Component, Path, PathBuf};

use pavelor_kat::atomic_file::atomic_write;

use super::{Comparison, Pair, Quantity, Verdict};
use pavelor_niccs::stats::interval::CONFIDENCE;
use pavelor_pages::html::{self, markdown_code, markdown_literal};
use pavelor_pages::plot::{Anchor, Log, LogAxis, Px, Svg};

/// The chart's file name, beside `compare.md`.
pub const CHART: &str = "compare-ratios.svg";

/// The mark of a disturbed figure, as the report's tables have it.
const DISTURBED: &str = "†";

/// A figure's mean in its unit; very large or small ones in scientific
/// notation, none as "–".
fn value(q: Quantity, v: Option<f64>) -> String {
    let Some(v) = v.filter(|v| v.is_finite()) else {
        return "–".to_string();
    };
    match q {
        Quantity::Cycles if (1.0..1e12).contains(&v) => format!("{v:.0}"),
        Quantity::Cycles => format!("{v:.3e}"),
        Quantity::Time if (1e-3..1e3).contains(&v) => format!("{:.3} ms", v * 1e3),
        Quantity::Time if (1e-9..1e-3).contains(&v) => format!("{:.3} µs", v * 1e6),
        Quantity::Time => format!("{v:.3e} s"),
    }
}

/// A ratio: from 0.001 to 1000 with three decimals, and below 0.1 with
/// three significant digits (`0.00612`); else in scientific notation
/// (`2.000e-8`), so that no ratio reads as 0.000.
pub fn number(r: f64) -> String {
    if (1e-3..1e3).contains(&r) {
        let decimals = (2.0 - r.log10().floor()).clamp(3.0, 5.0) as usize;
        format!("{r:.decimals$}")
    } else {
        format!("{r:.3e}")
    }
}

/// A tick's ratio: `0.25`, `1.1`, `1000`, `1e-5`.
fn number_short(t: f64) -> String {
    if (1e-3..=1e4).contains(&t) {
        format!("{t}")
    } else {
        format!("{t:e}")
    }
}

/// A pair's ratio: the number when it is one, else from its logarithm
/// (beyond the doubles, `1.000e400`), else "–" (no ratio).
pub fn ratio_text(p: &Pair) -> String {
    if let Some(r) = p.ratio {
        return number(r);
    }
    let Some(l) = p.log10_ratio.filter(|l| l.is_finite()) else {
        return "–".to_string();
    };
    let mut exponent = l.floor();
    let mut mantissa = 10f64.powf(l - exponent);
    if mantissa >= 9.9995 {
        mantissa /= 10.0;
        exponent += 1.0;
    }
    format!("{mantissa:.3}e{exponent:.0}")
}

fn mark(disturbed: bool) -> &'static str {
    if disturbed { DISTURBED } else { "" }
}

fn verdict_text(p: &Pair) -> String {
    let v = match p.verdict {
        Verdict::Faster | Verdict::Slower => format!("**{}**", p.verdict.text()),
        _ => p.verdict.text().to_string(),
    };
    if p.disturbed() {
        format!("{v} ({DISTURBED} disturbed: the machine may have made the difference)")
    } else {
        v
    }
}

/// Plain text as literal Markdown, each part between backticks as a code
/// span (`` library `x`: … `` stays as it was written; a backtick inside
/// a string only moves where a code span starts, and every part is
/// literal either way).
fn text_with_code(text: &str) -> String {
    text.split('`')
        .enumerate()
        .map(|(i, part)| {
            if i % 2 == 1 {
                markdown_code(part)
            } else {
                markdown_literal(part)
            }
        })
        .collect()
}

/// The comparison in Markdown.
pub fn markdown(c: &Comparison, chart: bool) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "# pavelor compare\n");
    for (side, run, end) in [("BASE", &c.base, ""), ("NEW", &c.new, "\n")] {
        let _ = writeln!(
            s,
            "- **{side}**: {}, started {}, {}, {}{end}",
            markdown_code(&run.dir),
            markdown_literal(&run.started),
            markdown_literal(&run.cpu),
            markdown_literal(&run.unit)
        );
    }
    differences(&mut s, c);
    let _ = writeln!(
        s,
        "Each ratio is NEW/BASE of the mean {} over a figure's trials (below 1: NEW is faster), with its {:.0}% confidence interval: Welch's interval on the log scale, from the trials of both runs (docs/compare.md). A verdict is *faster* or *slower* only when the interval excludes 1. {DISTURBED} marks a figure with a trial that was still disturbed after its reruns.\n",
        c.quantity.label(),
        CONFIDENCE * 100.0
    );
    let (faster, slower, same, none) = c.counts();
    let _ = writeln!(
        s,
        "**{} figures compared: {faster} faster, {slower} slower, {same} with no significant difference{}.**\n",
        c.pairs.len(),
        if none > 0 {
            format!(", {none} with no interval (the verdict says why)")
        } else {
            String::new()
        }
    );
    if c.pairs.is_empty() {
        let _ = writeln!(s, "**No figure is in both runs: nothing was compared.**\n");
    }
    if chart && !c.pairs.is_empty() {
        let _ = writeln!(s, "![NEW/BASE with 95% intervals]({CHART})\n");
    }
    pairs_table(&mut s, c);
    for (side, list) in [("BASE", &c.only_base), ("NEW", &c.only_new)] {
        if !list.is_empty() {
            let _ = writeln!(s, "Only in {side} ({} figures):\n", list.len());
            for u in list {
                let _ = writeln!(
                    s,
                    "- {} at {} B ({})",
                    markdown_literal(&u.name),
                    u.size,
                    markdown_code(&u.op)
                );
            }
            s.push('\n');
        }
    }
    sweeps(&mut s, &c.sweeps);
    s
}

/// The sweeps' section, when either side swept.
fn sweeps(s: &mut String, sw: &super::Sweeps) {
    if let Some(why) = &sw.not_compared {
        let _ = writeln!(
            s,
            "The length sweeps were not compared: {}.\n",
            markdown_literal(why)
        );
    }
    if !sw.pairs.is_empty() {
        pavelor_sweep::compare::markdown(s, &sw.pairs, &sw.unit);
    }
    for (side, list) in [("BASE", &sw.only_base), ("NEW", &sw.only_new)] {
        if !list.is_empty() {
            let names: Vec<String> = list.iter().map(|x| markdown_code(x)).collect();
            let _ = writeln!(s, "Swept only in {side}: {}.\n", names.join(", "));
        }
    }
}

/// What the setups mean, and how the runs differ.
fn differences(s: &mut String, c: &Comparison) {
    if let Some(setups) = &c.setups {
        let _ = writeln!(s, "**{setups}**\n");
    }
    // With a harness dataset the setups sentence says what agrees.
    if c.differences.is_empty() && c.setups.is_none() {
        let _ = writeln!(
            s,
            "The two runs agree on the machine, the counter, the method, the build and the libraries' files.\n"
        );
    } else if !c.differences.is_empty() {
        let _ = writeln!(
            s,
            "**The runs differ**; read the ratios with that in mind:\n"
        );
        for d in &c.differences {
            // Between two report runs a difference is plain text with the
            // runs' strings in it, a name between backticks; beside a
            // harness dataset it is Markdown whose strings are already
            // literal text.
            if c.setups.is_none() {
                let _ = writeln!(s, "- {}", text_with_code(d));
            } else {
                let _ = writeln!(s, "- {d}");
            }
        }
        s.push('\n');
    }
}

/// The table of the pairs, one row each.
fn pairs_table(s: &mut String, c: &Comparison) {
    if !c.pairs.is_empty() {
        let _ = writeln!(
            s,
            "| implementation | length | BASE mean | NEW mean | NEW/BASE | {:.0}% interval | trials | verdict |",
            CONFIDENCE * 100.0
        );
        let _ = writeln!(s, "|---|---:|---:|---:|---:|---:|---:|---|");
        for p in &c.pairs {
            let interval = p.interval.map_or_else(
                || "–".to_string(),
                |i| format!("{} – {}", number(i.low), number(i.high)),
            );
            let ratio = ratio_text(p);
            let _ = writeln!(
                s,
                "| {} | {} B | {}{} | {}{} | {ratio} | {interval} | {} / {} | {} |",
                markdown_literal(&p.name),
                p.size,
                value(c.quantity, p.base.mean),
                mark(p.base.disturbed),
                value(c.quantity, p.new.mean),
                mark(p.new.disturbed),
                p.base.trials.len(),
                p.new.trials.len(),
                verdict_text(p)
            );
        }
        s.push('\n');
    }
}

/// A row's label: its name as plain text (no Markdown code marks), its
/// length and its mark.
fn row_label(p: &Pair) -> String {
    format!(
        "{} {} B{}",
        p.name.replace('`', ""),
        p.size,
        mark(p.disturbed())
    )
}

const TOP: f64 = 50.0;
const ROW_HEIGHT: f64 = 22.0;

/// The chart's size and its ratio axis.
struct Layout {
    /// The labels' column: as wide as the longest (about 7 px a character
    /// at 12 px), 330 px at least.
    left: f64,
    width: f64,
    height: f64,
    /// The plot's bottom, below the last row.
    bottom: f64,
    /// The ratios shown, from `lo / 1.1` to `hi * 1.1`.
    lo: f64,
    hi: f64,
    axis: LogAxis,
}

impl Layout {
    fn of(c: &Comparison) -> Layout {
        let rows = c.pairs.len().max(1) as f64;
        let longest = c
            .pairs
            .iter()
            .map(|p| row_label(p).chars().count())
            .max()
            .unwrap_or(0);
        let (left, right) = ((longest as f64 * 7.0 + 20.0).max(330.0), 40.0);
        let width = left + 650.0;
        let height = TOP + rows * ROW_HEIGHT + 50.0;
        // The axis spans the intervals and the ratios (each a positive
        // normal number), and 1; a pair without a ratio has a row but no
        // mark.
        let (mut lo, mut hi) = (1.0f64, 1.0f64);
        for p in &c.pairs {
            let (a, b) = p
                .interval
                .map(|i| (i.low, i.high))
                .or(p.ratio.map(|r| (r, r)))
                .unwrap_or((1.0, 1.0));
            if a.is_normal() && a > 0.0 {
                lo = lo.min(a);
            }
            if b.is_normal() && b > 0.0 {
                hi = hi.max(b);
            }
        }
        let axis = LogAxis {
            log: Log::Two,
            low: (lo / 1.1).log2(),
            high: (hi * 1.1).log2(),
            origin: left,
            length: width - left - right,
            up: false,
        };
        Layout {
            left,
            width,
            height,
            bottom: TOP + rows * ROW_HEIGHT,
            lo,
            hi,
            axis,
        }
    }
}

/// The chart: one row per pair, the ratio as a dot and its interval as a
/// bar on a logarithmic axis, with a line at 1 (no change).
pub fn chart(c: &Comparison) -> String {
    let layout = Layout::of(c);
    let title = format!(
        "NEW/BASE, {} ({:.0}% intervals; below 1 is faster)",
        c.quantity.label(),
        CONFIDENCE * 100.0
    );
    let mut svg = Svg::chart(layout.width, layout.height, &title);
    ticks(&mut svg, &layout);
    for (k, p) in c.pairs.iter().enumerate() {
        row(&mut svg, &layout, k, p);
    }
    svg.finish()
}

/// Ticks at the round ratios near 1 and at the powers of ten, those inside
/// the range, 1 always and each other at least 30 px from the ticks
/// already drawn.
fn ticks(svg: &mut Svg, layout: &Layout) {
    let (top, bottom) = (TOP, layout.bottom);
    let mut ticks: Vec<f64> = vec![
        1.0, 0.25, 0.5, 0.67, 0.8, 0.9, 1.1, 1.25, 1.5, 2.0, 3.0, 4.0,
    ];
    ticks.extend((-300..=300).map(|e| 10f64.powi(e)));
    let mut drawn: Vec<f64> = Vec::new();
    for t in ticks {
        if t < layout.lo / 1.1 || t > layout.hi * 1.1 || (t == 1.0 && !drawn.is_empty()) {
            continue;
        }
        let x = layout.axis.at(t);
        if !x.is_finite() || drawn.iter().any(|d| (d - x).abs() < 30.0) {
            continue;
        }
        drawn.push(x);
        let (stroke, width) = if t == 1.0 {
            ("#444", 1.5)
        } else {
            ("#ddd", 1.0)
        };
        svg.line(format_args!(
            r#"<line x1="{x:.1}" x2="{x:.1}" y1="{top}" y2="{bottom}" stroke="{stroke}" stroke-width="{width}"/>"#
        ));
        svg.text(Px(x), bottom + 16.0, Anchor::Middle, "", &number_short(t));
    }
}

/// The `k`th pair's row: its label, its interval as a bar, and its ratio
/// as a dot (or, with no ratio, as text).
fn row(svg: &mut Svg, layout: &Layout, k: usize, p: &Pair) {
    let y = TOP + (k as f64 + 0.5) * ROW_HEIGHT;
    let color = match p.verdict {
        Verdict::Faster => "#1a7f37",
        Verdict::Slower => "#cf222e",
        _ => "#57606a",
    };
    svg.text(
        layout.left - 10.0,
        Px(y + 4.0),
        Anchor::End,
        "",
        &row_label(p),
    );
    let finite = |x: f64| Some(x).filter(|x| x.is_finite());
    let px = |r: f64| layout.axis.at(r);
    if let Some((x1, x2)) = p
        .interval
        .and_then(|i| Some((finite(px(i.low))?, finite(px(i.high))?)))
    {
        svg.line(format_args!(
            r#"<line x1="{x1:.1}" x2="{x2:.1}" y1="{y:.1}" y2="{y:.1}" stroke="{color}" stroke-width="3"/>"#
        ));
    }
    match p.ratio.and_then(|r| finite(px(r))) {
        Some(cx) => svg.line(format_args!(
            r#"<circle cx="{cx:.1}" cy="{y:.1}" r="4" fill="{color}"/>"#
        )),
        None => svg.text(
            layout.left + 6.0,
            Px(y + 4.0),
            Anchor::Start,
            "",
            &format!("{}: {}", ratio_text(p), p.verdict.text()),
        ),
    }
}

/// Why [`write()`] wrote nothing, or not every file.
#[derive(Debug, thiserror::Error)]
pub enum WriteError {
    /// One of the fixed names is not a plain file name.
    #[error("{name}: not a plain file name")]
    NotPlainName {
        /// The name.
        name: String,
    },
    /// An output file's path holds something else than a regular file.
    #[error("{}: exists and is not a regular file; refusing to replace it", path.display())]
    NotRegularFile {
        /// The path.
        path: PathBuf,
    },
    /// The output directory could not be created or resolved.
    #[error("{}: {source}", dir.display())]
    Directory {
        /// The directory as given.
        dir: PathBuf,
        /// Why it could not be created or resolved.
        #[source]
        source: std::io::Error,
    },
    /// The comparison could not be written as JSON.
    #[error(transparent)]
    Json(#[from] serde_json::Error),
    /// An output file could not be written.
    #[error("{}: {source}", path.display())]
    File {
        /// The file.
        path: PathBuf,
        /// Why it could not be written.
        #[source]
        source: std::io::Error,
    },
}

/// The files `write` makes, by fixed names.
pub const FILES: [&str; 4] = ["compare.md", CHART, "compare.html", "compare.json"];

/// `dir/name` for a fixed `name`, checked to be a plain name directly in
/// `dir` whose entry, if any, is a regular file (not a link, which the
/// write would replace but a reader might follow, nor a directory).
fn output_path(dir: &Path, name: &str) -> Result<PathBuf, WriteError> {
    let mut parts = Path::new(name).components();
    let plain =
        matches!(parts.next(), Some(Component::Normal(n)) if n == name) && parts.next().is_none();
    let path = dir.join(name);
    if !plain || path.parent() != Some(dir) {
        return Err(WriteError::NotPlainName {
            name: name.to_string(),
        });
    }
    match std::fs::symlink_metadata(&path) {
        Ok(m) if !m.file_type().is_file() => Err(WriteError::NotRegularFile { path }),
        _ => Ok(path),
    }
}

/// Writes `compare.md`, `compare-ratios.svg`, `compare.html` and
/// `compare.json` into `dir` (created if needed), each file whole or not
/// at all, and nothing anywhere else: every path is `dir` (resolved) with
/// one of the fixed names of [`FILES`], all checked before the first write.
pub fn write(dir: &Path, c: &Comparison) -> Result<(), WriteError> {
    let directory = |source| WriteError::Directory {
        dir: dir.to_path_buf(),
        source,
    };
    std::fs::create_dir_all(dir).map_err(directory)?;
    let root = dir.canonicalize().map_err(directory)?;
    let paths = FILES
        .iter()
        .map(|name| output_path(&root, name))
        .collect::<Result<Vec<_>, _>>()?;
    let md = markdown(c, true);
    let svg = chart(c);
    let page = html::render(&html::Page {
        title: "pavelor compare",
        markdown: &md,
        svgs: &[(CHART.to_string(), svg.clone())],
        nav: &[],
    });
    let json = serde_json::to_string_pretty(c)? + "\n";
    for (path, text) in paths.iter().zip([md, svg, page, json]) {
        atomic_write(path, text.as_bytes()).map_err(|source| WriteError::File {
            path: path.clone(),
            source,
        })?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::text_with_code;

    #[test]
    fn a_difference_keeps_its_code_span_and_nothing_else() {
        assert_eq!(
            text_with_code("library `x`: BASE SHA-256 ab; NEW SHA-256 cd"),
            "library `x`: BASE SHA-256 ab; NEW SHA-256 cd"
        );
        assert_eq!(
            text_with_code("machine: BASE <img src=x> [l](javascript:y); NEW `a|b`"),
            "machine: BASE \\<img src=x\\> \\[l\\](javascript:y); NEW `a\\|b`"
        );
    }
}
