//! The terminal form of a `pavelor bench --sweep` run: per instance the
//! eBASH columns, the measured steps beside one Paff, and a character
//! chart of 0–4096 bytes.

use std::fmt::Write as _;

use pavelor::Algorithm;
use pavelor_sweep::stats::Quartiles;
use pavelor_sweep::{STEP_TOLERANCE, plan};

use super::sweep::{SweepOutput, SweepRow};

/// Columns of the chart (64 bytes each).
const CHART_COLUMNS: usize = 64;
/// Rows of the chart.
const CHART_ROWS: usize = 12;
/// The mark of each implementation's line, in row order.
const MARKS: [char; 6] = ['*', 'o', '+', 'x', '#', '@'];

/// The whole run as text.
pub fn render_sweep_text(out: &SweepOutput) -> String {
    let mut s = String::new();
    let u = short(out.unit);
    let _ = writeln!(
        s,
        "counter: {}{}",
        out.unit,
        out.counter_note
            .as_ref()
            .map_or(String::new(), |n| format!(" ({n})"))
    );
    let plan = out.rows.first().map(|r| &r.curve.plan);
    let _ = writeln!(
        s,
        "length sweep, the eBASH method: {}; {} passes over all lengths, {} back-to-back samples of one call each per length and pass; random messages (ICCS DRNG, seed {}); median (Q1–Q3) of the samples; each sample includes one counter read ({} {u}, the median of back-to-back reads)",
        if out.quick {
            "a sparse subset of the lengths (every block boundary up to 4096 B and the 4 lengths on each side, the columns, the long lengths)"
        } else {
            "every length 0–4096 B, then 4096 + k·1008 B up to 65536 B"
        },
        plan.map_or(0, |p| p.passes),
        plan.map_or(0, |p| p.per_pass),
        out.seed,
        out.rows.first().map_or(0, |r| r.curve.read_overhead),
    );
    for alg in Algorithm::ALL {
        let rows: Vec<&SweepRow> = out.rows.iter().filter(|r| r.alg == alg).collect();
        if rows.is_empty() {
            continue;
        }
        let _ = writeln!(s, "\n{alg} (one Paff per {} B block)", alg.rate_len());
        columns_table(&mut s, &rows, u);
        for r in &rows {
            steps_line(&mut s, r, u);
        }
        chart(&mut s, &rows, alg, u);
    }
    s
}

fn columns_table(s: &mut String, rows: &[&SweepRow], u: &str) {
    let width = rows
        .iter()
        .map(|r| r.name.len())
        .max()
        .unwrap_or(10)
        .max(14);
    let mut header = format!("  {:<width$} {:>10}", "implementation", "long");
    for c in plan::COLUMNS {
        let _ = write!(header, " {:>21}", format!("{c} B"));
    }
    let _ = writeln!(s, "{header}   ({u} per byte: median (Q1–Q3))");
    for r in rows {
        let mut line = format!(
            "  {:<width$} {:>10}",
            r.name,
            r.summary
                .long
                .map_or("-".into(), |l| format!("{:.3}", l.per_byte))
        );
        for c in plan::COLUMNS {
            let cell = r
                .summary
                .columns
                .iter()
                .find(|q| q.0 == c)
                .map_or("-".into(), |(_, q)| quartile_cell(*q));
            let _ = write!(line, " {cell:>21}");
        }
        let _ = writeln!(s, "{line}");
    }
    if let Some(l) = rows.iter().find_map(|r| r.summary.long) {
        let _ = writeln!(
            s,
            "  long: the least-squares slope of the medians over the {} lengths {}–{} B",
            l.points, l.from, l.to
        );
    }
}

fn quartile_cell(q: Quartiles) -> String {
    format!("{:.3} ({:.3}–{:.3})", q.median, q.q1, q.q3)
}

fn steps_line(s: &mut String, r: &SweepRow, u: &str) {
    let heights: Vec<f64> = r.summary.steps.iter().map(|st| st.height()).collect();
    let (Some(median), Some(lo), Some(hi)) = (
        r.summary.median_step(),
        heights.iter().copied().reduce(f64::min),
        heights.iter().copied().reduce(f64::max),
    ) else {
        let _ = writeln!(s, "  {}: no block boundary measured", r.name);
        return;
    };
    let paff = r
        .summary
        .paff_at_64k
        .map_or("not measured".to_string(), |p| format!("{p:.0} {u}"));
    let verdict = match r.summary.steps_agree() {
        Some(agree) => format!(
            "the median step is {} {:.0}% of it: {}; {} of {} steps further than that",
            if agree { "within" } else { "further than" },
            100.0 * STEP_TOLERANCE,
            if agree { "AGREE" } else { "DISAGREE" },
            r.summary.steps_off(),
            heights.len(),
        ),
        None => "not compared".to_string(),
    };
    let _ = writeln!(
        s,
        "  {}: step at the {} block boundaries up to 4096 B (median of the 4 lengths from the boundary up, minus that of the 4 below): median {median:.0} {u} ({lo:.0}–{hi:.0}); one Paff at 64 KiB: {paff}; {verdict}",
        r.name,
        heights.len(),
    );
}

/// A character chart of the medians over 0–4096 bytes, one mark per
/// implementation, the block boundaries marked under it.
fn chart(s: &mut String, rows: &[&SweepRow], alg: Algorithm, u: &str) {
    // 0–4095 in equal columns, 4096 with the last.
    let bin = plan::DENSE_TO / CHART_COLUMNS;
    let column = |n: usize| (n / bin).min(CHART_COLUMNS - 1);
    let lines: Vec<Vec<Option<f64>>> = rows
        .iter()
        .map(|r| {
            (0..CHART_COLUMNS)
                .map(|c| {
                    let mut m: Vec<f64> = r
                        .summary
                        .quartiles
                        .iter()
                        .filter(|(n, _)| *n <= plan::DENSE_TO && column(*n) == c)
                        .map(|(_, q)| q.median)
                        .collect();
                    m.sort_by(f64::total_cmp);
                    (!m.is_empty()).then(|| m[m.len() / 2])
                })
                .collect()
        })
        .collect();
    let top = lines
        .iter()
        .flatten()
        .flatten()
        .copied()
        .fold(0.0, f64::max);
    if top <= 0.0 {
        return;
    }
    let _ = writeln!(
        s,
        "  {u} per call, 0–4096 B ({bin} B per column; {}):",
        rows.iter()
            .zip(MARKS.iter().cycle())
            .map(|(r, m)| format!("{m} {}", r.name))
            .collect::<Vec<_>>()
            .join(", ")
    );
    for row in (0..CHART_ROWS).rev() {
        let mut line = if row == CHART_ROWS - 1 {
            format!("  {top:>8.0} |")
        } else {
            format!("  {:>8} |", "")
        };
        for c in 0..CHART_COLUMNS {
            let mark = lines.iter().zip(MARKS.iter().cycle()).find_map(|(l, m)| {
                l[c].filter(|v| {
                    let cell = (v / top * CHART_ROWS as f64).floor() as usize;
                    cell.min(CHART_ROWS - 1) == row
                })
                .map(|_| *m)
            });
            line.push(mark.unwrap_or(' '));
        }
        let _ = writeln!(s, "{line}");
    }
    let mut axis = format!("  {:>8} +", 0);
    for c in 0..CHART_COLUMNS {
        let boundary = (1..=plan::DENSE_TO)
            .filter(|n| n % alg.rate_len() == 0)
            .any(|n| column(n) == c);
        axis.push(if boundary { '|' } else { '-' });
    }
    let _ = writeln!(s, "{axis}  (| : a column with a block boundary)");
    let _ = writeln!(
        s,
        "  {:>8}  0{:>width$}",
        "",
        "4096 B",
        width = CHART_COLUMNS
    );
}

fn short(unit: &str) -> &str {
    unit.split_whitespace().next().unwrap_or(unit)
}
