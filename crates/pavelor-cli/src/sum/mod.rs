//! `pavelor sum`: print or check Pavelor digests, in the formats of GNU
//! `sha512sum` (plain `HEX  NAME` lines, or BSD-style `--tag` lines).
//!
//! The modules, each using only those listed before it:
//!
//! * `args`: the command line ([`SumArgs`]);
//! * `names`: `-` for standard input, and file names as bytes;
//! * `lines`: the sums-file line format, self-contained (std, `hex` and
//!   `pavelor::Algorithm`) so that the fuzz target in `fuzz/` can include
//!   the very same file;
//! * `writer`: standard output, remembering whether anything was written;
//! * `parallel`: many files at once, on worker threads with multi-lane
//!   hashing;
//! * `overlap`: one large input, read on a second thread while this one
//!   hashes;
//! * `session`: the state of one run, and hashing inputs with it;
//! * the three modes: `print` (digests of files), `check` (`--check`) and
//!   `hex_message` (`--hex`).

use std::io::Write;
use std::process::ExitCode;

use pavelor::Backend;

use crate::std_fds::{self, StdFd, ebadf};
use crate::terminal::{self, report};

mod args;
mod check;
mod hex_message;
mod lines;
mod names;
mod overlap;
mod parallel;
mod print;
mod session;
mod writer;

pub(crate) use args::SumArgs;

/// Runs `pavelor sum`; `env_backend` is the parsed `$PAVELOR_BACKEND`, the
/// choice when `--backend` is not given.
pub(crate) fn run(args: &SumArgs, env_backend: Option<Backend>) -> ExitCode {
    // Bare digests cannot be told apart: one input only (a usage error,
    // before anything is read).
    if args.raw && args.files.len() > 1 {
        report(format_args!(
            "--raw writes the digest of one input, but {} FILEs were given",
            args.files.len()
        ));
        return ExitCode::from(2);
    }
    let backend = match args.hash.backend.resolve(env_backend) {
        Ok(b) => b,
        Err(e) => {
            report(format_args!("{e}"));
            return ExitCode::FAILURE;
        }
    };
    let mut ctx = session::Ctx::new(
        writer::Tracked::stdout(),
        backend,
        args.jobs,
        std_fds::was_closed(StdFd::In),
    );
    let result = if let Some(hex) = &args.hex {
        ctx.hex_mode(args, hex)
    } else if args.check {
        ctx.check_mode(args)
    } else {
        ctx.print_mode(args)
    };
    terminal::finish(result.and_then(|ok| {
        ctx.out.flush()?;
        // Output into a stdout that was closed at start is lost: an error.
        if ctx.out.wrote() && std_fds::was_closed(StdFd::Out) {
            return Err(ebadf());
        }
        Ok(if ok {
            ExitCode::SUCCESS
        } else {
            ExitCode::FAILURE
        })
    }))
}
