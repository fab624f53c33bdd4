//! `pavelor`: Pavelor-512/768/1024 digests from the command line, and the
//! ICCS known-answer tests.

use std::process::ExitCode;
use std::sync::OnceLock;

use clap::{Args, CommandFactory, FromArgMatches, Parser, Subcommand};
use pavelor::{Algorithm, Backend};

mod bench;
mod kat;
mod output;
mod report;
mod std_fds;
mod sum;

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
    /// Measure this machine and write the NICCS §3.5 report (report.md, records/, charts).
    Report(Box<report::ReportArgs>),
    /// Internal: one measurement trial (started by `report`).
    #[command(name = "__trial", hide = true)]
    Trial {
        /// The trial spec (JSON).
        spec: String,
    },
}

// Options every hashing command shares. (A plain comment: with `defer`, a
// flattened struct's doc comment would become the subcommand's about.)
#[derive(Args, Clone, Debug)]
pub struct HashOpts {
    /// Instance: 512, 768 or 1024 (or Pavelor-512 ...).
    #[arg(short = 'a', long = "algorithm", value_name = "A", default_value = "512", value_parser = parse_algorithm)]
    pub algorithm: Algorithm,
    #[command(flatten)]
    pub backend: BackendOpt,
}

impl HashOpts {
    /// The backend to use: the one asked for (checked against the CPU) or the best.
    pub fn backend(&self) -> Result<Backend, String> {
        self.backend.resolve()
    }
}

/// The environment variable that chooses a backend when `--backend` is not
/// given. Empty means unset, for every subcommand.
pub const BACKEND_ENV: &str = "PAVELOR_BACKEND";

// `--backend NAME`, shared by every command that hashes with one backend.
// (A plain comment, as for `HashOpts`.)
#[derive(Args, Clone, Debug)]
pub struct BackendOpt {
    /// Backend [default: $PAVELOR_BACKEND if set and not empty, else the
    /// fastest this CPU runs].
    #[arg(long = "backend", value_name = "NAME", value_parser = backend_parser())]
    pub requested: Option<Backend>,
}

impl BackendOpt {
    /// The backend asked for by `--backend` or [`BACKEND_ENV`], checked
    /// against the CPU; the fastest available one if neither says.
    pub fn resolve(&self) -> Result<Backend, String> {
        match self
            .requested
            .map(Ok)
            .or_else(backend_from_env)
            .transpose()?
        {
            None => Ok(Backend::best()),
            Some(b) if b.is_available() => Ok(b),
            Some(b) => Err(format!("backend '{b}' is not supported by this CPU")),
        }
    }
}

/// The backend named by [`BACKEND_ENV`]: `None` if unset or empty.
pub fn backend_from_env() -> Option<Result<Backend, String>> {
    let value = std::env::var_os(BACKEND_ENV).filter(|v| !v.is_empty())?;
    Some(match value.to_str() {
        Some(name) => parse_backend(name).map_err(|e| format!("{BACKEND_ENV}: {e}")),
        None => Err(format!("{BACKEND_ENV}: not a backend name")),
    })
}

/// The names of every backend this build knows ([`Backend::ALL`]), as
/// clap's possible values: the help and the usage errors list them.
fn backend_parser() -> impl clap::builder::TypedValueParser<Value = Backend> {
    use clap::builder::TypedValueParser;
    clap::builder::PossibleValuesParser::new(Backend::ALL.iter().map(|b| b.name()))
        .try_map(|name: String| parse_backend(&name))
}

fn parse_algorithm(s: &str) -> Result<Algorithm, String> {
    s.parse()
        .map_err(|_| format!("'{s}' is not 512, 768 or 1024"))
}

fn parse_backend(s: &str) -> Result<Backend, String> {
    let names: Vec<&str> = Backend::ALL.iter().map(|b| b.name()).collect();
    Backend::from_name(s).map_err(|_| {
        format!(
            "unknown backend '{s}' (expected one of: {})",
            names.join(", ")
        )
    })
}

/// `Cli::parse()`, except that the parser (its `Command` tree and the
/// matches) is kept until the process exits instead of being freed first:
/// freeing it took about a third of the time from `main` to the first
/// hashed byte of a small `pavelor sum`, and frees nothing the run needs.
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
        Command::Kat(_) | Command::Bench(_) | Command::Report(_)
    ) && std_fds::was_closed(std_fds::StdFd::Out)
    {
        output::errln!("write error: {}", output::io_msg(&std_fds::ebadf()));
        return ExitCode::FAILURE;
    }
    // One rule for $PAVELOR_BACKEND in every subcommand: empty is unset,
    // anything else must name a backend (even where all are measured).
    if let Some(Err(e)) = backend_from_env() {
        output::errln!("{e}");
        return ExitCode::from(2);
    }
    // Ctrl-C: outputs are written by temp file + rename, so the final names
    // are never partial; remove the hidden temp files of writes in flight.
    // (Without a handler the default action would leave them behind.) Only
    // the commands that write files need it: the handler starts a thread,
    // which `sum` of a small file would pay for in its start-up time.
    if matches!(cli.command, Command::Kat(_) | Command::Report(_)) {
        let _ = ctrlc::set_handler(|| {
            pavelor_bench::output::remove_temp_files();
            std::process::exit(130);
        });
    }
    match cli.command {
        Command::Sum(args) => sum::run(&args),
        Command::Kat(cmd) => kat::run(&cmd),
        Command::Report(args) => report::run(&args),
        Command::Bench(args) => bench::run(&args),
        Command::Trial { spec } => {
            ExitCode::from(pavelor_bench::worker::main_with_arg(&spec) as u8)
        }
    }
}
