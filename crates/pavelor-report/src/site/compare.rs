//! The cross-system page: each Pavelor instance at each message length on
//! every system side by side (per byte, MB/s, × pseudoXOF), each row with
//! its implementation, counter and source, and a chart per instance of
//! every system's line (a NICCS dataset's dashed).

use std::fmt::Write as _;

use pavelor::Algorithm;

use crate::config::SIZES;
use crate::sections::baselines::size_name;
use pavelor_pages::html::{markdown_dest, markdown_literal};
use pavelor_pages::svg_chart::{self, Series, Style};

use super::System;
use super::system::{Line, Source};

/// The chart file of an instance on the cross-system page.
pub fn chart_name(alg: Algorithm) -> String {
    format!("compare-{}.svg", alg.name().to_ascii_lowercase())
}

/// The y-axis unit of a chart of `units`: their common unit, or all of
/// them by name (each line's legend gives its own).
fn common_unit(units: &[&'static str]) -> String {
    let mut u: Vec<&str> = units.to_vec();
    u.sort_unstable();
    u.dedup();
    match u.as_slice() {
        [one] => (*one).to_string(),
        many => format!("{} (each line in its own)", many.join(" or ")),
    }
}

/// The page's Markdown and its charts (file name, SVG).
pub fn page(systems: &[System]) -> (String, Vec<(String, String)>) {
    let mut s = String::from("[Performance measurements](index.html) › every system\n\n");
    let _ = writeln!(s, "# Pavelor on every system\n");
    let _ = writeln!(
        s,
        "Each system's figures are those of its NICCS page: a pavelor run's subject, or the records of a dataset the NICCS harness published (measured by the harness, not by pavelor). Each is in the counter its system had: core cycles where the machine has a cycle counter, else TSC ticks, which are not cycles. Figures from different counters, machines and implementations compare the setups, not the hash; MB/s is wall time and compares directly. × pseudoXOF divides a figure by the same system's `pseudoXOF` of the same output width at the same message length, where that system measured it.\n"
    );
    let _ = writeln!(
        s,
        "| system | processor | counter | implementation | source |\n|---|---|---|---|---|"
    );
    for sys in systems {
        let implementation = sys
            .line(Algorithm::Pavelor512)
            .map_or_else(|| "–".to_string(), |l| l.implementation);
        let _ = writeln!(
            s,
            "| [{}]({}/index.html) | {} | {} | {implementation} | {} |",
            markdown_literal(&sys.id),
            markdown_dest(&sys.id),
            sys.processor(),
            sys.unit(),
            sys.source().words(),
        );
    }
    let units: Vec<&'static str> = systems.iter().map(System::unit).collect();
    let mut charts = Vec::new();
    for alg in Algorithm::ALL {
        let _ = writeln!(s, "\n## {alg}\n");
        let name = chart_name(alg);
        // Each system's line of this instance, made once.
        let lines: Vec<Option<Line>> = systems.iter().map(|sys| sys.line(alg)).collect();
        let series: Vec<Series> = systems
            .iter()
            .zip(&lines)
            .filter_map(|(sys, line)| {
                let line = line.as_ref()?;
                let points: Vec<(f64, f64)> = line
                    .points
                    .iter()
                    .map(|p| (p.size as f64, p.per_byte))
                    .collect();
                let (label, style) = match line.source {
                    Source::Pavelor => (format!("{} ({})", sys.id, line.unit), Style::Solid),
                    Source::Niccs => (
                        format!("{} ({}, {}, NICCS)", sys.id, line.unit, line.implementation),
                        Style::Dashed,
                    ),
                };
                (!points.is_empty()).then_some(Series {
                    label,
                    points,
                    style,
                })
            })
            .collect();
        let unit = common_unit(&units);
        let svg = svg_chart::render(
            &format!("{alg}: {unit} per byte on every system"),
            &unit,
            &series,
            &[],
            None,
        );
        let _ = writeln!(s, "![{alg}: per byte on every system](./{name})\n");
        charts.push((name, svg));
        let _ = writeln!(
            s,
            "| message | system | implementation | source | per byte | unit | MB/s | × pseudoXOF |\n|---|---|---|---|---:|---|---:|---:|"
        );
        for &n in &SIZES {
            for (sys, line) in systems.iter().zip(&lines) {
                let Some((line, p)) = line.as_ref().and_then(|l| Some((l, l.at(n)?))) else {
                    continue;
                };
                let xof = p.times_xof.map_or("–".into(), |r| format!("{r:.2}×"));
                let _ = writeln!(
                    s,
                    "| {} | {} | {} | {} | {} | {} | {:.1} | {xof} |",
                    size_name(n),
                    markdown_literal(&sys.id),
                    line.implementation,
                    line.source.words(),
                    super::index::per_byte(p.per_byte),
                    line.unit,
                    p.mb_per_s
                );
            }
        }
    }
    (s, charts)
}
