//! `pavelor kat`: verify the ICCS known-answer-test files.

use std::io;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Args, Subcommand};
use pavelor::{Algorithm, Backend};
use pavelor_kat::format;
use pavelor_kat::suite::KatKind;
use pavelor_kat::verify::check_file;

use crate::output::{errln, outln};

#[derive(Subcommand)]
pub enum KatCommand {
    /// Check the KAT files of one or all instances (PASS n/n per file).
    Verify(VerifyArgs),
    /// Write the four KAT files per instance from scratch (byte-identical to the official ones).
    Gen(GenArgs),
}

#[derive(Args)]
pub struct GenArgs {
    /// Directory to write KAT_*.txt into (created if missing).
    #[arg(long, value_name = "DIR")]
    out: PathBuf,
    /// Only this instance: 512, 768 or 1024 [default: all three].
    #[arg(short = 'a', long = "algorithm", value_name = "A", value_parser = crate::parse_algorithm)]
    algorithm: Option<Algorithm>,
    #[command(flatten)]
    backend: crate::BackendOpt,
    /// Do not write KAT_2_33 (3 x 1 GiB messages to hash per instance).
    #[arg(long)]
    skip_2_33: bool,
}

#[derive(Args)]
pub struct VerifyArgs {
    /// Directory holding the KAT_*.txt files [default: ../shared/kat from the repository root].
    #[arg(long, value_name = "DIR")]
    dir: Option<PathBuf>,
    /// Only this instance: 512, 768 or 1024 [default: all three].
    #[arg(short = 'a', long = "algorithm", value_name = "A", value_parser = crate::parse_algorithm)]
    algorithm: Option<Algorithm>,
    #[command(flatten)]
    backend: crate::BackendOpt,
    /// Also hash the 3 x 1 GiB messages of KAT_2_33 (slow).
    #[arg(long)]
    full: bool,
}

pub fn run(cmd: &KatCommand) -> ExitCode {
    crate::output::finish(match cmd {
        KatCommand::Verify(args) => verify(args),
        KatCommand::Gen(args) => gen_files(args),
    })
}

fn checked_backend(requested: &crate::BackendOpt) -> Result<Backend, ExitCode> {
    requested.resolve().map_err(|e| {
        errln!("{e}");
        ExitCode::FAILURE
    })
}

fn gen_files(args: &GenArgs) -> io::Result<ExitCode> {
    let backend = match checked_backend(&args.backend) {
        Ok(b) => b,
        Err(code) => return Ok(code),
    };
    if let Err(e) = std::fs::create_dir_all(&args.out) {
        errln!("{}: {e}", args.out.display());
        return Ok(ExitCode::FAILURE);
    }
    let algs: Vec<Algorithm> = args
        .algorithm
        .map_or_else(|| Algorithm::ALL.to_vec(), |a| vec![a]);
    // The files are the product: a failing stdout (`| head -1`, /dev/full)
    // does not stop the generation; its first error decides the exit.
    let mut status: io::Result<()> = Ok(());
    let mut say = |line: std::fmt::Arguments<'_>| {
        if status.is_ok() {
            status = crate::output::out_line(line);
        }
    };
    for alg in algs {
        for kind in KatKind::ALL {
            let name = kind.file_name(alg);
            if kind == KatKind::Kat2_33 && args.skip_2_33 {
                say(format_args!("{name}: skipped (--skip-2-33)"));
                continue;
            }
            let bar = crate::output::progress_bar(0, &name);
            let text = pavelor_kat::generate::file_text(kind, alg, backend, &mut |done, total| {
                bar.set_length(total);
                bar.set_position(done);
            });
            bar.finish_and_clear();
            let path = args.out.join(&name);
            let written = match text {
                Ok(text) => {
                    crate::output::atomic_write(&path, text.as_bytes()).map_err(|e| e.to_string())
                }
                Err(e) => Err(e.to_string()),
            };
            match written {
                Ok(()) => say(format_args!("{name}: written to {}", path.display())),
                Err(e) => {
                    errln!("{}: {e}", path.display());
                    return Ok(ExitCode::FAILURE);
                }
            }
        }
    }
    status.map(|()| ExitCode::SUCCESS)
}

/// The default KAT directory: `../shared/kat` from the current directory if
/// it exists there (the repository root), else relative to the repository
/// this binary was built from.
pub fn default_dir() -> PathBuf {
    let cwd = PathBuf::from("../shared/kat");
    if cwd.is_dir() {
        return cwd;
    }
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/kat")
}

fn verify(args: &VerifyArgs) -> io::Result<ExitCode> {
    let backend = match checked_backend(&args.backend) {
        Ok(b) => b,
        Err(code) => return Ok(code),
    };
    let dir = args.dir.clone().unwrap_or_else(default_dir);
    let algs: Vec<Algorithm> = args
        .algorithm
        .map_or_else(|| Algorithm::ALL.to_vec(), |a| vec![a]);
    outln!("KAT directory: {} (backend {backend})", dir.display())?;
    let mut ok = true;
    for alg in algs {
        for kind in KatKind::ALL {
            let name = kind.file_name(alg);
            if kind == KatKind::Kat2_33 && !args.full {
                outln!("{name}: skipped (3 x 1 GiB; use --full)")?;
                continue;
            }
            let path = dir.join(&name);
            let text = match std::fs::read(&path) {
                Ok(t) => t,
                Err(e) => {
                    outln!("{name}: FAIL cannot read {}: {e}", path.display())?;
                    ok = false;
                    continue;
                }
            };
            let records = match format::parse(&text) {
                Ok(r) => r,
                Err(e) => {
                    outln!("{name}: FAIL malformed: {e}")?;
                    ok = false;
                    continue;
                }
            };
            let report = check_file(kind, alg, backend, &records, &mut |_, _| {});
            match report.failure {
                None if report.total > 0 => {
                    outln!("{name}: PASS {}/{}", report.passed, report.total)?
                }
                None => {
                    outln!("{name}: FAIL no records")?;
                    ok = false;
                }
                Some(f) => {
                    outln!(
                        "{name}: FAIL {}/{}: first failing {f}",
                        report.passed,
                        report.total
                    )?;
                    ok = false;
                }
            }
        }
    }
    Ok(if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}
