//! The state of one `pavelor sum` run ([`Ctx`]: the output, the read
//! buffer, the backend, the worker threads), and hashing inputs with it:
//! one at a time ([`Ctx::hash_input`]) or many at once
//! ([`Ctx::hash_files`]).

use std::ffi::OsStr;
use std::fmt;
use std::io::{self, Read, Write};
use std::num::NonZeroUsize;

use pavelor::{Algorithm, Available, DynOutput};

use super::names::STDIN_NAME;
use super::{overlap, parallel};
use crate::std_fds::ebadf;
use crate::terminal::report;

/// Size of the read buffer that inputs are streamed through. Above the C
/// allocator's mmap threshold (128 KiB), so that it comes zeroed from the
/// kernel, page by page as it is touched, instead of being cleared at
/// start-up.
pub(super) const BUF_LEN: usize = 256 * 1024;

/// Bytes of one input hashed on this thread alone before the rest is read
/// on a second thread ([`overlap`]): small inputs never pay for starting it.
const OVERLAP_AFTER: u64 = 1 << 20;

/// The state of one `pavelor sum` run.
pub(super) struct Ctx<W: Write> {
    /// Standard output.
    pub(super) out: W,
    buf: Vec<u8>,
    /// The backend every digest of the run is computed with.
    backend: Available,
    /// Worker threads for many files (`-j`); the number of cores, asked
    /// only when there are many files, if not given.
    jobs: Option<NonZeroUsize>,
    /// Standard input was closed when we were started (`<&-`): reading it
    /// is an error (EBADF), not the empty message.
    stdin_closed: bool,
}

impl<W: Write> Ctx<W> {
    pub(super) fn new(
        out: W,
        backend: Available,
        jobs: Option<NonZeroUsize>,
        stdin_closed: bool,
    ) -> Self {
        Ctx {
            out,
            buf: vec![0; BUF_LEN],
            backend,
            jobs,
            stdin_closed,
        }
    }

    /// Reports `pavelor: MSG` on stderr, after flushing stdout so that the
    /// two stay in order. Errors are those of stdout.
    pub(super) fn error(&mut self, msg: fmt::Arguments<'_>) -> io::Result<()> {
        self.out.flush()?;
        report(msg);
        Ok(())
    }

    /// Standard input, or EBADF if it was closed at start.
    pub(super) fn stdin(&self) -> io::Result<io::Stdin> {
        if self.stdin_closed {
            return Err(ebadf());
        }
        Ok(io::stdin())
    }

    /// A streaming hasher of `alg` on the run's backend.
    pub(super) fn hasher(&self, alg: Algorithm) -> pavelor::DynHasher {
        alg.hasher_with(self.backend)
    }

    /// Hashes everything `r` gives: the first [`OVERLAP_AFTER`] bytes
    /// through the fixed buffer, the rest read on a second thread.
    fn hash_reader<R: Read + Send>(&mut self, alg: Algorithm, r: &mut R) -> io::Result<DynOutput> {
        let mut h = self.hasher(alg);
        let mut hashed = 0u64;
        while hashed < OVERLAP_AFTER {
            match r.read(&mut self.buf) {
                Ok(0) => return Ok(h.finalize()),
                Ok(n) => {
                    h.update(&self.buf[..n]);
                    hashed += n as u64;
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        overlap::hash_rest(&mut h, r)?;
        Ok(h.finalize())
    }

    /// Hashes the file `name` (`-`: standard input), on this thread.
    pub(super) fn hash_input(&mut self, alg: Algorithm, name: &OsStr) -> io::Result<DynOutput> {
        if name == STDIN_NAME {
            return self.hash_reader(alg, &mut self.stdin()?);
        }
        let mut file = parallel::open_file(name)?;
        self.hash_reader(alg, &mut file)
    }

    /// Starts hashing `jobs` (never standard input) on the worker threads;
    /// the digests come in job order.
    pub(super) fn hash_files(&self, jobs: Vec<parallel::Job>) -> io::Result<parallel::Ordered> {
        let threads = self.jobs.unwrap_or_else(parallel::default_threads);
        parallel::hash_files(jobs, self.backend, threads)
    }
}
