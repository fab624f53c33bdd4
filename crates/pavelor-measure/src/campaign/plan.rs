//! The planning policy: the method ([`Method`]), the harness's rule that
//! turns a calibration into a [`TrialPlan`], and the time limits of a
//! worker and of an operation ([`Budget`]).

use serde::{Deserialize, Serialize};

use super::{Fault, FaultKind};

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
    /// Wall-time limit of one operation at one length, seconds: its
    /// calibration, trials, reruns and check trials together. An operation
    /// still running then is stopped and its figure is a TIMEOUT.
    #[serde(default = "default_op_limit")]
    pub op_limit_s: f64,
    /// Memory limit of a worker process (`RLIMIT_AS`), bytes (0: none).
    #[serde(default = "default_worker_memory")]
    pub worker_memory_bytes: u64,
    /// How many times a disturbed trial is run again.
    #[serde(default = "default_reruns")]
    pub disturbed_reruns: usize,
}

fn default_reruns() -> usize {
    DISTURBED_RERUNS
}

fn default_timeout() -> f64 {
    60.0
}

fn default_op_limit() -> f64 {
    DEFAULT_OP_LIMIT_S
}

fn default_worker_memory() -> u64 {
    DEFAULT_WORKER_MEMORY_BYTES
}

/// [`Method::op_limit_s`] by default: twice the harness's 300-second
/// planning budget of an operation.
pub const DEFAULT_OP_LIMIT_S: f64 = 600.0;

/// [`Method::worker_memory_bytes`] by default: 2 GiB of address space,
/// room for a 1 GiB `KAT_2_33` message.
pub const DEFAULT_WORKER_MEMORY_BYTES: u64 = 2 << 30;

/// How many times a disturbed trial is run again by default, as the
/// harness does.
pub const DISTURBED_RERUNS: usize = 2;

/// What the planning rule decided for one operation, from its calibration:
/// the harness's record `plan`, with the calibration figures that let
/// anyone recompute it (`calibration_seconds`, `t1`, and
/// `calibration_setup_seconds`, the calibration process's wall time less
/// `t1`), which [`Method::plan`] always sets.
pub type TrialPlan = pavelor_niccs::Plan;

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
            op_limit_s: DEFAULT_OP_LIMIT_S,
            worker_memory_bytes: DEFAULT_WORKER_MEMORY_BYTES,
            disturbed_reruns: DISTURBED_RERUNS,
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
    pub fn plan(&self, t1: f64, setup: f64) -> TrialPlan {
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
        let timeout_per_process_s = process_limit_s(per_process_calls + warmups, t1, setup);
        TrialPlan {
            iterations_per_trial: iters,
            warmups,
            trials,
            separate_processes: separate,
            estimated_s,
            timeout_per_process_s,
            calibration_seconds: Some(t1),
            calibration_setup_seconds: Some(setup),
            extra: Default::default(),
        }
    }

    /// Whether the calibration run is itself the measurement (the harness
    /// reuses it for one trial of one call without warm-ups).
    pub fn reuses_calibration(plan: &TrialPlan) -> bool {
        plan.trials == 1 && plan.iterations_per_trial == 1 && plan.warmups == 0
    }
}

/// The harness's time limit of a process that makes `calls` calls
/// (warm-ups included) of `t1` seconds each after `setup` seconds of
/// start-up, seconds.
fn process_limit_s(calls: u64, t1: f64, setup: f64) -> f64 {
    3.0 * (calls as f64) * t1 + 3.0 * setup + 300.0
}

/// The time limit of one trial process of `plan`, seconds, for a
/// calibration of `t1` seconds. Every trial gets a process of its own, also
/// where the harness would run them all in one (a worker that takes a
/// minute to start): the limit is then the one of a single trial.
pub(super) fn trial_limit_s(plan: &TrialPlan, t1: f64) -> f64 {
    if plan.separate_processes {
        plan.timeout_per_process_s
    } else {
        let setup = plan.calibration_setup_seconds.unwrap_or(0.0);
        process_limit_s(plan.iterations_per_trial + plan.warmups, t1, setup)
    }
}

/// A time limit of `s` seconds, or an error naming `what`.
fn limit_of(s: f64, what: &dyn Fn() -> String) -> Result<std::time::Duration, Fault> {
    std::time::Duration::try_from_secs_f64(s).map_err(|e| {
        Fault::new(
            FaultKind::Error,
            format!("{}: time limit of {s} s: {e}", what()),
        )
    })
}

/// What one operation may still spend, and the limit of its next worker.
pub(super) struct Budget {
    started: std::time::Instant,
    limit_s: f64,
}

impl Budget {
    /// An operation that starts now and may take `limit_s` seconds
    /// ([`Method::op_limit_s`]).
    pub(super) fn start(limit_s: f64) -> Self {
        Budget {
            started: std::time::Instant::now(),
            limit_s,
        }
    }

    /// The time limit of the next worker: its own, or what is left of the
    /// operation's, whichever is shorter; and whether it is the latter.
    pub(super) fn limit(
        &self,
        worker_s: f64,
        what: &dyn Fn() -> String,
    ) -> Result<(std::time::Duration, bool), Fault> {
        let left = self.limit_s - self.started.elapsed().as_secs_f64();
        if left <= 0.0 {
            return Err(Fault::new(
                FaultKind::Timeout,
                format!(
                    "{}: over the limit of {} s per operation",
                    what(),
                    self.limit_s
                ),
            ));
        }
        limit_of(worker_s.min(left), what).map(|d| (d, left < worker_s))
    }

    /// A worker killed at the operation's limit (not at its own) makes the
    /// operation a timeout.
    pub(super) fn classify(&self, f: Fault, by_budget: bool) -> Fault {
        if f.kind == FaultKind::Hang && by_budget {
            Fault::new(
                FaultKind::Timeout,
                format!(
                    "{} (the operation's limit of {} s)",
                    f.message, self.limit_s
                ),
            )
        } else {
            f
        }
    }
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

    #[test]
    fn a_trial_s_limit_is_the_harness_s_for_one_trial() {
        let m = Method::standard();
        let p = m.plan(0.00369, 0.000936548772338948);
        assert_eq!(trial_limit_s(&p, 0.00369), p.timeout_per_process_s);
        // All trials in one process as the harness plans it: each of ours
        // gets the limit of a process of one trial (5 x 136 calls would
        // allow 5 times as long).
        let p = m.plan(0.00369, 61.0);
        assert!(!p.separate_processes);
        let one = trial_limit_s(&p, 0.00369);
        assert_eq!(one, 3.0 * (136.0 + 3.0) * 0.00369 + 3.0 * 61.0 + 300.0);
        assert!(one < p.timeout_per_process_s);
    }
}
