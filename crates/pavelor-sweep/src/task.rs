//! A sweep in a worker process of its own: the request
//! ([`SweepTask`]), what the worker does with it ([`answer`]), and the
//! parent's side ([`run_in_worker`]), which bounds the worker's time and
//! memory and believes nothing of its answer that it can check.
//!
//! The worker hashes with one of this build's backends, or through a C
//! library's `CryptHash`; after the timed samples of each length in each
//! pass it checks the digest of the last call against pavelor's own
//! answer for that message, so a library cannot return early without
//! being caught at that length.

use std::hint::black_box;
use std::process::Command;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use pavelor::Algorithm;
use pavelor_measure::cabi::{CLibrary, DigestSlots};
use pavelor_measure::clock::CycleCounter;
use pavelor_measure::isolate::{self, Ended};
use pavelor_measure::library::reference;
use pavelor_measure::ops::{Operation, Prepared, Subject};
use pavelor_measure::protocol::{Damage, LibTarget, WorkerCommand, WorkerError};

use crate::{Curve, SweepPlan, Target};

/// A request to a worker: sweep one subject.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SweepTask {
    /// The subject's identifier: a Pavelor operation
    /// (`pavelor-512.aesni`), or the library's when `lib` is set.
    pub sweep_of: String,
    /// The instance.
    pub instance: String,
    /// Hash through this C library instead of a backend.
    pub lib: Option<LibTarget>,
    /// What to sweep.
    pub plan: SweepPlan,
    /// Use the tick counter even where the cycle counter works.
    pub force_ticks: bool,
    /// Pin the worker to this CPU.
    pub cpu: Option<usize>,
}

impl SweepTask {
    /// The task that sweeps `subject` (a Pavelor instance: a backend or a
    /// library's), or `None` for a comparison hash.
    pub fn of(
        subject: &Subject,
        plan: SweepPlan,
        force_ticks: bool,
        cpu: Option<usize>,
    ) -> Option<SweepTask> {
        let alg = subject.algorithm()?;
        Some(SweepTask {
            sweep_of: subject.id().as_str().to_string(),
            instance: alg.name().to_string(),
            lib: subject.lib_target(),
            plan,
            force_ticks,
            cpu,
        })
    }
}

/// What the worker's checks of its calls found.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SweepChecks {
    /// Digests compared with pavelor's: one per length per pass.
    pub digests_checked: u64,
    /// How many differed.
    pub wrong_digests: u64,
    /// The first length whose digest differed.
    pub first_wrong_length: Option<usize>,
    /// Calls that returned non-zero (libraries).
    pub failed_calls: u64,
    /// Writes outside the digest (libraries).
    pub damage: Damage,
}

impl SweepChecks {
    /// Why the curve cannot be trusted, if it cannot.
    pub fn problem(&self) -> Option<String> {
        if let Some(n) = self.first_wrong_length {
            return Some(format!(
                "{} of {} checked digests wrong, the first at {n} B",
                self.wrong_digests, self.digests_checked
            ));
        }
        if self.failed_calls > 0 {
            return Some(format!("{} calls returned non-zero", self.failed_calls));
        }
        self.damage.any().then(|| self.damage.describe())
    }
}

/// The worker's answer.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SweepAnswer {
    /// The samples.
    pub curve: Curve,
    /// The checks of the calls.
    pub checks: SweepChecks,
    /// The request's nonce.
    pub nonce: u64,
    /// The worker's process id.
    pub pid: u32,
}

/// The worker's side (a [`pavelor_measure::worker::Handler`]): `None`
/// when `arg` is not a sweep request (another handler reads it), else the
/// answer, carrying `nonce` (read from the worker's stdin), as JSON or why
/// there is none.
pub fn answer(arg: &str, nonce: u64) -> Option<Result<String, WorkerError>> {
    let task: SweepTask = serde_json::from_str(arg).ok()?;
    Some(
        run_task(&task, nonce).and_then(|a| {
            serde_json::to_string(&a).map_err(|e| WorkerError::Failed(e.to_string()))
        }),
    )
}

fn run_task(task: &SweepTask, nonce: u64) -> Result<SweepAnswer, WorkerError> {
    let failed = |why: String| WorkerError::Failed(why);
    let alg: Algorithm = task
        .instance
        .parse()
        .map_err(|_| failed(format!("unknown instance '{}'", task.instance)))?;
    if let Some(cpu) = task.cpu {
        pavelor_measure::worker::pin(cpu).map_err(|e| failed(e.to_string()))?;
    }
    let hasher = match &task.lib {
        Some(target) => {
            if target.bits != alg.output_bits() {
                return Err(failed(
                    "the library's digest length is not the instance's".into(),
                ));
            }
            Hasher::Lib {
                lib: CLibrary::open(&target.path)?,
                slots: DigestSlots::new(alg.output_len(), 1),
                bits: target.bits as i32,
            }
        }
        None => {
            let op = Operation::from_id(&task.sweep_of)
                .filter(|op| matches!(op, Operation::Pavelor(a, _) if *a == alg))
                .ok_or_else(|| failed(format!("'{}' is not a Pavelor backend", task.sweep_of)))?;
            Hasher::Backend {
                prepared: op.prepare().map_err(|e| failed(e.to_string()))?,
                out: [0; 128],
            }
        }
    };
    let mut counter = CycleCounter::open(task.force_ticks);
    let mut target = Checked {
        alg,
        hasher,
        checks: SweepChecks::default(),
    };
    let curve = crate::sweep(&task.plan, &mut counter, &mut target);
    let mut checks = target.checks;
    if let Hasher::Lib { slots, .. } = &target.hasher {
        checks.damage = slots.damage();
    }
    Ok(SweepAnswer {
        curve,
        checks,
        nonce,
        pid: std::process::id(),
    })
}

/// What the worker hashes with.
enum Hasher {
    /// One of this build's backends.
    Backend { prepared: Prepared, out: [u8; 128] },
    /// A C library's `CryptHash`, into a guarded digest slot.
    Lib {
        lib: CLibrary,
        slots: DigestSlots,
        bits: i32,
    },
}

/// The sweep's target in the worker: each call hashes; after each
/// length's samples, the last call's digest is compared with pavelor's.
struct Checked {
    alg: Algorithm,
    hasher: Hasher,
    checks: SweepChecks,
}

impl Target for Checked {
    fn call(&mut self, msg: &[u8]) {
        match &mut self.hasher {
            Hasher::Backend { prepared, out } => {
                prepared.hash(msg, out);
                black_box(&out);
            }
            Hasher::Lib { lib, slots, bits } => {
                let rc = lib.hash_into(*bits, msg, 8 * msg.len() as u64, slots, 0);
                black_box(slots.digest(0));
                self.checks.failed_calls += u64::from(rc != 0);
            }
        }
    }

    fn after_length(&mut self, msg: &[u8]) {
        let digest = match &self.hasher {
            Hasher::Backend { out, .. } => &out[..self.alg.output_len()],
            Hasher::Lib { slots, .. } => slots.digest(0),
        };
        self.checks.digests_checked += 1;
        if reference(self.alg, msg, 8 * msg.len() as u64) != digest {
            self.checks.wrong_digests += 1;
            self.checks.first_wrong_length.get_or_insert(msg.len());
        }
    }
}

/// Why a sweep gave no curve.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, thiserror::Error)]
#[serde(tag = "kind", content = "detail", rename_all = "kebab-case")]
pub enum SweepFault {
    /// The worker crashed.
    #[error("crashed: {0}")]
    Crash(String),
    /// The worker did not answer in time.
    #[error("hung: {0}")]
    Hang(String),
    /// The worker reported an error, or could not be started.
    #[error("{0}")]
    Error(String),
    /// The answer is not what the worker would have written.
    #[error("untrusted answer: {0}")]
    Untrusted(String),
    /// The calls gave wrong digests, failed, or wrote outside the digest.
    #[error("wrong: {0}")]
    Wrong(String),
}

/// Runs `task` in a worker started by `worker`, within `limit` and
/// `memory` bytes of address space (0: none), and checks the answer: the
/// nonce it was given, the process it started, the plan it asked for, a
/// sample count per length as planned, and the calls' checks.
pub fn run_in_worker(
    worker: &WorkerCommand,
    task: &SweepTask,
    limit: Duration,
    memory: u64,
) -> Result<SweepAnswer, SweepFault> {
    let nonce = pavelor_measure::campaign::nonce();
    let json = serde_json::to_string(task).map_err(|e| SweepFault::Error(e.to_string()))?;
    let mut cmd = Command::new(&worker.program);
    cmd.args(&worker.args).arg(json);
    if memory > 0 {
        isolate::set_memory_limit(&mut cmd, memory);
    }
    let input = pavelor_measure::protocol::nonce_line(nonce);
    let out = isolate::run_with_input(cmd, limit, Some(input.as_bytes()))
        .map_err(|e| SweepFault::Error(e.to_string()))?;
    let last_line = out
        .stderr
        .lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("")
        .trim()
        .to_string();
    match out.ended {
        Ended::Exited { code: 0 } if !out.stdout.is_empty() => {}
        Ended::Exited { code } => {
            return Err(SweepFault::Error(format!(
                "the worker exited with status {code} without an answer{}",
                if last_line.is_empty() {
                    String::new()
                } else {
                    format!(": {last_line}")
                }
            )));
        }
        e @ Ended::Signaled { .. } => return Err(SweepFault::Crash(e.describe())),
        e @ Ended::TimedOut { .. } => return Err(SweepFault::Hang(e.describe())),
    }
    if out.stdout_truncated {
        return Err(SweepFault::Untrusted(
            "an answer longer than 16 MiB, or a pipe left open".into(),
        ));
    }
    let answer: SweepAnswer = serde_json::from_slice(&out.stdout)
        .map_err(|e| SweepFault::Untrusted(format!("not a sweep answer ({e})")))?;
    if answer.nonce != nonce {
        return Err(SweepFault::Untrusted(
            "the answer lacks the request's nonce".into(),
        ));
    }
    if answer.pid != out.pid {
        return Err(SweepFault::Untrusted(format!(
            "the answer names process {}, but the worker was {}",
            answer.pid, out.pid
        )));
    }
    if let Some(why) = answer.curve.shape_problem(&task.plan) {
        return Err(SweepFault::Untrusted(why));
    }
    if let Some(why) = answer.checks.problem() {
        return Err(SweepFault::Wrong(why));
    }
    Ok(answer)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn other_requests_are_left_to_their_handlers() {
        assert!(answer(r#"{"lib_task":"probe","path":"/x"}"#, 1).is_none());
        assert!(answer(r#"{"op":"pavelor-512.portable","size":32,"calls":1}"#, 1).is_none());
        assert!(answer("not json", 1).is_none());
    }

    #[test]
    fn a_sweep_in_process_checks_every_length() {
        let task = SweepTask {
            sweep_of: "pavelor-768.portable".into(),
            instance: "Pavelor-768".into(),
            lib: None,
            plan: SweepPlan {
                lengths: vec![0, 1, 127, 128, 129],
                passes: 2,
                per_pass: 2,
                seed: 3,
            },
            force_ticks: true,
            cpu: None,
        };
        let a = run_task(&task, 77).expect("a sweep of a backend");
        assert_eq!(a.nonce, 77);
        assert_eq!(a.checks.digests_checked, 10);
        assert_eq!(a.checks.wrong_digests, 0);
        assert_eq!(a.checks.problem(), None);
        assert_eq!(a.curve.shape_problem(&task.plan), None);
    }

    #[test]
    fn a_request_that_names_no_backend_of_its_instance_fails() {
        let mut task = SweepTask {
            sweep_of: "pavelor-512.portable".into(),
            instance: "Pavelor-1024".into(),
            lib: None,
            plan: SweepPlan {
                lengths: vec![0],
                passes: 1,
                per_pass: 1,
                seed: 0,
            },
            force_ticks: true,
            cpu: None,
        };
        assert!(run_task(&task, 0).is_err());
        task.sweep_of = "sha-512".into();
        assert!(run_task(&task, 0).is_err());
    }

    #[test]
    fn the_checks_name_the_first_wrong_length() {
        let c = SweepChecks {
            digests_checked: 9,
            wrong_digests: 2,
            first_wrong_length: Some(193),
            ..SweepChecks::default()
        };
        let p = c.problem().expect("wrong digests");
        assert!(p.contains("193 B") && p.contains("2 of 9"), "{p}");
    }
}
