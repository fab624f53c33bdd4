//! The raw evidence: one JSON record per figure, one per library (identity,
//! gate, behaviour), the KATs, the environment, the probe and the run
//! itself (`records/report.json`); then the charts and `report.md` last,
//! so that every figure it shows has its record. [`crate::reload`] reads
//! them back.

use std::path::{Path, PathBuf};

use pavelor_kat::atomic_file::atomic_write;
use serde::{Deserialize, Serialize};

use crate::config::Config;
use crate::results::RunResults;
use pavelor_measure::{
    campaign::{Measurement, Method},
    clock::CounterKind,
    env::Environment,
    host::HostProblem,
    library::audit::BackendAudit,
    library::identity::Identity,
    ops::{Operation, Subject},
};

use crate::record_files::{
    AES_PROBE, ENVIRONMENT, FAILURES, FIGURE_SCHEMA, HOST_CHECKS, KAT, RUN_RECORD, RUN_SCHEMA,
    STATIC_SIZE, library_record_name, record_name,
};

/// The figures a record derives from its trials, stored beside them so a
/// reader needs no code to use them, and recomputed when it is read back.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Derived {
    /// Timed calls over all trials.
    pub n_total: u64,
    /// Σ cycles (or ticks) / Σ calls.
    pub mean_cycles: f64,
    /// `mean_cycles` per message byte.
    pub cycles_per_byte: f64,
    /// The median of the trials' own means.
    pub median_trial_mean_cycles: f64,
    /// Σ ns / Σ calls.
    pub mean_ns: f64,
    /// 10^6 bytes per second at `mean_ns` (`null` when the time is 0).
    pub mb_per_s: Option<f64>,
    /// Largest baseline RSS of the trials, KiB.
    pub baseline_rss_kib: Option<u64>,
    /// Largest peak RSS of the trials, KiB.
    pub peak_rss_kib: Option<u64>,
}

impl Derived {
    /// The figures of `m`.
    pub fn of(m: &Measurement) -> Self {
        Derived {
            n_total: m.total_calls(),
            mean_cycles: m.mean_cycles(),
            cycles_per_byte: m.cycles_per_byte(),
            median_trial_mean_cycles: m.median_trial_mean_cycles(),
            mean_ns: m.mean_ns(),
            mb_per_s: Some(m.mb_per_s()).filter(|v| v.is_finite()),
            baseline_rss_kib: m.baseline_rss_kib(),
            peak_rss_kib: m.peak_rss_kib(),
        }
    }
}

/// The JSON evidence for one figure: what was measured, how, the trials
/// ([`Measurement`]) and the figures derived from them.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct FigureRecord {
    /// [`FIGURE_SCHEMA`].
    pub schema: String,
    /// The algorithm's name.
    pub algorithm: String,
    /// The implementation, in words.
    pub implementation: String,
    /// The Rust backend, if it is one.
    pub backend: Option<String>,
    /// The library's identity, if it is one.
    pub library: Option<Identity>,
    /// The message, in words.
    pub input: String,
    /// The counter of the figures.
    pub counter: CounterKind,
    /// Its unit ("cycles" or "ticks").
    pub counter_unit: String,
    /// Why that counter (when it is not the cycle counter).
    pub counter_note: Option<String>,
    /// The method.
    pub method: Method,
    /// The command line of the report.
    pub report_command_line: Vec<String>,
    /// The machine and the build.
    pub environment: Environment,
    /// The calibration, plan and trials.
    #[serde(flatten)]
    pub measurement: Measurement,
    /// The figures derived from the trials.
    #[serde(flatten)]
    pub derived: Derived,
}

/// `records/report.json`: the run's settings and what the campaign found
/// beyond the figures, so that [`crate::reload`] can rebuild the report.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct RunRecord {
    /// [`RUN_SCHEMA`].
    pub schema: String,
    /// The pavelor version that made the report.
    pub pavelor_version: String,
    /// The settings.
    pub config: Config,
    /// Start, UTC (RFC 3339).
    pub started: String,
    /// End, UTC.
    pub finished: String,
    /// Start in the harness's time form.
    pub started_iso: String,
    /// End in the harness's time form.
    pub finished_iso: String,
    /// Everything measured, in report order.
    pub subjects: Vec<Subject>,
    /// The fastest backend this CPU ran.
    pub best_backend: String,
    /// Whether the run looked emulated.
    pub emulated: bool,
    /// How, when it was (absent: qemu user mode if `emulated`, the only
    /// kind that records without this field know).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub emulation: Option<pavelor_measure::env::Emulation>,
    /// What validation did to the output directory.
    pub notes: Vec<String>,
    /// The problems the first host check found.
    pub host_problems: Vec<HostProblem>,
    /// The machine in the harness's form, at the start.
    pub niccs_environment_start: Vec<(String, serde_json::Value)>,
    /// The same at the end.
    pub niccs_environment_end: Vec<(String, serde_json::Value)>,
    /// The clock probe at the start (absent without a cycle counter).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clock_probe: Option<pavelor_measure::clock::ClockProbe>,
    /// Why a cycle counter here counts virtual cycles, if the host tells.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub emulated_pmu: Option<String>,
    /// Whether the run applied the clock probe and the harness's 95% rule
    /// where they apply (records made before them have not: their pages
    /// have no clock rows).
    #[serde(default)]
    pub clock_rule: bool,
    /// The constant-time audit of our own operations (absent when it was
    /// not run, and in records made before it).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub own_audits: Vec<BackendAudit>,
}

/// Why the records of a run could not be made or written.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A measurement is of no subject the run measured.
    #[error("a measurement of nothing measured")]
    NothingMeasured {
        /// The measurement's task id.
        op: String,
        /// Its message length, bytes.
        size: usize,
    },
    /// A record could not be serialised to JSON.
    #[error("{source}")]
    Serialize {
        /// The record's file name, relative to the output directory.
        name: String,
        /// Why.
        source: serde_json::Error,
    },
    /// A file could not be written.
    #[error("{}: {source}", path.display())]
    Write {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The run's NICCS dataset could not be made.
    #[error(transparent)]
    Dataset(#[from] crate::niccs_dataset::Error),
    /// The run's NICCS dataset could not be written.
    #[error("{source}")]
    WriteDataset {
        /// The dataset's directory.
        dir: PathBuf,
        /// Why.
        source: pavelor_niccs::Error,
    },
}

fn write_file(dir: &Path, name: &str, bytes: &[u8]) -> Result<(), Error> {
    let path = dir.join(name);
    atomic_write(&path, bytes).map_err(|source| Error::Write { path, source })
}

/// `v` as the pretty JSON of the record `name`, with a final newline.
fn json<T: Serialize>(name: &str, v: &T) -> Result<Vec<u8>, Error> {
    let mut s = serde_json::to_vec_pretty(v).map_err(|source| Error::Serialize {
        name: name.to_string(),
        source,
    })?;
    s.push(b'\n');
    Ok(s)
}

/// Writes `v` as the JSON record `name` under `dir`.
fn write_json<T: Serialize>(dir: &Path, name: &str, v: &T) -> Result<(), Error> {
    write_file(dir, name, &json(name, v)?)
}

/// What a record says about its subject: (algorithm, implementation,
/// backend, library identity).
fn describe<'a>(
    c: &'a RunResults,
    subject: &'a Subject,
) -> (
    &'static str,
    String,
    Option<&'static str>,
    Option<&'a Identity>,
) {
    match subject {
        Subject::Op(op) => (
            op.algorithm_name(),
            op.implementation(),
            match op {
                Operation::Pavelor(_, b) => Some(b.name()),
                _ => None,
            },
            None,
        ),
        Subject::Lib { name, alg, .. } => {
            let gate = c.libs.iter().find(|g| &g.spec.name == name);
            (
                alg.name(),
                format!("C library '{name}' through the ICCS CryptHash ABI"),
                None,
                gate.and_then(|g| g.identity.as_ref()),
            )
        }
    }
}

/// `libraries.json` at the top of the output directory: every `--lib`
/// with its status and a one-line reason, for scripts.
pub const LIBRARIES: &str = "libraries.json";

#[derive(Serialize)]
struct LibrariesFile<'a> {
    schema: &'static str,
    libraries: Vec<LibraryLine<'a>>,
}

#[derive(Serialize)]
struct LibraryLine<'a> {
    name: &'a str,
    path: &'a Path,
    status: &'static str,
    reason: &'a str,
    sha256: Option<&'a str>,
    instances_measured: Vec<&'static str>,
}

fn libraries_file(c: &RunResults) -> LibrariesFile<'_> {
    LibrariesFile {
        schema: "pavelor-libraries/1",
        libraries: c
            .libs
            .iter()
            .map(|g| LibraryLine {
                name: &g.spec.name,
                path: &g.spec.path,
                status: g.status.label(),
                reason: &g.detail,
                sha256: g.identity.as_ref().map(|i| i.sha256.as_str()),
                instances_measured: g.measured_instances().iter().map(|a| a.name()).collect(),
            })
            .collect(),
    }
}

/// The run record of `c`.
pub fn run_record(config: &Config, c: &RunResults) -> RunRecord {
    RunRecord {
        schema: RUN_SCHEMA.into(),
        pavelor_version: env!("CARGO_PKG_VERSION").into(),
        config: config.clone(),
        started: c.started.clone(),
        finished: c.finished.clone(),
        started_iso: c.started_iso.clone(),
        finished_iso: c.finished_iso.clone(),
        subjects: c.subjects.clone(),
        best_backend: c.best_backend.name().into(),
        emulated: c.emulation.is_some(),
        emulation: c.emulation,
        notes: c.notes.clone(),
        host_problems: c.host_problems.clone(),
        niccs_environment_start: c.niccs_environment_start.clone(),
        niccs_environment_end: c.niccs_environment_end.clone(),
        clock_probe: c.clock_probe.clone(),
        emulated_pmu: c.emulated_pmu.clone(),
        clock_rule: c.clock_rule,
        own_audits: c.own_audits.clone(),
    }
}

/// The record of the figure `m` of the run `c`: what [`write()`] writes, and
/// what [`crate::reload`] requires a stored record to be.
pub fn figure_record(
    config: &Config,
    c: &RunResults,
    m: &Measurement,
) -> Result<FigureRecord, Error> {
    let subject =
        c.subjects
            .iter()
            .find(|s| s.id() == m.op)
            .ok_or_else(|| Error::NothingMeasured {
                op: m.op.to_string(),
                size: m.size,
            })?;
    let (algorithm, implementation, backend, library) = describe(c, subject);
    Ok(FigureRecord {
        schema: FIGURE_SCHEMA.into(),
        algorithm: algorithm.into(),
        implementation,
        backend: backend.map(str::to_string),
        library: library.cloned(),
        input: format!(
            "{} bytes, byte i = (131 * i + {}) mod 256 (the NICCS driver's message); one-shot hash per call",
            m.size, m.size
        ),
        counter: m.counter(),
        counter_unit: m.counter().unit().into(),
        counter_note: m.trials.first().and_then(|t| t.counter_note.clone()),
        method: config.method.clone(),
        report_command_line: config.command_line.clone(),
        environment: c.environment.clone(),
        measurement: m.clone(),
        derived: Derived::of(m),
    })
}

/// Writes every record, the charts and `report.md`.
pub fn write(config: &Config, c: &RunResults) -> Result<(), Error> {
    let dir = &config.out_dir;
    for m in &c.measurements {
        write_json(dir, &record_name(m), &figure_record(config, c, m)?)?;
    }
    for g in &c.libs {
        write_json(dir, &library_record_name(&g.spec.name), g)?;
    }
    if !c.failures.is_empty() {
        write_json(dir, FAILURES, &c.failures)?;
    }
    write_json(dir, KAT, &c.kat)?;
    write_json(dir, ENVIRONMENT, &c.environment)?;
    write_json(dir, HOST_CHECKS, &c.host_checks)?;
    if let Some(p) = &c.probe {
        write_json(dir, AES_PROBE, p)?;
    }
    if let Some(s) = &c.static_size {
        write_json(dir, STATIC_SIZE, s)?;
    }
    if !c.sweeps.records.is_empty() || !c.sweeps.failures.is_empty() {
        let sweep_dir = dir.join(pavelor_sweep::record::DIR);
        std::fs::create_dir_all(&sweep_dir).map_err(|source| Error::Write {
            path: sweep_dir,
            source,
        })?;
        for (name, text) in crate::sweep::record_files(&c.sweeps) {
            write_file(dir, &name, text.as_bytes())?;
        }
    }
    write_json(dir, RUN_RECORD, &run_record(config, c))?;
    write_json(dir, LIBRARIES, &libraries_file(c))?;
    let ds = crate::niccs_dataset::dataset(config, c)?;
    let niccs_dir = dir.join("niccs").join(&config.system_id);
    ds.write(&niccs_dir).map_err(|source| Error::WriteDataset {
        dir: niccs_dir,
        source,
    })?;
    // The pages last, the charts before the pages that show them.
    let mut files = crate::render::rendered_files(config, c, &ds);
    files.sort_by_key(|(name, _)| !name.ends_with(".svg"));
    for (name, text) in &files {
        write_file(dir, name, text.as_bytes())?;
    }
    Ok(())
}
