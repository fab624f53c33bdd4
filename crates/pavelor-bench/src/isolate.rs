//! Running a worker process with a time limit, and saying what became of
//! it: exited (with its output), killed by a signal, or hung and killed.

#![forbid(unsafe_code)]

use std::io::Read;
use std::process::{Command, Stdio};
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
    /// Its standard output.
    pub stdout: Vec<u8>,
    /// Its standard error.
    pub stderr: String,
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

/// Starts `cmd` with piped output, waits at most `limit`, kills it (its
/// own child process, by pid) if it is still running then.
pub fn run(mut cmd: Command, limit: Duration) -> Result<Outcome, String> {
    cmd.stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd
        .spawn()
        .map_err(|e| format!("cannot start worker {:?}: {e}", cmd.get_program()))?;
    let mut out = child.stdout.take();
    let mut err = child.stderr.take();
    let out_reader = std::thread::spawn(move || {
        let mut v = Vec::new();
        if let Some(o) = out.as_mut() {
            let _ = o.read_to_end(&mut v);
        }
        v
    });
    let err_reader = std::thread::spawn(move || {
        let mut v = Vec::new();
        if let Some(e) = err.as_mut() {
            let _ = e.read_to_end(&mut v);
        }
        v
    });
    let start = Instant::now();
    let mut pause = Duration::from_millis(1);
    let ended = loop {
        match child.try_wait() {
            Ok(Some(status)) => break exit_kind(status),
            Ok(None) if start.elapsed() >= limit => {
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
            Err(e) => return Err(format!("waiting for the worker: {e}")),
        }
    };
    let stdout = out_reader.join().unwrap_or_default();
    let stderr = String::from_utf8_lossy(&err_reader.join().unwrap_or_default()).into_owned();
    Ok(Outcome {
        ended,
        stdout,
        stderr,
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
}
