//! Running a worker process with a time limit, and saying what became of
//! it: exited (with its output), killed by a signal, or hung and killed.

#![forbid(unsafe_code)]

use std::io::Read;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{self, Sender};
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

/// A finished worker: how it ended and what it printed.
#[derive(Clone, Debug)]
pub struct Outcome {
    /// How it ended.
    pub ended: Ended,
    /// Its standard output (at most [`OUTPUT_CAP`] bytes).
    pub stdout: Vec<u8>,
    /// Its standard error (at most [`OUTPUT_CAP`] bytes).
    pub stderr: String,
    /// Whether `stdout` is incomplete: longer than [`OUTPUT_CAP`], or still
    /// held open by a process outside the worker's group after the wait.
    pub stdout_truncated: bool,
    /// Whether `stderr` is incomplete (as for `stdout`).
    pub stderr_truncated: bool,
}

/// The most bytes of stdout, and of stderr, kept from one worker; the rest
/// is read and discarded.
pub const OUTPUT_CAP: usize = 16 << 20;

/// How long the output may still take to arrive once the worker's process
/// group has been killed (the pipes are then normally closed already).
const OUTPUT_GRACE: Duration = Duration::from_secs(2);

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

/// Kills every process of the worker's process group (the worker and
/// whatever the library forked), with SIGKILL; a group that is already
/// gone is fine.
fn kill_group(pid: u32) {
    #[cfg(unix)]
    if let Ok(pid) = i32::try_from(pid) {
        use nix::sys::signal::{Signal, killpg};
        let _ = killpg(nix::unistd::Pid::from_raw(pid), Signal::SIGKILL);
    }
    #[cfg(not(unix))]
    let _ = pid;
}

/// Whether the worker has ended. On Linux the worker is not reaped yet
/// (`WNOWAIT`), so its pid, which is its process group's id, cannot be
/// reused before [`kill_group`]; elsewhere `try_wait` reaps it.
fn has_exited(child: &mut Child) -> std::io::Result<bool> {
    #[cfg(target_os = "linux")]
    {
        use nix::sys::wait::{Id, WaitPidFlag, WaitStatus, waitid};
        let pid = i32::try_from(child.id()).map_err(std::io::Error::other)?;
        loop {
            match waitid(
                Id::Pid(nix::unistd::Pid::from_raw(pid)),
                WaitPidFlag::WEXITED | WaitPidFlag::WNOHANG | WaitPidFlag::WNOWAIT,
            ) {
                Ok(WaitStatus::StillAlive) => return Ok(false),
                Ok(_) => return Ok(true),
                Err(nix::errno::Errno::EINTR) => {}
                Err(e) => return Err(e.into()),
            }
        }
    }
    #[cfg(not(target_os = "linux"))]
    {
        child.try_wait().map(|s| s.is_some())
    }
}

/// Starts `cmd` in a process group of its own with piped output and waits
/// at most `limit`. Whether it exits or is killed at the limit, the whole
/// group is then killed, so nothing a loaded library forked survives the
/// worker; the output is read until it ends, but no longer than a short
/// grace after that, and at most [`OUTPUT_CAP`] bytes of each stream kept.
pub fn run(mut cmd: Command, limit: Duration) -> Result<Outcome, String> {
    cmd.stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt;
        cmd.process_group(0);
    }
    let mut child = cmd
        .spawn()
        .map_err(|e| format!("cannot start worker {:?}: {e}", cmd.get_program()))?;
    let pid = child.id();
    let (tx, rx) = mpsc::channel();
    spawn_reader(child.stdout.take(), Stream::Out, tx.clone());
    spawn_reader(child.stderr.take(), Stream::Err, tx);
    let start = Instant::now();
    let mut pause = Duration::from_millis(1);
    let ended = loop {
        match has_exited(&mut child) {
            Ok(true) => {
                kill_group(pid);
                match child.wait() {
                    Ok(status) => break exit_kind(status),
                    Err(e) => return Err(format!("waiting for the worker: {e}")),
                }
            }
            Ok(false) if start.elapsed() >= limit => {
                kill_group(pid);
                let _ = child.kill();
                let _ = child.wait();
                break Ended::TimedOut {
                    seconds: limit.as_secs_f64(),
                };
            }
            Ok(false) => {
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
    // Every process that held the pipes is dead unless it left the group
    // (setsid): wait for the ends of the streams only a little.
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
        ended,
        stdout,
        stderr: String::from_utf8_lossy(&stderr).into_owned(),
        stdout_truncated: stdout_truncated || out_open,
        stderr_truncated: stderr_truncated || err_open,
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
}
