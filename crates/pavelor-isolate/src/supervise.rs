//! Supervising a started worker until it has ended and been reaped: on
//! Linux tracing it for its peak memory, with a `Watchdog` for its time
//! limit, then the sweep of its leftovers; elsewhere polling it and
//! killing its group. Uses `error`, `procfs`, `sweep` and `watchdog`
//! (`procfs` and `watchdog` on Linux only).

use std::process::Child;
use std::time::{Duration, Instant};

use super::Ended;
use super::error::Error;
#[cfg(target_os = "linux")]
use super::procfs;
use super::sweep::{self, Elders};
#[cfg(target_os = "linux")]
use super::watchdog::Watchdog;

/// What became of a worker, short of its output.
pub(super) struct Supervised {
    pub ended: Ended,
    pub wall: Duration,
    pub peak_rss_kib: Option<u64>,
    pub leftovers_killed: usize,
    pub leftovers_surviving: usize,
}

fn exit_kind(status: std::process::ExitStatus) -> Ended {
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(signal) = status.signal() {
            return Ended::Signaled { signal };
        }
    }
    Ended::Exited {
        code: status.code().unwrap_or(-1),
    }
}

/// Waits for the worker (tracing it for its peak memory), kills it at
/// `start + limit`, sweeps its leftovers, then reaps it. The worker stays
/// unreaped until the sweep is done, so its pid (its group's id) cannot
/// be reused meanwhile.
#[cfg(target_os = "linux")]
pub(super) fn supervise(
    child: &mut Child,
    token: &str,
    elders: &Elders,
    start: Instant,
    limit: Duration,
) -> Result<Supervised, Error> {
    use nix::errno::Errno;
    use nix::sys::ptrace;
    use nix::sys::wait::{Id, WaitPidFlag, WaitStatus, waitid};
    let Ok(raw) = i32::try_from(child.id()) else {
        let _ = child.kill();
        let _ = child.wait();
        return Err(Error::PidOutOfRange { pid: child.id() });
    };
    let pid = nix::unistd::Pid::from_raw(raw);
    // Failing to trace only loses the peak memory figure.
    let _ = ptrace::seize(pid, ptrace::Options::PTRACE_O_TRACEEXIT);
    let dog = Watchdog::start(raw, start.checked_add(limit));
    if dog.is_err() {
        sweep::kill_worker(raw);
    }
    let mut peak_at_exit = None;
    let mut wait_error = None;
    loop {
        // Peek (WNOWAIT): an exit is left for `child.wait` below; a stop
        // of the traced worker is taken and the worker resumed.
        match waitid(Id::Pid(pid), WaitPidFlag::WEXITED | WaitPidFlag::WNOWAIT) {
            Ok(WaitStatus::Exited(..) | WaitStatus::Signaled(..)) => break,
            Ok(WaitStatus::StillAlive) => std::thread::sleep(Duration::from_millis(1)),
            Ok(_) => resume(pid, &mut peak_at_exit),
            Err(Errno::EINTR) => {}
            // `nix` cannot name a real-time signal: a death by one (the
            // status is then read by `child.wait`), or a stop for one.
            Err(Errno::EINVAL) if procfs::is_dead(raw) => break,
            Err(Errno::EINVAL) => resume(pid, &mut peak_at_exit),
            Err(e) => {
                if e != Errno::ECHILD {
                    sweep::kill_worker(raw);
                }
                wait_error = Some(e);
                break;
            }
        }
    }
    let wall = start.elapsed();
    // Stopped and joined before the reap, so it never kills a reused pid.
    let (fired, dog_error) = match dog {
        Ok(d) => (d.stop(), None),
        Err(e) => (None, Some(e)),
    };
    // A worker reaped behind our back (ECHILD) no longer owns its pid: its
    // leftovers are then found by token alone.
    let swept = sweep::sweep(
        raw,
        wait_error != Some(Errno::ECHILD),
        token,
        &elders.children,
    );
    let status = child.wait();
    if let Some(e) = wait_error {
        return Err(Error::Wait(e));
    }
    if let Some(e) = dog_error {
        return Err(e);
    }
    let status = status.map_err(Error::Reap)?;
    let ended = match (fired.is_some(), exit_kind(status)) {
        (true, Ended::Signaled { signal: 9 }) => Ended::TimedOut {
            seconds: limit.as_secs_f64(),
        },
        (_, ended) => ended,
    };
    let peak_rss_kib = match (fired.flatten(), peak_at_exit) {
        (Some(a), Some(b)) => Some(a.max(b)),
        (a, b) => a.or(b),
    };
    Ok(Supervised {
        ended,
        wall,
        peak_rss_kib,
        leftovers_killed: swept.killed,
        leftovers_surviving: swept.surviving,
    })
}

/// Polls the worker (reaping it, so only its group can be killed
/// afterwards), kills its group when it ends or at `start + limit`.
#[cfg(not(target_os = "linux"))]
pub(super) fn supervise(
    child: &mut Child,
    _token: &str,
    _elders: &Elders,
    start: Instant,
    limit: Duration,
) -> Result<Supervised, Error> {
    let pid = child.id();
    let mut pause = Duration::from_millis(1);
    let ended = loop {
        match child.try_wait() {
            Ok(Some(status)) => {
                sweep::kill_group(pid);
                break exit_kind(status);
            }
            Ok(None) if start.elapsed() >= limit => {
                sweep::kill_group(pid);
                let _ = child.kill();
                let _ = child.wait();
                break Ended::TimedOut {
                    seconds: limit.as_secs_f64(),
                };
            }
            Ok(None) => {
                std::thread::sleep(pause);
                pause = (pause * 2).min(Duration::from_millis(20));
            }
            Err(e) => {
                sweep::kill_group(pid);
                let _ = child.kill();
                let _ = child.wait();
                return Err(Error::Reap(e));
            }
        }
    };
    Ok(Supervised {
        ended,
        wall: start.elapsed(),
        peak_rss_kib: None,
        leftovers_killed: 0,
        leftovers_surviving: 0,
    })
}

/// Takes the traced worker's pending stop and resumes it: at its exit
/// stop, after reading its `VmHWM` into `peak`; at a signal, passing
/// the signal on. A stop `nix` cannot read (a real-time signal) cannot
/// be passed on either: the worker is detached, losing that signal.
#[cfg(target_os = "linux")]
fn resume(pid: nix::unistd::Pid, peak: &mut Option<u64>) {
    use nix::errno::Errno;
    use nix::sys::ptrace;
    use nix::sys::wait::{Id, WaitPidFlag, WaitStatus, waitid};
    // WSTOPPED without WEXITED: never reaps the worker.
    match waitid(Id::Pid(pid), WaitPidFlag::WSTOPPED | WaitPidFlag::WNOHANG) {
        Ok(WaitStatus::PtraceEvent(_, _, event))
            if event == ptrace::Event::PTRACE_EVENT_EXIT as i32 =>
        {
            if let Some(kib) = procfs::vm_hwm(pid.as_raw()) {
                *peak = Some(peak.map_or(kib, |p| p.max(kib)));
            }
            let _ = ptrace::cont(pid, None);
        }
        // A signal-delivery stop.
        Ok(WaitStatus::PtraceEvent(_, signal, 0) | WaitStatus::Stopped(_, signal)) => {
            let _ = ptrace::cont(pid, signal);
        }
        // A group stop (`PTRACE_EVENT_STOP`), or any other event.
        Ok(WaitStatus::PtraceEvent(..) | WaitStatus::PtraceSyscall(_)) => {
            let _ = ptrace::cont(pid, None);
        }
        Ok(_) => {}
        Err(Errno::EINVAL) => {
            let _ = ptrace::detach(pid, None);
        }
        Err(_) => {}
    }
}
