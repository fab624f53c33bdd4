//! The watchdog (Linux): a thread that kills the worker at its time
//! limit, reading its memory high-water mark first. Uses `error`,
//! `procfs` and `sweep`.

use std::sync::mpsc::{self, Sender};
use std::time::Instant;

use super::error::Error;
use super::procfs;
use super::sweep::kill_worker;

/// Kills the worker when its time is up, first reading its memory
/// high-water mark.
pub(super) struct Watchdog {
    stop: Sender<()>,
    thread: std::thread::JoinHandle<Option<Option<u64>>>,
}

impl Watchdog {
    /// Starts the thread that, at `deadline` (`None`: a limit beyond what
    /// an `Instant` can hold, never), reads `pid`'s `VmHWM` and kills its
    /// group and it, unless stopped first.
    pub(super) fn start(pid: i32, deadline: Option<Instant>) -> Result<Watchdog, Error> {
        let (stop, told) = mpsc::channel::<()>();
        let thread = std::thread::Builder::new()
            .name("pavelor-watchdog".into())
            .spawn(move || {
                let Some(deadline) = deadline else {
                    let _ = told.recv();
                    return None;
                };
                loop {
                    let left = deadline.saturating_duration_since(Instant::now());
                    match told.recv_timeout(left) {
                        Err(mpsc::RecvTimeoutError::Timeout) if Instant::now() >= deadline => {
                            let peak = procfs::vm_hwm(pid);
                            kill_worker(pid);
                            return Some(peak);
                        }
                        Err(mpsc::RecvTimeoutError::Timeout) => {}
                        // Told to stop, or the supervisor is gone.
                        _ => return None,
                    }
                }
            })
            .map_err(Error::Watchdog)?;
        Ok(Watchdog { stop, thread })
    }

    /// Stops the thread and waits for it: `Some` (holding the `VmHWM` it
    /// read) if it had killed the worker.
    pub(super) fn stop(self) -> Option<Option<u64>> {
        let _ = self.stop.send(());
        self.thread.join().unwrap_or(None)
    }
}
