//! `pavelor compare BASE NEW`: is NEW faster than BASE, figure by figure,
//! with 95% intervals.

use std::path::{Component, Path, PathBuf};
use std::process::ExitCode;

use clap::Args;

use crate::arg_error::ArgError;
use crate::terminal::{errln, out_text};

/// `pavelor compare BASE NEW [--out DIR] [--fail-above PCT]`.
#[derive(Args)]
pub(crate) struct CompareArgs {
    /// The baseline report directory (`pavelor report --out DIR`); it must pass `pavelor report --check`.
    #[arg(value_name = "BASE")]
    base: PathBuf,
    /// The report directory compared with BASE; it must pass `pavelor report --check` too.
    #[arg(value_name = "NEW")]
    new: PathBuf,
    /// Also write compare.md, compare.html (with a chart of the ratios and their intervals), compare-ratios.svg and compare.json into DIR, which may not be BASE or NEW, inside either, nor contain either.
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// Exit 1 when a figure of NEW is slower than BASE's by more than PCT percent: by its ratio when its 95% interval excludes no change or it has no interval (a figure whose interval contains 1 passes). Also exit 1 when no figure could be gated (none in common, or none with a ratio). Figures left out (only in BASE or NEW, or without a ratio) are named on stderr.
    #[arg(long, value_name = "PCT", value_parser = parse_pct)]
    fail_above: Option<f64>,
    #[command(flatten)]
    limits: crate::options::EvidenceLimits,
}

fn parse_pct(s: &str) -> Result<f64, ArgError> {
    match s.parse::<f64>() {
        Ok(v) if v.is_finite() && v >= 0.0 => Ok(v),
        _ => Err(ArgError::Percentage {
            text: s.to_string(),
        }),
    }
}

/// Exit status when a directory or `--out` is refused (1 is kept for
/// `--fail-above`).
const REFUSED: u8 = 2;

/// Exit status when the gate fails.
const GATE: u8 = 1;

/// Why a path could not be made absolute with its links resolved.
#[derive(Debug, thiserror::Error)]
enum Unresolvable {
    /// The current directory is unknown.
    #[error("the current directory: {0}")]
    CurrentDir(#[source] std::io::Error),
    /// `..` follows a directory that does not exist.
    #[error("{}: name it without `..` after a directory that does not exist", .path.display())]
    DotDotAfterMissing {
        /// The path as given.
        path: PathBuf,
    },
    /// Not even the path's first part exists.
    #[error("{}: no part of it exists", .path.display())]
    NothingExists {
        /// The path as given.
        path: PathBuf,
    },
}

/// Why an `--out` directory is refused.
#[derive(Debug, thiserror::Error)]
enum OutRefused {
    /// `--out` names a file that is not a directory.
    #[error("--out {}: exists and is not a directory", .out.display())]
    NotDirectory {
        /// The `--out` path.
        out: PathBuf,
    },
    /// `--out` could not be resolved.
    #[error("--out {0}")]
    Unresolved(#[source] Unresolvable),
    /// `--out` is an input, inside one, or holds one.
    #[error(
        "--out {}: the output may not be an input ({}), inside one, nor contain one",
        .out.display(),
        .input.display()
    )]
    Overlaps {
        /// The `--out` path.
        out: PathBuf,
        /// The input it overlaps.
        input: PathBuf,
    },
}

/// `path` absolute with every link resolved. A path that does not exist
/// yet is its nearest existing ancestor, resolved, with the rest of its
/// names after it; those must be plain names (no `..`).
fn resolved(path: &Path) -> Result<PathBuf, Unresolvable> {
    let abs = if path.is_absolute() {
        path.to_path_buf()
    } else {
        std::env::current_dir()
            .map_err(Unresolvable::CurrentDir)?
            .join(path)
    };
    let mut rest = Vec::new();
    let mut cur = abs.as_path();
    loop {
        if let Ok(mut c) = cur.canonicalize() {
            c.extend(rest.iter().rev());
            return Ok(c);
        }
        match cur.components().next_back() {
            Some(Component::Normal(name)) => rest.push(name.to_os_string()),
            _ => {
                return Err(Unresolvable::DotDotAfterMissing {
                    path: path.to_path_buf(),
                });
            }
        }
        cur = cur.parent().ok_or_else(|| Unresolvable::NothingExists {
            path: path.to_path_buf(),
        })?;
    }
}

/// Refuses an `--out` that is an input, inside one, or holds one: the
/// comparison's files would change the evidence it read.
fn check_out(out: &Path, inputs: [&Path; 2]) -> Result<(), OutRefused> {
    if out.exists() && !out.is_dir() {
        return Err(OutRefused::NotDirectory {
            out: out.to_path_buf(),
        });
    }
    let target = resolved(out).map_err(OutRefused::Unresolved)?;
    for input in inputs {
        // An input that does not exist is refused when it is read.
        let Ok(input_dir) = input.canonicalize() else {
            continue;
        };
        if target.starts_with(&input_dir) || input_dir.starts_with(&target) {
            return Err(OutRefused::Overlaps {
                out: out.to_path_buf(),
                input: input.to_path_buf(),
            });
        }
    }
    Ok(())
}

/// Compares, prints the table, writes the files and applies the gate.
pub(crate) fn run(args: &CompareArgs) -> ExitCode {
    if let Some(out) = &args.out
        && let Err(e) = check_out(out, [&args.base, &args.new])
    {
        errln!("compare: {e}");
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
    if c.pairs.is_empty() {
        errln!(
            "compare: no figure is in both {} and {}: nothing was compared",
            args.base.display(),
            args.new.display()
        );
    }
    match args.fail_above {
        Some(pct) => gate(&c, pct),
        None => ExitCode::SUCCESS,
    }
}

/// `--fail-above PCT`: names every figure it leaves out, then fails on a
/// figure slower by more than PCT% or when nothing could be gated.
fn gate(c: &pavelor_report::compare::Comparison, pct: f64) -> ExitCode {
    let g = c.gate(pct);
    for e in &g.excluded {
        errln!(
            "compare: --fail-above leaves out {} at {} B: {}",
            e.name,
            e.size,
            e.why
        );
    }
    if g.gated == 0 {
        errln!(
            "compare: --fail-above {pct}: fails, as no figure could be gated ({} in both runs, none with a ratio)",
            c.pairs.len()
        );
        return ExitCode::from(GATE);
    }
    if g.failing.is_empty() {
        return ExitCode::SUCCESS;
    }
    let names: Vec<String> = g
        .failing
        .iter()
        .map(|p| {
            format!(
                "{} at {} B ({}x, {}{})",
                p.name,
                p.size,
                pavelor_report::compare::render::ratio_text(p),
                p.verdict.text(),
                if p.disturbed() { ", disturbed" } else { "" }
            )
        })
        .collect();
    errln!(
        "compare: {} figure(s) slower by more than {pct}%: {}",
        g.failing.len(),
        names.join("; ")
    );
    ExitCode::from(GATE)
}
