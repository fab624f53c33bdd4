//! Running a worker process with a time limit, and saying what became of
//! it: exited (with its output), killed by a signal, or hung and killed;
//! how long it took, how much memory it held at most, and how many
//! processes it left behind that had to be killed.
//!
//! # What is left behind
//!
//! A worker loads untrusted code, which may fork. [`run`] starts each
//! worker in a process group of its own and with an environment variable,
//! [`TOKEN_ENV`], holding a token unique to that worker; every process the
//! worker forks inherits both. Once the worker has ended (exited, crashed,
//! or killed at its time limit) and before it is reaped (so its pid, which
//! is its group's id, cannot be reused), a sweep repeats, in rounds, until
//! a round finds nothing left (or for at most [`SWEEP_BUDGET`]):
//!
//! - a scan of `/proc` that SIGKILLs every live process whose environment
//!   (`/proc/PID/environ`) holds the worker's token, or whose process group
//!   is the worker's;
//! - in a process that is a child subreaper ([`become_subreaper`]), also
//!   every live *child of ours* that looks like an escaped leftover (see
//!   below);
//! - SIGKILL to the worker's process group, for members that appeared
//!   during the scan;
//! - reaping, with `waitpid` on its own pid, each zombie child of ours that
//!   the sweep killed or that is a leftover by the same tests.
//!
//! A listing of `/proc` is a snapshot: a leftover may fork after it and
//! die before its turn comes. So within a round `/proc` is listed again
//! after each pass and the new pids looked at, until a listing brings no
//! new pid. A round that kills nothing, and whose listing settled, ends
//! the sweep once every process it killed is gone or reaped. Killing with
//! SIGKILL at once, not SIGSTOP first, is enough for this to converge: a
//! process with SIGKILL pending can no longer fork, and a child it forked
//! before that is in `/proc` before the kill returns, so the next round
//! sees it. A daemon that double-forks, calls `setsid` and closes its
//! descriptors still carries the token, so it is found; as subreaper we
//! become its parent when its own parent dies, and reap it.
//!
//! A child of ours that carries no worker token at all is taken as a
//! leftover only when all of these hold: this process is a subreaper (so
//! orphans of a worker become our children); it is not in our session
//! (what `std::process::Command` starts stays in it, even with a process
//! group of its own, unless it calls `setsid`; and a descendant that left
//! by `setsid` can never come back); it was not already our child just
//! before the worker was spawned, and started no earlier than the worker;
//! and it is not a live worker of another [`run`], nor in a live worker's
//! group. Workers are spawned, and this check is made, under one lock, so
//! no worker of ours is ever seen between fork and exec. This catches a
//! descendant that escaped with `setsid` and also execs with an
//! environment of its own, scrubs its environment in memory, or makes
//! itself unreadable (`PR_SET_DUMPABLE` 0), once it is orphaned to us.
//! Such an orphan is anyone's: with several [`run`]s at once, the first
//! sweep to see it kills it and counts it.
//!
//! The tokens, the set of live workers and the sweep itself are in
//! `sweep`; what it reads of a process's `stat` is in `procfs`.
//!
//! Limits, honestly:
//!
//! - Code elsewhere in this process must not start children that call
//!   `setsid` (a session of their own) while workers run: such a child,
//!   started after a worker, is taken for that worker's leftover.
//! - Without [`become_subreaper`], orphans go to init: token holders are
//!   still killed, but one without a readable token outside the worker's
//!   group escapes, and zombies are not ours to reap.
//! - A descendant without a readable token that stays in our session
//!   (`setpgid` alone) is not taken for a leftover once outside the
//!   worker's group.
//! - A descendant without a readable token whose parent is alive and not
//!   ours (a hostile chain keeping one such process as the parent of
//!   another) is only killed when the chain above it dies and it is
//!   orphaned to us; a chain that keeps forking faster than the rounds
//!   kill, or that does not fall within [`SWEEP_BUDGET`], is left running,
//!   and counted in [`Outcome::leftovers_surviving`].
//! - The pid of a process found in a scan could in principle be reused
//!   between reading its `/proc` files and the kill (microseconds; it
//!   needs the whole pid space to wrap). Zombies are reaped only after
//!   checking their parent and start time under the lock, and only by
//!   their own pid, never with `waitpid(-1)`.
//! - Only descendants are found: a process the library has someone else
//!   start (a daemon asked over a socket, `at`, systemd) is out of reach.
//!   Real containment needs a cgroup (`cgroup.kill`) or a pid namespace.
//!
//! # Peak memory
//!
//! On Linux the worker is traced (`PTRACE_SEIZE` with only
//! `PTRACE_O_TRACEEXIT`, right after it has started): when its main thread
//! exits, the kernel stops it while its memory is still mapped, and its
//! high-water mark `VmHWM` is read from `/proc/PID/status`; that is
//! [`Outcome::peak_rss_kib`]. For a worker killed at the time limit, the
//! mark is read just before the kill. Neither `nix` nor the standard
//! library exposes `wait4`'s resource usage without `unsafe`, and
//! `getrusage(RUSAGE_CHILDREN)` mixes all children of the process, so this
//! is the safe way to have the kernel's own figure. (The main thread stops
//! at exit also when another thread ends the process.) It is `None` when
//! the worker could not be traced (it exited before the attach, or ptrace
//! is not allowed here), or when the kernel did not stop its main thread
//! at exit (it need not for a death by SIGKILL). If the main thread ends
//! before the other threads (`pthread_exit` in `main`), the figure is the
//! peak at that moment.
//!
//! Tracing has costs: each signal to the main thread stops it until this
//! process passes the signal on (a context switch: the supervising thread
//! blocks in `waitid`); a job-control stop of the worker is passed on and
//! the worker continued, so a worker cannot stop itself; a real-time signal
//! (glibc's `SIGSETXID`, POSIX timers) cannot be passed on through `nix`,
//! so on the first one the worker is detached and that one signal is lost
//! (and the peak becomes unknown); and the worker cannot be traced by
//! anything else (a debugger, LeakSanitizer).
//!
//! The tracing is in `supervise`, the kill at the time limit (and the
//! reading of the mark before it) in `watchdog`.
//!
//! # Memory limit
//!
//! [`set_memory_limit`] tells a worker, through [`MEMORY_LIMIT_ENV`], the
//! address space it may use; the worker applies it with
//! [`apply_own_limits`] before loading any library (`RLIMIT_AS`, soft and
//! hard, inherited by whatever it forks). It bounds virtual memory, not
//! resident memory: a mapping that is reserved but never touched counts.
//! Both halves are in `limits`.
//!
//! # Modules
//!
//! One concern a file, each using only those listed before it (and this
//! module's [`Ended`]), so there is no cycle among them:
//!
//! 1. `limits`: the memory limit, set and applied;
//! 2. `capture`: the reader threads for stdout and stderr, [`OUTPUT_CAP`],
//!    and the grace for the ends of the streams;
//! 3. `procfs` (Linux): `/proc/PID/stat` and `status`, the pids in
//!    `/proc`, this process's children;
//! 4. `sweep`: the tokens, the live workers, [`become_subreaper`], the
//!    killing and reaping of leftovers; uses `procfs`;
//! 5. `watchdog` (Linux): the kill at the time limit; uses `procfs` and
//!    `sweep`;
//! 6. `supervise`: waiting for the worker until it is reaped, and how it
//!    ended; uses `procfs`, `sweep` and `watchdog`.
//!
//! This module starts the worker and puts the parts together
//! ([`run_with_input`]).

#![forbid(unsafe_code)]

mod capture;
mod error;
mod limits;
#[cfg(target_os = "linux")]
mod procfs;
mod supervise;
mod sweep;
#[cfg(target_os = "linux")]
mod watchdog;

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

pub use capture::OUTPUT_CAP;
pub use error::Error;
pub use limits::{MEMORY_LIMIT_ENV, apply_own_limits, set_memory_limit};
pub use sweep::{SWEEP_BUDGET, TOKEN_ENV, become_subreaper};

use capture::Capture;
use supervise::supervise;
use sweep::{Elders, live_workers, new_token};

/// What happened to a worker.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Ended {
    /// It exited with this status.
    Exited {
        /// Exit status.
        code: i32,
    },
    /// A signal ended it (SIGSEGV, SIGABRT, ...).
    Signaled {
        /// The signal number.
        signal: i32,
    },
    /// It did not finish within the limit and was killed.
    TimedOut {
        /// The limit, seconds.
        seconds: f64,
    },
}

/// A finished worker: how it ended, what it printed, what it cost, and
/// what it left behind.
#[derive(Clone, Debug)]
pub struct Outcome {
    /// How it ended.
    pub ended: Ended,
    /// The worker's process id (no longer its own: it has been reaped).
    pub pid: u32,
    /// Its standard output (at most [`OUTPUT_CAP`] bytes).
    pub stdout: Vec<u8>,
    /// Its standard error (at most [`OUTPUT_CAP`] bytes).
    pub stderr: String,
    /// Whether `stdout` is incomplete: longer than [`OUTPUT_CAP`], or still
    /// held open by a process that survived the sweep after the wait.
    pub stdout_truncated: bool,
    /// Whether `stderr` is incomplete (as for `stdout`).
    pub stderr_truncated: bool,
    /// From just before the worker was spawned to when this process saw
    /// it end (exit, crash, or the kill at the time limit), before the
    /// sweep and the reading of the rest of its output.
    pub wall: Duration,
    /// The worker's peak resident set size (`VmHWM`) in KiB, as the kernel
    /// counted it at the worker's exit, or just before the kill at the time
    /// limit; `None` when it could not be read (see the module's "Peak
    /// memory").
    pub peak_rss_kib: Option<u64>,
    /// How many processes the worker left behind that were found alive and
    /// killed after it ended (see the module's "What is left behind").
    pub leftovers_killed: usize,
    /// How many leftovers were still found alive when the sweep gave up
    /// after [`SWEEP_BUDGET`] (0 unless something forks faster than it
    /// is killed).
    pub leftovers_surviving: usize,
}

/// A signal's name (`SIGSEGV`), or its number.
pub fn signal_name(sig: i32) -> String {
    match sig {
        1 => "SIGHUP".into(),
        2 => "SIGINT".into(),
        4 => "SIGILL".into(),
        5 => "SIGTRAP".into(),
        6 => "SIGABRT".into(),
        7 => "SIGBUS".into(),
        8 => "SIGFPE".into(),
        9 => "SIGKILL".into(),
        11 => "SIGSEGV".into(),
        13 => "SIGPIPE".into(),
        15 => "SIGTERM".into(),
        31 => "SIGSYS".into(),
        n => format!("signal {n}"),
    }
}

impl Ended {
    /// One line for the report: "crashed (SIGSEGV)", "hung (killed after 5 s)", ...
    pub fn describe(&self) -> String {
        match self {
            Ended::Exited { code } => format!("exited with status {code}"),
            Ended::Signaled { signal: 6 } => "aborted (SIGABRT)".into(),
            Ended::Signaled { signal } => format!("crashed ({})", signal_name(*signal)),
            Ended::TimedOut { seconds } => {
                format!("hung: no answer within {seconds:.0} s (worker killed)")
            }
        }
    }
}

/// Starts `cmd` in a process group of its own, marked with a token of its
/// own in [`TOKEN_ENV`], with piped output, and waits at most `limit`.
/// Whether it exits or is killed at the limit, what it left behind is then
/// swept (its group, every process holding its token, and, in a
/// subreaper, escaped orphans: see the module's doc), so nothing a loaded
/// library forked survives the worker; the output is read until it ends,
/// but no longer than a short grace after that, and at most
/// [`OUTPUT_CAP`] bytes of each stream kept. Can be called from several
/// threads at once: each sweep kills only its own worker's leftovers.
pub fn run(cmd: Command, limit: Duration) -> Result<Outcome, Error> {
    run_with_input(cmd, limit, None)
}

/// [`run`], with `input` written to the worker's standard input (and the
/// pipe then closed) instead of `/dev/null`: a channel the worker reads
/// before it loads any library, unlike its command line and environment,
/// which the library can read in `/proc/self`. `input` must fit a pipe's
/// buffer (a few KiB are fine).
pub fn run_with_input(
    mut cmd: Command,
    limit: Duration,
    input: Option<&[u8]>,
) -> Result<Outcome, Error> {
    cmd.stdin(if input.is_some() {
        Stdio::piped()
    } else {
        Stdio::null()
    })
    .stdout(Stdio::piped())
    .stderr(Stdio::piped());
    let token = new_token();
    cmd.env(TOKEN_ENV, &token);
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt;
        cmd.process_group(0);
    }
    let start = Instant::now();
    let (mut child, elders) = {
        let mut live = live_workers();
        // Before the spawn: the worker's descendants may be orphaned to us
        // within microseconds of it.
        let elders = Elders::now();
        let child = cmd.spawn().map_err(|source| Error::Spawn {
            program: cmd.get_program().to_owned(),
            source,
        })?;
        if let Ok(pid) = i32::try_from(child.id()) {
            live.insert(pid);
        }
        (child, elders)
    };
    if let (Some(bytes), Some(mut stdin)) = (input, child.stdin.take()) {
        use std::io::Write;
        // A worker that dies before reading makes this fail; how it ended
        // is what counts, and the pipe closes as `stdin` drops.
        let _ = stdin.write_all(bytes);
    }
    let capture = Capture::start(&mut child);
    let supervised = supervise(&mut child, &token, &elders, start, limit);
    if let Ok(pid) = i32::try_from(child.id()) {
        live_workers().remove(&pid);
    }
    let s = supervised?;
    // Every process that held the pipes is dead unless it survived the
    // sweep: wait for the ends of the streams only a little.
    let output = capture.finish();
    Ok(Outcome {
        ended: s.ended,
        pid: child.id(),
        stdout: output.stdout,
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
        stdout_truncated: output.stdout_truncated,
        stderr_truncated: output.stderr_truncated,
        wall: s.wall,
        peak_rss_kib: s.peak_rss_kib,
        leftovers_killed: s.leftovers_killed,
        leftovers_surviving: s.leftovers_surviving,
    })
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    fn sh(script: &str) -> Command {
        let mut c = Command::new("sh");
        c.args(["-c", script]);
        c
    }

    #[test]
    fn exit_signal_and_timeout() {
        let o = run(sh("echo hi; echo err >&2; exit 3"), Duration::from_secs(10)).expect("run");
        assert_eq!(o.ended, Ended::Exited { code: 3 });
        assert_eq!(o.stdout, b"hi\n");
        assert_eq!(o.stderr, "err\n");
        let o = run(sh("kill -SEGV $$"), Duration::from_secs(10)).expect("run");
        assert_eq!(o.ended, Ended::Signaled { signal: 11 });
        assert_eq!(o.ended.describe(), "crashed (SIGSEGV)");
        let t = Instant::now();
        let o = run(sh("exec sleep 30"), Duration::from_millis(300)).expect("run");
        assert!(matches!(o.ended, Ended::TimedOut { .. }));
        assert!(t.elapsed() < Duration::from_secs(10));
    }

    /// Whether process `pid` is gone (or a zombie nobody has reaped yet),
    /// waiting up to 5 s for a SIGKILL to take effect.
    fn eventually_gone(pid: i32) -> bool {
        let t = Instant::now();
        while t.elapsed() < Duration::from_secs(5) {
            let alive = nix::sys::signal::kill(nix::unistd::Pid::from_raw(pid), None).is_ok();
            let zombie = std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|s| {
                s.rsplit(')')
                    .next()
                    .is_some_and(|r| r.trim_start().starts_with('Z'))
            });
            if !alive || zombie {
                return true;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        false
    }

    fn pid_in(stdout: &[u8]) -> i32 {
        String::from_utf8_lossy(stdout)
            .trim()
            .parse()
            .expect("a pid on stdout")
    }

    #[test]
    fn the_wait_is_bounded_and_the_whole_group_dies() {
        // Exits at once, but its child holds stdout open for 600 s.
        let t = Instant::now();
        let o = run(sh("sleep 600 & echo $!"), Duration::from_secs(30)).expect("run");
        assert_eq!(o.ended, Ended::Exited { code: 0 });
        assert!(t.elapsed() < Duration::from_secs(10), "{:?}", t.elapsed());
        assert!(!o.stdout_truncated && !o.stderr_truncated);
        let pid = pid_in(&o.stdout);
        assert!(eventually_gone(pid), "child {pid} survived its worker");

        // Hangs, and so does its child: both are killed at the limit.
        let t = Instant::now();
        let o = run(
            sh("sleep 600 & echo $!; exec sleep 600"),
            Duration::from_millis(300),
        )
        .expect("run");
        assert!(matches!(o.ended, Ended::TimedOut { .. }));
        assert!(t.elapsed() < Duration::from_secs(10), "{:?}", t.elapsed());
        let pid = pid_in(&o.stdout);
        assert!(eventually_gone(pid), "child {pid} survived its worker");
    }

    #[test]
    fn output_is_capped() {
        let o = run(
            sh("head -c 20000000 /dev/zero; echo done >&2"),
            Duration::from_secs(60),
        )
        .expect("run");
        assert_eq!(o.ended, Ended::Exited { code: 0 });
        assert_eq!(o.stdout.len(), OUTPUT_CAP);
        assert!(o.stdout_truncated);
        assert_eq!(o.stderr, "done\n");
        assert!(!o.stderr_truncated);
    }

    #[test]
    fn outcome_has_wall_pid_and_no_leftovers_for_a_tidy_worker() {
        let t = Instant::now();
        let o = run(sh("echo $$"), Duration::from_secs(10)).expect("run");
        assert_eq!(o.ended, Ended::Exited { code: 0 });
        assert_eq!(pid_in(&o.stdout), i32::try_from(o.pid).expect("pid"));
        assert!(o.wall > Duration::ZERO && o.wall <= t.elapsed());
        assert_eq!((o.leftovers_killed, o.leftovers_surviving), (0, 0));
        // A limit no deadline can hold is no limit.
        let o = run(sh("exit 4"), Duration::MAX).expect("run");
        assert_eq!(o.ended, Ended::Exited { code: 4 });
    }
}
