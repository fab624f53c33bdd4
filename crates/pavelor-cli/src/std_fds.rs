//! Which standard descriptors (stdin, stdout) were closed when the process
//! was started (`<&-`, `>&-`).
//!
//! Before `main`, Rust's runtime reopens a closed fd 0, 1 or 2 on
//! `/dev/null`, so that by the time `main` runs a closed stdout looks like
//! a valid one and a closed stdin reads as empty. Once that has happened the
//! two cases cannot be told apart: `/dev/null` opened read-write is also
//! what Python's `subprocess.DEVNULL`, `<>/dev/null` and daemon()-style
//! launchers hand over, and those are valid descriptors to be used as they
//! are. So the state is read *before* the runtime's reopening, by a
//! constructor in the executable's init array (which the C runtime runs
//! before it calls Rust's `main`), and kept in an atomic.

use std::io;
#[cfg(unix)]
use std::os::fd::AsFd;
use std::sync::atomic::{AtomicU8, Ordering};

/// Standard input or output.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum StdFd {
    In,
    Out,
}

impl StdFd {
    /// The bit of this descriptor in [`CLOSED_AT_START`].
    const fn bit(self) -> u8 {
        match self {
            StdFd::In => 1,
            StdFd::Out => 2,
        }
    }
}

/// The [`StdFd::bit`]s of the descriptors that were closed at start.
static CLOSED_AT_START: AtomicU8 = AtomicU8::new(0);

/// Whether `fd` is an open descriptor now (`F_GETFD` succeeds).
#[cfg(unix)]
fn is_open(fd: impl AsFd) -> bool {
    rustix::io::fcntl_getfd(fd).is_ok()
}

// SAFETY: the constructor runs before `main`, before Rust's runtime is
// set up. It only makes `fcntl(F_GETFD)` calls on fds 0 and 1 (through the
// handles of `io::stdin`/`io::stdout`, whose first use allocates their
// buffers with the C allocator, which is ready by then) and one atomic
// store; it does not panic, spawn threads, or read anything the runtime
// initialises (arguments, environment, thread-locals).
#[cfg(unix)]
#[ctor::ctor(unsafe)]
fn record_closed_std_fds() {
    let mut closed = 0;
    if !is_open(io::stdin()) {
        closed |= StdFd::In.bit();
    }
    if !is_open(io::stdout()) {
        closed |= StdFd::Out.bit();
    }
    CLOSED_AT_START.store(closed, Ordering::Relaxed);
}

/// Whether `fd` was closed when the process was started. An open
/// descriptor, whatever file it is (`/dev/null` opened read-write
/// included), is `false`.
pub(crate) fn was_closed(fd: StdFd) -> bool {
    CLOSED_AT_START.load(Ordering::Relaxed) & fd.bit() != 0
}

/// The error of a descriptor that was closed at start (`EBADF`), as a
/// read or write on it would have failed.
#[cfg(unix)]
pub(crate) fn ebadf() -> io::Error {
    io::Error::from_raw_os_error(rustix::io::Errno::BADF.raw_os_error())
}

/// The error of a descriptor that was closed at start. (Elsewhere than on
/// Unix the runtime reopens nothing, and [`was_closed`] is always false.)
#[cfg(not(unix))]
pub fn ebadf() -> io::Error {
    io::Error::other("Bad file descriptor")
}
