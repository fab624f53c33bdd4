//! The schema-2 timing record and its parts: the plan, the measuring
//! processes and their trials.

use serde::ser::{SerializeMap, Serializer};
use serde::{Deserialize, Serialize};

use super::SCHEMA;
use crate::json::{JsonObject, OrderedMap};

/// A record's `plan` (campaign.py, `plan`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Plan {
    /// Timed calls per trial.
    pub iterations_per_trial: u64,
    /// Untimed calls before each trial's timing.
    pub warmups: u64,
    /// Trials.
    pub trials: u64,
    /// Whether each trial ran in its own process.
    pub separate_processes: bool,
    /// Estimated seconds for the whole operation.
    pub estimated_s: f64,
    /// Hard time limit per process.
    pub timeout_per_process_s: f64,
    /// Seconds of the calibration call the plan was made from (written by
    /// pavelor; the harness does not write it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub calibration_seconds: Option<f64>,
    /// Seconds of the calibration process's start-up, loading and exit
    /// (its wall time less `calibration_seconds`; written by pavelor).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub calibration_setup_seconds: Option<f64>,
    /// Keys this schema does not know.
    #[serde(flatten)]
    pub extra: JsonObject,
}

/// One timed trial: `measurements` calls in `seconds`, `cycles` core cycles
/// (0 when there is no cycle counter).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Trial {
    /// Timed calls.
    pub measurements: u64,
    /// Their wall time (`CLOCK_MONOTONIC_RAW`).
    pub seconds: f64,
    /// Their user-mode core cycles; 0 without a cycle counter.
    pub cycles: u64,
    /// Keys this schema does not know (pavelor's tick counts).
    #[serde(flatten)]
    pub extra: JsonObject,
}

/// One measuring process of a record (campaign.py, `driver`). A process
/// that hit its time limit has `status: "hard_timeout"`, `timeout_s` and no
/// exit code, meta or trials; a slow operation measured by its calibration
/// run has `t1_s`, `setup_s` and `reused_calibration`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Process {
    /// `complete`, `failed`, `hard_timeout`, …
    pub status: String,
    /// The process's exit status.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exit_code: Option<i64>,
    /// The driver's `META` lines, in output order (all values strings).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<OrderedMap<String>>,
    /// The driver's `TRIAL` lines.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trials: Option<Vec<Trial>>,
    /// The end of its standard error.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stderr: Option<String>,
    /// The time limit it hit (`hard_timeout` only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout_s: Option<f64>,
    /// The command line (relative paths only).
    pub command: Vec<String>,
    /// The process's wall time.
    pub wall_s: f64,
    /// The calibration call's seconds (reused calibration runs).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub t1_s: Option<f64>,
    /// The calibration run's setup seconds (reused calibration runs).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub setup_s: Option<f64>,
    /// `true` when the calibration run is the measurement.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reused_calibration: Option<bool>,
    /// Times the process was repeated because a trial lost the CPU.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub disturbed_retries: Option<u64>,
    /// Keys this schema does not know.
    #[serde(flatten)]
    pub extra: JsonObject,
}

/// A schema-2 timing record, `records/<candidate>/<label>__<op>_<bytes>.json`.
///
/// The fields from `trials` to `timing_scope` are the derived block: the
/// harness writes it only when at least one trial ran, so it is written
/// exactly when `trials` is `Some` (a `None` among its other fields is
/// written as `null`). [`Record::derive_statistics`] and
/// [`Record::derive_from_processes`] fill it as campaign.py does.
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
pub struct Record {
    /// Always [`SCHEMA`] (2).
    pub schema: u64,
    /// `complete` or `failed_or_partial`.
    pub status: String,
    /// Candidate id, `hash-22`.
    pub candidate: String,
    /// Instance label, `Pavelor-512`.
    pub label: String,
    /// Instance name from the KAT log (`null` when unknown).
    #[serde(default)]
    pub instance: Option<String>,
    /// `reference`, …
    pub variant: String,
    /// `guide` or `harness-default`.
    pub flags: String,
    /// `hash`, `keygen`, `sign`, …
    pub operation: String,
    /// Message length for `hash`, else 0.
    pub input_bytes: u64,
    /// The plan the trials followed.
    pub plan: Plan,
    /// The instance's KAT outcome.
    #[serde(default)]
    pub kat: Option<String>,
    /// `true` when timed although the KATs did not pass.
    pub kat_not_passed: bool,
    /// Processes repeated because a trial lost the CPU.
    pub disturbed_retries: u64,
    /// The library, relative to the harness root.
    pub library: String,
    /// SHA-256 of the library measured.
    pub library_sha256: String,
    /// The KAT log, relative to the dataset (`null` when there is none).
    #[serde(default)]
    pub kat_log: Option<String>,
    /// Its SHA-256.
    #[serde(default)]
    pub kat_log_sha256: Option<String>,
    /// Start, ISO 8601 UTC.
    pub started_utc: String,
    /// End, ISO 8601 UTC.
    pub ended_utc: String,
    /// `os.getloadavg()` before.
    pub load_average_start: Vec<f64>,
    /// `os.getloadavg()` after.
    pub load_average_end: Vec<f64>,
    /// The measuring host, in the harness's key order (`cpu_number`,
    /// `cpufreq_max_khz`, …); unknown keys are kept.
    pub environment: JsonObject,
    /// The measuring processes.
    pub processes: Vec<Process>,
    /// All trials, in order (the processes' trials concatenated).
    #[serde(default)]
    pub trials: Option<Vec<Trial>>,
    /// Σ trial measurements.
    #[serde(default)]
    pub measurements: Option<u64>,
    /// `measurements >= 100`.
    #[serde(default)]
    pub guide_100_measurements_met: Option<bool>,
    /// Σ seconds / Σ measurements.
    #[serde(default)]
    pub mean_seconds: Option<f64>,
    /// Median over trials of seconds / measurements.
    #[serde(default)]
    pub median_trial_seconds: Option<f64>,
    /// Minimum over trials of seconds / measurements.
    #[serde(default)]
    pub min_trial_seconds: Option<f64>,
    /// Maximum over trials of seconds / measurements.
    #[serde(default)]
    pub max_trial_seconds: Option<f64>,
    /// Σ cycles / Σ measurements; `None` (`null`) without a cycle counter.
    #[serde(default)]
    pub mean_cycles: Option<f64>,
    /// Median over trials of cycles / measurements; `None` without cycles.
    #[serde(default)]
    pub median_trial_cycles: Option<f64>,
    /// Σ measurements / Σ seconds.
    #[serde(default)]
    pub operations_per_second: Option<f64>,
    /// input_bytes × Σ measurements / Σ seconds / 10⁶; `None` for size 0.
    #[serde(default, rename = "throughput_MB_per_second")]
    pub throughput_mb_per_second: Option<f64>,
    /// Sizes from the first process's meta (`*_bytes` except RSS).
    #[serde(default)]
    pub sizes: Option<OrderedMap<u64>>,
    /// Key-exchange figures from the first process's meta (`kex_*`).
    #[serde(default)]
    pub kex: Option<OrderedMap<u64>>,
    /// The library's build flags (first process's meta).
    #[serde(default)]
    pub build_flags: Option<String>,
    /// Largest baseline RSS over the processes, bytes.
    #[serde(default)]
    pub baseline_rss_bytes: Option<u64>,
    /// Largest peak RSS (VmHWM) over the processes, bytes.
    #[serde(default)]
    pub peak_rss_bytes: Option<u64>,
    /// `loop` (the whole timed loop) or `per_call_step`.
    #[serde(default)]
    pub timing_scope: Option<String>,
    /// Keys this schema does not know, written after the known ones.
    #[serde(flatten)]
    pub extra: JsonObject,
}

impl Serialize for Record {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut m = serializer.serialize_map(None)?;
        m.serialize_entry("schema", &self.schema)?;
        m.serialize_entry("status", &self.status)?;
        m.serialize_entry("candidate", &self.candidate)?;
        m.serialize_entry("label", &self.label)?;
        m.serialize_entry("instance", &self.instance)?;
        m.serialize_entry("variant", &self.variant)?;
        m.serialize_entry("flags", &self.flags)?;
        m.serialize_entry("operation", &self.operation)?;
        m.serialize_entry("input_bytes", &self.input_bytes)?;
        m.serialize_entry("plan", &self.plan)?;
        m.serialize_entry("kat", &self.kat)?;
        m.serialize_entry("kat_not_passed", &self.kat_not_passed)?;
        m.serialize_entry("disturbed_retries", &self.disturbed_retries)?;
        m.serialize_entry("library", &self.library)?;
        m.serialize_entry("library_sha256", &self.library_sha256)?;
        m.serialize_entry("kat_log", &self.kat_log)?;
        m.serialize_entry("kat_log_sha256", &self.kat_log_sha256)?;
        m.serialize_entry("started_utc", &self.started_utc)?;
        m.serialize_entry("ended_utc", &self.ended_utc)?;
        m.serialize_entry("load_average_start", &self.load_average_start)?;
        m.serialize_entry("load_average_end", &self.load_average_end)?;
        m.serialize_entry("environment", &self.environment)?;
        m.serialize_entry("processes", &self.processes)?;
        if let Some(trials) = &self.trials {
            m.serialize_entry("trials", trials)?;
            m.serialize_entry("measurements", &self.measurements)?;
            m.serialize_entry(
                "guide_100_measurements_met",
                &self.guide_100_measurements_met,
            )?;
            m.serialize_entry("mean_seconds", &self.mean_seconds)?;
            m.serialize_entry("median_trial_seconds", &self.median_trial_seconds)?;
            m.serialize_entry("min_trial_seconds", &self.min_trial_seconds)?;
            m.serialize_entry("max_trial_seconds", &self.max_trial_seconds)?;
            m.serialize_entry("mean_cycles", &self.mean_cycles)?;
            m.serialize_entry("median_trial_cycles", &self.median_trial_cycles)?;
            m.serialize_entry("operations_per_second", &self.operations_per_second)?;
            m.serialize_entry("throughput_MB_per_second", &self.throughput_mb_per_second)?;
            m.serialize_entry("sizes", &self.sizes)?;
            m.serialize_entry("kex", &self.kex)?;
            m.serialize_entry("build_flags", &self.build_flags)?;
            m.serialize_entry("baseline_rss_bytes", &self.baseline_rss_bytes)?;
            m.serialize_entry("peak_rss_bytes", &self.peak_rss_bytes)?;
            m.serialize_entry("timing_scope", &self.timing_scope)?;
        }
        for (k, v) in self.extra.iter() {
            m.serialize_entry(k, v)?;
        }
        m.end()
    }
}

impl Record {
    /// A record with `schema` 2 and status `complete` for one operation;
    /// everything else empty.
    pub fn new(candidate: &str, label: &str, operation: &str, input_bytes: u64) -> Record {
        Record {
            schema: SCHEMA,
            status: "complete".to_string(),
            candidate: candidate.to_string(),
            label: label.to_string(),
            operation: operation.to_string(),
            input_bytes,
            ..Record::default()
        }
    }

    /// The harness's key for the record's operation: `hash_32`, `keygen`
    /// (campaign.py `op_key`; report.py keys records the same way).
    pub fn op_key(&self) -> String {
        if self.input_bytes != 0 {
            format!("{}_{}", self.operation, self.input_bytes)
        } else {
            self.operation.clone()
        }
    }

    /// The trials the record holds: its own list and its processes'
    /// (each trial is usually in both), for the reader's trial limit.
    pub fn trial_count(&self) -> u64 {
        let own = self.trials.as_ref().map_or(0, Vec::len);
        let processes: usize = self
            .processes
            .iter()
            .map(|p| p.trials.as_ref().map_or(0, Vec::len))
            .sum();
        (own + processes) as u64
    }

    pub(super) fn name(&self) -> String {
        format!("{}/{} {}", self.candidate, self.label, self.op_key())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::{self, Json};

    #[test]
    fn unknown_fields_survive() {
        let text = r#"{"measurements": 3, "seconds": 0.5, "cycles": 0, "ticks": 12, "tick_source": "cntvct"}"#;
        let t: Trial = serde_json::from_str(text).expect("parse");
        assert_eq!(t.extra.get("ticks"), Some(&Json::from(12u64)));
        let out = String::from_utf8(json::to_harness_json(&t).expect("write")).expect("utf8");
        assert_eq!(
            out,
            "{\n \"measurements\": 3,\n \"seconds\": 0.5,\n \"cycles\": 0,\n \"ticks\": 12,\n \
             \"tick_source\": \"cntvct\"\n}\n"
        );
    }
}
