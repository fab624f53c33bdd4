//! A worker's output: a reader thread for each of its stdout and stderr,
//! keeping at most [`OUTPUT_CAP`] bytes of each, and the gathering of what
//! they read once the worker and its leftovers are gone. Uses no sibling
//! module.

use std::io::Read;
use std::process::Child;
use std::sync::mpsc::{self, Receiver, Sender};
use std::time::{Duration, Instant};

/// The most bytes of stdout, and of stderr, kept from one worker; the rest
/// is read and discarded.
pub const OUTPUT_CAP: usize = 16 << 20;

/// How long the output may still take to arrive once the worker's
/// leftovers have been killed (the pipes are then normally closed already).
const OUTPUT_GRACE: Duration = Duration::from_secs(2);

/// Which output stream a piece came from.
#[derive(Clone, Copy)]
enum Stream {
    Out,
    Err,
}

/// What a reader thread sends: bytes (within the cap), or the end of the
/// stream and whether bytes beyond the cap were discarded.
enum Piece {
    Data(Stream, Vec<u8>),
    End(Stream, bool),
}

/// Reads `r` to its end in a thread: sends the first [`OUTPUT_CAP`] bytes,
/// reads and discards the rest (so the writer never blocks on a full pipe).
fn spawn_reader(r: Option<impl Read + Send + 'static>, which: Stream, tx: Sender<Piece>) {
    std::thread::spawn(move || {
        let mut truncated = false;
        if let Some(mut r) = r {
            let mut kept = 0usize;
            let mut buf = vec![0u8; 64 * 1024];
            loop {
                match r.read(&mut buf) {
                    Ok(0) => break,
                    Ok(n) => {
                        let keep = n.min(OUTPUT_CAP - kept);
                        if keep < n {
                            truncated = true;
                        }
                        if keep > 0 {
                            kept += keep;
                            if tx.send(Piece::Data(which, buf[..keep].to_vec())).is_err() {
                                return;
                            }
                        }
                    }
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                    Err(_) => break,
                }
            }
        }
        let _ = tx.send(Piece::End(which, truncated));
    });
}

/// A worker's output streams being read.
pub(super) struct Capture {
    rx: Receiver<Piece>,
}

/// What a worker printed.
pub(super) struct Output {
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
    /// Longer than [`OUTPUT_CAP`], or not closed within the grace.
    pub stdout_truncated: bool,
    /// As for `stdout`.
    pub stderr_truncated: bool,
}

impl Capture {
    /// Starts reading the worker's piped stdout and stderr.
    pub(super) fn start(child: &mut Child) -> Capture {
        let (tx, rx) = mpsc::channel();
        spawn_reader(child.stdout.take(), Stream::Out, tx.clone());
        spawn_reader(child.stderr.take(), Stream::Err, tx);
        Capture { rx }
    }

    /// Gathers what was read, waiting for the ends of the streams at most
    /// [`OUTPUT_GRACE`] from now.
    pub(super) fn finish(self) -> Output {
        let grace_end = Instant::now() + OUTPUT_GRACE;
        let (mut stdout, mut stderr) = (Vec::new(), Vec::new());
        let (mut out_open, mut err_open) = (true, true);
        let (mut stdout_truncated, mut stderr_truncated) = (false, false);
        while out_open || err_open {
            let left = grace_end.saturating_duration_since(Instant::now());
            match self.rx.recv_timeout(left) {
                Ok(Piece::Data(Stream::Out, d)) => stdout.extend_from_slice(&d),
                Ok(Piece::Data(Stream::Err, d)) => stderr.extend_from_slice(&d),
                Ok(Piece::End(Stream::Out, t)) => (out_open, stdout_truncated) = (false, t),
                Ok(Piece::End(Stream::Err, t)) => (err_open, stderr_truncated) = (false, t),
                Err(_) => break,
            }
        }
        Output {
            stdout,
            stderr,
            stdout_truncated: stdout_truncated || out_open,
            stderr_truncated: stderr_truncated || err_open,
        }
    }
}
