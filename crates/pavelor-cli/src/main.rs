//! `pavelor`: Pavelor-512/768/1024 digests from the command line, and the
//! ICCS known-answer tests.

use std::process::ExitCode;
use std::sync::OnceLock;

use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};

mod bench;
mod kat;
mod manual;
mod options;
mod report;
mod site;
mod std_fds;
mod sum;
mod terminal;

#[derive(Parser)]
#[command(
    name = "pavelor",
    version,
    propagate_version = true,
    about = "Pavelor-512/768/1024 (NGCC hash-22): digests and known-answer tests"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

// `defer`: a subcommand's arguments are built only when that subcommand is
// the one invoked, so start-up does not pay for the others' (`report` has
// many).
#[derive(Subcommand)]
#[command(defer = true)]
enum Command {
    /// Print or check Pavelor digests, like sha512sum.
    Sum(sum::SumArgs),
    /// The ICCS known-answer-test files.
    #[command(subcommand)]
    Kat(kat::KatCommand),
    /// Throughput of every instance and backend beside SHA-512, SHA3-512, BLAKE2b, BLAKE3 and SM3.
    Bench(bench::BenchArgs),
    /// Measure this machine and write the NICCS §3.5 report (report.md, report.html, records/, charts).
    Report(Box<report::ReportArgs>),
    /// Merge report directories from several machines into one static HTML site.
    Site(site::SiteArgs),
    /// Print a shell completion script (bash, zsh, fish, elvish, powershell) on stdout.
    Completions(manual::CompletionsArgs),
    /// Write the man pages (pavelor.1 and one per subcommand) into a directory.
    Manpages(manual::ManpagesArgs),
    /// Internal: one measurement trial (started by `report`).
    #[command(name = "__trial", hide = true)]
    Trial {
        /// The trial spec (JSON).
        spec: String,
    },
}

/// `Cli::parse()`, except that the parser (its `Command` tree and the
/// matches) is kept until the process exits instead of being freed first:
/// freeing it is a large part of the time from `main` to the first hashed
/// byte of a small `pavelor sum`, and frees nothing the run needs.
/// Both stay reachable from a static (no leak).
fn parse_args() -> Cli {
    static PARSER: OnceLock<(clap::Command, clap::ArgMatches)> = OnceLock::new();
    let mut command = Cli::command();
    let mut matches = command.get_matches_mut();
    let cli =
        Cli::from_arg_matches_mut(&mut matches).unwrap_or_else(|e| e.format(&mut command).exit());
    let _ = PARSER.set((command, matches));
    cli
}

fn main() -> ExitCode {
    let cli = parse_args();
    // Output into a stdout that was closed at start is lost: an error, not
    // a silent success. These commands always print; `sum` checks at its
    // end, and only if it printed (as GNU does: `sha512sum -c --status >&-`
    // succeeds).
    if matches!(
        cli.command,
        Command::Kat(_)
            | Command::Bench(_)
            | Command::Report(_)
            | Command::Site(_)
            | Command::Completions(_)
            | Command::Manpages(_)
    ) && std_fds::was_closed(std_fds::StdFd::Out)
    {
        terminal::errln!("write error: {}", terminal::io_msg(&std_fds::ebadf()));
        return ExitCode::FAILURE;
    }
    // One rule for $PAVELOR_BACKEND in every subcommand: empty is unset,
    // anything else must name a backend (even where all are measured). It
    // is read here, once; `sum` and `kat` resolve it with their --backend.
    let env_backend = match options::backend_from_env() {
        Ok(b) => b,
        Err(e) => {
            terminal::errln!("{e}");
            return ExitCode::from(2);
        }
    };
    // Ctrl-C: outputs are written by temp file + rename, so the final names
    // are never partial; remove the hidden temp files of writes in flight.
    // (Without a handler the default action would leave them behind.) Only
    // the commands that write files need it: the handler starts a thread,
    // which `sum` of a small file would pay for in its start-up time.
    if matches!(cli.command, Command::Kat(_) | Command::Report(_)) {
        let _ = ctrlc::set_handler(|| {
            pavelor_kat::atomic_file::remove_temp_files();
            std::process::exit(130);
        });
    }
    match cli.command {
        Command::Sum(args) => sum::run(&args, env_backend),
        Command::Kat(cmd) => kat::run(&cmd, env_backend),
        Command::Report(args) => report::run(&args),
        Command::Site(args) => site::run(&args),
        Command::Bench(args) => bench::run(&args),
        Command::Completions(args) => manual::completions(&args, Cli::command()),
        Command::Manpages(args) => manual::manpages(&args, Cli::command()),
        Command::Trial { spec } => {
            ExitCode::from(pavelor_bench::worker::main_with_arg(&spec) as u8)
        }
    }
}
