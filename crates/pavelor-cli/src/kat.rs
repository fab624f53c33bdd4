//! `pavelor kat`: verify the ICCS known-answer-test files.

use std::io;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Subcommand};
use pavelor::{Algorithm, Available, Backend};
use pavelor_kat::atomic_file::atomic_write;
use pavelor_kat::official;
use pavelor_kat::suite::KatKind;

use crate::terminal::{errln, outln};

#[derive(Subcommand)]
pub(crate) enum KatCommand {
    /// Check the implementation against the official KAT answers (built in) or KAT files (--dir); PASS n/n per file.
    Verify(VerifyArgs),
    /// Write the four KAT files per instance from scratch (byte-identical to the official ones).
    Gen(GenArgs),
}

#[derive(Args)]
pub(crate) struct GenArgs {
    /// Directory to write KAT_*.txt into (created if missing).
    #[arg(long, value_name = "DIR")]
    out: PathBuf,
    /// Only this instance: 512, 768 or 1024 [default: all three].
    #[arg(short = 'a', long = "algorithm", value_name = "A", value_parser = crate::options::parse_algorithm)]
    algorithm: Option<Algorithm>,
    #[command(flatten)]
    backend: crate::options::BackendOpt,
    /// Do not write KAT_2_33 (3 x 1 GiB messages to hash per instance).
    #[arg(long)]
    skip_2_33: bool,
}

#[derive(Args)]
pub(crate) struct VerifyArgs {
    /// Check the KAT_*.txt files in DIR, strictly (record count and order, every
    /// Msg, Dst and header), against the embedded official answers [default: check
    /// the implementation against the embedded answers, no files needed].
    #[arg(long, value_name = "DIR")]
    dir: Option<PathBuf>,
    /// Only this instance: 512, 768 or 1024 [default: all three].
    #[arg(short = 'a', long = "algorithm", value_name = "A", value_parser = crate::options::parse_algorithm)]
    algorithm: Option<Algorithm>,
    #[command(flatten)]
    backend: crate::options::BackendOpt,
    /// Also hash the 3 x 1 GiB messages of KAT_2_33 (slow).
    #[arg(long)]
    full: bool,
}

/// Runs `pavelor kat`; `env_backend` is the parsed `$PAVELOR_BACKEND`,
/// the choice when `--backend` is not given.
pub(crate) fn run(cmd: &KatCommand, env_backend: Option<Backend>) -> ExitCode {
    let requested = match cmd {
        KatCommand::Verify(args) => &args.backend,
        KatCommand::Gen(args) => &args.backend,
    };
    let backend = match requested.resolve(env_backend) {
        Ok(b) => b,
        Err(e) => {
            errln!("{e}");
            return ExitCode::FAILURE;
        }
    };
    crate::terminal::finish(match cmd {
        KatCommand::Verify(args) => verify(args, backend),
        KatCommand::Gen(args) => gen_files(args, backend),
    })
}

fn gen_files(args: &GenArgs, backend: Available) -> io::Result<ExitCode> {
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
            status = crate::terminal::out_line(line);
        }
    };
    for alg in algs {
        for kind in KatKind::ALL {
            let name = kind.file_name(alg);
            if kind == KatKind::Kat2_33 && args.skip_2_33 {
                say(format_args!("{name}: skipped (--skip-2-33)"));
                continue;
            }
            let bar = crate::terminal::progress_bar(0, &name);
            let text = pavelor_kat::generate::file_text(kind, alg, backend, &mut |done, total| {
                bar.set_length(total);
                bar.set_position(done);
            });
            bar.finish_and_clear();
            let path = args.out.join(&name);
            let written = match text {
                Ok(text) => atomic_write(&path, text.as_bytes()).map_err(|e| e.to_string()),
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

fn verify(args: &VerifyArgs, backend: Available) -> io::Result<ExitCode> {
    let algs: Vec<Algorithm> = args
        .algorithm
        .map_or_else(|| Algorithm::ALL.to_vec(), |a| vec![a]);
    match &args.dir {
        Some(dir) => outln!(
            "KAT directory: {} (strict check against the embedded official answers; backend {backend})",
            dir.display()
        )?,
        None => outln!(
            "KAT answers: embedded official answers of the 12 ICCS files (backend {backend}; --dir DIR checks files)"
        )?,
    }
    let mut ok = true;
    for alg in algs {
        for kind in KatKind::ALL {
            let name = kind.file_name(alg);
            if kind == KatKind::Kat2_33 && !args.full {
                outln!("{name}: skipped (3 x 1 GiB; use --full)")?;
                continue;
            }
            let mut imp = backend;
            let report = match &args.dir {
                Some(dir) => {
                    official::check_file(&mut imp, alg, kind, &dir.join(&name), &mut |_, _| {})
                }
                None => official::check_embedded(&mut imp, alg, kind, &mut |_, _| {}),
            };
            outln!("{report}")?;
            ok &= report.is_pass();
        }
    }
    Ok(if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}
