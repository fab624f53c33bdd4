//! `pavelor compare BASE NEW`: is NEW faster than BASE, figure by figure,
//! with 95% intervals.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;

use crate::terminal::{errln, out_text};

/// `pavelor compare BASE NEW [--out DIR] [--fail-above PCT]`.
#[derive(Args)]
pub struct CompareArgs {
    /// The baseline report directory (`pavelor report --out DIR`); it must pass `pavelor report --check`.
    #[arg(value_name = "BASE")]
    base: PathBuf,
    /// The report directory compared with BASE; it must pass `pavelor report --check` too.
    #[arg(value_name = "NEW")]
    new: PathBuf,
    /// Also write compare.md, compare.html (with a chart of the ratios and their intervals), compare-ratios.svg and compare.json into DIR.
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// Exit 1 when a figure of NEW is slower than BASE's by more than PCT percent and its 95% interval excludes no change.
    #[arg(long, value_name = "PCT", value_parser = parse_pct)]
    fail_above: Option<f64>,
    #[command(flatten)]
    limits: crate::options::EvidenceLimits,
}

fn parse_pct(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(v) if v.is_finite() && v >= 0.0 => Ok(v),
        _ => Err(format!("{s:?} is not a percentage (a number, 0 or more)")),
    }
}

/// Exit status when a directory is refused (1 is kept for `--fail-above`).
const REFUSED: u8 = 2;

/// Compares, prints the table, writes the files and applies the gate.
pub fn run(args: &CompareArgs) -> ExitCode {
    if let Some(out) = &args.out
        && out.exists()
        && !out.is_dir()
    {
        errln!(
            "compare: --out {}: exists and is not a directory",
            out.display()
        );
        return ExitCode::from(REFUSED);
    }
    let c =
        match pavelor_report::compare::compare_dirs(&args.base, &args.new, &args.limits.limits()) {
            Ok(c) => c,
            Err(e) => {
                errln!("compare: {e}");
                return ExitCode::from(REFUSED);
            }
        };
    if let Err(e) = out_text(&pavelor_report::compare::render::markdown(&c, false)) {
        return crate::terminal::finish(Err(e));
    }
    if let Some(out) = &args.out
        && let Err(e) = pavelor_report::compare::render::write(out, &c)
    {
        errln!("compare: {e}");
        return ExitCode::FAILURE;
    }
    if let Some(pct) = args.fail_above {
        let slow = c.regressions(pct);
        if !slow.is_empty() {
            let names: Vec<String> = slow
                .iter()
                .map(|p| {
                    format!(
                        "{} at {} B ({:.2}x{})",
                        p.name,
                        p.size,
                        p.interval.map_or(f64::NAN, |i| i.ratio),
                        if p.disturbed() { ", disturbed" } else { "" }
                    )
                })
                .collect();
            errln!(
                "compare: {} figure(s) slower by more than {pct}% with an interval excluding no change: {}",
                slow.len(),
                names.join("; ")
            );
            return ExitCode::FAILURE;
        }
    }
    ExitCode::SUCCESS
}
