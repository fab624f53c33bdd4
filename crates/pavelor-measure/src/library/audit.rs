//! The parent side of the constant-time audit ([`super::ct_audit`]): a
//! worker started under valgrind memcheck, its findings read from
//! memcheck's XML, and one verdict per implementation (one run of
//! valgrind covers every instance it computes).
//!
//! The audit never changes the gate's verdict: a library with findings is
//! still measured, and the report says what memcheck saw beside RESULT.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use pavelor::{Algorithm, Backend};
use serde::{Deserialize, Serialize};

use super::ct_audit::{AuditCalls, Finding, fatal_place, findings, unhandled_instruction};
use super::tasks::LibTask;
use crate::isolate::{self, Ended};
use crate::protocol::WorkerCommand;

/// The time one implementation's audit may take, seconds.
pub const AUDIT_LIMIT_S: f64 = 60.0;

/// What the audit of one implementation found.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "verdict", rename_all = "kebab-case")]
pub enum AuditVerdict {
    /// No secret-dependent branch or address, and every digest right.
    Clean {
        /// The calls audited.
        calls: u64,
    },
    /// Memcheck saw these.
    Findings {
        /// The calls audited.
        calls: u64,
        /// Each distinct finding.
        findings: Vec<Finding>,
    },
    /// Under valgrind the library gave a wrong digest (or failed a call):
    /// it behaves otherwise when watched.
    Wrong {
        /// The first such call.
        detail: String,
    },
    /// The audit could not be run.
    NotRun {
        /// Why: no valgrind, an instruction valgrind cannot execute, the
        /// time limit, ...
        reason: String,
    },
}

/// The audit of one implementation: a library, or one of our backends.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CtAudit {
    /// The instances audited (`Pavelor-512`, ...), in one run.
    pub instances: Vec<String>,
    /// What it found.
    #[serde(flatten)]
    pub verdict: AuditVerdict,
    /// How long it took, seconds.
    pub seconds: f64,
}

impl CtAudit {
    /// The verdict in one line, as the report's first lines give it.
    pub fn line(&self) -> String {
        match &self.verdict {
            AuditVerdict::Clean { calls } => {
                format!("no secret-dependent branch or address in {calls} calls")
            }
            AuditVerdict::Findings { findings, .. } if findings.len() == 1 => "1 finding".into(),
            AuditVerdict::Findings { findings, .. } => format!("{} findings", findings.len()),
            AuditVerdict::Wrong { detail } => format!("a wrong answer under valgrind: {detail}"),
            AuditVerdict::NotRun { reason } => format!("NOT RUN: {reason}"),
        }
    }
}

/// The audit of one of pavelor's own backends.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BackendAudit {
    /// The backend's name (`aesni-avx`, ...).
    pub backend: String,
    /// The audit.
    #[serde(flatten)]
    pub audit: CtAudit,
}

/// `valgrind` on the `PATH`, if there is one.
pub fn valgrind() -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join("valgrind"))
        .find(|p| p.is_file())
}

/// Audits the instances `algs` of the library at `path`: the worker
/// `worker` runs the audit's calls under memcheck, within
/// [`AUDIT_LIMIT_S`].
pub fn audit(worker: &WorkerCommand, path: &Path, algs: &[Algorithm]) -> CtAudit {
    let task = LibTask::CtAudit {
        path: path.to_path_buf(),
        bits: algs.iter().map(|a| a.output_bits()).collect(),
    };
    timed(algs, || run_under(worker, &task, path, None))
}

/// Audits `algs` on pavelor's own `backend` the same way: the worker is
/// the object the findings are placed in. A backend that valgrind cannot
/// run is NOT RUN, naming the evidence that holds for it instead.
pub fn audit_backend(worker: &WorkerCommand, backend: Backend, algs: &[Algorithm]) -> CtAudit {
    let task = LibTask::CtAuditBackend {
        backend: backend.name().to_string(),
        bits: algs.iter().map(|a| a.output_bits()).collect(),
    };
    timed(algs, || {
        run_under(worker, &task, &worker.program, Some(STATIC_CHECK))
    })
}

/// An audit of `algs` that could not be run, for `reason`.
pub fn not_run(algs: &[Algorithm], reason: &str) -> CtAudit {
    timed(algs, || AuditVerdict::NotRun {
        reason: reason.to_string(),
    })
}

/// What valgrind cannot run, and what stands for the audit there.
const STATIC_CHECK: &str = "valgrind runs no AVX-512 and no VAES; the evidence for this kernel is the static disassembly check of pavelor-ct (no load indexed by, and no branch on, secret data), which this report does not run";

fn timed(algs: &[Algorithm], audit: impl FnOnce() -> AuditVerdict) -> CtAudit {
    let start = Instant::now();
    let verdict = audit();
    CtAudit {
        instances: algs.iter().map(|a| a.name().to_string()).collect(),
        verdict,
        seconds: start.elapsed().as_secs_f64(),
    }
}

/// Runs `task` in the worker under memcheck; findings are placed in
/// `object` (the library, or the worker itself for our own backends).
/// `instead`: what stands for the audit where valgrind cannot run the
/// code, if anything does.
fn run_under(
    worker: &WorkerCommand,
    task: &LibTask,
    object: &Path,
    instead: Option<&str>,
) -> AuditVerdict {
    let not_run = |reason: String| AuditVerdict::NotRun { reason };
    let Some(vg) = valgrind() else {
        return not_run("valgrind is not installed (no valgrind on PATH)".into());
    };
    let json = match serde_json::to_string(task) {
        Ok(j) => j,
        Err(e) => return not_run(e.to_string()),
    };
    // A directory of our own for memcheck's XML, removed when dropped.
    let dir = match tempfile::Builder::new()
        .prefix("pavelor-memcheck-")
        .tempdir()
    {
        Ok(d) => d,
        Err(e) => return not_run(format!("no directory for memcheck's output: {e}")),
    };
    let xml_file = dir.path().join("memcheck.xml");
    let mut cmd = Command::new(&vg);
    cmd.arg("--tool=memcheck")
        .arg("--xml=yes")
        .arg(format!("--xml-file={}", xml_file.display()))
        .arg("--error-limit=no")
        .arg("--track-origins=no")
        .arg(&worker.program)
        .args(&worker.args)
        .arg(json);
    let outcome = match isolate::run(cmd, Duration::from_secs_f64(AUDIT_LIMIT_S)) {
        Ok(o) => o,
        Err(e) => return not_run(format!("valgrind could not be run: {e}")),
    };
    if let Some(bytes) = unhandled_instruction(&outcome.stderr) {
        // Where it was, from the XML's fatal signal, if valgrind wrote it.
        let at = read_bounded(&xml_file)
            .ok()
            .and_then(|xml| fatal_place(&xml, object))
            .map_or(String::new(), |p| format!(", in {p}"));
        return not_run(match instead {
            Some(instead) => {
                format!("{instead} (valgrind refused the instruction bytes {bytes}{at})")
            }
            None => {
                format!("valgrind cannot execute an instruction of the library (bytes {bytes}{at})")
            }
        });
    }
    let calls: AuditCalls = match outcome.ended {
        Ended::Exited { code: 0 } => match serde_json::from_slice(&outcome.stdout) {
            Ok(c) => c,
            Err(e) => return not_run(format!("the worker's answer under valgrind: {e}")),
        },
        Ended::Exited { code } => {
            return not_run(format!(
                "the worker under valgrind exited with status {code}"
            ));
        }
        Ended::Signaled { signal } => {
            return not_run(format!(
                "the worker under valgrind was killed by signal {signal}"
            ));
        }
        Ended::TimedOut { seconds } => {
            return not_run(format!("the time limit of {seconds:.0} s"));
        }
    };
    if !calls.under_valgrind {
        return not_run("the worker did not see valgrind's client requests".into());
    }
    if let Some(why) = calls.unavailable {
        let instead = instead.unwrap_or("the code cannot run on the CPU valgrind presents");
        return not_run(format!("{instead} (under valgrind: {why})"));
    }
    if let Some(detail) = calls.wrong {
        return AuditVerdict::Wrong { detail };
    }
    let xml = match read_bounded(&xml_file) {
        Ok(x) => x,
        Err(e) => return not_run(format!("memcheck's output: {e}")),
    };
    match findings(&xml, object) {
        Ok(f) if f.is_empty() => AuditVerdict::Clean { calls: calls.calls },
        Ok(findings) => AuditVerdict::Findings {
            calls: calls.calls,
            findings,
        },
        Err(e) => not_run(e.to_string()),
    }
}

/// The most bytes of memcheck's XML read (memcheck reports each distinct
/// error once, with a count, so real output is far smaller).
const MAX_XML_BYTES: u64 = 16 << 20;

/// `path` as text, refused past [`MAX_XML_BYTES`].
fn read_bounded(path: &Path) -> std::io::Result<String> {
    use std::io::Read;
    let mut text = String::new();
    std::fs::File::open(path)?
        .take(MAX_XML_BYTES + 1)
        .read_to_string(&mut text)?;
    if text.len() as u64 > MAX_XML_BYTES {
        return Err(std::io::Error::other(format!(
            "longer than {MAX_XML_BYTES} bytes"
        )));
    }
    Ok(text)
}
