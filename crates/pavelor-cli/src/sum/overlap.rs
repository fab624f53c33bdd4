//! One input, read on a second thread while this one hashes, so that a
//! single large file (or a long pipe) is hashed at kernel speed instead of
//! reading and hashing taking turns on one core.
//!
//! A small pool of fixed buffers circulates between the two threads: the
//! reader fills an empty one and sends it over, the hasher hashes it and
//! sends it back. Memory stays at `BUFFERS × CHUNK` whatever the input's
//! length.

use std::io::{self, Read};
use std::sync::mpsc;
use std::thread;

use pavelor::DynHasher;

use super::parallel::fill_up;

/// Bytes per buffer: large enough that a read and a channel message cost
/// little per byte, small enough that a buffer stays in the L2 cache of
/// most cores.
const CHUNK: usize = 256 * 1024;

/// Buffers in flight: one being filled, one being hashed, one waiting.
const BUFFERS: usize = 3;

/// A filled buffer and how many of its bytes are the input's; `0` is the
/// end of the input.
type Filled = io::Result<(Vec<u8>, usize)>;

/// Hashes the rest of `input` into `hasher`, reading it on a second thread.
/// Returns the first read error, after which nothing more is hashed.
pub(super) fn hash_rest<R: Read + Send>(hasher: &mut DynHasher, input: &mut R) -> io::Result<()> {
    let (filled_tx, filled_rx) = mpsc::sync_channel::<Filled>(BUFFERS);
    let (empty_tx, empty_rx) = mpsc::channel::<Vec<u8>>();
    for _ in 0..BUFFERS {
        // The receiver is alive until the reader starts: cannot fail.
        let _ = empty_tx.send(vec![0; CHUNK]);
    }
    thread::scope(|scope| {
        scope.spawn(move || {
            // Ends when the input ends or fails, or when the hasher hangs
            // up (its receiver or sender dropped).
            while let Ok(mut buf) = empty_rx.recv() {
                let result = fill_up(input, &mut buf, 0);
                let last = !matches!(result, Ok(n) if n > 0);
                if filled_tx.send(result.map(|n| (buf, n))).is_err() || last {
                    return;
                }
            }
        });
        loop {
            let (buf, n) = match filled_rx.recv() {
                Ok(filled) => filled?,
                Err(mpsc::RecvError) => {
                    return Err(io::Error::other("the reader thread stopped"));
                }
            };
            if n == 0 {
                return Ok(());
            }
            hasher.update(&buf[..n]);
            // The reader may have ended after its last full buffer.
            let _ = empty_tx.send(buf);
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use pavelor::Algorithm;

    /// A reader that hands out `data` in pieces of at most `step` bytes,
    /// then fails with `error` if one is given (else ends).
    struct Pieces {
        data: Vec<u8>,
        pos: usize,
        step: usize,
        error: Option<io::ErrorKind>,
        interrupted: bool,
    }

    impl Read for Pieces {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            // An EINTR between every two reads: retried, never data lost.
            self.interrupted = !self.interrupted;
            if self.interrupted {
                return Err(io::ErrorKind::Interrupted.into());
            }
            let n = buf.len().min(self.step).min(self.data.len() - self.pos);
            if n == 0 {
                return match self.error {
                    Some(kind) => Err(kind.into()),
                    None => Ok(0),
                };
            }
            buf[..n].copy_from_slice(&self.data[self.pos..self.pos + n]);
            self.pos += n;
            Ok(n)
        }
    }

    fn data(len: usize) -> Vec<u8> {
        (0..len).map(|i| (i * 131 + 7) as u8).collect()
    }

    #[test]
    fn same_digest_as_one_update_at_every_buffer_boundary() {
        let alg = Algorithm::Pavelor512;
        for len in [0, 1, CHUNK - 1, CHUNK, CHUNK + 1, 3 * CHUNK, 7 * CHUNK + 5] {
            for step in [1000, CHUNK, 3 * CHUNK] {
                let msg = data(len);
                let mut want = alg.hasher();
                want.update(&msg);
                let mut h = alg.hasher();
                let mut r = Pieces {
                    data: msg,
                    pos: 0,
                    step,
                    error: None,
                    interrupted: false,
                };
                assert!(hash_rest(&mut h, &mut r).is_ok());
                assert_eq!(h.finalize(), want.finalize(), "len {len} step {step}");
            }
        }
    }

    #[test]
    fn read_error_is_returned() {
        let mut h = Algorithm::Pavelor768.hasher();
        let mut r = Pieces {
            data: data(5 * CHUNK + 3),
            pos: 0,
            step: 4096,
            error: Some(io::ErrorKind::InvalidData),
            interrupted: false,
        };
        let err = hash_rest(&mut h, &mut r).err();
        assert_eq!(err.map(|e| e.kind()), Some(io::ErrorKind::InvalidData));
    }
}
