//! The worker's memory limit: set in its environment by the parent, and
//! applied by the worker to itself (see the parent module's "Memory
//! limit"). Uses `error`.

use std::process::Command;

use super::error::Error;

/// The environment variable through which [`set_memory_limit`] tells a
/// worker its address-space limit, in bytes (a decimal number), for
/// [`apply_own_limits`].
pub const MEMORY_LIMIT_ENV: &str = "PAVELOR_WORKER_MEMORY_LIMIT";

/// Has `cmd` tell the worker it starts that its address space may be at
/// most `bytes` (applied by the worker itself: [`apply_own_limits`]).
pub fn set_memory_limit(cmd: &mut Command, bytes: u64) {
    cmd.env(MEMORY_LIMIT_ENV, bytes.to_string());
}

/// For a worker, first thing (before loading any library): applies the
/// limit that [`set_memory_limit`] passed in [`MEMORY_LIMIT_ENV`] as this
/// process's `RLIMIT_AS`, soft and hard, so neither it nor what it forks
/// can raise it again. Returns the limit applied, in bytes: the one asked
/// for, or the current hard limit if that is lower; `None` when no limit
/// was asked for. An unreadable value, or a system without `RLIMIT_AS`,
/// is an error.
pub fn apply_own_limits() -> Result<Option<u64>, Error> {
    match std::env::var_os(MEMORY_LIMIT_ENV) {
        None => Ok(None),
        Some(value) => limit_address_space(parse_limit(&value)?).map(Some),
    }
}

/// The bytes in a [`MEMORY_LIMIT_ENV`] value: a positive decimal number.
fn parse_limit(value: &std::ffi::OsStr) -> Result<u64, Error> {
    value
        .to_str()
        .and_then(|s| s.trim().parse::<u64>().ok())
        .filter(|&b| b > 0)
        .ok_or_else(|| Error::BadMemoryLimit {
            variable: MEMORY_LIMIT_ENV,
            value: value.to_owned(),
        })
}

// `rlim_t` is `u64` on most Linux targets, `c_ulong` on a few.
#[cfg(target_os = "linux")]
#[allow(clippy::useless_conversion)]
fn limit_address_space(bytes: u64) -> Result<u64, Error> {
    use nix::libc::rlim_t;
    use nix::sys::resource::{Resource, getrlimit, setrlimit};
    let (_, hard) = getrlimit(Resource::RLIMIT_AS).map_err(Error::ReadAddressSpaceLimit)?;
    let applied = rlim_t::try_from(bytes).unwrap_or(rlim_t::MAX).min(hard);
    setrlimit(Resource::RLIMIT_AS, applied, applied).map_err(|source| {
        Error::LimitAddressSpace {
            bytes: u64::try_from(applied).unwrap_or(u64::MAX),
            source,
        }
    })?;
    Ok(u64::try_from(applied).unwrap_or(u64::MAX))
}

#[cfg(not(target_os = "linux"))]
fn limit_address_space(bytes: u64) -> Result<u64, Error> {
    Err(Error::AddressSpaceUnsupported { bytes })
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    #[test]
    fn memory_limit_values() {
        use std::ffi::OsStr;
        assert_eq!(parse_limit(OsStr::new("1048576")).ok(), Some(1 << 20));
        assert_eq!(parse_limit(OsStr::new(" 42 ")).ok(), Some(42));
        assert!(parse_limit(OsStr::new("0")).is_err());
        assert!(parse_limit(OsStr::new("1G")).is_err());
        assert!(parse_limit(OsStr::new("")).is_err());
        let mut c = Command::new("true");
        set_memory_limit(&mut c, 1 << 30);
        let set = c
            .get_envs()
            .find(|(k, _)| *k == MEMORY_LIMIT_ENV)
            .and_then(|(_, v)| v);
        assert_eq!(set, Some(OsStr::new("1073741824")));
    }
}
