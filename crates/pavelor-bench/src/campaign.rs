//! The parent side of a measurement: calibration, trials in separate
//! processes, aggregation.

use std::path::PathBuf;
use std::process::Command;

use serde::{Deserialize, Serialize};

use crate::clock::CounterKind;
use crate::isolate::{self, Ended};
use crate::ops::Subject;
use crate::worker::{TrialResult, TrialSpec};

/// How to start a worker process: `program args... <spec JSON>`.
#[derive(Clone, Debug)]
pub struct WorkerCommand {
    /// The executable.
    pub program: PathBuf,
    /// Arguments before the spec.
    pub args: Vec<String>,
}

/// The measurement method (MEASUREMENT.md, "Method").
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Method {
    /// Trials per operation, each in its own process.
    pub trials: usize,
    /// Target total timed duration per operation, nanoseconds.
    pub target_ns: u64,
    /// Minimum total timed calls per operation.
    pub min_calls: u64,
    /// Upper limit on the total timed duration per operation, nanoseconds.
    pub max_ns: u64,
    /// Use the tick counter even where the cycle counter is available.
    pub force_ticks: bool,
    /// CPU to pin the trials to.
    pub cpu: Option<usize>,
    /// Time limit of a calibration run, seconds; a trial may take this
    /// plus three times its planned duration. A worker still running then
    /// is killed and the figure recorded as hung.
    #[serde(default = "default_timeout")]
    pub timeout_s: f64,
}

fn default_timeout() -> f64 {
    60.0
}

impl Method {
    /// The reference campaigns' method: 5 trials, 0.5 s, at least 100 calls,
    /// at most 5 minutes.
    pub fn standard() -> Self {
        Method {
            trials: 5,
            target_ns: 500_000_000,
            min_calls: 100,
            max_ns: 300_000_000_000,
            force_ticks: false,
            cpu: None,
            timeout_s: default_timeout(),
        }
    }

    /// Total calls and calls per trial for an operation taking `ns_per_call`.
    pub fn plan(&self, ns_per_call: f64) -> (u64, u64) {
        let ns_per_call = ns_per_call.max(1.0);
        let wanted = ((self.target_ns as f64 / ns_per_call).ceil() as u64).max(self.min_calls);
        let cap = (self.max_ns as f64 / ns_per_call).floor() as u64;
        let trials = self.trials.max(1) as u64;
        let total = wanted.min(cap).max(trials);
        let per_trial = total.div_ceil(trials);
        (per_trial * trials, per_trial)
    }
}

/// All trials of one operation at one message length.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Measurement {
    /// [`Operation::id`].
    pub op: String,
    /// Message length in bytes.
    pub size: usize,
    /// The calibration run (not part of the figures).
    pub calibration: TrialResult,
    /// Timed calls per trial.
    pub calls_per_trial: u64,
    /// The trials, in the order they ran.
    pub trials: Vec<TrialResult>,
    /// The command line of the first trial (the spec varies only in `calls`).
    pub command_line: Vec<String>,
}

impl Measurement {
    /// The counter the figures come from.
    pub fn counter(&self) -> CounterKind {
        self.trials.first().map_or(CounterKind::None, |t| t.counter)
    }

    /// Total timed calls.
    pub fn total_calls(&self) -> u64 {
        self.trials.iter().map(|t| t.calls).sum()
    }

    /// Mean cycles (or ticks) per call over all timed calls.
    pub fn mean_cycles(&self) -> f64 {
        self.trials.iter().map(|t| t.cycles as f64).sum::<f64>() / self.total_calls().max(1) as f64
    }

    /// Median over the trials of the AES-round throughput each trial
    /// process probed right after its timed calls (`None` unless every
    /// trial has one).
    pub fn trial_aes_per_round(&self) -> Option<f64> {
        let mut v: Vec<f64> = self
            .trials
            .iter()
            .map(|t| t.aes_per_round)
            .collect::<Option<_>>()?;
        (!v.is_empty()).then(|| median(&mut v))
    }

    /// Mean cycles per message byte.
    pub fn cycles_per_byte(&self) -> f64 {
        self.mean_cycles() / self.size.max(1) as f64
    }

    /// Median over the trials of each trial's mean cycles per call.
    pub fn median_trial_mean_cycles(&self) -> f64 {
        let mut means: Vec<f64> = self
            .trials
            .iter()
            .map(|t| t.cycles as f64 / t.calls.max(1) as f64)
            .collect();
        median(&mut means)
    }

    /// Mean nanoseconds per call.
    pub fn mean_ns(&self) -> f64 {
        self.trials.iter().map(|t| t.ns as f64).sum::<f64>() / self.total_calls().max(1) as f64
    }

    /// Throughput in MB/s (10^6 bytes per second).
    pub fn mb_per_s(&self) -> f64 {
        self.size as f64 * 1e3 / self.mean_ns().max(f64::MIN_POSITIVE)
    }

    /// Largest baseline RSS over the trials, KiB.
    pub fn baseline_rss_kib(&self) -> Option<u64> {
        self.trials.iter().filter_map(|t| t.baseline_rss_kib).max()
    }

    /// Largest peak RSS (VmHWM) over the trials, KiB.
    pub fn peak_rss_kib(&self) -> Option<u64> {
        self.trials.iter().filter_map(|t| t.peak_rss_kib).max()
    }
}

/// The median of `v` (0 for an empty slice).
pub fn median(v: &mut [f64]) -> f64 {
    if v.is_empty() {
        return 0.0;
    }
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

fn run_worker(
    worker: &WorkerCommand,
    spec: &TrialSpec,
    limit: std::time::Duration,
) -> Result<(TrialResult, Vec<String>), String> {
    let spec_json = serde_json::to_string(spec).map_err(|e| e.to_string())?;
    let mut cmd = Command::new(&worker.program);
    cmd.args(&worker.args).arg(&spec_json);
    let mut command_line = vec![worker.program.display().to_string()];
    command_line.extend(worker.args.iter().cloned());
    command_line.push(spec_json);
    let out = isolate::run(cmd, limit)?;
    let what = format!("trial of {} at {} B", spec.op, spec.size);
    match out.ended {
        Ended::Exited { code: 0 } => {}
        Ended::Exited { .. } => {
            // The worker's own message, not whatever the library printed
            // (its stdout goes to stderr too) after it.
            let err = out
                .stderr
                .lines()
                .rev()
                .find(|l| l.starts_with("pavelor trial:"))
                .unwrap_or("worker failed")
                .trim_start_matches("pavelor trial:")
                .trim();
            return Err(format!("{what} failed: {err}"));
        }
        ended => return Err(format!("{what}: {}", ended.describe())),
    }
    if out.stdout_truncated {
        return Err(format!(
            "{what}: unreadable trial result: longer than 16 MiB or not closed"
        ));
    }
    let result =
        serde_json::from_slice(&out.stdout).map_err(|e| format!("unreadable trial result: {e}"))?;
    Ok((result, command_line))
}

/// Measures `subject` at `size` bytes: a calibration process to size the
/// trials, then `method.trials` trial processes. Any worker that fails,
/// crashes or hangs ends the figure with an error saying so.
pub fn measure(
    worker: &WorkerCommand,
    method: &Method,
    subject: &Subject,
    size: usize,
) -> Result<Measurement, String> {
    let mut spec = TrialSpec {
        op: subject.id(),
        size,
        calls: 0,
        force_ticks: method.force_ticks,
        cpu: method.cpu,
        lib: subject.lib_target(),
    };
    let base = std::time::Duration::try_from_secs_f64(method.timeout_s.max(0.1))
        .map_err(|e| format!("time limit of {} s: {e}", method.timeout_s))?;
    let (calibration, _) = run_worker(worker, &spec, base)?;
    let ns_per_call = calibration.ns as f64 / calibration.calls.max(1) as f64;
    let (_, per_trial) = method.plan(ns_per_call);
    spec.calls = per_trial;
    let limit = std::time::Duration::try_from_secs_f64(3.0 * per_trial as f64 * ns_per_call / 1e9)
        .ok()
        .and_then(|planned| base.checked_add(planned))
        .ok_or_else(|| {
            format!(
                "calibration of {} at {size} B: no usable time limit for {per_trial} calls of {ns_per_call} ns",
                spec.op
            )
        })?;
    let mut trials = Vec::with_capacity(method.trials);
    let mut command_line = Vec::new();
    for _ in 0..method.trials.max(1) {
        let (t, cl) = run_worker(worker, &spec, limit)?;
        if command_line.is_empty() {
            command_line = cl;
        }
        trials.push(t);
    }
    Ok(Measurement {
        op: subject.id(),
        size,
        calibration,
        calls_per_trial: per_trial,
        trials,
        command_line,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plan_follows_the_method() {
        let m = Method::standard();
        // Fast call: 0.5 s worth of calls.
        assert_eq!(m.plan(100.0), (5_000_000, 1_000_000));
        // Slow call (10 ms): at least 100 calls.
        assert_eq!(m.plan(10e6), (100, 20));
        // Very slow call (10 s): capped at 5 minutes, never below 1 per trial.
        assert_eq!(m.plan(10e9), (30, 6));
        assert_eq!(m.plan(1e12), (5, 1));
    }

    fn trial(aes: Option<f64>) -> TrialResult {
        TrialResult {
            calls: 10,
            cycles: 1000,
            ns: 500,
            counter: CounterKind::Ticks,
            counter_note: None,
            baseline_rss_kib: None,
            peak_rss_kib: None,
            cpu: Some(1),
            pid: 1,
            aes_per_round: aes,
        }
    }

    #[test]
    fn bound_probe_is_the_median_of_the_trials_own_probes() {
        let m = |probes: &[Option<f64>]| Measurement {
            op: "x".into(),
            size: 65536,
            calibration: trial(None),
            calls_per_trial: 10,
            trials: probes.iter().map(|&p| trial(p)).collect(),
            command_line: Vec::new(),
        };
        assert_eq!(
            m(&[Some(0.31), Some(0.29), Some(0.30)]).trial_aes_per_round(),
            Some(0.30)
        );
        // One trial without a probe: no per-trial bound (the report falls
        // back to the campaign's probe).
        assert_eq!(m(&[Some(0.31), None]).trial_aes_per_round(), None);
        assert_eq!(m(&[]).trial_aes_per_round(), None);
    }

    #[test]
    fn median_of_odd_and_even() {
        assert_eq!(median(&mut [3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&mut [4.0, 1.0, 2.0, 3.0]), 2.5);
        assert_eq!(median(&mut []), 0.0);
    }
}
