//! The sweep of what a worker leaves behind: the token that marks a
//! worker and all it forks, the set of live workers, this process's
//! children from before a worker ([`Elders`]), becoming a subreaper, and,
//! on Linux, the rounds that find, kill and reap leftovers (see the
//! parent module's "What is left behind"). Uses `error` and `procfs` (on
//! Linux).

use std::collections::BTreeSet;
#[cfg(target_os = "linux")]
use std::collections::HashSet;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard};
use std::time::Duration;
#[cfg(target_os = "linux")]
use std::time::Instant;

#[cfg(target_os = "linux")]
use nix::sys::signal::{Signal, kill, killpg};
#[cfg(target_os = "linux")]
use nix::sys::wait::{WaitPidFlag, waitpid};
#[cfg(target_os = "linux")]
use nix::unistd::Pid;

use super::error::Error;
#[cfg(target_os = "linux")]
use super::procfs::{self, is_live, proc_pids, stat};

/// The environment variable that marks a worker and all it forks: its
/// value is unique to one worker of one [`run`](super::run).
pub const TOKEN_ENV: &str = "PAVELOR_WORKER_TOKEN";

/// The longest the sweep after a worker goes on killing leftovers that
/// keep appearing.
pub const SWEEP_BUDGET: Duration = Duration::from_secs(5);

/// Makes this process a child subreaper (Linux `PR_SET_CHILD_SUBREAPER`):
/// a process orphaned below it (a worker's daemonized child, once the
/// worker has died) becomes its child instead of init's, so
/// [`run`](super::run)'s sweep can kill and reap it. It applies to the
/// whole process and to every later [`run`](super::run); call it once,
/// early. Elsewhere than on Linux it does nothing and says so with an
/// error (a warning for the caller: runs then only kill the worker's
/// process group).
pub fn become_subreaper() -> Result<(), Error> {
    #[cfg(target_os = "linux")]
    {
        nix::sys::prctl::set_child_subreaper(true).map_err(Error::Subreaper)
    }
    #[cfg(not(target_os = "linux"))]
    {
        Err(Error::SubreaperUnsupported)
    }
}

/// The pids of the workers of all [`run`](super::run)s in this process,
/// from their spawn until they are reaped. Held while a worker is spawned
/// and while a sweep decides what to kill and reap, so a sweep never sees
/// a worker between fork and exec, nor takes one for a leftover.
static LIVE_WORKERS: Mutex<BTreeSet<i32>> = Mutex::new(BTreeSet::new());

pub(super) fn live_workers() -> MutexGuard<'static, BTreeSet<i32>> {
    LIVE_WORKERS.lock().unwrap_or_else(|e| e.into_inner())
}

/// A token no other worker of this process, nor of another process, has:
/// this process's pid, the time, and a counter.
pub(super) fn new_token() -> String {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    format!("{}-{nanos}-{n}", std::process::id())
}

/// This process's children (pid and start time) just before a worker was
/// spawned: none of them can be that worker's leftover.
pub(super) struct Elders {
    #[cfg(target_os = "linux")]
    pub(super) children: std::collections::HashSet<(i32, u64)>,
}

impl Elders {
    pub(super) fn now() -> Elders {
        Elders {
            #[cfg(target_os = "linux")]
            children: procfs::children_now(),
        }
    }
}

/// Kills every process of the worker's process group with SIGKILL; a
/// group that is already gone is fine.
#[cfg(not(target_os = "linux"))]
pub(super) fn kill_group(pid: u32) {
    #[cfg(unix)]
    if let Ok(pid) = i32::try_from(pid) {
        use nix::sys::signal::{Signal, killpg};
        let _ = killpg(nix::unistd::Pid::from_raw(pid), Signal::SIGKILL);
    }
    #[cfg(not(unix))]
    let _ = pid;
}

/// SIGKILL to the worker's group and to the worker.
#[cfg(target_os = "linux")]
pub(super) fn kill_worker(pid: i32) {
    let _ = killpg(Pid::from_raw(pid), Signal::SIGKILL);
    let _ = kill(Pid::from_raw(pid), Signal::SIGKILL);
}

/// What a process's environment says about whose worker it descends from.
#[cfg(target_os = "linux")]
#[derive(Clone, Copy, Debug, PartialEq)]
enum Mark {
    /// It holds this worker's token.
    Ours,
    /// It holds some worker's token, not this one's.
    Other,
    /// No token: none in it, or it cannot be read.
    Unmarked,
}

/// The mark in an environment (`NUL`-separated `NAME=value`), where
/// `ours` is the whole `NAME=value` entry of this worker's token.
#[cfg(target_os = "linux")]
fn mark_of(environ: &[u8], ours: &[u8]) -> Mark {
    let prefix = format!("{TOKEN_ENV}=");
    let mut mark = Mark::Unmarked;
    for entry in environ.split(|&b| b == 0) {
        if entry == ours {
            return Mark::Ours;
        }
        if entry.starts_with(prefix.as_bytes()) {
            mark = Mark::Other;
        }
    }
    mark
}

/// The mark of process `pid`: from its main thread's environment, or,
/// when that is empty (a main thread that has exited while the others
/// go on), from its threads'.
#[cfg(target_os = "linux")]
fn read_mark(pid: i32, ours: &[u8]) -> Mark {
    match std::fs::read(format!("/proc/{pid}/environ")) {
        Ok(env) if !env.is_empty() => return mark_of(&env, ours),
        Ok(_) => {}
        Err(_) => return Mark::Unmarked,
    }
    let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
        return Mark::Unmarked;
    };
    tasks
        .flatten()
        .filter_map(|t| std::fs::read(t.path().join("environ")).ok())
        .find(|env| !env.is_empty())
        .map_or(Mark::Unmarked, |env| mark_of(&env, ours))
}

/// How many times one round of the sweep lists /proc at most.
#[cfg(target_os = "linux")]
const RELISTS: usize = 16;

/// What a sweep did.
#[cfg(target_os = "linux")]
pub(super) struct Swept {
    /// Distinct processes found alive and killed.
    pub killed: usize,
    /// Leftovers found alive in the last round when the budget ran out.
    pub surviving: usize,
}

/// Kills and reaps what the ended worker `worker` left behind, as the
/// parent module's doc says. `unreaped`: the worker is still our unreaped
/// zombie, so its pid is its group's id and its start time is its own.
#[cfg(target_os = "linux")]
pub(super) fn sweep(
    worker: i32,
    unreaped: bool,
    token: &str,
    elders: &HashSet<(i32, u64)>,
) -> Swept {
    let me = std::process::id();
    let Ok(me) = i32::try_from(me) else {
        return Swept {
            killed: 0,
            surviving: 0,
        };
    };
    let my_session = nix::unistd::getsid(None).map_or(-1, |p| p.as_raw());
    let subreaper = nix::sys::prctl::get_child_subreaper().unwrap_or(false);
    let worker_start = stat(worker).filter(|_| unreaped).map(|s| s.start);
    let group = unreaped.then_some(worker);
    let ours = format!("{TOKEN_ENV}={token}").into_bytes();
    // Every process killed, by pid and start time (so a reused pid is
    // another process), and those not yet gone or reaped.
    let mut killed: HashSet<(i32, u64)> = HashSet::new();
    let mut pending: Vec<(i32, u64)> = Vec::new();
    let until = Instant::now() + SWEEP_BUDGET;
    let mut pause = Duration::from_micros(200);
    loop {
        let mut found = 0usize;
        let mut settled_listing = false;
        {
            let live = live_workers();
            // The listing is a snapshot: a leftover may fork after it
            // and die before it is looked at, so /proc is listed again
            // after each pass and new pids looked at, until a listing
            // shows none (or RELISTS passes).
            let mut seen = HashSet::new();
            let mut queue = proc_pids();
            for _ in 0..RELISTS {
                for pid in queue {
                    if !seen.insert(pid) || pid == me || pid == worker {
                        continue;
                    }
                    let Some(s) = stat(pid) else { continue };
                    let mark = read_mark(pid, &ours);
                    let leftover = mark == Mark::Ours || Some(s.pgrp) == group;
                    let escaped = subreaper
                        && s.ppid == me
                        && mark == Mark::Unmarked
                        && s.session != my_session
                        && !live.contains(&pid)
                        && !live.contains(&s.pgrp)
                        && worker_start.is_some_and(|w| s.start >= w)
                        && !elders.contains(&(pid, s.start));
                    if !(leftover || escaped) {
                        continue;
                    }
                    if is_live(pid, &s) {
                        let _ = kill(Pid::from_raw(pid), Signal::SIGKILL);
                        found += 1;
                        if killed.insert((pid, s.start)) {
                            pending.push((pid, s.start));
                        }
                    } else if s.ppid == me {
                        reap(pid);
                    }
                }
                queue = proc_pids()
                    .into_iter()
                    .filter(|p| !seen.contains(p))
                    .collect();
                if queue.is_empty() {
                    settled_listing = true;
                    break;
                }
            }
            // Also members of the group that appeared during the scan
            // (the next round counts them).
            if let Some(group) = group {
                let _ = killpg(Pid::from_raw(group), Signal::SIGKILL);
            }
            settle(&mut pending, me);
        }
        if found == 0 && pending.is_empty() && settled_listing {
            return Swept {
                killed: killed.len(),
                surviving: 0,
            };
        }
        if Instant::now() >= until {
            return Swept {
                killed: killed.len(),
                surviving: found.max(pending.len()),
            };
        }
        std::thread::sleep(pause);
        pause = (pause * 2).min(Duration::from_millis(10));
    }
}

/// Drops from `pending` each killed process that is gone, reaps each
/// that is our zombie child, and keeps those still dying or whose
/// parent is itself pending (it will be orphaned to us, or to init).
#[cfg(target_os = "linux")]
fn settle(pending: &mut Vec<(i32, u64)>, me: i32) {
    let pids: BTreeSet<i32> = pending.iter().map(|&(p, _)| p).collect();
    pending.retain(|&(pid, start)| match stat(pid) {
        Some(s) if s.start == start => {
            if s.ppid == me {
                if is_live(pid, &s) {
                    true
                } else {
                    reap(pid);
                    false
                }
            } else {
                pids.contains(&s.ppid)
            }
        }
        // Gone, or the pid is another process's now.
        _ => false,
    });
}

/// Reaps our zombie child `pid` (checked by the caller under the lock).
#[cfg(target_os = "linux")]
fn reap(pid: i32) {
    let _ = waitpid(Pid::from_raw(pid), Some(WaitPidFlag::WNOHANG));
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    #[cfg(target_os = "linux")]
    #[test]
    fn marks_are_read_right() {
        let ours = format!("{TOKEN_ENV}=1-2-3");
        let env = format!("A=b\0{TOKEN_ENV}=1-2-3\0C=d\0");
        assert_eq!(mark_of(env.as_bytes(), ours.as_bytes()), Mark::Ours);
        let env = format!("A=b\0{TOKEN_ENV}=1-2-4\0");
        assert_eq!(mark_of(env.as_bytes(), ours.as_bytes()), Mark::Other);
        let env = format!("X{TOKEN_ENV}=1-2-3\0A=b");
        assert_eq!(mark_of(env.as_bytes(), ours.as_bytes()), Mark::Unmarked);
        assert_eq!(mark_of(b"", ours.as_bytes()), Mark::Unmarked);
    }

    #[test]
    fn tokens_differ() {
        let a = new_token();
        let b = new_token();
        assert_ne!(a, b);
        assert!(a.starts_with(&format!("{}-", std::process::id())));
    }
}
