//! The standard output of `pavelor sum`: buffered, and remembering whether
//! anything was written (output into a stdout closed at start is an error
//! only then).

use std::io::{self, BufWriter, StdoutLock, Write};

/// Capacity of the buffered standard output.
const OUT_BUF_LEN: usize = 64 * 1024;

/// A writer that remembers whether anything was written to it.
pub(super) struct Tracked<W: Write> {
    inner: W,
    wrote: bool,
}

impl Tracked<BufWriter<StdoutLock<'static>>> {
    /// Standard output, locked and buffered.
    pub(super) fn stdout() -> Self {
        Tracked {
            inner: BufWriter::with_capacity(OUT_BUF_LEN, io::stdout().lock()),
            wrote: false,
        }
    }
}

impl<W: Write> Tracked<W> {
    /// Whether any byte was written.
    pub(super) fn wrote(&self) -> bool {
        self.wrote
    }
}

impl<W: Write> Write for Tracked<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.wrote |= !buf.is_empty();
        self.inner.write(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}
