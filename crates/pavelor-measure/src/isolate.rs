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
//! # Memory limit
//!
//! [`set_memory_limit`] tells a worker, through [`MEMORY_LIMIT_ENV`], the
//! address space it may use; the worker applies it with
//! [`apply_own_limits`] before loading any library (`RLIMIT_AS`, soft and
//! hard, inherited by whatever it forks). It bounds virtual memory, not
//! resident memory: a mapping that is reserved but never touched counts.

#![forbid(unsafe_code)]

use std::collections::BTreeSet;
use std::io::Read;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{self, Sender};
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

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

/// The most bytes of stdout, and of stderr, kept from one worker; the rest
/// is read and discarded.
pub const OUTPUT_CAP: usize = 16 << 20;

/// How long the output may still take to arrive once the worker's
/// leftovers have been killed (the pipes are then normally closed already).
const OUTPUT_GRACE: Duration = Duration::from_secs(2);

/// The environment variable that marks a worker and all it forks: its
/// value is unique to one worker of one [`run`].
pub const TOKEN_ENV: &str = "PAVELOR_WORKER_TOKEN";

/// The environment variable through which [`set_memory_limit`] tells a
/// worker its address-space limit, in bytes (a decimal number), for
/// [`apply_own_limits`].
pub const MEMORY_LIMIT_ENV: &str = "PAVELOR_WORKER_MEMORY_LIMIT";

/// The longest the sweep after a worker goes on killing leftovers that
/// keep appearing.
pub const SWEEP_BUDGET: Duration = Duration::from_secs(5);

/// Makes this process a child subreaper (Linux `PR_SET_CHILD_SUBREAPER`):
/// a process orphaned below it (a worker's daemonized child, once the
/// worker has died) becomes its child instead of init's, so [`run`]'s
/// sweep can kill and reap it. It applies to the whole process and to
/// every later [`run`]; call it once, early. Elsewhere than on Linux it
/// does nothing and says so with an error (a warning for the caller: runs
/// then only kill the worker's process group).
pub fn become_subreaper() -> Result<(), String> {
    #[cfg(target_os = "linux")]
    {
        nix::sys::prctl::set_child_subreaper(true)
            .map_err(|e| format!("cannot become a child subreaper: {e}"))
    }
    #[cfg(not(target_os = "linux"))]
    {
        Err("a child subreaper needs Linux: a worker's orphans will not be swept".into())
    }
}

/// Has `cmd` tell the worker it starts that its address space may be at
/// most `bytes` (applied by the worker itself: [`apply_own_limits`]).
pub fn set_memory_limit(cmd: &mut Command, bytes: u64) {
    cmd.env(MEMORY_LIMIT_ENV, bytes.to_string());
}

/// For a worker, first thing (before loading any library): applies the
/// limit that [`set_memory_limit`] passed in [`MEMORY_LIMIT_ENV`] as this
/// process's `RLIMIT_AS`, soft and hard, so neither it nor what it forks
/// can raise it again. Returns the limit applied, in bytes: the one asked
/// for, or the current hard limit if that is lower; `None` when no limit
/// was asked for. An unreadable value, or a system without `RLIMIT_AS`,
/// is an error.
pub fn apply_own_limits() -> Result<Option<u64>, String> {
    match std::env::var_os(MEMORY_LIMIT_ENV) {
        None => Ok(None),
        Some(value) => limit_address_space(parse_limit(&value)?).map(Some),
    }
}

/// The bytes in a [`MEMORY_LIMIT_ENV`] value: a positive decimal number.
fn parse_limit(value: &std::ffi::OsStr) -> Result<u64, String> {
    value
        .to_str()
        .and_then(|s| s.trim().parse::<u64>().ok())
        .filter(|&b| b > 0)
        .ok_or_else(|| format!("{MEMORY_LIMIT_ENV}={value:?}: not a positive number of bytes"))
}

// `rlim_t` is `u64` on most Linux targets, `c_ulong` on a few.
#[cfg(target_os = "linux")]
#[allow(clippy::useless_conversion)]
fn limit_address_space(bytes: u64) -> Result<u64, String> {
    use nix::libc::rlim_t;
    use nix::sys::resource::{Resource, getrlimit, setrlimit};
    let (_, hard) = getrlimit(Resource::RLIMIT_AS)
        .map_err(|e| format!("cannot read the address-space limit: {e}"))?;
    let applied = rlim_t::try_from(bytes).unwrap_or(rlim_t::MAX).min(hard);
    setrlimit(Resource::RLIMIT_AS, applied, applied)
        .map_err(|e| format!("cannot limit the address space to {applied} bytes: {e}"))?;
    Ok(u64::try_from(applied).unwrap_or(u64::MAX))
}

#[cfg(not(target_os = "linux"))]
fn limit_address_space(bytes: u64) -> Result<u64, String> {
    Err(format!(
        "cannot limit the address space to {bytes} bytes: only on Linux"
    ))
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

/// The pids of the workers of all [`run`]s in this process, from their
/// spawn until they are reaped. Held while a worker is spawned and while
/// a sweep decides what to kill and reap, so a sweep never sees a worker
/// between fork and exec, nor takes one for a leftover.
static LIVE_WORKERS: Mutex<BTreeSet<i32>> = Mutex::new(BTreeSet::new());

fn live_workers() -> MutexGuard<'static, BTreeSet<i32>> {
    LIVE_WORKERS.lock().unwrap_or_else(|e| e.into_inner())
}

/// A token no other worker of this process, nor of another process, has:
/// this process's pid, the time, and a counter.
fn new_token() -> String {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    format!("{}-{nanos}-{n}", std::process::id())
}

/// This process's children (pid and start time) just before a worker was
/// spawned: none of them can be that worker's leftover.
struct Elders {
    #[cfg(target_os = "linux")]
    children: std::collections::HashSet<(i32, u64)>,
}

impl Elders {
    fn now() -> Elders {
        Elders {
            #[cfg(target_os = "linux")]
            children: linux::children_now(),
        }
    }
}

/// What became of a worker, short of its output.
struct Supervised {
    ended: Ended,
    wall: Duration,
    peak_rss_kib: Option<u64>,
    leftovers_killed: usize,
    leftovers_surviving: usize,
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
pub fn run(cmd: Command, limit: Duration) -> Result<Outcome, String> {
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
) -> Result<Outcome, String> {
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
        let child = cmd
            .spawn()
            .map_err(|e| format!("cannot start worker {:?}: {e}", cmd.get_program()))?;
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
    let (tx, rx) = mpsc::channel();
    spawn_reader(child.stdout.take(), Stream::Out, tx.clone());
    spawn_reader(child.stderr.take(), Stream::Err, tx);
    let supervised = supervise(&mut child, &token, &elders, start, limit);
    if let Ok(pid) = i32::try_from(child.id()) {
        live_workers().remove(&pid);
    }
    let s = supervised?;
    // Every process that held the pipes is dead unless it survived the
    // sweep: wait for the ends of the streams only a little.
    let grace_end = Instant::now() + OUTPUT_GRACE;
    let (mut stdout, mut stderr) = (Vec::new(), Vec::new());
    let (mut out_open, mut err_open) = (true, true);
    let (mut stdout_truncated, mut stderr_truncated) = (false, false);
    while out_open || err_open {
        let left = grace_end.saturating_duration_since(Instant::now());
        match rx.recv_timeout(left) {
            Ok(Piece::Data(Stream::Out, d)) => stdout.extend_from_slice(&d),
            Ok(Piece::Data(Stream::Err, d)) => stderr.extend_from_slice(&d),
            Ok(Piece::End(Stream::Out, t)) => (out_open, stdout_truncated) = (false, t),
            Ok(Piece::End(Stream::Err, t)) => (err_open, stderr_truncated) = (false, t),
            Err(_) => break,
        }
    }
    Ok(Outcome {
        ended: s.ended,
        pid: child.id(),
        stdout,
        stderr: String::from_utf8_lossy(&stderr).into_owned(),
        stdout_truncated: stdout_truncated || out_open,
        stderr_truncated: stderr_truncated || err_open,
        wall: s.wall,
        peak_rss_kib: s.peak_rss_kib,
        leftovers_killed: s.leftovers_killed,
        leftovers_surviving: s.leftovers_surviving,
    })
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
fn supervise(
    child: &mut Child,
    token: &str,
    elders: &Elders,
    start: Instant,
    limit: Duration,
) -> Result<Supervised, String> {
    use nix::errno::Errno;
    use nix::sys::ptrace;
    use nix::sys::wait::{Id, WaitPidFlag, WaitStatus, waitid};
    let Ok(raw) = i32::try_from(child.id()) else {
        let _ = child.kill();
        let _ = child.wait();
        return Err(format!("worker pid {} out of range", child.id()));
    };
    let pid = nix::unistd::Pid::from_raw(raw);
    // Failing to trace only loses the peak memory figure.
    let _ = ptrace::seize(pid, ptrace::Options::PTRACE_O_TRACEEXIT);
    let dog = Watchdog::start(raw, start.checked_add(limit));
    if dog.is_err() {
        linux::kill_worker(raw);
    }
    let mut peak_at_exit = None;
    let mut wait_error = None;
    loop {
        // Peek (WNOWAIT): an exit is left for `child.wait` below; a stop
        // of the traced worker is taken and the worker resumed.
        match waitid(Id::Pid(pid), WaitPidFlag::WEXITED | WaitPidFlag::WNOWAIT) {
            Ok(WaitStatus::Exited(..) | WaitStatus::Signaled(..)) => break,
            Ok(WaitStatus::StillAlive) => std::thread::sleep(Duration::from_millis(1)),
            Ok(_) => linux::resume(pid, &mut peak_at_exit),
            Err(Errno::EINTR) => {}
            // `nix` cannot name a real-time signal: a death by one (the
            // status is then read by `child.wait`), or a stop for one.
            Err(Errno::EINVAL) if linux::is_dead(raw) => break,
            Err(Errno::EINVAL) => linux::resume(pid, &mut peak_at_exit),
            Err(e) => {
                if e != Errno::ECHILD {
                    linux::kill_worker(raw);
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
    let swept = linux::sweep(
        raw,
        wait_error != Some(Errno::ECHILD),
        token,
        &elders.children,
    );
    let status = child.wait();
    if let Some(e) = wait_error {
        return Err(format!("waiting for the worker: {e}"));
    }
    if let Some(e) = dog_error {
        return Err(e);
    }
    let status = status.map_err(|e| format!("waiting for the worker: {e}"))?;
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
fn supervise(
    child: &mut Child,
    _token: &str,
    _elders: &Elders,
    start: Instant,
    limit: Duration,
) -> Result<Supervised, String> {
    let pid = child.id();
    let mut pause = Duration::from_millis(1);
    let ended = loop {
        match child.try_wait() {
            Ok(Some(status)) => {
                kill_group(pid);
                break exit_kind(status);
            }
            Ok(None) if start.elapsed() >= limit => {
                kill_group(pid);
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
                kill_group(pid);
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!("waiting for the worker: {e}"));
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

/// Kills every process of the worker's process group with SIGKILL; a
/// group that is already gone is fine.
#[cfg(not(target_os = "linux"))]
fn kill_group(pid: u32) {
    #[cfg(unix)]
    if let Ok(pid) = i32::try_from(pid) {
        use nix::sys::signal::{Signal, killpg};
        let _ = killpg(nix::unistd::Pid::from_raw(pid), Signal::SIGKILL);
    }
    #[cfg(not(unix))]
    let _ = pid;
}

/// Kills the worker when its time is up, first reading its memory
/// high-water mark.
#[cfg(target_os = "linux")]
struct Watchdog {
    stop: Sender<()>,
    thread: std::thread::JoinHandle<Option<Option<u64>>>,
}

#[cfg(target_os = "linux")]
impl Watchdog {
    /// Starts the thread that, at `deadline` (`None`: a limit beyond what
    /// an `Instant` can hold, never), reads `pid`'s `VmHWM` and kills its
    /// group and it, unless stopped first.
    fn start(pid: i32, deadline: Option<Instant>) -> Result<Watchdog, String> {
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
                            let peak = linux::vm_hwm(pid);
                            linux::kill_worker(pid);
                            return Some(peak);
                        }
                        Err(mpsc::RecvTimeoutError::Timeout) => {}
                        // Told to stop, or the supervisor is gone.
                        _ => return None,
                    }
                }
            })
            .map_err(|e| format!("cannot start the worker's watchdog: {e}"))?;
        Ok(Watchdog { stop, thread })
    }

    /// Stops the thread and waits for it: `Some` (holding the `VmHWM` it
    /// read) if it had killed the worker.
    fn stop(self) -> Option<Option<u64>> {
        let _ = self.stop.send(());
        self.thread.join().unwrap_or(None)
    }
}

/// Linux's part: the traced worker's stops, `/proc`, and the sweep.
#[cfg(target_os = "linux")]
mod linux {
    use std::collections::{BTreeSet, HashSet};
    use std::time::{Duration, Instant};

    use nix::errno::Errno;
    use nix::sys::ptrace;
    use nix::sys::signal::{Signal, kill, killpg};
    use nix::sys::wait::{Id, WaitPidFlag, WaitStatus, waitid, waitpid};
    use nix::unistd::Pid;

    use super::{SWEEP_BUDGET, TOKEN_ENV, live_workers};

    /// SIGKILL to the worker's group and to the worker.
    pub(super) fn kill_worker(pid: i32) {
        let _ = killpg(Pid::from_raw(pid), Signal::SIGKILL);
        let _ = kill(Pid::from_raw(pid), Signal::SIGKILL);
    }

    /// Takes the traced worker's pending stop and resumes it: at its exit
    /// stop, after reading its `VmHWM` into `peak`; at a signal, passing
    /// the signal on. A stop `nix` cannot read (a real-time signal) cannot
    /// be passed on either: the worker is detached, losing that signal.
    pub(super) fn resume(pid: Pid, peak: &mut Option<u64>) {
        // WSTOPPED without WEXITED: never reaps the worker.
        match waitid(Id::Pid(pid), WaitPidFlag::WSTOPPED | WaitPidFlag::WNOHANG) {
            Ok(WaitStatus::PtraceEvent(_, _, event))
                if event == ptrace::Event::PTRACE_EVENT_EXIT as i32 =>
            {
                if let Some(kib) = vm_hwm(pid.as_raw()) {
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

    /// A process's fields from `/proc/PID/stat` that the sweep uses.
    #[derive(Clone, Copy, Debug, PartialEq)]
    pub(super) struct Stat {
        pub state: u8,
        pub ppid: i32,
        pub pgrp: i32,
        pub session: i32,
        /// Start time, clock ticks after boot.
        pub start: u64,
    }

    /// Parses a `/proc/PID/stat` line (the command name, in parentheses,
    /// may itself hold spaces and parentheses).
    pub(super) fn parse_stat(line: &str) -> Option<Stat> {
        let rest = line.get(line.rfind(')')? + 1..)?;
        let f: Vec<&str> = rest.split_ascii_whitespace().collect();
        Some(Stat {
            state: *f.first()?.as_bytes().first()?,
            ppid: f.get(1)?.parse().ok()?,
            pgrp: f.get(2)?.parse().ok()?,
            session: f.get(3)?.parse().ok()?,
            start: f.get(19)?.parse().ok()?,
        })
    }

    pub(super) fn stat(pid: i32) -> Option<Stat> {
        parse_stat(&std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?)
    }

    /// Whether `pid` has ended (a zombie, or gone).
    pub(super) fn is_dead(pid: i32) -> bool {
        stat(pid).is_none_or(|s| matches!(s.state, b'Z' | b'X'))
    }

    /// Whether the process is still running: its main thread, or (when
    /// that has exited on its own) any of its other threads.
    fn is_live(pid: i32, s: &Stat) -> bool {
        if !matches!(s.state, b'Z' | b'X') {
            return true;
        }
        let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
            return false;
        };
        tasks.flatten().any(|t| {
            std::fs::read_to_string(t.path().join("stat"))
                .ok()
                .and_then(|l| parse_stat(&l))
                .is_some_and(|t| !matches!(t.state, b'Z' | b'X'))
        })
    }

    /// The `VmHWM` figure (KiB) in a `/proc/PID/status` text.
    pub(super) fn parse_vm_hwm(status: &str) -> Option<u64> {
        status
            .lines()
            .find_map(|l| l.strip_prefix("VmHWM:"))
            .and_then(|v| v.trim().strip_suffix("kB"))
            .and_then(|v| v.trim().parse().ok())
    }

    /// `pid`'s resident-set high-water mark, KiB (absent once it has
    /// released its memory).
    pub(super) fn vm_hwm(pid: i32) -> Option<u64> {
        parse_vm_hwm(&std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?)
    }

    /// What a process's environment says about whose worker it descends from.
    #[derive(Clone, Copy, Debug, PartialEq)]
    pub(super) enum Mark {
        /// It holds this worker's token.
        Ours,
        /// It holds some worker's token, not this one's.
        Other,
        /// No token: none in it, or it cannot be read.
        Unmarked,
    }

    /// The mark in an environment (`NUL`-separated `NAME=value`), where
    /// `ours` is the whole `NAME=value` entry of this worker's token.
    pub(super) fn mark_of(environ: &[u8], ours: &[u8]) -> Mark {
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

    /// The pids in `/proc` now.
    fn proc_pids() -> Vec<i32> {
        std::fs::read_dir("/proc")
            .map(|d| {
                d.flatten()
                    .filter_map(|e| e.file_name().to_str()?.parse().ok())
                    .collect()
            })
            .unwrap_or_default()
    }

    /// This process's children now, by pid and start time: from each
    /// thread's `/proc/self/task/TID/children` where the kernel has them,
    /// else from a scan of every process's parent.
    pub(super) fn children_now() -> HashSet<(i32, u64)> {
        let with_start = |pid: i32| stat(pid).map(|s| (pid, s.start));
        let from_tasks = std::fs::read_dir("/proc/self/task").ok().and_then(|tasks| {
            let mut pids = Vec::new();
            for t in tasks.flatten() {
                let list = std::fs::read_to_string(t.path().join("children")).ok()?;
                pids.extend(
                    list.split_ascii_whitespace()
                        .filter_map(|p| p.parse::<i32>().ok()),
                );
            }
            Some(pids)
        });
        match from_tasks {
            Some(pids) => pids.into_iter().filter_map(with_start).collect(),
            None => {
                let me = i32::try_from(std::process::id()).unwrap_or(-1);
                proc_pids()
                    .into_iter()
                    .filter_map(|pid| Some((pid, stat(pid)?)))
                    .filter(|(_, s)| s.ppid == me)
                    .map(|(pid, s)| (pid, s.start))
                    .collect()
            }
        }
    }

    /// How many times one round of the sweep lists /proc at most.
    const RELISTS: usize = 16;

    /// What a sweep did.
    pub(super) struct Swept {
        /// Distinct processes found alive and killed.
        pub killed: usize,
        /// Leftovers found alive in the last round when the budget ran out.
        pub surviving: usize,
    }

    /// Kills and reaps what the ended worker `worker` left behind, as the
    /// module's doc says. `unreaped`: the worker is still our unreaped
    /// zombie, so its pid is its group's id and its start time is its own.
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
    fn reap(pid: i32) {
        let _ = waitpid(Pid::from_raw(pid), Some(WaitPidFlag::WNOHANG));
    }
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

    #[test]
    fn memory_limit_values() {
        use std::ffi::OsStr;
        assert_eq!(parse_limit(OsStr::new("1048576")), Ok(1 << 20));
        assert_eq!(parse_limit(OsStr::new(" 42 ")), Ok(42));
        assert!(parse_limit(OsStr::new("0")).is_err());
        assert!(parse_limit(OsStr::new("1G")).is_err());
        assert!(parse_limit(OsStr::new("")).is_err());
        let mut c = Command::new("true");
        set_memory_limit(&mut c, 1 << 30);
        let set = c
            .get_envs()
            .find(|(k, _)| *k == MEMORY_LIMIT_ENV)
            .and_then(|(_, v)| v);
        assert_eq!(set, Some(OsStr::new("1073741824")));
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn proc_files_are_read_right() {
        use linux::{Mark, mark_of, parse_stat, parse_vm_hwm};
        // A command name holding spaces and parentheses.
        let line = "4242 (a (b) c) S 1 4240 4239 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 1 0 \
                    987654 1000 10 18446744073709551615 0 0 0 0 0 0 0 0 0 0 0 0 17 1 0 0";
        let s = parse_stat(line).expect("stat");
        assert_eq!(
            (s.state, s.ppid, s.pgrp, s.session, s.start),
            (b'S', 1, 4240, 4239, 987654)
        );
        assert_eq!(parse_stat("4242 (x) Z"), None);
        let own = std::fs::read_to_string("/proc/self/stat").expect("own stat");
        assert_eq!(
            parse_stat(&own).map(|s| s.pgrp),
            Some(nix::unistd::getpgrp().as_raw())
        );

        let status = "Name:\tx\nVmPeak:\t  9000 kB\nVmHWM:\t    1234 kB\nVmRSS:\t 1000 kB\n";
        assert_eq!(parse_vm_hwm(status), Some(1234));
        assert_eq!(parse_vm_hwm("Name:\tzombie\nState:\tZ (zombie)\n"), None);
        assert!(linux::vm_hwm(i32::try_from(std::process::id()).expect("pid")).is_some());

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
