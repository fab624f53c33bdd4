//! The parent side of the functional gate: probe, KATs and behaviour
//! checks, each in its own worker with a time limit.

use std::path::PathBuf;
use std::process::Command;
use std::time::Duration;

use pavelor::Algorithm;
use pavelor_kat::suite::KatKind;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use super::LibSpec;
use super::api::ApiChecks;
use super::audit::CtAudit;
use super::identity::{Identity, identify};
use super::tasks::{BehaviourResult, Check, KatFileResult, LibTask, ProbeResult, Verdict};
use crate::isolate::{self, Ended};
use crate::protocol::WorkerCommand;

/// Why a `KAT_Loop` row is NOT RUN on an emulated run, for the Rust
/// backends and the libraries alike.
pub const KAT_LOOP_EMULATED: &str =
    "10^6 chained hashes take too long under emulation; run natively";

/// Why a `KAT_2_33` row is NOT RUN: the run was `--quick` or
/// `--skip-2-33` (a default `pavelor report` verifies it).
pub const KAT_2_33_SKIPPED: &str =
    "3 x 1 GiB messages; skipped by --quick or --skip-2-33 (checked by a default run)";

/// What a library's campaign came to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum LibStatus {
    /// Every instance it computes passed the KATs and every figure's
    /// checks: it is measured.
    #[serde(rename = "PASS")]
    Pass,
    /// Wrong digests (in a KAT or a timed call), a failed KAT, or no
    /// instance computed correctly.
    #[serde(rename = "FAIL")]
    Fail,
    /// A worker was killed by a signal (SIGSEGV, SIGABRT, ...).
    #[serde(rename = "CRASH")]
    Crash,
    /// A call did not return within the time limit.
    #[serde(rename = "HANG")]
    Hang,
    /// An operation, or the library as a whole, ran past its time budget.
    #[serde(rename = "TIMEOUT")]
    Timeout,
    /// A call wrote outside the digest, before or past it.
    #[serde(rename = "WRITES OUTSIDE DIGEST")]
    Overwrite,
    /// Much faster on a repeated message than on distinct ones: it
    /// answers repeated calls without hashing.
    #[serde(rename = "CACHED")]
    Cached,
    /// Faster than the machine's AES throughput allows.
    #[serde(rename = "IMPLAUSIBLE")]
    Implausible,
    /// Its check trials on distinct messages were slower than its figure
    /// and its control trials, and in every such pair a trial waited for
    /// the CPU: the figure is withheld.
    #[serde(rename = "UNVERIFIED")]
    Unverified,
    /// A worker's answer did not hold against what the campaign knows
    /// (nonce, process, call count, time).
    #[serde(rename = "UNTRUSTED ANSWER")]
    Untrusted,
    /// Not an ELF library for this machine, or no `CryptHash` to load.
    #[serde(rename = "LOAD ERROR")]
    LoadError,
}

impl LibStatus {
    /// As the report and `libraries.json` write it.
    pub fn label(self) -> &'static str {
        match self {
            LibStatus::Pass => "PASS",
            LibStatus::Fail => "FAIL",
            LibStatus::Crash => "CRASH",
            LibStatus::Hang => "HANG",
            LibStatus::Timeout => "TIMEOUT",
            LibStatus::Overwrite => "WRITES OUTSIDE DIGEST",
            LibStatus::Cached => "CACHED",
            LibStatus::Implausible => "IMPLAUSIBLE",
            LibStatus::Unverified => "UNVERIFIED",
            LibStatus::Untrusted => "UNTRUSTED ANSWER",
            LibStatus::LoadError => "LOAD ERROR",
        }
    }
}

/// One KAT file of one library instance.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct LibKat {
    /// Instance.
    pub instance: String,
    /// File name.
    pub file: String,
    /// "PASS", "FAIL" or "NOT RUN".
    pub status: String,
    /// Records verified.
    pub passed: usize,
    /// Records in the file.
    pub total: usize,
    /// Failure, crash, hang, or why not run.
    pub detail: Option<String>,
}

/// One behaviour check, for information.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Behaviour {
    /// The call.
    pub call: String,
    /// What the contract asks for.
    pub expected: String,
    /// What the library did.
    pub observed: String,
    /// Whether that is what the contract asks for.
    pub conforms: bool,
}

/// Everything the gate found about one library.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct LibGate {
    /// As given.
    pub spec: LibSpec,
    /// The file's identity (None if it could not be read).
    pub identity: Option<Identity>,
    /// The probe's answer.
    pub probe: Option<ProbeResult>,
    /// Instances computed correctly (probe), in order.
    pub instances: Vec<String>,
    /// KAT files per instance.
    pub kat: Vec<LibKat>,
    /// Behaviour on bad input.
    pub behaviour: Vec<Behaviour>,
    /// The API checks of each instance it computes (none in a record
    /// written before they existed).
    #[serde(default)]
    pub api: Vec<ApiChecks>,
    /// The constant-time audit of the instances it computes (none when
    /// not run, or in a record written before it existed). It never
    /// changes `status`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub audit: Option<CtAudit>,
    /// The verdict.
    pub status: LibStatus,
    /// What happened, in one line.
    pub detail: String,
}

impl LibGate {
    /// The instances it computes correctly (the probe's), in order.
    pub fn computed_instances(&self) -> Vec<Algorithm> {
        self.instances
            .iter()
            .filter_map(|n| n.parse().ok())
            .collect()
    }

    /// The instances to measure: those that passed (none unless PASS).
    pub fn measured_instances(&self) -> Vec<Algorithm> {
        if self.status != LibStatus::Pass {
            return Vec::new();
        }
        self.computed_instances()
    }
}

/// The gate's settings.
#[derive(Clone, Debug)]
pub struct GateConfig {
    /// Where the KAT files are; `None`: the embedded official answers.
    pub kat_dir: Option<PathBuf>,
    /// Also `KAT_2_33` (1 GiB messages in memory).
    pub kat_2_33: bool,
    /// Limit for a probe or behaviour worker.
    pub timeout: Duration,
    /// Run the KAT files (false: probe and bad-input checks only).
    pub kats: bool,
    /// Why `KAT_Loop` is not run, if it is not (10^6 chained hashes
    /// under emulation): its rows are NOT RUN with this reason, as the
    /// Rust backends' are.
    pub loop_not_run: Option<String>,
    /// Memory limit of each worker, bytes (0: none).
    pub memory_bytes: u64,
    /// The message lengths the campaign times, bytes: the API checks'
    /// whole-byte random lengths leave them to the checks of the timed
    /// calls, so that the gate and the timing see different messages.
    pub timed_sizes: Vec<usize>,
}

/// How a worker call about a library ended.
enum Answer<T> {
    Ok(T),
    /// Ended badly: status and description.
    Bad(LibStatus, String),
}

fn last_context(stderr: &str) -> String {
    stderr
        .lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .map_or(String::new(), |l| format!(" during {}", l.trim()))
}

fn ask<T: DeserializeOwned>(
    worker: &WorkerCommand,
    task: &LibTask,
    limit: Duration,
    memory: u64,
) -> Answer<T> {
    let json = match serde_json::to_string(task) {
        Ok(j) => j,
        Err(e) => return Answer::Bad(LibStatus::Fail, e.to_string()),
    };
    let mut cmd = Command::new(&worker.program);
    cmd.args(&worker.args).arg(json);
    if memory > 0 {
        isolate::set_memory_limit(&mut cmd, memory);
    }
    let outcome = match isolate::run(cmd, limit) {
        Ok(o) => o,
        Err(e) => return Answer::Bad(LibStatus::Fail, e.to_string()),
    };
    let context = last_context(&outcome.stderr);
    match outcome.ended {
        Ended::Exited { code: 0 } if outcome.stdout_truncated => Answer::Bad(
            LibStatus::Fail,
            "unreadable worker answer: longer than 16 MiB or not closed".into(),
        ),
        Ended::Exited { code: 0 } if !outcome.stdout.is_empty() => {
            match serde_json::from_slice(&outcome.stdout) {
                Ok(v) => Answer::Ok(v),
                Err(e) => Answer::Bad(
                    LibStatus::Untrusted,
                    format!("an answer that is not the worker's ({e})"),
                ),
            }
        }
        Ended::Exited { code } => {
            let msg = crate::protocol::missing_answer(code, &outcome.stderr, context.trim());
            let status = if code == crate::protocol::EXIT_LOAD_ERROR {
                LibStatus::LoadError
            } else {
                LibStatus::Fail
            };
            Answer::Bad(status, msg)
        }
        e @ Ended::Signaled { .. } => {
            Answer::Bad(LibStatus::Crash, format!("{}{context}", e.describe()))
        }
        e @ Ended::TimedOut { .. } => {
            Answer::Bad(LibStatus::Hang, format!("{}{context}", e.describe()))
        }
    }
}

/// Time limit for checking one KAT file of `alg` from the probe's 1 KiB
/// call time: ten times the expected time (other processes may share the
/// core) plus the base limit. `None` if the probe's figure gives no usable
/// limit (negative, NaN, infinite or too large: a bad worker answer).
fn kat_limit(kind: KatKind, ns_per_kib: f64, base: Duration) -> Option<Duration> {
    let kib_calls = match kind {
        KatKind::Kat2_12 => 4097.0 * 0.3,
        KatKind::Kat2_23 => 3.0 * 1024.0,
        KatKind::Kat2_33 => 3.0 * 1024.0 * 1024.0,
        KatKind::Loop => 1e6,
    };
    Duration::try_from_secs_f64(10.0 * kib_calls * ns_per_kib / 1e9)
        .ok()
        .and_then(|extra| base.checked_add(extra))
}

fn describe_behaviour(check: Check, answer: Answer<BehaviourResult>) -> Behaviour {
    let (observed, conforms) = match answer {
        Answer::Ok(r) => {
            let mut s = format!("returns {}", r.rc);
            let conforms = match check {
                Check::NullMsgEmpty => r.rc == 0 && r.digest_correct,
                _ => r.rc != 0 && !r.digest_written,
            };
            if check == Check::NullMsgEmpty && r.rc == 0 {
                s.push_str(if r.digest_correct {
                    ", the empty message's digest"
                } else {
                    ", a digest that is not the empty message's"
                });
            } else if r.digest_written {
                s.push_str(", writes the digest buffer");
            } else {
                s.push_str(", writes nothing");
            }
            if r.written_before > 0 {
                s.push_str(&format!(
                    ", writes {} bytes before the digest",
                    r.written_before
                ));
            }
            if r.overwritten > 0 {
                s.push_str(&format!(", writes {} bytes past the digest", r.overwritten));
            }
            (s, conforms && r.overwritten == 0 && r.written_before == 0)
        }
        Answer::Bad(_, what) => (what, false),
    };
    Behaviour {
        call: check.call().into(),
        expected: check.expected().into(),
        observed,
        conforms,
    }
}

/// Runs the whole gate for `spec`. `progress` hears each step.
pub fn run(
    worker: &WorkerCommand,
    spec: &LibSpec,
    config: &GateConfig,
    progress: &mut dyn FnMut(&str),
) -> LibGate {
    let mut gate = LibGate {
        spec: spec.clone(),
        identity: None,
        probe: None,
        instances: Vec::new(),
        kat: Vec::new(),
        behaviour: Vec::new(),
        api: Vec::new(),
        audit: None,
        status: LibStatus::Pass,
        detail: String::new(),
    };
    check_identity(&mut gate);
    if gate.status != LibStatus::Pass {
        return gate;
    }
    let Some(slowest) = probe(worker, &mut gate, config, progress) else {
        return gate;
    };
    check_behaviour(worker, &mut gate, config, progress);
    check_api(worker, &mut gate, config, progress);
    if !config.kats {
        if gate.status == LibStatus::Pass {
            gate.detail = format!(
                "computes {} (probe; KATs not run)",
                gate.instances.join(", ")
            );
        }
        return gate;
    }
    run_kats(worker, &mut gate, config, slowest, progress);
    if gate.status == LibStatus::Pass {
        gate.detail = format!("computes {}; KATs pass", gate.instances.join(", "));
    }
    gate
}

/// Gives `gate` the status `status` and its `detail`, unless it already
/// failed: the first failure is the verdict.
fn fail(gate: &mut LibGate, status: LibStatus, detail: String) {
    if gate.status == LibStatus::Pass {
        gate.status = status;
        gate.detail = detail;
    }
}

/// The library file's identity, read without loading it: a LOAD ERROR
/// when it cannot be read or exports no `CryptHash`.
fn check_identity(gate: &mut LibGate) {
    match identify(&gate.spec.path) {
        Ok(id) => {
            if !id.exports_crypthash() {
                fail(
                    gate,
                    LibStatus::LoadError,
                    "does not export CryptHash".into(),
                );
            }
            gate.identity = Some(id);
        }
        Err(e) => fail(gate, LibStatus::LoadError, e.to_string()),
    }
}

/// Probes which Pavelor instances the library computes, in a worker, and
/// records them in `gate`. Returns the slowest time per KiB the probe saw
/// (NaN when one was not a number), or `None` when the probe itself
/// failed, which ends the gate.
fn probe(
    worker: &WorkerCommand,
    gate: &mut LibGate,
    config: &GateConfig,
    progress: &mut dyn FnMut(&str),
) -> Option<f64> {
    progress(&format!("{}: probe", gate.spec.name));
    let task = LibTask::Probe {
        path: gate.spec.path.clone(),
    };
    let probe: ProbeResult = match ask(worker, &task, config.timeout, config.memory_bytes) {
        Answer::Ok(p) => p,
        Answer::Bad(status, what) => {
            fail(gate, status, format!("probe: {what}"));
            return None;
        }
    };
    for l in &probe.lengths {
        match l.verdict {
            Verdict::Correct => gate.instances.push(format!("Pavelor-{}", l.bits)),
            Verdict::Rejected => {}
            Verdict::Wrong => fail(
                gate,
                LibStatus::Fail,
                format!("CryptHash({}, …): {}", l.bits, l.detail),
            ),
            Verdict::Overwrite => fail(
                gate,
                LibStatus::Overwrite,
                format!("CryptHash({}, …): {}", l.bits, l.detail),
            ),
        }
    }
    if gate.instances.is_empty() {
        fail(
            gate,
            LibStatus::Fail,
            "computes no Pavelor instance correctly".into(),
        );
    }
    let slowest = probe
        .lengths
        .iter()
        .filter_map(|l| l.ns_per_kib)
        // NaN wins (f64::max would drop it), so that kat_limit refuses it.
        .fold(0.0, |a: f64, b| {
            if a.is_nan() || b.is_nan() {
                f64::NAN
            } else {
                a.max(b)
            }
        });
    gate.probe = Some(probe);
    Some(slowest)
}

/// The library's behaviour on bad input, with the first instance it
/// computes: for information, never part of the verdict.
fn check_behaviour(
    worker: &WorkerCommand,
    gate: &mut LibGate,
    config: &GateConfig,
    progress: &mut dyn FnMut(&str),
) {
    let Some(first) = gate
        .instances
        .first()
        .and_then(|n| n.parse::<Algorithm>().ok())
    else {
        return;
    };
    for check in Check::ALL {
        progress(&format!("{}: {}", gate.spec.name, check.call()));
        let task = LibTask::Behaviour {
            path: gate.spec.path.clone(),
            bits: first.output_bits(),
            check,
        };
        let answer = ask(worker, &task, config.timeout, config.memory_bytes);
        gate.behaviour.push(describe_behaviour(check, answer));
    }
}

/// The API checks of every instance the library computes, one worker
/// each, from a fresh seed each (recorded with the checks): a check that
/// decides fails the library, as a wrong KAT answer does.
fn check_api(
    worker: &WorkerCommand,
    gate: &mut LibGate,
    config: &GateConfig,
    progress: &mut dyn FnMut(&str),
) {
    let instances = gate.computed_instances();
    for alg in instances {
        progress(&format!("{}: API checks of {alg}", gate.spec.name));
        let task = LibTask::Api {
            path: gate.spec.path.clone(),
            bits: alg.output_bits(),
            seed: fresh_seed(),
            timed_sizes: config.timed_sizes.clone(),
        };
        match ask::<ApiChecks>(worker, &task, config.timeout, config.memory_bytes) {
            Answer::Ok(checks) => {
                if let Some(f) = checks.first_failure() {
                    let detail = format!("API check of {alg}, {}: {}", f.kind.what(), f.observed);
                    fail(gate, LibStatus::Fail, detail);
                }
                gate.api.push(checks);
            }
            Answer::Bad(status, what) => fail(gate, status, format!("API checks of {alg}: {what}")),
        }
    }
}

/// A seed no run is likely to repeat: the process's hasher keys, which the
/// standard library draws from the system's random source, and the clock.
fn fresh_seed() -> u64 {
    use std::hash::{BuildHasher, Hasher};
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u64(crate::clock::monotonic_raw_ns());
    h.finish()
}

/// The KATs, one worker per file, for every instance the library
/// computes; `slowest` (the probe's time per KiB) sets their time limits.
fn run_kats(
    worker: &WorkerCommand,
    gate: &mut LibGate,
    config: &GateConfig,
    slowest: f64,
    progress: &mut dyn FnMut(&str),
) {
    let instances = gate.computed_instances();
    for alg in instances {
        for kind in KatKind::ALL {
            let k = run_kat_file(worker, gate, config, slowest, alg, kind, progress);
            gate.kat.push(k);
        }
    }
}

/// One KAT file of one instance: not run when skipped by `config` or when
/// the library already failed; otherwise run in a worker, a failure
/// becoming the gate's verdict if it is the first.
fn run_kat_file(
    worker: &WorkerCommand,
    gate: &mut LibGate,
    config: &GateConfig,
    slowest: f64,
    alg: Algorithm,
    kind: KatKind,
    progress: &mut dyn FnMut(&str),
) -> LibKat {
    let file = kind.file_name(alg);
    let mut k = LibKat {
        instance: alg.name().into(),
        file: file.clone(),
        status: "NOT RUN".into(),
        passed: 0,
        total: 0,
        detail: None,
    };
    if kind == KatKind::Kat2_33 && !config.kat_2_33 {
        k.detail = Some(KAT_2_33_SKIPPED.into());
        return k;
    }
    if let (KatKind::Loop, Some(why)) = (kind, &config.loop_not_run) {
        k.detail = Some(why.clone());
        return k;
    }
    if gate.status != LibStatus::Pass {
        k.detail = Some("not run: the library already failed".into());
        return k;
    }
    progress(&format!("{}: {file}", gate.spec.name));
    let task = LibTask::Kat {
        path: gate.spec.path.clone(),
        bits: alg.output_bits(),
        kind: String::from_utf8_lossy(kind.tag()).into_owned(),
        file: config.kat_dir.as_ref().map(|d| d.join(&file)),
    };
    let answer = match kat_limit(kind, slowest, config.timeout) {
        Some(limit) => ask::<KatFileResult>(worker, &task, limit, config.memory_bytes),
        None => Answer::Bad(
            LibStatus::Fail,
            format!("unreadable worker answer: probe time per KiB {slowest} ns"),
        ),
    };
    match answer {
        Answer::Ok(r) => {
            k.passed = r.passed;
            k.total = r.total;
            k.status = if r.pass { "PASS".into() } else { "FAIL".into() };
            if let Some(f) = &r.failure {
                fail(gate, LibStatus::Fail, format!("{file}: {f}"));
            }
            k.detail = r.failure;
        }
        Answer::Bad(status, what) => {
            k.status = "FAIL".into();
            fail(gate, status, format!("{file}: {what}"));
            k.detail = Some(what);
        }
    }
    k
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kat_limits_from_bad_probe_figures_are_refused() {
        let base = Duration::from_secs(5);
        let limit = kat_limit(KatKind::Kat2_23, 1000.0, base).expect("a limit");
        assert!(limit > base && limit < base + Duration::from_secs(1));
        for bad in [f64::NAN, f64::INFINITY, -1.0, 1e300, f64::MAX] {
            for kind in KatKind::ALL {
                assert_eq!(kat_limit(kind, bad, base), None, "{bad} {kind:?}");
            }
        }
        // A usable figure, but base + it does not fit in a Duration.
        assert_eq!(kat_limit(KatKind::Kat2_23, 1.0, Duration::MAX), None);
    }
}
