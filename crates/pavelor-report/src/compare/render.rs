//! A [`Comparison`] as people and scripts read it: a Markdown table
//! (stdout and `compare.md`), a self-contained `compare.html` with a chart
//! of the ratios and their intervals (`compare-ratios.svg`), and
//! `compare.json`.

use std::fmt::Write as _;
use std::path::Path;

use pavelor_kat::atomic_file::atomic_write;

use super::{Comparison, Pair, Quantity, Verdict};
use crate::html::{self, markdown_code, markdown_literal};
use crate::interval::CONFIDENCE;

/// The chart's file name, beside `compare.md`.
pub const CHART: &str = "compare-ratios.svg";

/// The mark of a disturbed figure, as the report's tables have it.
const DISTURBED: &str = "†";

fn value(q: Quantity, v: f64) -> String {
    match q {
        Quantity::Cycles => format!("{v:.0}"),
        Quantity::Time if v >= 1e-3 => format!("{:.3} ms", v * 1e3),
        Quantity::Time => format!("{:.3} µs", v * 1e6),
    }
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
    let _ = writeln!(
        s,
        "Each ratio is NEW/BASE of the mean {} over a figure's trials (below 1: NEW is faster), with its {:.0}% confidence interval: Welch's interval on the log scale, from the trials of both runs (docs/compare.md). A verdict is *faster* or *slower* only when the interval excludes 1. {DISTURBED} marks a figure with a trial that was still disturbed after its reruns.\n",
        c.quantity.label(),
        CONFIDENCE * 100.0
    );
    let (faster, slower, same, few) = c.counts();
    let _ = writeln!(
        s,
        "**{} figures compared: {faster} faster, {slower} slower, {same} with no significant difference{}.**\n",
        c.pairs.len(),
        if few > 0 {
            format!(", {few} with too few trials")
        } else {
            String::new()
        }
    );
    if chart && !c.pairs.is_empty() {
        let _ = writeln!(s, "![NEW/BASE with 95% intervals]({CHART})\n");
    }
    if !c.pairs.is_empty() {
        let _ = writeln!(
            s,
            "| implementation | length | BASE mean | NEW mean | NEW/BASE | {:.0}% interval | trials | verdict |",
            CONFIDENCE * 100.0
        );
        let _ = writeln!(s, "|---|---:|---:|---:|---:|---:|---:|---|");
        for p in &c.pairs {
            let (ratio, interval) = match p.interval {
                Some(i) => (
                    format!("{:.3}", i.ratio),
                    format!("{:.3} – {:.3}", i.low, i.high),
                ),
                None => (format!("{:.3}", p.new.mean / p.base.mean), "–".to_string()),
            };
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
    s
}

/// The chart: one row per pair, the ratio as a dot and its interval as a
/// bar on a logarithmic axis, with a line at 1 (no change).
pub fn chart(c: &Comparison) -> String {
    let rows = c.pairs.len().max(1) as f64;
    let (left, right, top, row_h) = (330.0, 40.0, 50.0, 22.0);
    let w = 980.0;
    let h = top + rows * row_h + 50.0;
    let (mut lo, mut hi) = (1.0f64, 1.0f64);
    for p in &c.pairs {
        let (a, b) = p
            .interval
            .map_or((p.new.mean / p.base.mean, p.new.mean / p.base.mean), |i| {
                (i.low, i.high)
            });
        if a.is_finite() && a > 0.0 {
            lo = lo.min(a);
        }
        if b.is_finite() && b > 0.0 {
            hi = hi.max(b);
        }
    }
    let (l0, l1) = ((lo / 1.1).log2(), (hi * 1.1).log2());
    let pw = w - left - right;
    let px = |r: f64| left + (r.log2() - l0) / (l1 - l0) * pw;
    let mut svg = String::new();
    let _ = writeln!(
        svg,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}" font-family="DejaVu Sans, Helvetica, Arial, sans-serif" font-size="12">"#
    );
    let _ = writeln!(svg, r#"<rect width="{w}" height="{h}" fill="white"/>"#);
    let _ = writeln!(
        svg,
        r#"<text x="{}" y="22" font-size="15" text-anchor="middle">NEW/BASE, {} ({:.0}% intervals; below 1 is faster)</text>"#,
        w / 2.0,
        c.quantity.label(),
        CONFIDENCE * 100.0
    );
    let bottom = top + rows * row_h;
    // Ticks at the round ratios inside the range.
    for t in [
        0.25, 0.5, 0.67, 0.8, 0.9, 1.0, 1.1, 1.25, 1.5, 2.0, 3.0, 4.0,
    ] {
        if t < lo / 1.1 || t > hi * 1.1 {
            continue;
        }
        let x = px(t);
        let (stroke, width) = if t == 1.0 {
            ("#444", 1.5)
        } else {
            ("#ddd", 1.0)
        };
        let _ = writeln!(
            svg,
            r#"<line x1="{x:.1}" x2="{x:.1}" y1="{top}" y2="{bottom}" stroke="{stroke}" stroke-width="{width}"/>"#
        );
        let _ = writeln!(
            svg,
            r#"<text x="{x:.1}" y="{}" text-anchor="middle">{t}</text>"#,
            bottom + 16.0
        );
    }
    for (k, p) in c.pairs.iter().enumerate() {
        let y = top + (k as f64 + 0.5) * row_h;
        let color = match p.verdict {
            Verdict::Faster => "#1a7f37",
            Verdict::Slower => "#cf222e",
            _ => "#57606a",
        };
        let _ = writeln!(
            svg,
            r#"<text x="{}" y="{:.1}" text-anchor="end">{} {} B{}</text>"#,
            left - 10.0,
            y + 4.0,
            html::escape(&p.name),
            p.size,
            mark(p.disturbed())
        );
        if let Some(i) = p.interval {
            let _ = writeln!(
                svg,
                r#"<line x1="{:.1}" x2="{:.1}" y1="{y:.1}" y2="{y:.1}" stroke="{color}" stroke-width="3"/>"#,
                px(i.low),
                px(i.high)
            );
        }
        let _ = writeln!(
            svg,
            r#"<circle cx="{:.1}" cy="{y:.1}" r="4" fill="{color}"/>"#,
            px(p.new.mean / p.base.mean)
        );
    }
    svg.push_str("</svg>\n");
    svg
}

/// Writes `compare.md`, `compare-ratios.svg`, `compare.html` and
/// `compare.json` into `dir` (created if needed), each file whole or not
/// at all.
pub fn write(dir: &Path, c: &Comparison) -> Result<(), String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let md = markdown(c, true);
    let svg = chart(c);
    let page = html::render(&html::Page {
        title: "pavelor compare",
        markdown: &md,
        svgs: &[(CHART.to_string(), svg.clone())],
        nav: &[],
    });
    let json = serde_json::to_string_pretty(c).map_err(|e| e.to_string())? + "\n";
    for (name, text) in [
        ("compare.md", md.as_str()),
        (CHART, svg.as_str()),
        ("compare.html", page.as_str()),
        ("compare.json", json.as_str()),
    ] {
        let path = dir.join(name);
        atomic_write(&path, text.as_bytes()).map_err(|e| format!("{}: {e}", path.display()))?;
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
