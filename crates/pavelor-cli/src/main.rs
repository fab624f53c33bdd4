//! `pavelor`: Pavelor-512/768/1024 digests from the command line, and the
//! ICCS known-answer tests.

use std::process::ExitCode;
use std::sync::OnceLock;

use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};

mod arg_error;
#[cfg(feature = "measure")]
mod bench;
#[cfg(feature = "measure")]
mod compare;
mod kat;
mod manual;
mod options;
#[cfg(feature = "measure")]
mod report;
#[cfg(feature = "measure")]
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
    #[cfg(feature = "measure")]
    /// Throughput of every instance and backend beside SHA-512, SHA3-512, BLAKE2b, BLAKE3 and SM3.
    Bench(bench::BenchArgs),
    #[cfg(feature = "measure")]
    /// Measure this machine and write the NICCS §3.5 report (report.md, report.html, records/, charts).
    Report(Box<report::ReportArgs>),
    #[cfg(feature = "measure")]
    /// Merge report directories from several machines into one static HTML site.
    Site(site::SiteArgs),
    #[cfg(feature = "measure")]
    /// Compare two report directories figure by figure: NEW/BASE with 95% intervals and a verdict.
    Compare(compare::CompareArgs),
    /// Print a shell completion script (bash, zsh, fish, elvish, powershell) on stdout.
    Completions(manual::CompletionsArgs),
    /// Write the man pages (pavelor.1 and one per subcommand) into a directory.
    Manpages(manual::ManpagesArgs),
    #[cfg(feature = "measure")]
    /// Internal: one measurement trial (started by `report`).
    #[command(name = "__trial", hide = true)]
    Trial {
        /// The trial spec (JSON).
        spec: String,
    },
}

impl Command {
    /// Whether the command always prints on stdout, so that a stdout
    /// closed at start is an error before it starts (`sum` checks at its
    /// end, and only if it printed, as GNU does: `sha512sum -c --status >&-`
    /// succeeds).
    fn always_prints(&self) -> bool {
        match self {
            Command::Sum(_) => false,
            #[cfg(feature = "measure")]
            Command::Trial { .. } => false,
            _ => true,
        }
    }

    /// Whether the command writes output files (by temporary file and
    /// rename), whose temporary files an interrupt must not leave behind.
    fn writes_files(&self) -> bool {
        match self {
            Command::Kat(_) => true,
            #[cfg(feature = "measure")]
            Command::Report(_) => true,
            _ => false,
        }
    }
}

/// On SIGINT, remove the hidden temporary files of writes in flight and
/// exit 130 (without a handler the default action would leave them behind;
/// the final names are never partial). The handler is a thread, which
/// only the commands that write files start: `sum` of a small file would
/// pay for it in its start-up time.
fn remove_temp_files_on_interrupt() {
    #[cfg(unix)]
    if let Ok(mut signals) = signal_hook::iterator::Signals::new([signal_hook::consts::SIGINT]) {
        std::thread::spawn(move || {
            if signals.forever().next().is_some() {
                pavelor_kat::atomic_file::remove_temp_files();
                std::process::exit(130);
            }
        });
    }
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
    // a silent success.
    if cli.command.always_prints() && std_fds::was_closed(std_fds::StdFd::Out) {
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
    if cli.command.writes_files() {
        remove_temp_files_on_interrupt();
    }
    match cli.command {
        Command::Sum(args) => sum::run(&args, env_backend),
        Command::Kat(cmd) => kat::run(&cmd, env_backend),
        #[cfg(feature = "measure")]
        Command::Report(args) => report::run(&args),
        #[cfg(feature = "measure")]
        Command::Site(args) => site::run(&args),
        #[cfg(feature = "measure")]
        Command::Compare(args) => compare::run(&args),
        #[cfg(feature = "measure")]
        Command::Bench(args) => bench::run(&args),
        Command::Completions(args) => manual::completions(&args, Cli::command()),
        Command::Manpages(args) => manual::manpages(&args, Cli::command()),
        #[cfg(feature = "measure")]
        Command::Trial { spec } => ExitCode::from(pavelor_measure::worker::main_with(
            &spec,
            &pavelor_sweep::task::answer,
        ) as u8),
    }
}
