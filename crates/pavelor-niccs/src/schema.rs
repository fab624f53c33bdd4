//! The harness's file schemas: `campaign.json`, `build.json` and the
//! schema-2 timing record (`ngcc-dev/ngcc-harness`, `performance/campaign.py`
//! writes all three).
//!
//! Fields are declared in the order the harness writes them, so a harness
//! file read and written again is byte-identical. Keys this schema does not
//! know are kept (`extra`, in document order) and written after the known
//! ones, so pavelor can add fields of its own (for example tick counts where
//! there is no cycle counter) without breaking the harness's tools, which
//! read records as plain dicts.
//!
//! Optional fields: `Option<T>` is a key that may be missing (`None` is not
//! written). Where the harness writes `null` for a missing value the field
//! is always written (`None` as `null`); where both happen, the field is
//! `Option<Option<T>>` (`None`: missing, `Some(None)`: `null`).

use serde::ser::{SerializeMap, Serializer};
use serde::{Deserialize, Deserializer, Serialize};

use crate::error::Error;
use crate::json::{self, Json, JsonObject, OrderedMap};

/// The record schema this module reads and writes.
pub const SCHEMA: u64 = 2;

/// The guide's minimum number of timed calls (`MIN_TOTAL` in campaign.py).
pub const GUIDE_MIN_MEASUREMENTS: u64 = 100;

/// Deserializes a key that is present (even as `null`) to `Some`; with
/// `#[serde(default)]` a missing key stays `None`.
fn present<'de, D: Deserializer<'de>, T: Deserialize<'de>>(d: D) -> Result<Option<T>, D::Error> {
    T::deserialize(d).map(Some)
}

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

/// `build.json`: one entry per built instance, keyed `candidate/label`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Build {
    /// `"hash-22/Pavelor-512"` → entry.
    pub instances: OrderedMap<BuildEntry>,
    /// Keys this schema does not know (the x86 harness adds `optimized`).
    #[serde(flatten)]
    pub extra: JsonObject,
}

/// One instance of `build.json`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct BuildEntry {
    /// Candidate id, `hash-22`.
    pub candidate: String,
    /// Instance label, `Pavelor-512`.
    pub label: String,
    /// The instance named in the KAT log (`null` when there is none).
    #[serde(default)]
    pub instance: Option<String>,
    /// `reference`, `optimized-avx2`, …
    pub variant: String,
    /// `guide` or `harness-default`.
    pub flags: String,
    /// KAT outcome: `PASS`, `MISMATCH`, `BUILDFAIL`, …
    pub kat: String,
    /// The KAT outcome with the guide's flags, when the harness defaults
    /// were used instead.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub guide_result: Option<String>,
    /// The library, relative to the harness root.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub library: Option<String>,
    /// SHA-256 of the library (lower-case hex).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub library_sha256: Option<String>,
    /// Sum of the library's `PT_LOAD` memory sizes (`None`: missing,
    /// `Some(None)`: `null`, readelf failed).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "present"
    )]
    pub elf_load_bytes: Option<Option<u64>>,
    /// The KAT log, relative to the dataset (`kat/<candidate>/<label>.log`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kat_log: Option<String>,
    /// SHA-256 of the KAT log (lower-case hex).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kat_log_sha256: Option<String>,
    /// Keys this schema does not know.
    #[serde(flatten)]
    pub extra: JsonObject,
}

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

/// Every figure the harness derives from a list of trials, computed the
/// way campaign.py does (Python 3.12+ arithmetic: compensated `sum`,
/// correctly rounded `int / int`).
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Derived {
    pub measurements: u128,
    pub seconds: f64,
    pub mean_seconds: Option<f64>,
    pub median_trial_seconds: Option<f64>,
    pub min_trial_seconds: Option<f64>,
    pub max_trial_seconds: Option<f64>,
    pub mean_cycles: Option<f64>,
    pub median_trial_cycles: Option<f64>,
    pub operations_per_second: Option<f64>,
    pub throughput_mb_per_second: Option<f64>,
}

/// The figures for trials given as (measurements, seconds, cycles);
/// `Err(i)` if trial `i` has no measurements (a division by zero in the
/// harness).
pub(crate) fn derive(trials: &[(u64, f64, u64)], input_bytes: u64) -> Result<Derived, usize> {
    if let Some(i) = trials.iter().position(|t| t.0 == 0) {
        return Err(i);
    }
    let n: u128 = trials.iter().map(|t| u128::from(t.0)).sum();
    let secs = json::py_sum(trials.iter().map(|t| t.1));
    // float / int: the int is converted to float first.
    let per_trial: Vec<f64> = trials.iter().map(|t| t.1 / t.0 as f64).collect();
    let cycles_ok = !trials.is_empty() && trials.iter().all(|t| t.2 > 0);
    let per_trial_cycles: Vec<f64> = if cycles_ok {
        trials
            .iter()
            .filter_map(|t| json::int_ratio(u128::from(t.2), u128::from(t.0)))
            .collect()
    } else {
        Vec::new()
    };
    let total_cycles: u128 = trials.iter().map(|t| u128::from(t.2)).sum();
    let n_f = n as f64;
    Ok(Derived {
        measurements: n,
        seconds: secs,
        mean_seconds: (n > 0).then(|| secs / n_f),
        median_trial_seconds: json::py_median(&per_trial),
        min_trial_seconds: per_trial.iter().copied().reduce(f64::min),
        max_trial_seconds: per_trial.iter().copied().reduce(f64::max),
        mean_cycles: if cycles_ok {
            json::int_ratio(total_cycles, n)
        } else {
            None
        },
        median_trial_cycles: json::py_median(&per_trial_cycles),
        operations_per_second: (secs != 0.0).then(|| n_f / secs),
        throughput_mb_per_second: (input_bytes != 0 && secs != 0.0)
            .then(|| bytes_times(u128::from(input_bytes), n) / secs / 1e6),
    })
}

/// `bytes * n` as a float: Python multiplies the integers exactly and
/// rounds once; beyond `u128` (no real record) the float product stands in.
pub(crate) fn bytes_times(bytes: u128, n: u128) -> f64 {
    bytes
        .checked_mul(n)
        .map_or_else(|| bytes as f64 * n as f64, |p| p as f64)
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

    fn name(&self) -> String {
        format!("{}/{} {}", self.candidate, self.label, self.op_key())
    }

    /// Fills the derived statistics from `trials` as campaign.py does:
    /// `measurements` = Σ measurements, `guide_100_measurements_met`,
    /// `mean_seconds` = Σ seconds / Σ measurements, the median, minimum and
    /// maximum of the per-trial seconds per call, `mean_cycles` = Σ cycles /
    /// Σ measurements and the median per-trial cycles per call (both `None`
    /// unless every trial has cycles), operations per second, and MB/s
    /// (`None` for a size of 0). Empty or missing `trials`: the derived
    /// block is removed (`trials = None`), as the harness writes none.
    /// The fields taken from the processes' meta (`sizes`, `kex`,
    /// `build_flags`, RSS, `timing_scope`) are left as they are.
    pub fn derive_statistics(&mut self) -> Result<(), Error> {
        let trials: Vec<(u64, f64, u64)> = self
            .trials
            .iter()
            .flatten()
            .map(|t| (t.measurements, t.seconds, t.cycles))
            .collect();
        if trials.is_empty() {
            self.trials = None;
            self.measurements = None;
            self.guide_100_measurements_met = None;
            self.mean_seconds = None;
            self.median_trial_seconds = None;
            self.min_trial_seconds = None;
            self.max_trial_seconds = None;
            self.mean_cycles = None;
            self.median_trial_cycles = None;
            self.operations_per_second = None;
            self.throughput_mb_per_second = None;
            return Ok(());
        }
        let d = derive(&trials, self.input_bytes).map_err(|i| Error::Trials {
            record: self.name(),
            problem: format!("trial {i} has no measurements"),
        })?;
        let n = u64::try_from(d.measurements).map_err(|_| Error::Trials {
            record: self.name(),
            problem: "more than 2^64 measurements".to_string(),
        })?;
        self.measurements = Some(n);
        self.guide_100_measurements_met = Some(n >= GUIDE_MIN_MEASUREMENTS);
        self.mean_seconds = d.mean_seconds;
        self.median_trial_seconds = d.median_trial_seconds;
        self.min_trial_seconds = d.min_trial_seconds;
        self.max_trial_seconds = d.max_trial_seconds;
        self.mean_cycles = d.mean_cycles;
        self.median_trial_cycles = d.median_trial_cycles;
        self.operations_per_second = d.operations_per_second;
        self.throughput_mb_per_second = d.throughput_mb_per_second;
        Ok(())
    }

    /// Everything campaign.py derives from the processes, then
    /// [`derive_statistics`](Record::derive_statistics): `trials` (all
    /// processes' trials in order), `status` (`complete` when every process
    /// is complete and there are `plan.trials` trials, else
    /// `failed_or_partial`), `disturbed_retries` (Σ over the processes),
    /// and from the first process's meta: `sizes` (`*_bytes` keys with
    /// all-digit values, except the RSS ones), `kex` (`kex_*`),
    /// `build_flags`, `timing_scope`; `baseline_rss_bytes` and
    /// `peak_rss_bytes` are the largest over the processes that have meta.
    pub fn derive_from_processes(&mut self) -> Result<(), Error> {
        let trials: Vec<Trial> = self
            .processes
            .iter()
            .flat_map(|p| p.trials.iter().flatten().cloned())
            .collect();
        let ok = self.processes.iter().all(|p| p.status == "complete")
            && trials.len() as u64 == self.plan.trials;
        self.status = if ok { "complete" } else { "failed_or_partial" }.to_string();
        self.disturbed_retries = self
            .processes
            .iter()
            .map(|p| p.disturbed_retries.unwrap_or(0))
            .sum();
        if trials.is_empty() {
            self.trials = None;
            self.sizes = None;
            self.kex = None;
            self.build_flags = None;
            self.baseline_rss_bytes = None;
            self.peak_rss_bytes = None;
            self.timing_scope = None;
            return self.derive_statistics();
        }
        self.trials = Some(trials);
        let empty = OrderedMap::new();
        let meta = self
            .processes
            .first()
            .and_then(|p| p.meta.as_ref())
            .unwrap_or(&empty);
        let digits = |v: &str| !v.is_empty() && v.bytes().all(|b| b.is_ascii_digit());
        let mut sizes = OrderedMap::new();
        let mut kex = OrderedMap::new();
        for (k, v) in meta.iter() {
            if k.ends_with("_bytes")
                && k != "baseline_rss_bytes"
                && k != "peak_rss_bytes"
                && digits(v)
            {
                sizes.insert(k, self.meta_int(k, v)?);
            }
            if k.starts_with("kex_") && digits(v) {
                kex.insert(k, self.meta_int(k, v)?);
            }
        }
        self.sizes = Some(sizes);
        self.kex = Some(kex);
        self.build_flags = meta.get("build_flags").cloned();
        self.timing_scope = meta.get("timing_scope").cloned();
        self.baseline_rss_bytes = self.max_meta("baseline_rss_bytes")?;
        self.peak_rss_bytes = self.max_meta("peak_rss_bytes")?;
        self.derive_statistics()
    }

    fn meta_int(&self, key: &str, value: &str) -> Result<u64, Error> {
        value.trim().parse::<u64>().map_err(|_| Error::Trials {
            record: self.name(),
            problem: format!("meta {key} = {value:?} is not a byte count"),
        })
    }

    /// `max(int(meta.get(key, 0)) for processes with a non-empty meta)`;
    /// `None` when no process has meta.
    fn max_meta(&self, key: &str) -> Result<Option<u64>, Error> {
        let mut best = None;
        for meta in self.processes.iter().filter_map(|p| p.meta.as_ref()) {
            if meta.is_empty() {
                continue;
            }
            let v = match meta.get(key) {
                Some(v) => self.meta_int(key, v)?,
                None => 0,
            };
            best = Some(best.map_or(v, |b: u64| b.max(v)));
        }
        Ok(best)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn trial(measurements: u64, seconds: f64, cycles: u64) -> Trial {
        Trial {
            measurements,
            seconds,
            cycles,
            extra: JsonObject::new(),
        }
    }

    #[test]
    fn derives_like_campaign_py() {
        let mut r = Record::new("hash-22", "Pavelor-512", "hash", 64);
        r.trials = Some(vec![
            trial(10, 0.002, 5_000_000),
            trial(10, 0.004, 9_000_000),
            trial(20, 0.005, 12_000_000),
        ]);
        r.derive_statistics().expect("derive");
        assert_eq!(r.measurements, Some(40));
        assert_eq!(r.guide_100_measurements_met, Some(false));
        assert_eq!(
            r.mean_seconds,
            Some(json::py_sum([0.002, 0.004, 0.005]) / 40.0)
        );
        assert_eq!(r.median_trial_seconds, Some(0.005 / 20.0));
        assert_eq!(r.min_trial_seconds, Some(0.002 / 10.0));
        assert_eq!(r.max_trial_seconds, Some(0.004 / 10.0));
        assert_eq!(r.mean_cycles, Some(26_000_000.0 / 40.0));
        assert_eq!(r.median_trial_cycles, Some(600_000.0));
        let secs = json::py_sum([0.002, 0.004, 0.005]);
        assert_eq!(r.operations_per_second, Some(40.0 / secs));
        assert_eq!(r.throughput_mb_per_second, Some(2560.0 / secs / 1e6));
    }

    #[test]
    fn no_cycle_counter_gives_null_cycles() {
        let mut r = Record::new("hash-22", "Pavelor-512", "hash", 32);
        r.trials = Some(vec![trial(100, 0.5, 0), trial(100, 0.5, 7)]);
        r.derive_statistics().expect("derive");
        assert_eq!(r.mean_cycles, None);
        assert_eq!(r.median_trial_cycles, None);
        assert_eq!(r.guide_100_measurements_met, Some(true));
        let text = String::from_utf8(json::to_harness_json(&r).expect("write")).expect("utf8");
        assert!(text.contains("\"mean_cycles\": null"));
    }

    #[test]
    fn zero_measurements_is_an_error() {
        let mut r = Record::new("hash-22", "Pavelor-512", "hash", 32);
        r.trials = Some(vec![trial(0, 0.5, 1)]);
        let e = r.derive_statistics().expect_err("division by zero");
        assert_eq!(
            e.to_string(),
            "hash-22/Pavelor-512 hash_32: trial 0 has no measurements"
        );
    }

    #[test]
    fn from_processes() {
        let mut r = Record::new("hash-22", "Pavelor-512", "hash", 32);
        r.plan.trials = 2;
        let meta = |rss: &str| -> OrderedMap<String> {
            [
                ("input_bytes", "32"),
                ("baseline_rss_bytes", rss),
                ("digest_bytes", "64"),
                ("kex_passes", "x"),
                ("timing_scope", "loop"),
                ("peak_rss_bytes", "9000"),
            ]
            .into_iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
        };
        r.processes = vec![
            Process {
                status: "complete".into(),
                meta: Some(meta("4096")),
                trials: Some(vec![trial(5, 0.1, 10)]),
                disturbed_retries: Some(1),
                ..Process::default()
            },
            Process {
                status: "complete".into(),
                meta: Some(meta("8192")),
                trials: Some(vec![trial(5, 0.1, 10)]),
                disturbed_retries: Some(0),
                ..Process::default()
            },
        ];
        r.derive_from_processes().expect("derive");
        assert_eq!(r.status, "complete");
        assert_eq!(r.disturbed_retries, 1);
        assert_eq!(r.trials.as_ref().map(Vec::len), Some(2));
        let sizes: Vec<(&str, u64)> = r
            .sizes
            .iter()
            .flat_map(|s| s.iter().map(|(k, v)| (k, *v)))
            .collect();
        assert_eq!(sizes, [("input_bytes", 32), ("digest_bytes", 64)]);
        assert_eq!(r.kex.as_ref().map(OrderedMap::len), Some(0));
        assert_eq!(r.baseline_rss_bytes, Some(8192));
        assert_eq!(r.peak_rss_bytes, Some(9000));
        assert_eq!(r.timing_scope.as_deref(), Some("loop"));
        r.plan.trials = 3;
        r.derive_from_processes().expect("derive");
        assert_eq!(r.status, "failed_or_partial");
    }

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
