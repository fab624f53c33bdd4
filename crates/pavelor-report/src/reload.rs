//! A report directory read back. `records/` and `niccs/<system id>/` give
//! the configuration, the campaign and the dataset the run had, so that
//! `report.md` and the charts can be made again without measuring
//! (`pavelor report --render`) and compared with the files that are there
//! (`pavelor report --check`).
//!
//! Reading is strict: every figure the run measured must have its record
//! (or be listed as failed), every record's derived figures must be what
//! its trials give, and the records must come from this pavelor version,
//! whose page layout is the one that would be compared.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use pavelor::Backend;
use pavelor_kat::atomic_file::atomic_write;
use pavelor_measure::{
    campaign::{Measurement, PlanMismatch},
    clock::CounterKind,
    library::gate::LibGate,
    ops::Subject,
};
use pavelor_niccs::evidence::{Evidence, Limits, SYSTEM_ID_RULE, is_system_id};
use serde::de::DeserializeOwned;

use crate::config::Config;
use crate::record_files::{
    self, AES_PROBE, ENVIRONMENT, FAILURES, FIGURE_SCHEMA, HOST_CHECKS, KAT, RUN_RECORD,
    RUN_SCHEMA, STATIC_SIZE,
};
use crate::records::{Derived, FigureRecord, RunRecord};
use crate::render::rendered_files;
use crate::results::FigureFailure;
use crate::results::RunResults;
use pavelor_niccs as niccs;

/// A report directory's contents, as the run had them.
pub struct Reloaded {
    /// The run's settings (with `out_dir` the directory read).
    pub config: Config,
    /// The campaign.
    pub campaign: RunResults,
    /// The NICCS dataset of `niccs/<system id>/`.
    pub dataset: niccs::Dataset,
}

/// What a report directory is made from its records: `report.md` and the
/// charts, by relative file name.
pub struct Rendered {
    /// (file name, contents), `report.md` first.
    pub files: Vec<(String, String)>,
}

/// Why a report directory cannot be read back, rendered again or passes
/// no `pavelor report --check`: each message names the file (relative to
/// the directory, or the directory itself) and the problem.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The directory, or a record in it, could not be read or parsed
    /// within the reading limits.
    #[error(transparent)]
    Evidence(#[from] niccs::Error),
    /// A file the run writes is not there.
    #[error("{name}: missing")]
    Missing {
        /// The file, relative to the directory.
        name: String,
    },
    /// There is no run record: not a directory `pavelor report` wrote.
    #[error("{RUN_RECORD}: missing (not a directory `pavelor report` wrote)")]
    NoRunRecord,
    /// A record is of another schema.
    #[error("{name}: schema {schema:?}, not {expected:?}")]
    Schema {
        /// The record, relative to the directory.
        name: String,
        /// The schema it gives.
        schema: String,
        /// The schema this pavelor writes.
        expected: &'static str,
    },
    /// The run record was written by another pavelor version.
    #[error(
        "{RUN_RECORD}: written by pavelor {version}, and this is pavelor {}: use that version, whose page it is",
        env!("CARGO_PKG_VERSION")
    )]
    OtherVersion {
        /// The version that wrote it.
        version: String,
    },
    /// The run record's best backend is no backend of this build.
    #[error("{RUN_RECORD}: best_backend {name:?} is no backend")]
    NoBackend {
        /// The name it gives.
        name: String,
    },
    /// The run record's system id is not one.
    #[error("{RUN_RECORD}: config.system_id {id:?} is not a system id ({SYSTEM_ID_RULE})")]
    NotASystemId {
        /// The id it gives.
        id: String,
    },
    /// A library record describes another library than the run's `--lib`.
    #[error("{name}: describes another library than the run's")]
    AnotherLibrary {
        /// The library record, relative to the directory.
        name: String,
    },
    /// The length sweep's records could not be read.
    #[error(transparent)]
    Sweep(#[from] crate::sweep::ReadError),
    /// The run's NICCS dataset could not be read.
    #[error("{source}")]
    Dataset {
        /// The dataset's directory, relative to the report directory.
        dir: String,
        /// Why.
        source: niccs::Error,
    },
    /// A figure record holds another figure than its name says.
    #[error("{name}: holds the figure of {op} at {size} B")]
    OtherFigure {
        /// The record, relative to the directory.
        name: String,
        /// The task id it holds.
        op: String,
        /// The message length it holds, bytes.
        size: usize,
    },
    /// A figure record's trials do not follow the run's method.
    #[error("{name}: {source}")]
    Plan {
        /// The record, relative to the directory.
        name: String,
        /// How the trials differ from the plan.
        source: PlanMismatch,
    },
    /// A figure record's trial timed no calls, or in no time.
    #[error(
        "{name}: trial {trial} timed {calls} calls in {ns} ns; a figure needs calls in a positive time"
    )]
    NoTimedCalls {
        /// The record, relative to the directory.
        name: String,
        /// The trial's index.
        trial: usize,
        /// The calls it timed.
        calls: u64,
        /// The time it took, ns.
        ns: u64,
    },
    /// A figure record's trial counted nothing with a counter.
    #[error("{name}: trial {trial} counted 0 {} over {calls} calls", counter.unit())]
    NothingCounted {
        /// The record, relative to the directory.
        name: String,
        /// The trial's index.
        trial: usize,
        /// The trial's counter.
        counter: CounterKind,
        /// The calls it timed.
        calls: u64,
    },
    /// A figure record's trial counted with another counter than the run.
    #[error(
        "{name}: trial {trial} counted with {}, but the run counted with {}: a run has one counter",
        counter.unit(),
        run.unit()
    )]
    OtherCounter {
        /// The record, relative to the directory.
        name: String,
        /// The trial's index.
        trial: usize,
        /// The trial's counter.
        counter: CounterKind,
        /// The counter of the run's first trial.
        run: CounterKind,
    },
    /// A figure record's derived figures are not what its trials give.
    #[error("{name}: {}", describe_difference(difference.as_deref()))]
    DerivedDiffer {
        /// The record, relative to the directory.
        name: String,
        /// The first derived figure that differs, if the figures could be
        /// compared field by field.
        difference: Option<Box<FieldDifference>>,
    },
    /// A figure the run measured has no record and is not listed as failed.
    #[error("{name}: missing, and {FAILURES} does not list the figure as failed")]
    MissingFigure {
        /// The record the figure would have, relative to the directory.
        name: String,
    },
    /// A file under `records/` that the run does not name.
    #[error(
        "{name}: not a record this run names (its figures' records lie at records/<implementation>.<size>.json, one per figure)"
    )]
    UnnamedRecord {
        /// The file, relative to the directory.
        name: String,
    },
    /// The record the run writes for a figure could not be made.
    #[error("{name}: {source}")]
    RunsRecord {
        /// The record, relative to the directory.
        name: String,
        /// Why.
        source: Box<crate::records::Error>,
    },
    /// The record the run writes for a figure could not be made JSON.
    #[error("{name}: {source}")]
    RunsRecordJson {
        /// The record, relative to the directory.
        name: String,
        /// Why.
        source: serde_json::Error,
    },
    /// A stored figure record is not the one the run writes for it.
    #[error(
        "{name}: {} is {} but the run's record of this figure says {}",
        difference.field,
        brief(&difference.stored),
        brief(&difference.computed)
    )]
    NotTheRunsRecord {
        /// The record, relative to the directory.
        name: String,
        /// The first top-level field that differs, its value in the stored
        /// record and in the run's record (`null` where absent).
        difference: Box<FieldDifference>,
    },
    /// A page or chart could not be written.
    #[error("{}: {source}", path.display())]
    Write {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// A stored page or chart differs from what the records give.
    #[error(
        "{name}: differs from what its records give (first at line {line}): edited, or rendered by another build of pavelor; `pavelor report --render DIR` writes it again from the checked records"
    )]
    Differs {
        /// The file, relative to the directory.
        name: String,
        /// The first line that differs.
        line: usize,
    },
    /// A NICCS dataset under `niccs/` fails the harness validator's rules.
    #[error("{}: {problem}", dir.display())]
    DatasetRules {
        /// The dataset's directory.
        dir: PathBuf,
        /// The first rule it breaks.
        problem: niccs::Problem,
    },
    /// The directory holds no NICCS dataset.
    #[error("{}: no NICCS dataset (no campaign.json under niccs/)", dir.display())]
    NoDataset {
        /// The report directory.
        dir: PathBuf,
    },
    /// A record or page of the report directory `dir` was refused.
    #[error("{}: {source}", dir.display())]
    InDirectory {
        /// The report directory.
        dir: PathBuf,
        /// What was refused.
        source: Box<Error>,
    },
}

/// A field of a stored record whose value is not the one computed for it
/// (from its trials, or as the run's record of the figure).
#[derive(Debug)]
pub struct FieldDifference {
    /// The field.
    pub field: String,
    /// Its stored value.
    pub stored: serde_json::Value,
    /// The value computed for it.
    pub computed: serde_json::Value,
}

/// [`Error::DerivedDiffer`]'s problem, in words.
fn describe_difference(difference: Option<&FieldDifference>) -> String {
    difference.map_or_else(
        || "its derived figures differ from its trials'".into(),
        |d| {
            format!(
                "{} is {} but its trials give {}",
                d.field, d.stored, d.computed
            )
        },
    )
}

/// Parses `name` of `ev`; `None` if there is no such file.
fn read_optional<T: DeserializeOwned>(ev: &Evidence, name: &str) -> Result<Option<T>, Error> {
    Ok(ev.json(name)?)
}

fn read_required<T: DeserializeOwned>(ev: &Evidence, name: &str) -> Result<T, Error> {
    read_optional(ev, name)?.ok_or_else(|| Error::Missing {
        name: name.to_string(),
    })
}

/// The first field where `stored` and `computed` differ, if their JSON
/// forms can be compared field by field.
fn first_difference(stored: &Derived, computed: &Derived) -> Option<Box<FieldDifference>> {
    let (Ok(serde_json::Value::Object(a)), Ok(serde_json::Value::Object(b))) =
        (serde_json::to_value(stored), serde_json::to_value(computed))
    else {
        return None;
    };
    a.iter().find(|(k, v)| b.get(*k) != Some(*v)).map(|(k, v)| {
        Box::new(FieldDifference {
            field: k.clone(),
            stored: v.clone(),
            computed: b[k].clone(),
        })
    })
}

/// The first top-level field where two records differ.
fn differing_field(stored: &serde_json::Value, want: &serde_json::Value) -> Option<String> {
    let (Some(a), Some(b)) = (stored.as_object(), want.as_object()) else {
        return Some("the record".into());
    };
    b.iter()
        .find(|(k, v)| a.get(*k) != Some(*v))
        .or_else(|| a.iter().find(|(k, _)| !b.contains_key(*k)))
        .map(|(k, _)| k.clone())
}

/// A JSON value for a one-line message, cut at 80 characters.
fn brief(v: &serde_json::Value) -> String {
    let s = v.to_string();
    match s.char_indices().nth(80) {
        Some((i, _)) => format!("{}…", &s[..i]),
        None => s,
    }
}

/// Reads the report directory `dir` with the reading `limits` and checks
/// its records ([`load_evidence`]).
pub fn load(dir: &Path, limits: &Limits) -> Result<Reloaded, Error> {
    let ev = Evidence::read(dir, limits)?;
    load_evidence(&ev)
}

/// The files of `records/` that a run writes besides its figures' and
/// libraries' records.
const RUN_FILES: [&str; 7] = [
    RUN_RECORD,
    FAILURES,
    KAT,
    ENVIRONMENT,
    HOST_CHECKS,
    AES_PROBE,
    STATIC_SIZE,
];

/// A report directory already read: its records, each checked against its
/// file name, the run's settings and its trials. The error names the file
/// (relative to the directory) and the problem.
pub fn load_evidence(ev: &Evidence) -> Result<Reloaded, Error> {
    let (run, best_backend) = read_run_record(ev)?;
    let mut config = run.config;
    if !is_system_id(&config.system_id) {
        return Err(Error::NotASystemId {
            id: config.system_id,
        });
    }
    config.out_dir = ev.root().to_path_buf();
    let failures: Vec<FigureFailure> = read_optional(ev, FAILURES)?.unwrap_or_default();
    let mut named: BTreeSet<String> = RUN_FILES.iter().map(|f| f.to_string()).collect();
    let mut libs = Vec::new();
    for spec in &config.libs {
        let name = record_files::library_record_name(&spec.name);
        named.insert(name.clone());
        let gate: LibGate = read_required(ev, &name)?;
        if &gate.spec != spec {
            return Err(Error::AnotherLibrary { name });
        }
        libs.push(gate);
    }
    let measurements = read_figure_records(ev, &config, &run.subjects, &failures, &mut named)?;
    let dataset_dir = format!("niccs/{}", config.system_id);
    let dataset = niccs::Dataset::from_evidence(&ev.subtree(&dataset_dir)).map_err(|source| {
        Error::Dataset {
            dir: dataset_dir,
            source,
        }
    })?;
    let mut campaign = RunResults {
        started: run.started,
        finished: run.finished,
        environment: read_required(ev, ENVIRONMENT)?,
        kat: read_required(ev, KAT)?,
        libs,
        own_audits: run.own_audits.clone(),
        probe: read_optional(ev, AES_PROBE)?,
        subjects: run.subjects,
        measurements,
        failures,
        static_size: read_optional(ev, STATIC_SIZE)?,
        emulation: run.emulation.or(run
            .emulated
            .then_some(pavelor_measure::env::Emulation::UserMode)),
        notes: run.notes,
        host_checks: read_required(ev, HOST_CHECKS)?,
        host_problems: run.host_problems,
        started_iso: run.started_iso,
        finished_iso: run.finished_iso,
        niccs_environment_start: run.niccs_environment_start,
        niccs_environment_end: run.niccs_environment_end,
        clock_probe: run.clock_probe,
        emulated_pmu: run.emulated_pmu,
        clock_rule: run.clock_rule,
        best_backend,
        sweeps: crate::results::Sweeps::default(),
    };
    campaign.sweeps = crate::sweep::read(ev, &config, &campaign, &mut named)?;
    refuse_unnamed_records(ev, &named)?;
    check_records_are_the_runs(ev, &config, &campaign)?;
    Ok(Reloaded {
        config,
        campaign,
        dataset,
    })
}

/// The run record of `ev`, checked to be of this schema and this pavelor
/// version, with its best backend.
fn read_run_record(ev: &Evidence) -> Result<(RunRecord, Backend), Error> {
    let run: RunRecord = read_optional(ev, RUN_RECORD)?.ok_or(Error::NoRunRecord)?;
    if run.schema != RUN_SCHEMA {
        return Err(Error::Schema {
            name: RUN_RECORD.to_string(),
            schema: run.schema,
            expected: RUN_SCHEMA,
        });
    }
    if run.pavelor_version != env!("CARGO_PKG_VERSION") {
        return Err(Error::OtherVersion {
            version: run.pavelor_version,
        });
    }
    let best_backend = Backend::from_name(&run.best_backend).ok_or_else(|| Error::NoBackend {
        name: run.best_backend.clone(),
    })?;
    Ok((run, best_backend))
}

/// The measurement of every figure record the run names (each subject at
/// each size), each checked against its name, the method and its derived
/// figures; a missing record must be a failure `failures` lists. Adds each
/// record's name to `named`.
fn read_figure_records(
    ev: &Evidence,
    config: &Config,
    subjects: &[Subject],
    failures: &[FigureFailure],
    named: &mut BTreeSet<String>,
) -> Result<Vec<Measurement>, Error> {
    let mut measurements = Vec::new();
    let mut counter = None;
    for subject in subjects {
        let id = subject.id();
        for &size in &config.sizes {
            let name = record_files::figure_record_name(&id, size);
            named.insert(name.clone());
            match read_optional::<FigureRecord>(ev, &name)? {
                Some(rec) => {
                    if rec.schema != FIGURE_SCHEMA {
                        return Err(Error::Schema {
                            name,
                            schema: rec.schema,
                            expected: FIGURE_SCHEMA,
                        });
                    }
                    let m = rec.measurement;
                    if m.op != id || m.size != size {
                        return Err(Error::OtherFigure {
                            name,
                            op: m.op.to_string(),
                            size: m.size,
                        });
                    }
                    ev.count_trials(&name, m.trials.len() as u64)?;
                    if let Err(source) = m.check_plan(&config.method) {
                        return Err(Error::Plan { name, source });
                    }
                    check_trials(&name, &m, counter.get_or_insert(m.counter()))?;
                    let computed = Derived::of(&m);
                    if rec.derived != computed {
                        return Err(Error::DerivedDiffer {
                            difference: first_difference(&rec.derived, &computed),
                            name,
                        });
                    }
                    measurements.push(m);
                }
                None if failures.iter().any(|f| f.op == id && f.size == size) => {}
                None => return Err(Error::MissingFigure { name }),
            }
        }
    }
    Ok(measurements)
}

/// Refuses a file under records/ that the run does not name: a second
/// record of a figure, under another name or in a subdirectory, is refused
/// rather than silently ignored.
fn refuse_unnamed_records(ev: &Evidence, named: &BTreeSet<String>) -> Result<(), Error> {
    if let Some((extra, _)) = ev
        .files_under("records")
        .into_iter()
        .find(|(rel, _)| !named.contains(*rel))
    {
        return Err(Error::UnnamedRecord {
            name: extra.to_string(),
        });
    }
    Ok(())
}

/// Checks that each stored record is the one the run writes for its
/// figure: its algorithm, implementation, library, counter, method and
/// machine are the run's, not whatever a record says.
fn check_records_are_the_runs(
    ev: &Evidence,
    config: &Config,
    campaign: &RunResults,
) -> Result<(), Error> {
    for m in &campaign.measurements {
        let name = record_files::record_name(m);
        let want = match crate::records::figure_record(config, campaign, m) {
            Ok(r) => serde_json::to_value(r).map_err(|source| Error::RunsRecordJson {
                name: name.clone(),
                source,
            })?,
            Err(source) => {
                return Err(Error::RunsRecord {
                    name,
                    source: Box::new(source),
                });
            }
        };
        let stored: serde_json::Value = read_required(ev, &name)?;
        if let Some(field) = differing_field(&stored, &want) {
            return Err(Error::NotTheRunsRecord {
                name,
                difference: Box::new(FieldDifference {
                    stored: stored[field.as_str()].clone(),
                    computed: want[field.as_str()].clone(),
                    field,
                }),
            });
        }
    }
    Ok(())
}

/// `report.md`, the charts and `report.html` of `r`, as [`crate::records::write`]
/// makes them.
pub fn render(r: &Reloaded) -> Rendered {
    Rendered {
        files: rendered_files(&r.config, &r.campaign, &r.dataset),
    }
}

/// Writes `rendered` into `dir`, each file through a temporary file and a
/// rename.
pub fn write(dir: &Path, rendered: &Rendered) -> Result<(), Error> {
    for (name, text) in &rendered.files {
        let path = dir.join(name);
        atomic_write(&path, text.as_bytes()).map_err(|source| Error::Write { path, source })?;
    }
    Ok(())
}

/// Compares `rendered` with the files of `ev`, byte for byte; the error
/// names the first file that differs and its first differing line.
pub fn compare(ev: &Evidence, rendered: &Rendered) -> Result<(), Error> {
    for (name, text) in &rendered.files {
        let stored = ev
            .get(name)
            .ok_or_else(|| Error::Missing { name: name.clone() })?;
        if stored != text.as_bytes() {
            let line =
                niccs::validate::first_differing_line(&String::from_utf8_lossy(stored), text);
            return Err(Error::Differs {
                name: name.clone(),
                line,
            });
        }
    }
    Ok(())
}

/// A report directory that passed every check of `pavelor report --check`.
pub struct CheckedRun {
    /// The summary line of each NICCS dataset under `niccs/`.
    pub datasets: Vec<String>,
    /// The run, read back.
    pub run: Reloaded,
    /// The directory as it was read and checked: what the site shows of it.
    pub evidence: Evidence,
}

/// Every check of `pavelor report --check` on a report directory read with
/// `limits`: each NICCS dataset under `niccs/` by the harness validator's
/// rules, every record against its file name and its trials, and every page
/// and chart against what the records give. The error names the first
/// problem, prefixed with the path it is in.
pub fn check_run(dir: &Path, limits: &Limits) -> Result<CheckedRun, Error> {
    let ev = Evidence::read(dir, limits)?;
    let mut datasets = Vec::new();
    let ids = ev.subdirectories("niccs");
    for id in &ids {
        let sub = ev.subtree(&format!("niccs/{id}"));
        let summary = niccs::validate::check_evidence(&sub, &niccs::CheckOptions::default())
            .map_err(|problem| Error::DatasetRules {
                dir: sub.root().to_path_buf(),
                problem,
            })?;
        datasets.push(summary.to_string());
    }
    if datasets.is_empty() {
        return Err(Error::NoDataset {
            dir: dir.to_path_buf(),
        });
    }
    let in_dir = |source: Error| Error::InDirectory {
        dir: dir.to_path_buf(),
        source: Box::new(source),
    };
    let run = load_evidence(&ev).map_err(in_dir)?;
    compare(&ev, &render(&run)).map_err(in_dir)?;
    Ok(CheckedRun {
        datasets,
        run,
        evidence: ev,
    })
}

/// [`load_evidence`]'s checks of a figure's trials: each timed some calls
/// in a positive time, and counted with the run's one counter.
fn check_trials(name: &str, m: &Measurement, counter: &mut CounterKind) -> Result<(), Error> {
    for (i, t) in m.trials.iter().enumerate() {
        if t.calls == 0 || t.ns == 0 {
            return Err(Error::NoTimedCalls {
                name: name.to_string(),
                trial: i,
                calls: t.calls,
                ns: t.ns,
            });
        }
        if t.counter != CounterKind::None && t.cycles == 0 {
            return Err(Error::NothingCounted {
                name: name.to_string(),
                trial: i,
                counter: t.counter,
                calls: t.calls,
            });
        }
        if t.counter != *counter {
            return Err(Error::OtherCounter {
                name: name.to_string(),
                trial: i,
                counter: t.counter,
                run: *counter,
            });
        }
    }
    Ok(())
}
