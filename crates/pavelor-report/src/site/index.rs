//! The site's index: every system with what it measured at a glance (one
//! headline figure, Pavelor-512 at 64 KiB, and who measured it), a small
//! chart of that figure across the systems, and the links to each
//! system's pages.

use std::fmt::Write as _;

use pavelor::Algorithm;

use super::System;
use super::pages::{CANDIDATE_PAGE, COMPARE_PAGE, METHOD_PAGE, REPORT_PAGE, SUMMARY_PAGE};
use super::system::{Kind, Line, Point, Source};
use pavelor_measure::library::audit::AuditVerdict;
use pavelor_pages::html::{markdown_code, markdown_dest, markdown_literal};
use pavelor_pages::plot::{Anchor, Px, Svg};

/// The chart's file name (inlined into the page).
pub const CHART: &str = "index-headline.svg";

/// The headline: this instance at this length.
const HEADLINE_ALG: Algorithm = Algorithm::Pavelor512;
const HEADLINE_SIZE: usize = 65536;

/// A system's headline figure: Pavelor-512 at 64 KiB, or at the longest
/// length the system measured when it did not measure 64 KiB.
pub fn headline(sys: &System) -> Option<(Line, Point)> {
    let line = sys.line(HEADLINE_ALG)?;
    let point = line
        .at(HEADLINE_SIZE)
        .or_else(|| line.points.iter().max_by_key(|p| p.size))
        .copied()?;
    Some((line, point))
}

/// A per-byte figure to four significant digits, and at least one decimal:
/// `0.9052`, `5.375`, `12.43`, `187.5`, `1151.6`.
pub fn per_byte(x: f64) -> String {
    if x < 1.0 {
        format!("{x:.4}")
    } else if x < 10.0 {
        format!("{x:.3}")
    } else if x < 100.0 {
        format!("{x:.2}")
    } else {
        format!("{x:.1}")
    }
}

fn length(size: usize) -> String {
    crate::sections::baselines::size_name(size)
}

/// The page's Markdown and its chart.
pub fn page(systems: &[System]) -> (String, String) {
    let mut s = String::from("# Pavelor performance measurements\n\n");
    let ours = systems
        .iter()
        .filter(|s| matches!(s.kind, Kind::Report { .. }))
        .count();
    let _ = writeln!(
        s,
        "{} system(s): {ours} run(s) of `pavelor report`, each checked by `pavelor report --check` before it was put here, and {} dataset(s) the NICCS harness published, each checked by the harness validator's rules. [Every system side by side]({COMPARE_PAGE}).\n",
        systems.len(),
        systems.len() - ours
    );
    let _ = writeln!(
        s,
        "The headline is {HEADLINE_ALG} at {}: per byte in the system's own counter (cycles and TSC ticks are different units), and MB/s of wall time, which compares across systems.\n",
        length(HEADLINE_SIZE)
    );
    let _ = writeln!(
        s,
        "| system | processor | counter | measured | {HEADLINE_ALG}, {} | implementation | constant-time audit | pages |\n|---|---|---|---|---|---|---|---|",
        length(HEADLINE_SIZE)
    );
    let mut bars = Vec::new();
    for sys in systems {
        let (start, end) = sys.dates();
        let (figure, implementation) = match headline(sys) {
            Some((line, p)) => {
                let at = if p.size == HEADLINE_SIZE {
                    String::new()
                } else {
                    format!(" (at {}, the longest measured)", length(p.size))
                };
                bars.push((sys.id.clone(), p.mb_per_s, line.source));
                (
                    format!(
                        "**{} {}/byte**, {:.1} MB/s{at}",
                        per_byte(p.per_byte),
                        line.unit,
                        p.mb_per_s
                    ),
                    format!("{}, {}", line.implementation, line.source.words()),
                )
            }
            None => ("not measured".to_string(), "–".to_string()),
        };
        let dest = markdown_dest(&sys.id);
        let mut pages = format!(
            "[summary]({dest}/{SUMMARY_PAGE}) · [hash-22]({dest}/{CANDIDATE_PAGE}) · [method]({dest}/{METHOD_PAGE})"
        );
        if matches!(sys.kind, Kind::Report { .. }) {
            let _ = write!(pages, " · [report]({dest}/{REPORT_PAGE})");
        }
        let _ = writeln!(
            s,
            "| [{}]({dest}/{SUMMARY_PAGE}) | {} | {} | {start} – {end} | {figure} | {implementation} | {} | {pages} |",
            markdown_literal(&sys.id),
            sys.processor(),
            sys.unit(),
            audit_cell(sys),
        );
    }
    let _ = writeln!(
        s,
        "\n![{HEADLINE_ALG} at {}: MB/s on each system](./{CHART})",
        length(HEADLINE_SIZE)
    );
    let title = format!(
        "{HEADLINE_ALG} at {}: MB/s (wall time) on each system",
        length(HEADLINE_SIZE)
    );
    (s, bar_chart(&title, &bars))
}

/// A system's constant-time audit at a glance: which implementations have
/// findings (or a wrong answer under valgrind), how many have none, how
/// many were not run.
fn audit_cell(sys: &System) -> String {
    let run = match &sys.kind {
        Kind::Harness(_) => return "– (the NICCS harness has none)".into(),
        Kind::Report { run, .. } => run,
    };
    let audits = run.campaign.audits();
    if audits.is_empty() {
        return "not run".into();
    }
    let names = |keep: fn(&AuditVerdict) -> bool| -> Vec<String> {
        audits
            .iter()
            .filter(|(_, a)| keep(&a.verdict))
            .map(|(who, _)| markdown_code(who))
            .collect()
    };
    let findings = names(|v| matches!(v, AuditVerdict::Findings { .. }));
    let wrong = names(|v| matches!(v, AuditVerdict::Wrong { .. }));
    let count =
        |keep: fn(&AuditVerdict) -> bool| audits.iter().filter(|(_, a)| keep(&a.verdict)).count();
    let clean = count(|v| matches!(v, AuditVerdict::Clean { .. }));
    let not_run = count(|v| matches!(v, AuditVerdict::NotRun { .. }));
    let mut parts = Vec::new();
    if !findings.is_empty() {
        parts.push(format!("**findings**: {}", findings.join(", ")));
    }
    if !wrong.is_empty() {
        parts.push(format!("**wrong under valgrind**: {}", wrong.join(", ")));
    }
    if clean > 0 {
        parts.push(format!("no finding in {clean}"));
    }
    if not_run > 0 {
        parts.push(format!("NOT RUN for {not_run}"));
    }
    parts.join("; ")
}

/// The hatching of NICCS's bars.
const NICCS_HATCH: &str = "<pattern id=\"niccs-hatch\" width=\"6\" height=\"6\" patternUnits=\"userSpaceOnUse\" patternTransform=\"rotate(45)\"><rect width=\"6\" height=\"6\" fill=\"#bbbbbb\"/><line x1=\"0\" y1=\"0\" x2=\"0\" y2=\"6\" stroke=\"#777777\" stroke-width=\"2\"/></pattern>";

/// The bars' labels' font.
const FONT: &str = r#" font-family="sans-serif" font-size="12""#;

/// A horizontal bar per system: (label, MB/s, source), on a linear axis
/// from 0. NICCS's bars are hatched grey, pavelor's solid blue.
fn bar_chart(title: &str, bars: &[(String, f64, Source)]) -> String {
    let row = 28.0;
    let (left, right, top) = (150.0, 120.0, 40.0);
    let width = 720.0;
    let height = top + row * bars.len().max(1) as f64 + 30.0;
    let max = bars.iter().map(|b| b.1).fold(0.0f64, f64::max).max(1e-9);
    let span = width - left - right;
    let mut svg = Svg::figure(width, height, title, NICCS_HATCH, left);
    for (i, (label, mbs, source)) in bars.iter().enumerate() {
        let y = top + row * i as f64;
        let w = (span * mbs / max).max(1.0);
        let (fill, who) = match source {
            Source::Pavelor => ("#1f77b4", ""),
            Source::Niccs => ("url(#niccs-hatch)", " (NICCS)"),
        };
        svg.text(
            Px(left - 8.0),
            Px(y + 17.0),
            Anchor::End,
            FONT,
            &format!("{label}{who}"),
        );
        svg.line(format_args!(
            "<rect x=\"{left}\" y=\"{:.1}\" width=\"{w:.1}\" height=\"{:.1}\" fill=\"{fill}\" stroke=\"#333333\" stroke-width=\"0.5\"/>",
            y + 4.0,
            row - 8.0
        ));
        svg.text(
            Px(left + w + 6.0),
            Px(y + 17.0),
            Anchor::Start,
            FONT,
            &format!("{mbs:.1} MB/s"),
        );
    }
    svg.finish()
}
