//! The parent side of a measurement: calibration, trials in separate
//! processes, aggregation.

use std::process::Command;

use serde::{Deserialize, Serialize};

use crate::clock::CounterKind;
use crate::isolate::{self, Ended};
use crate::ops::Subject;
use crate::protocol::{Messages, TrialResult, TrialSpec, WorkerCommand, stage};

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

/// A trial is disturbed when its process waited for the CPU (run delay
/// plus the hypervisor's steal) for more than this share of its timed
/// calls' time.
pub const DISTURBED_WAIT_SHARE: f64 = 0.02;

/// How many times a disturbed trial is run again by default, as the
/// harness does.
pub const DISTURBED_RERUNS: usize = 2;

/// A figure is IMPLAUSIBLE when a trial's time per call is below this
/// share of the AES-throughput bound. The bound counts the AES rounds of a
/// hash at the throughput of 128-bit `AESENC` chains; honest figures seen
/// here come within 0.98x of it (the submitted AES-NI C at 64 KiB), so
/// the factor 2 is room for the probe's noise and for a CPU whose wider
/// AES units beat the 128-bit rate, and still far above what a library
/// that skips the hashing reaches (a few percent).
pub const IMPLAUSIBLE_BELOW_BOUND: f64 = 0.5;

/// A library's figure is CACHED when its check trials on distinct
/// messages are more than this factor slower than its fastest figure
/// trial and than the control trial run right after each of them
/// ([`CHECK_TRIALS`] undisturbed pairs).
pub const CACHED_FACTOR: f64 = 1.5;

/// Why a figure has no value.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum FaultKind {
    /// The worker could not run the trial (start-up, loading, an error).
    #[default]
    Error,
    /// A signal killed the worker.
    Crash,
    /// A worker gave no answer within its time limit.
    Hang,
    /// The operation ran past [`Method::op_limit_s`], or the library's
    /// budget ran out.
    Timeout,
    /// A timed call returned a wrong digest or a non-zero code.
    WrongDigest,
    /// A timed call wrote outside its digest.
    WritesOutside,
    /// The answer is not the worker's own: wrong nonce, pid or call
    /// count, or more time than the process lived.
    Untrusted,
    /// Much faster on the repeated message than on distinct ones.
    Cached,
    /// Faster than the AES-throughput bound allows.
    Implausible,
    /// Every check trial on distinct messages was slower than the figure
    /// and its control trial, and each such pair was disturbed: the figure
    /// cannot be checked.
    Unverified,
}

/// A figure that could not be measured: what kind of failure, and one
/// line about it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fault {
    /// The kind.
    pub kind: FaultKind,
    /// What happened.
    pub message: String,
}

impl Fault {
    fn new(kind: FaultKind, message: impl Into<String>) -> Self {
        Fault {
            kind,
            message: message.into(),
        }
    }
}

impl std::fmt::Display for Fault {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

/// What the planning rule decided for one operation, from its calibration:
/// the harness's record `plan` fields, plus the calibration figures that
/// let anyone recompute them.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TrialPlan {
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
        let timeout_per_process_s =
            3.0 * ((per_process_calls + warmups) as f64) * t1 + 3.0 * setup + 300.0;
        TrialPlan {
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
    pub fn reuses_calibration(plan: &TrialPlan) -> bool {
        plan.trials == 1 && plan.iterations_per_trial == 1 && plan.warmups == 0
    }
}

/// All trials of one operation at one message length.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Measurement {
    /// [`Operation::id`](crate::ops::Operation::id).
    pub op: String,
    /// Message length in bytes.
    pub size: usize,
    /// The calibration run: one cold call in its own process (part of the
    /// figures only when the plan reuses it).
    pub calibration: TrialResult,
    /// The plan made from the calibration.
    pub plan: TrialPlan,
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
    /// Trials found disturbed and run again (not part of the figure).
    #[serde(default)]
    pub disturbed_reruns: Vec<TrialResult>,
    /// pavelor's check trials of a library on distinct messages, each slow
    /// one followed by its control trial on the repeated message (each
    /// trial says which by its `messages`; not part of the figure): the
    /// figure stands only if they are about as fast.
    #[serde(default)]
    pub check_trials: Vec<TrialResult>,
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

/// Processes left behind by workers and killed, since this process
/// started ([`leftovers_killed`]).
static LEFTOVERS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// How many processes that workers left behind were found and killed
/// after them so far.
pub fn leftovers_killed() -> usize {
    LEFTOVERS.load(std::sync::atomic::Ordering::Relaxed)
}

/// A random number for a worker's spec, from the standard library's
/// per-process random hash keys and the time.
fn nonce() -> u64 {
    use std::hash::{BuildHasher, Hasher};
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u128(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos()),
    );
    h.finish()
}

/// Runs one worker and checks its answer against what the campaign knows
/// itself: the nonce and the call count it asked for, the process it
/// started, and the time that process lived.
fn run_worker(
    worker: &WorkerCommand,
    spec: &TrialSpec,
    limit: std::time::Duration,
    memory: u64,
) -> Result<Answer, Fault> {
    let spec_json =
        serde_json::to_string(spec).map_err(|e| Fault::new(FaultKind::Error, e.to_string()))?;
    let mut cmd = Command::new(&worker.program);
    cmd.args(&worker.args).arg(&spec_json);
    if memory > 0 {
        isolate::set_memory_limit(&mut cmd, memory);
    }
    let mut command_line = vec![worker.program.display().to_string()];
    command_line.extend(worker.args.iter().cloned());
    command_line.push(spec_json);
    let nonce = nonce();
    let input = crate::protocol::nonce_line(nonce);
    let out = isolate::run_with_input(cmd, limit, Some(input.as_bytes()))
        .map_err(|e| Fault::new(FaultKind::Error, e))?;
    LEFTOVERS.fetch_add(out.leftovers_killed, std::sync::atomic::Ordering::Relaxed);
    let wall_s = out.wall.as_secs_f64();
    let what = format!("trial of {} at {} B", spec.op, spec.size);
    let untrusted = |why: String| Fault::new(FaultKind::Untrusted, format!("{what}: {why}"));
    match out.ended {
        Ended::Exited { code: 0 } if !out.stdout.is_empty() => {}
        Ended::Exited { code } => {
            return Err(Fault::new(
                FaultKind::Error,
                format!(
                    "{what}: {}",
                    crate::protocol::missing_answer(code, &out.stderr, stage(&out.stderr))
                ),
            ));
        }
        Ended::Signaled { .. } => {
            return Err(Fault::new(
                FaultKind::Crash,
                format!("{what}: {} {}", out.ended.describe(), stage(&out.stderr)),
            ));
        }
        Ended::TimedOut { .. } => {
            return Err(Fault::new(
                FaultKind::Hang,
                format!("{what}: {}", out.ended.describe()),
            ));
        }
    }
    if out.stdout_truncated {
        return Err(untrusted(
            "an answer longer than 16 MiB, or a pipe left open".into(),
        ));
    }
    let mut result: TrialResult = serde_json::from_slice(&out.stdout)
        .map_err(|e| untrusted(format!("an answer that is not a trial result ({e})")))?;
    // The peak RSS is the kernel's count for the process, not the worker's
    // word.
    if out.peak_rss_kib.is_some() {
        result.peak_rss_kib = out.peak_rss_kib;
    }
    if result.nonce != nonce {
        return Err(untrusted(
            "the answer lacks the campaign's nonce: it was not written by the worker".into(),
        ));
    }
    if out.pid != result.pid {
        return Err(untrusted(format!(
            "the answer names process {}, but the worker was {}",
            result.pid, out.pid
        )));
    }
    if result.calls != spec.calls.max(1) {
        return Err(untrusted(format!(
            "the answer counts {} calls; {} were asked for",
            result.calls,
            spec.calls.max(1)
        )));
    }
    if result.ns as f64 / 1e9 > wall_s {
        return Err(untrusted(format!(
            "the answer claims {:.6} s of timed calls in a process that lived {wall_s:.6} s",
            result.ns as f64 / 1e9
        )));
    }
    let c = &result.checks;
    if c.damage.any() {
        return Err(Fault::new(
            FaultKind::WritesOutside,
            format!("{what}: {}", c.damage.describe()),
        ));
    }
    if c.wrong_digests > 0 {
        return Err(Fault::new(
            FaultKind::WrongDigest,
            format!(
                "{what}: {} of {} checked timed calls returned a wrong digest (first: call {})",
                c.wrong_digests,
                c.digests_checked,
                c.first_wrong_call.unwrap_or_default()
            ),
        ));
    }
    if c.failed_calls > 0 {
        return Err(Fault::new(
            FaultKind::WrongDigest,
            format!("{what}: {} timed calls returned non-zero", c.failed_calls),
        ));
    }
    Ok((result, command_line, wall_s))
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

/// Why `t` counts as disturbed, if it does: its process waited for the CPU
/// (run delay, and the hypervisor's steal) for more than
/// [`DISTURBED_WAIT_SHARE`] of its timed calls' time.
pub fn disturbance(t: &TrialResult) -> Option<String> {
    let waited = t.sched.run_delay_ns.unwrap_or(0) + t.sched.steal_ns.unwrap_or(0);
    (t.ns > 0 && waited as f64 > DISTURBED_WAIT_SHARE * t.ns as f64).then(|| {
        format!(
            "waited {:.1} ms for the CPU in {:.1} ms of timed calls",
            waited as f64 / 1e6,
            t.ns as f64 / 1e6
        )
    })
}

/// What one operation may still spend, and the limit of its next worker.
struct Budget {
    started: std::time::Instant,
    limit_s: f64,
}

impl Budget {
    /// The time limit of the next worker: its own, or what is left of the
    /// operation's, whichever is shorter; and whether it is the latter.
    fn limit(
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
    fn classify(&self, f: Fault, by_budget: bool) -> Fault {
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

/// Measures `subject` at `size` bytes as the NICCS harness does: a
/// calibration process times one cold call (`t1`), [`Method::plan`] turns
/// it into calls per trial, warm-ups and trials, and each trial runs in a
/// fresh process: its warm-up calls, then exactly the planned calls between
/// the two counter reads.
///
/// Beyond the harness: every answer is checked (`run_worker`); a
/// disturbed trial is run again up to [`Method::disturbed_reruns`] times; a
/// Pavelor figure faster than the AES bound of its own trial is
/// IMPLAUSIBLE; a library's figure must agree with a check trial on
/// distinct messages ([`CACHED_FACTOR`]); and the whole operation must end
/// within [`Method::op_limit_s`].
pub fn measure(
    worker: &WorkerCommand,
    method: &Method,
    subject: &Subject,
    size: usize,
    campaign_aes_per_round: Option<f64>,
) -> Result<Measurement, Fault> {
    let what = || format!("{} at {size} B", subject.id());
    let budget = Budget {
        started: std::time::Instant::now(),
        limit_s: method.op_limit_s,
    };
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
        messages: Messages::Repeated,
    };
    let memory = method.worker_memory_bytes;
    let run = |spec: &TrialSpec, limit_s: f64| {
        let (limit, by_budget) = budget.limit(limit_s, &what)?;
        run_worker(worker, spec, limit, memory).map_err(|f| budget.classify(f, by_budget))
    };
    let (calibration, cal_command, cal_wall) = run(&spec, method.timeout_s.max(0.1))?;
    let t1 = calibration.ns as f64 / 1e9;
    let plan = method.plan(t1, (cal_wall - t1).max(0.0));
    let mut m = Measurement {
        op: subject.id(),
        size,
        trials: Vec::new(),
        calibration: calibration.clone(),
        plan: plan.clone(),
        command_line: cal_command,
        trial_wall_s: Vec::new(),
        started_utc,
        ended_utc: String::new(),
        load_average_start,
        load_average_end: Vec::new(),
        disturbed_reruns: Vec::new(),
        check_trials: Vec::new(),
    };
    if Method::reuses_calibration(&plan) {
        let mut t = calibration;
        t.disturbed = disturbance(&t);
        m.trials.push(t);
        m.trial_wall_s.push(cal_wall);
    } else {
        spec.calls = plan.iterations_per_trial;
        spec.warmups = plan.warmups;
        // Every trial gets a process of its own, also where the harness
        // would run them all in one (a worker that takes a minute to
        // start): the limit is then the one of a single trial.
        let limit = if plan.separate_processes {
            plan.timeout_per_process_s
        } else {
            3.0 * (plan.iterations_per_trial + plan.warmups) as f64 * t1
                + 3.0 * plan.calibration_setup_seconds
                + 300.0
        };
        let mut command_line = Vec::new();
        for _ in 0..plan.trials {
            let mut reruns = 0;
            let (mut t, mut cl, mut wall) = run(&spec, limit)?;
            while let Some(why) = disturbance(&t) {
                if reruns == method.disturbed_reruns {
                    t.disturbed = Some(why);
                    break;
                }
                t.disturbed = Some(why);
                m.disturbed_reruns.push(t);
                reruns += 1;
                (t, cl, wall) = run(&spec, limit)?;
            }
            if command_line.is_empty() {
                command_line = cl;
            }
            m.trials.push(t);
            m.trial_wall_s.push(wall);
        }
        m.command_line = command_line;
    }
    if let Some(alg) = subject.algorithm() {
        check_bound(&m, alg, campaign_aes_per_round)
            .map_err(|f| Fault::new(f.kind, format!("{}: {}", what(), f.message)))?;
    }
    if spec.lib.is_some() {
        check_consistency(&mut m, &spec, &run, &what())?;
    }
    m.ended_utc = utc_iso();
    m.load_average_end = load_average();
    Ok(m)
}

/// Every trial's time per call against the AES bound
/// ([`IMPLAUSIBLE_BELOW_BOUND`]): the bound of the campaign's own probe
/// where there is one (the trial's probe is the worker's word), else the
/// trial's. A trial without a probe on a machine where the campaign
/// probed is not the worker's answer.
fn check_bound(
    m: &Measurement,
    alg: pavelor::Algorithm,
    campaign_per_round: Option<f64>,
) -> Result<(), Fault> {
    for (k, t) in m.trials.iter().enumerate() {
        let per_round = match (campaign_per_round, t.aes_per_round) {
            (Some(c), Some(_)) => c,
            (Some(_), None) => {
                return Err(Fault::new(
                    FaultKind::Untrusted,
                    format!("trial {} has no AES probe of its own", k + 1),
                ));
            }
            (None, Some(p)) => p,
            (None, None) => continue,
        };
        let bound = crate::aes_probe::bound_per_call(per_round, alg, m.size);
        let per_call = t.cycles as f64 / t.calls.max(1) as f64;
        if per_call < IMPLAUSIBLE_BELOW_BOUND * bound {
            return Err(Fault::new(
                FaultKind::Implausible,
                format!(
                    "trial {} took {per_call:.0} {} per call, {:.2}x the AES-throughput bound of {bound:.0} (no correct implementation is below 1x)",
                    k + 1,
                    t.counter.unit(),
                    per_call / bound
                ),
            ));
        }
    }
    Ok(())
}

/// A worker's checked answer: its result, its command line and its wall
/// time, seconds.
type Answer = (TrialResult, Vec<String>, f64);

/// Check trials on distinct messages that may count against a library
/// before it is CACHED.
pub const CHECK_TRIALS: usize = 3;

/// A library's check trials on distinct messages. A check trial within
/// [`CACHED_FACTOR`] of the figure's fastest trial ends the check. After a
/// slower one a control trial runs at once: the repeated message, stored
/// as the check trial stores its digests (a slot per call), so that the
/// pair differs in its messages alone and whatever slowed the machine down
/// meanwhile slows both. A check trial within the factor of its control
/// also ends the check. A slow pair counts against the library only if
/// neither trial was disturbed ([`disturbance`]): waiting for the CPU makes
/// a trial slower, never faster, so a disturbed slow pair says nothing and
/// is run again. After [`CHECK_TRIALS`] undisturbed slow pairs the library
/// is CACHED; if the attempts ([`CHECK_TRIALS`] plus [`DISTURBED_RERUNS`])
/// run out first, it is CACHED with at least one undisturbed slow pair and
/// UNVERIFIED (not accused and not passed) with none.
fn check_consistency(
    m: &mut Measurement,
    spec: &TrialSpec,
    run: &dyn Fn(&TrialSpec, f64) -> Result<Answer, Fault>,
    what: &str,
) -> Result<(), Fault> {
    let per_call = |t: &TrialResult| t.cycles as f64 / t.calls.max(1) as f64;
    let fastest = m.trials.iter().map(per_call).fold(f64::MAX, f64::min);
    let mut check = spec.clone();
    check.messages = Messages::Distinct;
    let mut control = spec.clone();
    control.messages = Messages::RepeatedControl;
    let limit = m
        .plan
        .timeout_per_process_s
        .max(m.calibration.ns as f64 / 1e9 * 3.0 + 60.0);
    // The slowest ratio of an undisturbed pair, with its two figures.
    let mut clean: Option<(f64, f64, f64)> = None;
    let mut clean_pairs = 0;
    let mut best_disturbed = f64::MAX;
    let timed = |spec: &TrialSpec, m: &mut Measurement| -> Result<(f64, bool), Fault> {
        let (mut t, _, _) = run(spec, limit)?;
        let this = per_call(&t);
        t.disturbed = disturbance(&t);
        let disturbed = t.disturbed.is_some();
        m.check_trials.push(t);
        Ok((this, disturbed))
    };
    for _ in 0..CHECK_TRIALS + DISTURBED_RERUNS {
        let (distinct, check_disturbed) = timed(&check, m)?;
        if fastest * CACHED_FACTOR >= distinct {
            return Ok(());
        }
        let (repeated, control_disturbed) = timed(&control, m)?;
        if repeated * CACHED_FACTOR >= distinct {
            return Ok(());
        }
        if check_disturbed || control_disturbed {
            best_disturbed = best_disturbed.min(distinct);
            continue;
        }
        let ratio = distinct / repeated;
        if clean.is_none_or(|(r, _, _)| ratio < r) {
            clean = Some((ratio, repeated, distinct));
        }
        clean_pairs += 1;
        if clean_pairs == CHECK_TRIALS {
            break;
        }
    }
    let Some((ratio, repeated, distinct)) = clean else {
        return Err(Fault::new(
            FaultKind::Unverified,
            format!(
                "{what}: every check trial on distinct messages was slower ({best_disturbed:.0} per call against {fastest:.0}), and it or its control trial waited for the CPU; the figure cannot be checked"
            ),
        ));
    };
    Err(Fault::new(
        FaultKind::Cached,
        format!(
            "{what}: {repeated:.0} per call on the repeated message but {distinct:.0} on distinct messages, back to back ({ratio:.1}x, the closest of {clean_pairs} undisturbed pairs of trials; the figure's fastest trial: {fastest:.0}): it answers repeated calls without hashing"
        ),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::Sched;

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
            nonce: 0,
            messages: Messages::Repeated,
            checks: Default::default(),
            sched: Default::default(),
            disturbed: None,
        }
    }

    /// A 64 KiB figure of `trials`.
    fn measurement(trials: Vec<TrialResult>) -> Measurement {
        Measurement {
            op: "x".into(),
            size: 65536,
            calibration: trial(None),
            plan: Method::standard().plan(1e-4, 1e-3),
            trials,
            command_line: Vec::new(),
            trial_wall_s: Vec::new(),
            started_utc: String::new(),
            ended_utc: String::new(),
            load_average_start: Vec::new(),
            load_average_end: Vec::new(),
            disturbed_reruns: Vec::new(),
            check_trials: Vec::new(),
        }
    }

    #[test]
    fn bound_probe_is_the_median_of_the_trials_own_probes() {
        let m = |probes: &[Option<f64>]| measurement(probes.iter().map(|&p| trial(p)).collect());
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
    fn a_trial_that_waited_for_its_cpu_is_disturbed() {
        let mut t = trial(None);
        t.ns = 1_000_000;
        t.sched.run_delay_ns = Some(19_000);
        assert_eq!(disturbance(&t), None);
        t.sched.steal_ns = Some(2_000);
        assert!(disturbance(&t).is_some_and(|w| w.contains("0.0 ms") || w.contains("ms")));
        t.sched = Sched::default();
        assert_eq!(disturbance(&t), None, "no scheduler figures: not disturbed");
    }

    #[test]
    fn the_aes_bound_uses_the_campaign_s_probe_and_needs_the_trial_s() {
        let alg = pavelor::Algorithm::Pavelor512;
        // 65536 B of Pavelor-512: 1025 Paff calls of 456 rounds.
        let bound = crate::aes_probe::bound_per_call(0.3, alg, 65536);
        let fig = |per_call: f64, aes: Option<f64>| {
            let mut t = trial(aes);
            t.calls = 10;
            t.cycles = (per_call * 10.0) as u64;
            measurement(vec![t])
        };
        assert!(check_bound(&fig(bound, Some(0.3)), alg, Some(0.3)).is_ok());
        let fast = check_bound(&fig(0.1 * bound, Some(0.3)), alg, Some(0.3));
        assert_eq!(fast.map_err(|f| f.kind), Err(FaultKind::Implausible));
        // A trial claiming a tiny probe of its own is held to the
        // campaign's.
        let claimed = check_bound(&fig(0.1 * bound, Some(0.001)), alg, Some(0.3));
        assert_eq!(claimed.map_err(|f| f.kind), Err(FaultKind::Implausible));
        let none = check_bound(&fig(bound, None), alg, Some(0.3));
        assert_eq!(none.map_err(|f| f.kind), Err(FaultKind::Untrusted));
        assert!(check_bound(&fig(0.1 * bound, None), alg, None).is_ok());
    }

    /// The check and control trials' outcomes `(ticks per call,
    /// disturbed)` in the order they run, against a figure of 100 ticks
    /// per call: what the check decides and how many trials it ran.
    fn consistency(outcomes: &[(u64, bool)]) -> (Result<(), FaultKind>, usize) {
        let mut figure = trial(None);
        figure.cycles = 100 * figure.calls;
        let mut m = measurement(vec![figure]);
        let spec = TrialSpec {
            op: "x".into(),
            size: 65536,
            calls: 10,
            warmups: 0,
            force_ticks: true,
            cpu: None,
            lib: None,
            messages: Messages::Repeated,
        };
        let next = std::cell::Cell::new(0usize);
        let run = |s: &TrialSpec, _: f64| -> Result<Answer, Fault> {
            // Check and control trials alternate, a check trial first.
            let want = if next.get().is_multiple_of(2) {
                Messages::Distinct
            } else {
                Messages::RepeatedControl
            };
            assert_eq!(s.messages, want);
            let (per_call, disturbed) = outcomes[next.get()];
            next.set(next.get() + 1);
            let mut t = trial(None);
            t.cycles = per_call * t.calls;
            t.ns = 1_000_000;
            t.sched.run_delay_ns = Some(if disturbed { 500_000 } else { 0 });
            Ok((t, Vec::new(), 0.0))
        };
        let r = check_consistency(&mut m, &spec, &run, "x").map_err(|f| f.kind);
        assert_eq!(m.check_trials.len(), next.get());
        (r, next.get())
    }

    #[test]
    fn only_undisturbed_slow_pairs_count_against_a_library() {
        let clean = |t| (t, false);
        let busy = |t| (t, true);
        // Within 1.5x of the figure: done after one, disturbed or not.
        assert_eq!(consistency(&[clean(150)]), (Ok(()), 1));
        assert_eq!(consistency(&[busy(120)]), (Ok(()), 1));
        // Slower than the figure but as fast as the control trial right
        // after it: the machine slowed down, not the library.
        assert_eq!(consistency(&[clean(300), clean(250)]), (Ok(()), 2));
        // A slow pair with a disturbed trial says nothing: run again.
        assert_eq!(
            consistency(&[busy(300), clean(100), clean(110)]),
            (Ok(()), 3)
        );
        assert_eq!(
            consistency(&[clean(300), busy(100), clean(140)]),
            (Ok(()), 3)
        );
        // Three undisturbed slow pairs: CACHED.
        let slow = [
            clean(151),
            clean(100),
            busy(900),
            clean(100),
            clean(200),
            clean(100),
            clean(400),
            clean(100),
        ];
        assert_eq!(consistency(&slow), (Err(FaultKind::Cached), 8));
        // The attempts run out with one undisturbed slow pair: CACHED.
        let mut few = [busy(300), clean(100)].repeat(CHECK_TRIALS + DISTURBED_RERUNS);
        few[5] = clean(100);
        few[4] = clean(300);
        assert_eq!(consistency(&few), (Err(FaultKind::Cached), few.len()));
        // Every pair disturbed: neither accused nor passed.
        let all = [busy(300), clean(100)].repeat(CHECK_TRIALS + DISTURBED_RERUNS);
        assert_eq!(consistency(&all), (Err(FaultKind::Unverified), all.len()));
    }

    #[test]
    fn median_of_odd_and_even() {
        assert_eq!(median(&mut [3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&mut [4.0, 1.0, 2.0, 3.0]), 2.5);
        assert_eq!(median(&mut []), 0.0);
    }
}
