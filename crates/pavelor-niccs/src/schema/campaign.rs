//! `campaign.json`: the campaign's system, times, host checks and planning.

use serde::{Deserialize, Serialize};

use super::present;
use crate::json::{Json, JsonObject, OrderedMap};

/// `campaign.json`: the campaign's system, times, host state and planning.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Campaign {
    /// The system id (`performance/systems.csv`), also the dataset's
    /// directory name: `arm_1`, `x86_1`.
    pub system_id: String,
    /// Start of the campaign, ISO 8601 UTC (`2026-09-28T15:05:46.790099+00:00`).
    pub started_utc: String,
    /// The host as recorded at the start.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub environment_at_start: Option<JsonObject>,
    /// One entry per phase start: phase, CPU, time, host problems.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub host_checks: Option<Vec<HostCheck>>,
    /// The guide's build flags for the architecture (`null` for an unknown
    /// architecture).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "present"
    )]
    pub arch_config: Option<Json>,
    /// Flags the harness adds to every build.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub harness_additions: Option<String>,
    /// Iteration planning.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub planning: Option<Planning>,
    /// End of the campaign's last phase.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ended_utc: Option<String>,
    /// The host as recorded at the end.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub environment_at_end: Option<JsonObject>,
    /// Union of the host problems of the measuring phases.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub host_problems: Option<Vec<String>>,
    /// Number of shards the instances were divided into.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shards: Option<u64>,
    /// CPU of each shard (`"1/3": 3`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shard_cpus: Option<OrderedMap<u64>>,
    /// Free-text history of the campaign.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub history_note: Option<String>,
    /// Keys this schema does not know, in document order.
    #[serde(flatten)]
    pub extra: JsonObject,
}

/// One `host_checks` entry of `campaign.json`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct HostCheck {
    /// The phase started (`build`, `measure`, …).
    pub phase: String,
    /// The CPU it ran on.
    pub cpu: i64,
    /// When, ISO 8601 UTC.
    pub utc: String,
    /// Host problems found then.
    pub problems: Vec<String>,
    /// The shard (`"2/3"`), for sharded phases.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shard: Option<String>,
    /// Keys this schema does not know.
    #[serde(flatten)]
    pub extra: JsonObject,
}

/// `planning` in `campaign.json`: the constants every plan was made with.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Planning {
    /// Trials per operation.
    pub trials: u64,
    /// Target timed seconds per trial.
    pub trial_target_s: f64,
    /// Minimum timed calls in total.
    pub min_total: u64,
    /// Maximum calls per trial.
    pub max_iters_per_trial: u64,
    /// Seconds per operation above which fewer calls are timed.
    pub op_budget_s: f64,
    /// Setup seconds above which the trials share one process.
    pub separate_process_setup_s: f64,
    /// Keys this schema does not know.
    #[serde(flatten)]
    pub extra: JsonObject,
}
