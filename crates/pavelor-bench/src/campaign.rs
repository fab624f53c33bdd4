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
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct WorkerCommand {
    /// The executable.
    pub program: PathBuf,
    /// Arguments before the spec.
    pub args: Vec<String>,
}

/// The measurement method: the NICCS harness's planning rule
/// (`ngcc-dev/ngcc-harness`, `performance/campaign.py`, `plan()`), with
/// its constants as fields. [`Method::standard`] is the harness's.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Method {
    /// Trials per operation, each in its own process.
    pub trials: usize,
    /// Target duration of one trial, seconds (the harness's
    /// `trial_target_s`; arm_1 used 0.5, x86_1 1.0).
    pub trial_target_s: f64,
    /// Timed calls per operation the guide asks for (100): with 5 trials,
    /// at least 20 calls per trial.
    pub min_total: u64,
    /// Largest number of calls in one trial.
    pub max_iters_per_trial: u64,
    /// Time budget of one operation (all trials), seconds; calls per trial
    /// shrink to fit it.
    pub op_budget_s: f64,
    /// Start-up time of a worker at or above which the harness runs all
    /// trials in one process, seconds.
    pub separate_process_setup_s: f64,
    /// Use the tick counter even where the cycle counter is available.
    pub force_ticks: bool,
    /// CPU to pin the trials to.
    pub cpu: Option<usize>,
    /// Time limit of a calibration run, seconds. A trial may take the
    /// plan's `timeout_per_process_s`; a worker still running then is
    /// killed and the figure recorded as hung.
    #[serde(default = "default_timeout")]
    pub timeout_s: f64,
}

fn default_timeout() -> f64 {
    60.0
}

/// What the planning rule decided for one operation, from its calibration:
/// the harness's record `plan` fields, plus the calibration figures that
/// let anyone recompute them.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Plan {
    /// Timed calls in each trial.
    pub iterations_per_trial: u64,
    /// Untimed calls before the timed ones, in each trial process.
    pub warmups: u64,
    /// Trials.
    pub trials: u64,
    /// Whether each trial runs in its own process (the harness: worker
    /// start-up under `separate_process_setup_s`).
    pub separate_processes: bool,
    /// Planned duration of the operation, seconds.
    pub estimated_s: f64,
    /// Time limit of one trial process, seconds.
    pub timeout_per_process_s: f64,
    /// `t1`: the one cold call of the calibration process, seconds.
    pub calibration_seconds: f64,
    /// The calibration process's wall time less `t1`: start-up, loading
    /// and exit, seconds.
    pub calibration_setup_seconds: f64,
}

impl Method {
    /// The NICCS harness's method: 5 trials of 0.5 s, at least 100 calls,
    /// at most 20000 calls per trial, 300 s per operation.
    pub fn standard() -> Self {
        Method {
            trials: 5,
            trial_target_s: 0.5,
            min_total: 100,
            max_iters_per_trial: 20_000,
            op_budget_s: 300.0,
            separate_process_setup_s: 60.0,
            force_ticks: false,
            cpu: None,
            timeout_s: default_timeout(),
        }
    }

    /// Whether this is the harness's method: every planning constant as
    /// [`Method::standard`] has it, except `trial_target_s`, which the
    /// harness itself sets per system (`--trial-target`).
    pub fn is_niccs(&self) -> bool {
        let s = Method::standard();
        self.trials == s.trials
            && self.min_total == s.min_total
            && self.max_iters_per_trial == s.max_iters_per_trial
            && self.op_budget_s == s.op_budget_s
            && self.separate_process_setup_s == s.separate_process_setup_s
    }

    /// The plan for an operation whose cold call took `t1` seconds in a
    /// calibration process whose start-up took `setup` seconds: the
    /// harness's rule, step by step and in its order of operations (so
    /// that `estimated_s` and `timeout_per_process_s` come out bit for bit
    /// as its records have them).
    pub fn plan(&self, t1: f64, setup: f64) -> Plan {
        let trials_wanted = self.trials.max(1) as u64;
        let t1 = t1.max(1e-8);
        let floor_per_trial = self.min_total.div_ceil(trials_wanted);
        let mut iters = ((self.trial_target_s / t1).ceil() as u64).max(floor_per_trial);
        iters = iters.min(self.max_iters_per_trial);
        let tw = trials_wanted as f64;
        if tw * iters as f64 * t1 > self.op_budget_s {
            iters = ((self.op_budget_s / (tw * t1)).floor() as u64).max(1);
        }
        let trials = if tw * t1 <= self.op_budget_s {
            trials_wanted
        } else {
            ((self.op_budget_s / t1).floor() as u64).max(1)
        };
        let warmups = if t1 < 0.05 {
            3
        } else if t1 < 5.0 {
            1
        } else {
            0
        };
        let separate = setup < self.separate_process_setup_s;
        let procs = if separate { trials } else { 1 };
        let estimated_s =
            trials as f64 * iters as f64 * t1 + procs as f64 * (warmups as f64 * t1 + setup);
        let per_process_calls = iters * if separate { 1 } else { trials };
        let timeout_per_process_s =
            3.0 * ((per_process_calls + warmups) as f64) * t1 + 3.0 * setup + 300.0;
        Plan {
            iterations_per_trial: iters,
            warmups,
            trials,
            separate_processes: separate,
            estimated_s,
            timeout_per_process_s,
            calibration_seconds: t1,
            calibration_setup_seconds: setup,
        }
    }

    /// Whether the calibration run is itself the measurement (the harness
    /// reuses it for one trial of one call without warm-ups).
    pub fn reuses_calibration(plan: &Plan) -> bool {
        plan.trials == 1 && plan.iterations_per_trial == 1 && plan.warmups == 0
    }
}

/// All trials of one operation at one message length.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Measurement {
    /// [`Operation::id`].
    pub op: String,
    /// Message length in bytes.
    pub size: usize,
    /// The calibration run: one cold call in its own process (part of the
    /// figures only when the plan reuses it).
    pub calibration: TrialResult,
    /// The plan made from the calibration.
    pub plan: Plan,
    /// The trials, in the order they ran.
    pub trials: Vec<TrialResult>,
    /// The command line of the first trial (the spec varies only in `calls`).
    pub command_line: Vec<String>,
    /// Wall time of each trial process, seconds, as the parent saw it.
    #[serde(default)]
    pub trial_wall_s: Vec<f64>,
    /// When the figure's calibration started and its last trial ended, UTC.
    #[serde(default)]
    pub started_utc: String,
    /// See `started_utc`.
    #[serde(default)]
    pub ended_utc: String,
    /// The 1, 5 and 15 minute load averages before the calibration.
    #[serde(default)]
    pub load_average_start: Vec<f64>,
    /// The load averages after the last trial.
    #[serde(default)]
    pub load_average_end: Vec<f64>,
}

/// UTC now in the harness's form (Python's `isoformat()` of an aware
/// datetime: `2026-09-28T15:05:46.790099+00:00`).
pub fn utc_iso() -> String {
    let t = humantime::format_rfc3339_micros(std::time::SystemTime::now()).to_string();
    match t.strip_suffix('Z') {
        Some(base) => format!("{base}+00:00"),
        None => t,
    }
}

/// The 1, 5 and 15 minute load averages (`/proc/loadavg`; empty where
/// there is none).
pub fn load_average() -> Vec<f64> {
    std::fs::read_to_string("/proc/loadavg")
        .map(|s| {
            s.split_whitespace()
                .take(3)
                .filter_map(|v| v.parse().ok())
                .collect()
        })
        .unwrap_or_default()
}

impl Measurement {
    /// Checks that the plan is what `method` makes of the calibration and
    /// that the trials followed it: `t1` is the calibration's time, the
    /// plan is [`Method::plan`]'s, and there are `trials` trials of
    /// `iterations_per_trial` calls each. The error says what differs.
    pub fn check_plan(&self, method: &Method) -> Result<(), String> {
        let t1 = self.calibration.ns as f64 / 1e9;
        let p = &self.plan;
        if p.calibration_seconds != t1 {
            return Err(format!(
                "plan.calibration_seconds is {} but the calibration took {t1} s",
                p.calibration_seconds
            ));
        }
        let want = method.plan(t1, p.calibration_setup_seconds);
        if *p != want {
            return Err(format!(
                "the plan is not the method's for a {t1} s calibration ({} x {} calls planned, {} x {} recorded)",
                want.trials, want.iterations_per_trial, p.trials, p.iterations_per_trial
            ));
        }
        if self.trials.len() as u64 != p.trials {
            return Err(format!(
                "{} trials recorded, {} planned",
                self.trials.len(),
                p.trials
            ));
        }
        if let Some(t) = self
            .trials
            .iter()
            .find(|t| t.calls != p.iterations_per_trial)
        {
            return Err(format!(
                "a trial of {} calls, {} planned",
                t.calls, p.iterations_per_trial
            ));
        }
        Ok(())
    }

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
) -> Result<(TrialResult, Vec<String>, f64), String> {
    let spec_json = serde_json::to_string(spec).map_err(|e| e.to_string())?;
    let mut cmd = Command::new(&worker.program);
    cmd.args(&worker.args).arg(&spec_json);
    let mut command_line = vec![worker.program.display().to_string()];
    command_line.extend(worker.args.iter().cloned());
    command_line.push(spec_json);
    let started = std::time::Instant::now();
    let out = isolate::run(cmd, limit)?;
    let wall_s = started.elapsed().as_secs_f64();
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
    Ok((result, command_line, wall_s))
}

/// A time limit of `s` seconds, or an error naming `what`.
fn limit_of(s: f64, what: &dyn Fn() -> String) -> Result<std::time::Duration, String> {
    std::time::Duration::try_from_secs_f64(s)
        .map_err(|e| format!("{}: time limit of {s} s: {e}", what()))
}

/// Measures `subject` at `size` bytes as the NICCS harness does: a
/// calibration process times one cold call (`t1`), [`Method::plan`] turns
/// it into calls per trial, warm-ups and trials, and each trial runs in a
/// fresh process: its warm-up calls, then exactly the planned calls between
/// the two counter reads. Any worker that fails, crashes or hangs ends the
/// figure with an error saying so.
pub fn measure(
    worker: &WorkerCommand,
    method: &Method,
    subject: &Subject,
    size: usize,
) -> Result<Measurement, String> {
    let what = || format!("{} at {size} B", subject.id());
    let started_utc = utc_iso();
    let load_average_start = load_average();
    let mut spec = TrialSpec {
        op: subject.id(),
        size,
        calls: 1,
        warmups: 0,
        force_ticks: method.force_ticks,
        cpu: method.cpu,
        lib: subject.lib_target(),
    };
    let (calibration, cal_command, cal_wall) =
        run_worker(worker, &spec, limit_of(method.timeout_s.max(0.1), &what)?)?;
    let t1 = calibration.ns as f64 / 1e9;
    let plan = method.plan(t1, (cal_wall - t1).max(0.0));
    if Method::reuses_calibration(&plan) {
        return Ok(Measurement {
            op: subject.id(),
            size,
            trials: vec![calibration.clone()],
            calibration,
            plan,
            command_line: cal_command,
            trial_wall_s: vec![cal_wall],
            started_utc,
            ended_utc: utc_iso(),
            load_average_start,
            load_average_end: load_average(),
        });
    }
    spec.calls = plan.iterations_per_trial;
    spec.warmups = plan.warmups;
    // Every trial gets a process of its own, also where the harness would
    // run them all in one (a worker that takes a minute to start): the
    // limit is then the one of a single trial.
    let limit = if plan.separate_processes {
        plan.timeout_per_process_s
    } else {
        3.0 * (plan.iterations_per_trial + plan.warmups) as f64 * t1
            + 3.0 * plan.calibration_setup_seconds
            + 300.0
    };
    let limit = limit_of(limit, &what)?;
    let mut trials = Vec::with_capacity(plan.trials as usize);
    let mut trial_wall_s = Vec::with_capacity(plan.trials as usize);
    let mut command_line = Vec::new();
    for _ in 0..plan.trials {
        let (t, cl, wall) = run_worker(worker, &spec, limit)?;
        if command_line.is_empty() {
            command_line = cl;
        }
        trials.push(t);
        trial_wall_s.push(wall);
    }
    Ok(Measurement {
        op: subject.id(),
        size,
        calibration,
        plan,
        trials,
        command_line,
        trial_wall_s,
        started_utc,
        ended_utc: utc_iso(),
        load_average_start,
        load_average_end: load_average(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plan_follows_the_harness() {
        let m = Method::standard();
        // A record of the harness's arm_1 campaign (Pavelor-512, 64 KiB):
        // 136 calls per trial, 3 warm-ups, and its estimate and time
        // limit bit for bit, from a calibration that reproduces them.
        let p = m.plan(0.00369, 0.000936548772338948);
        assert_eq!((p.iterations_per_trial, p.warmups, p.trials), (136, 3, 5));
        assert!(p.separate_processes);
        assert_eq!(p.estimated_s, 2.5692327438616944);
        assert_eq!(p.timeout_per_process_s, 301.541539646317);
        // A fast call: capped at 20000 calls per trial.
        assert_eq!(m.plan(1e-6, 0.001).iterations_per_trial, 20_000);
        // A slow call (10 ms): at least 20 per trial (100 in all), warm-up
        // rule at its thresholds (strictly below 50 ms and 5 s).
        let p = m.plan(0.01, 0.001);
        assert_eq!((p.iterations_per_trial, p.warmups), (50, 3));
        assert_eq!(m.plan(0.05, 0.001).warmups, 1);
        assert_eq!(m.plan(0.1, 0.001).iterations_per_trial, 20);
        assert_eq!(m.plan(5.0, 0.001).warmups, 0);
        // The 300 s budget: 10 s calls get 6 per trial instead of 20.
        let p = m.plan(10.0, 0.001);
        assert_eq!((p.iterations_per_trial, p.trials), (6, 5));
        // Over 60 s per call: one call per trial; over 150 s per call
        // fewer trials, and at one trial of one call the calibration is the
        // measurement.
        assert_eq!(m.plan(100.0, 0.001).iterations_per_trial, 1);
        let p = m.plan(200.0, 0.001);
        assert_eq!((p.iterations_per_trial, p.trials, p.warmups), (1, 1, 0));
        assert!(Method::reuses_calibration(&p));
        // A worker that takes a minute to start runs all trials in one
        // process (as the harness plans it).
        assert!(!m.plan(0.001, 61.0).separate_processes);
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
            plan: Method::standard().plan(1e-4, 1e-3),
            trials: probes.iter().map(|&p| trial(p)).collect(),
            command_line: Vec::new(),
            trial_wall_s: Vec::new(),
            started_utc: String::new(),
            ended_utc: String::new(),
            load_average_start: Vec::new(),
            load_average_end: Vec::new(),
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
