//! `pavelor kat`: verify the ICCS known-answer-test files.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Subcommand};
use pavelor::{Algorithm, Backend};
use pavelor_kat::official;
use pavelor_kat::suite::KatKind;

#[derive(Subcommand)]
pub enum KatCommand {
    /// Check the implementation against the official KAT answers (built in) or KAT files (--dir); PASS n/n per file.
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
    /// Backend: portable or aesni [default: the fastest this CPU runs].
    #[arg(long, value_name = "NAME", env = "PAVELOR_BACKEND", value_parser = crate::parse_backend)]
    backend: Option<Backend>,
    /// Do not write KAT_2_33 (3 x 1 GiB messages to hash per instance).
    #[arg(long)]
    skip_2_33: bool,
}

#[derive(Args)]
pub struct VerifyArgs {
    /// Check the KAT_*.txt files in DIR, strictly (record count and order, every
    /// Msg, Dst and header), against the embedded official answers [default: check
    /// the implementation against the embedded answers, no files needed].
    #[arg(long, value_name = "DIR")]
    dir: Option<PathBuf>,
    /// Only this instance: 512, 768 or 1024 [default: all three].
    #[arg(short = 'a', long = "algorithm", value_name = "A", value_parser = crate::parse_algorithm)]
    algorithm: Option<Algorithm>,
    /// Backend: portable or aesni [default: the fastest this CPU runs].
    #[arg(long, value_name = "NAME", env = "PAVELOR_BACKEND", value_parser = crate::parse_backend)]
    backend: Option<Backend>,
    /// Also hash the 3 x 1 GiB messages of KAT_2_33 (slow).
    #[arg(long)]
    full: bool,
}

pub fn run(cmd: &KatCommand) -> ExitCode {
    match cmd {
        KatCommand::Verify(args) => verify(args),
        KatCommand::Gen(args) => gen_files(args),
    }
}

fn checked_backend(requested: Option<Backend>) -> Result<Backend, ExitCode> {
    match requested {
        None => Ok(Backend::best()),
        Some(b) if b.is_available() => Ok(b),
        Some(b) => {
            eprintln!("pavelor: backend '{b}' is not supported by this CPU");
            Err(ExitCode::FAILURE)
        }
    }
}

fn gen_files(args: &GenArgs) -> ExitCode {
    let backend = match checked_backend(args.backend) {
        Ok(b) => b,
        Err(code) => return code,
    };
    if let Err(e) = std::fs::create_dir_all(&args.out) {
        eprintln!("pavelor: {}: {e}", args.out.display());
        return ExitCode::FAILURE;
    }
    let algs: Vec<Algorithm> = args
        .algorithm
        .map_or_else(|| Algorithm::ALL.to_vec(), |a| vec![a]);
    for alg in algs {
        for kind in KatKind::ALL {
            let name = kind.file_name(alg);
            if kind == KatKind::Kat2_33 && args.skip_2_33 {
                println!("{name}: skipped (--skip-2-33)");
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
                Ok(()) => println!("{name}: written to {}", path.display()),
                Err(e) => {
                    eprintln!("pavelor: {}: {e}", path.display());
                    return ExitCode::FAILURE;
                }
            }
        }
    }
    ExitCode::SUCCESS
}

fn verify(args: &VerifyArgs) -> ExitCode {
    let backend = match checked_backend(args.backend) {
        Ok(b) => b,
        Err(code) => return code,
    };
    let algs: Vec<Algorithm> = args
        .algorithm
        .map_or_else(|| Algorithm::ALL.to_vec(), |a| vec![a]);
    match &args.dir {
        Some(dir) => println!(
            "KAT directory: {} (strict check against the embedded official answers; backend {backend})",
            dir.display()
        ),
        None => println!(
            "KAT answers: embedded official answers of the 12 ICCS files (backend {backend}; --dir DIR checks files)"
        ),
    }
    let mut ok = true;
    for alg in algs {
        for kind in KatKind::ALL {
            let name = kind.file_name(alg);
            if kind == KatKind::Kat2_33 && !args.full {
                println!("{name}: skipped (3 x 1 GiB; use --full)");
                continue;
            }
            let mut imp = backend;
            let report = match &args.dir {
                Some(dir) => {
                    official::check_file(&mut imp, alg, kind, &dir.join(&name), &mut |_, _| {})
                }
                None => official::check_embedded(&mut imp, alg, kind, &mut |_, _| {}),
            };
            println!("{report}");
            ok &= report.is_pass();
        }
    }
    if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
