//! What can fail in running a worker in isolation: starting it, watching
//! it, waiting for it, and the limits it applies to itself. Uses no
//! sibling module.

use std::ffi::OsString;

/// A failure of [`run`](super::run), [`become_subreaper`](super::become_subreaper)
/// or [`apply_own_limits`](super::apply_own_limits).
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The worker's program could not be started.
    #[error("cannot start worker {program:?}: {source}")]
    Spawn {
        /// The program that was to run.
        program: OsString,
        /// Why the spawn failed.
        #[source]
        source: std::io::Error,
    },
    /// The worker's process id does not fit a `pid_t`.
    #[error("worker pid {pid} out of range")]
    PidOutOfRange {
        /// The process id the system gave.
        pid: u32,
    },
    /// Waiting for the worker to end failed (Linux `waitid`).
    #[cfg(unix)]
    #[error("waiting for the worker: {0}")]
    Wait(#[source] nix::Error),
    /// Reaping the worker failed.
    #[error("waiting for the worker: {0}")]
    Reap(#[source] std::io::Error),
    /// The thread that kills the worker at its time limit did not start.
    #[error("cannot start the worker's watchdog: {0}")]
    Watchdog(#[source] std::io::Error),
    /// `PR_SET_CHILD_SUBREAPER` failed.
    #[cfg(unix)]
    #[error("cannot become a child subreaper: {0}")]
    Subreaper(#[source] nix::Error),
    /// This system has no child subreapers.
    #[error("a child subreaper needs Linux: a worker's orphans will not be swept")]
    SubreaperUnsupported,
    /// The memory limit passed to a worker in its environment is not a
    /// positive decimal number of bytes.
    #[error("{variable}={value:?}: not a positive number of bytes")]
    BadMemoryLimit {
        /// The environment variable that held it.
        variable: &'static str,
        /// The variable's value.
        value: OsString,
    },
    /// The current `RLIMIT_AS` could not be read.
    #[cfg(unix)]
    #[error("cannot read the address-space limit: {0}")]
    ReadAddressSpaceLimit(#[source] nix::Error),
    /// `RLIMIT_AS` could not be set.
    #[cfg(unix)]
    #[error("cannot limit the address space to {bytes} bytes: {source}")]
    LimitAddressSpace {
        /// The limit asked for, in bytes.
        bytes: u64,
        /// Why `setrlimit` failed.
        #[source]
        source: nix::Error,
    },
    /// This system has no `RLIMIT_AS` to apply.
    #[error("cannot limit the address space to {bytes} bytes: only on Linux")]
    AddressSpaceUnsupported {
        /// The limit asked for, in bytes.
        bytes: u64,
    },
}
