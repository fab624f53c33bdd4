//! The options every hashing command shares: the instance (`-a`) and the
//! backend (`--backend`, else `$PAVELOR_BACKEND`, else the fastest), and
//! the one resolution of the backend chosen into the [`Available`] a
//! command hashes with ([`BackendOpt::resolve`]).

use clap::Args;
use pavelor::{Algorithm, Available, Backend};

use crate::arg_error::ArgError;

// Options every hashing command shares. (A plain comment: with `defer`, a
// flattened struct's doc comment would become the subcommand's about.)
#[derive(Args, Clone, Debug)]
pub(crate) struct HashOpts {
    /// Instance: 512, 768 or 1024 (or Pavelor-512 ...).
    #[arg(short = 'a', long = "algorithm", value_name = "A", default_value = "512", value_parser = parse_algorithm)]
    pub algorithm: Algorithm,
    #[command(flatten)]
    pub backend: BackendOpt,
}

/// The environment variable that chooses a backend when `--backend` is not
/// given. Empty means unset, for every subcommand.
pub(crate) const BACKEND_ENV: &str = "PAVELOR_BACKEND";

// `--backend NAME`, shared by every command that hashes with one backend.
// (A plain comment, as for `HashOpts`.)
#[derive(Args, Clone, Debug)]
pub(crate) struct BackendOpt {
    /// Backend [default: $PAVELOR_BACKEND if set and not empty, else the
    /// fastest this CPU runs].
    #[arg(long = "backend", value_name = "NAME", value_parser = backend_parser())]
    pub requested: Option<Backend>,
}

impl BackendOpt {
    /// The one resolution of the user's choice into the backend the command
    /// hashes with: `--backend`, else `env` (the parsed [`BACKEND_ENV`],
    /// see [`backend_from_env`]), through [`Available::resolve`] (detected
    /// on this CPU; the fastest available one if neither names one). The
    /// error is the core's one message ("backend 'x' is not supported by
    /// this CPU").
    pub(crate) fn resolve(&self, env: Option<Backend>) -> Result<Available, pavelor::Error> {
        Available::resolve(self.requested.or(env).map(Backend::name))
    }
}

/// The backend named by [`BACKEND_ENV`], parsed (not detected: commands
/// that measure every backend accept any name): `None` if unset or empty.
pub(crate) fn backend_from_env() -> Result<Option<Backend>, BackendEnvError> {
    let Some(value) = std::env::var_os(BACKEND_ENV).filter(|v| !v.is_empty()) else {
        return Ok(None);
    };
    let value = value.to_string_lossy();
    match Backend::from_name(&value) {
        Some(backend) => Ok(Some(backend)),
        None => Err(BackendEnvError {
            value: value.into_owned(),
            source: pavelor::Error::UnknownBackend,
        }),
    }
}

/// [`BACKEND_ENV`] names no backend: the `Display` is the core's message
/// for an unknown name, after the variable and its value.
#[derive(Debug, thiserror::Error)]
#[error("{}='{}': {source}", BACKEND_ENV, .value.escape_debug())]
pub(crate) struct BackendEnvError {
    /// The variable's value.
    value: String,
    /// The core's error.
    source: pavelor::Error,
}

/// The names of every backend this build knows ([`Backend::ALL`]), as
/// clap's possible values: the help and the usage errors list them.
fn backend_parser() -> impl clap::builder::TypedValueParser<Value = Backend> {
    use clap::builder::TypedValueParser;
    clap::builder::PossibleValuesParser::new(Backend::ALL.iter().map(|b| b.name()))
        .try_map(|name: String| Backend::from_name(&name).ok_or(pavelor::Error::UnknownBackend))
}

/// `-a A`: `512`, `768`, `1024` or an instance name.
pub(crate) fn parse_algorithm(s: &str) -> Result<Algorithm, ArgError> {
    s.parse().map_err(|_| ArgError::Algorithm {
        text: s.to_string(),
    })
}

// The limits on a directory of evidence that another machine or person
// made (report --check/--render, compare, site). (A plain comment, as for
// `HashOpts`.)
#[cfg(feature = "measure")]
#[derive(Args, Clone, Debug)]
pub(crate) struct EvidenceLimits {
    /// Refuse a directory holding a file larger than MIB mebibytes.
    #[arg(long, value_name = "MIB", default_value_t = mib(pavelor_niccs::Limits::default().file_bytes), value_parser = clap::value_parser!(u64).range(1..=4096))]
    pub max_file_mib: u64,
    /// Refuse a directory whose files hold more than MIB mebibytes in all.
    #[arg(long, value_name = "MIB", default_value_t = mib(pavelor_niccs::Limits::default().total_bytes), value_parser = clap::value_parser!(u64).range(1..=65536))]
    pub max_dir_mib: u64,
    /// Refuse a directory of more than N files and subdirectories.
    #[arg(long, value_name = "N", default_value_t = pavelor_niccs::Limits::default().files, value_parser = clap::value_parser!(u64).range(1..))]
    pub max_files: u64,
    /// Refuse a directory whose timing records hold more than N trials in all.
    #[arg(long, value_name = "N", default_value_t = pavelor_niccs::Limits::default().trials, value_parser = clap::value_parser!(u64).range(1..))]
    pub max_trials: u64,
}

#[cfg(feature = "measure")]
const fn mib(bytes: u64) -> u64 {
    bytes >> 20
}

#[cfg(feature = "measure")]
impl EvidenceLimits {
    /// The limits the reader applies.
    pub(crate) fn limits(&self) -> pavelor_niccs::Limits {
        pavelor_niccs::Limits {
            file_bytes: self.max_file_mib << 20,
            total_bytes: self.max_dir_mib << 20,
            files: self.max_files,
            trials: self.max_trials,
        }
    }
}
