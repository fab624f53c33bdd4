//! The parent side of a measurement: calibration, trials in separate
//! processes, aggregation.
//!
//! This module holds the types they share ([`Measurement`], [`Fault`],
//! [`FaultKind`]); the rest is in six submodules, each re-exported here
//! (every item is `campaign::X`):
//!
//! * `plan` — the policy: [`Method`] and its constants, the harness's
//!   planning rule ([`Method::plan`] makes a [`TrialPlan`]: calls per trial
//!   `min(20000, max(ceil(T/t1), 20))`, warm-ups, trials, estimate), and
//!   the time limits of a worker and of an operation.
//! * `stats` — the figures of a [`Measurement`]: means, medians (Python's
//!   `statistics.median`, [`pavelor_niccs::py_median`]), throughput, RSS.
//! * `checks` — what a figure must pass: the plan
//!   ([`Measurement::check_plan`]), disturbed trials ([`disturbance`]), the
//!   AES-throughput bound ([`IMPLAUSIBLE_BELOW_BOUND`]) and the cache check
//!   of a library ([`CACHED_FACTOR`], [`CHECK_TRIALS`]).
//! * `run` — the worker conversation (the nonce, every answer checked
//!   against what the campaign knows itself), the load averages, and
//!   [`measure`]: the calibration, the trials and the reruns of disturbed
//!   ones, then the checks.
//! * `driver` — the campaign over many figures (`run_figures`): the
//!   library budget, no more figures of a library after its first
//!   failure, the processes left behind, and `settle_libraries`.
//! * `whole` — the whole campaign from one [`CampaignPlan`] ([`run()`]):
//!   the libraries' gates, then the figures, then the libraries' verdicts;
//!   a front end watches through an [`Observer`] and gets one [`Campaign`].
//!
//! Order, with no cycle: `plan` → `stats` → `checks` → `run` → `driver` →
//! `whole`; each uses
//! this module's types and those before it, never one after it.

use serde::{Deserialize, Serialize};

use crate::protocol::TaskId;
use crate::protocol::TrialResult;

mod checks;
mod driver;
mod plan;
mod run;
mod stats;
mod whole;

pub use checks::{
    BOUND_REPROBES, CACHED_FACTOR, CHECK_TRIALS, DISTURBED_WAIT_SHARE, IMPLAUSIBLE_BELOW_BOUND,
    PlanMismatch, disturbance,
};
pub use driver::{FigureFailure, Observer};
pub use plan::{
    DEFAULT_OP_LIMIT_S, DEFAULT_WORKER_MEMORY_BYTES, DISTURBED_RERUNS, Method, TrialPlan,
};
pub use run::{leftovers_killed, load_average, measure, nonce};
pub use whole::{Campaign, CampaignPlan, run};

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

/// A worker's checked answer: its result, its command line and its wall
/// time, seconds.
type Answer = (TrialResult, Vec<String>, f64);

/// All trials of one operation at one message length.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Measurement {
    /// [`Operation::id`](crate::ops::Operation::id).
    pub op: TaskId,
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

/// Trials and figures for the submodules' tests.
#[cfg(test)]
mod fixtures {
    use super::{Measurement, Method, TrialResult};
    use crate::clock::CounterKind;
    use crate::protocol::Messages;

    /// A trial of 10 calls and 1000 ticks, with its AES probe.
    pub(super) fn trial(aes: Option<f64>) -> TrialResult {
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
            reruns: 0,
        }
    }

    /// A 64 KiB figure of `trials`.
    pub(super) fn measurement(trials: Vec<TrialResult>) -> Measurement {
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
}
