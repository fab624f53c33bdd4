//! The cross-system page: each Pavelor instance at each message length on
//! every system side by side (per byte, MB/s, × pseudoXOF), with a chart
//! per instance of every system's line.

use std::fmt::Write as _;

use pavelor::Algorithm;

use crate::config::SIZES;
use crate::niccs_dataset::NiccsSubject;
use crate::rows::{Ctx, Row};
use crate::sections::baselines::{size_name, times_xof};
use crate::svg_chart::{self, Series, Style};

use super::System;

/// The chart file of an instance on the cross-system page.
pub fn chart_name(alg: Algorithm) -> String {
    format!("compare-{}.svg", alg.name().to_ascii_lowercase())
}

/// A system's row of `alg`: its NICCS subject's implementation.
fn subject_row<'c, 'a>(sys: &System, ctx: &'c Ctx<'a>, alg: Algorithm) -> Option<&'c Row<'a>> {
    let subject = NiccsSubject::of(&sys.run.config, sys.run.campaign.best_backend).ok()?;
    ctx.rows.iter().find(|r| subject.is(r.subject, alg))
}

/// The y-axis unit of a chart of `systems`: their common unit, or both.
fn common_unit(units: &[&'static str]) -> String {
    let mut u: Vec<&str> = units.to_vec();
    u.dedup();
    if u.len() == 1 {
        u[0].to_string()
    } else {
        "cycles or TSC ticks".to_string()
    }
}

/// The page's Markdown and its charts (file name, SVG).
pub fn page(systems: &[System]) -> (String, Vec<(String, String)>) {
    let ctxs: Vec<Ctx<'_>> = systems
        .iter()
        .map(|s| Ctx::new(&s.run.config, &s.run.campaign))
        .collect();
    let units: Vec<&'static str> = ctxs.iter().map(|c| c.unit).collect();
    let mut s = String::from("[Performance measurements](index.html) › every system\n\n");
    let _ = writeln!(s, "# Pavelor on every system\n");
    let _ = writeln!(
        s,
        "Each system's figures are those of its NICCS page (its run's subject), in the counter that run had: core cycles where the machine has a cycle counter, else TSC ticks, which are not cycles. Figures from different counters and machines compare the implementations only roughly; MB/s is wall time and compares directly. × pseudoXOF divides a figure by the same system's `pseudoXOF` of the same output width at the same message length.\n"
    );
    let _ = writeln!(
        s,
        "| system | processor | counter | implementation |\n|---|---|---|---|"
    );
    for (sys, ctx) in systems.iter().zip(&ctxs) {
        let subject = NiccsSubject::of(&sys.run.config, sys.run.campaign.best_backend)
            .map(|n| n.describe())
            .unwrap_or_else(|e| e);
        let _ = writeln!(
            s,
            "| [{id}]({id}/index.html) | {} | {} | {subject} |",
            sys.run.campaign.environment.cpu_model,
            ctx.unit,
            id = sys.id
        );
    }
    let mut charts = Vec::new();
    for alg in Algorithm::ALL {
        let _ = writeln!(s, "\n## {alg}\n");
        let name = chart_name(alg);
        // Each system's row of this instance, looked up once.
        let rows: Vec<Option<&Row<'_>>> = systems
            .iter()
            .zip(&ctxs)
            .map(|(sys, ctx)| subject_row(sys, ctx, alg))
            .collect();
        let series: Vec<Series> = systems
            .iter()
            .zip(&ctxs)
            .zip(&rows)
            .filter_map(|((sys, ctx), row)| {
                let row = (*row)?;
                let points: Vec<(f64, f64)> = row
                    .measurements
                    .iter()
                    .map(|m| (m.size as f64, m.cycles_per_byte()))
                    .collect();
                (!points.is_empty()).then(|| Series {
                    label: format!("{} ({})", sys.id, ctx.unit),
                    points,
                    style: Style::Solid,
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
            "| message | system | per byte | unit | MB/s | × pseudoXOF |\n|---|---|---:|---|---:|---:|"
        );
        for &n in &SIZES {
            for ((sys, ctx), row) in systems.iter().zip(&ctxs).zip(&rows) {
                let Some((row, m)) = row.and_then(|r| Some((r, r.at(n)?))) else {
                    continue;
                };
                let xof = times_xof(ctx, alg, row, n).map_or("–".into(), |r| format!("{r:.2}×"));
                let _ = writeln!(
                    s,
                    "| {} | {} | {:.2} | {} | {:.1} | {xof} |",
                    size_name(n),
                    sys.id,
                    m.cycles_per_byte(),
                    ctx.unit,
                    m.mb_per_s()
                );
            }
        }
    }
    (s, charts)
}
