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
use std::path::Path;

use pavelor::Backend;
use pavelor_kat::atomic_file::atomic_write;
use pavelor_measure::campaign::Measurement;
use pavelor_measure::clock::CounterKind;
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
use pavelor_measure::library::gate::LibGate;
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

/// Parses `name` of `ev`; `None` if there is no such file.
fn read_optional<T: DeserializeOwned>(ev: &Evidence, name: &str) -> Result<Option<T>, String> {
    ev.json(name).map_err(|e| e.to_string())
}

fn read_required<T: DeserializeOwned>(ev: &Evidence, name: &str) -> Result<T, String> {
    read_optional(ev, name)?.ok_or_else(|| format!("{name}: missing"))
}

/// The first field where `stored` and `computed` differ, as a message.
fn first_difference(stored: &Derived, computed: &Derived) -> String {
    let (Ok(serde_json::Value::Object(a)), Ok(serde_json::Value::Object(b))) =
        (serde_json::to_value(stored), serde_json::to_value(computed))
    else {
        return "its derived figures differ from its trials'".into();
    };
    a.iter().find(|(k, v)| b.get(*k) != Some(*v)).map_or_else(
        || "its derived figures differ from its trials'".into(),
        |(k, v)| format!("{k} is {v} but its trials give {}", b[k]),
    )
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
pub fn load(dir: &Path, limits: &Limits) -> Result<Reloaded, String> {
    let ev = Evidence::read(dir, limits).map_err(|e| e.to_string())?;
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
pub fn load_evidence(ev: &Evidence) -> Result<Reloaded, String> {
    let run: RunRecord = read_optional(ev, RUN_RECORD)?
        .ok_or_else(|| format!("{RUN_RECORD}: missing (not a directory `pavelor report` wrote)"))?;
    if run.schema != RUN_SCHEMA {
        return Err(format!(
            "{RUN_RECORD}: schema {:?}, not {RUN_SCHEMA:?}",
            run.schema
        ));
    }
    let this = env!("CARGO_PKG_VERSION");
    if run.pavelor_version != this {
        return Err(format!(
            "{RUN_RECORD}: written by pavelor {}, and this is pavelor {this}: use that version, whose page it is",
            run.pavelor_version
        ));
    }
    let best_backend = Backend::from_name(&run.best_backend).ok_or_else(|| {
        format!(
            "{RUN_RECORD}: best_backend {:?} is no backend",
            run.best_backend
        )
    })?;
    let mut config = run.config;
    if !is_system_id(&config.system_id) {
        return Err(format!(
            "{RUN_RECORD}: config.system_id {:?} is not a system id ({SYSTEM_ID_RULE})",
            config.system_id
        ));
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
            return Err(format!("{name}: describes another library than the run's"));
        }
        libs.push(gate);
    }
    let mut measurements = Vec::new();
    let mut counter = None;
    for subject in &run.subjects {
        let id = subject.id();
        for &size in &config.sizes {
            let name = record_files::figure_record_name(&id, size);
            named.insert(name.clone());
            match read_optional::<FigureRecord>(ev, &name)? {
                Some(rec) => {
                    if rec.schema != FIGURE_SCHEMA {
                        return Err(format!(
                            "{name}: schema {:?}, not {FIGURE_SCHEMA:?}",
                            rec.schema
                        ));
                    }
                    let m = rec.measurement;
                    if m.op != id || m.size != size {
                        return Err(format!(
                            "{name}: holds the figure of {} at {} B",
                            m.op, m.size
                        ));
                    }
                    ev.count_trials(&name, m.trials.len() as u64)
                        .map_err(|e| e.to_string())?;
                    m.check_plan(&config.method)
                        .map_err(|e| format!("{name}: {e}"))?;
                    check_trials(&name, &m, counter.get_or_insert(m.counter()))?;
                    let computed = Derived::of(&m);
                    if rec.derived != computed {
                        return Err(format!(
                            "{name}: {}",
                            first_difference(&rec.derived, &computed)
                        ));
                    }
                    measurements.push(m);
                }
                None if failures.iter().any(|f| f.op == id && f.size == size) => {}
                None => {
                    return Err(format!(
                        "{name}: missing, and {FAILURES} does not list the figure as failed"
                    ));
                }
            }
        }
    }
    // Every file under records/ is one the run names: a second record of a
    // figure, under another name or in a subdirectory, is refused rather
    // than silently ignored.
    if let Some((extra, _)) = ev
        .files_under("records")
        .into_iter()
        .find(|(rel, _)| !named.contains(*rel))
    {
        return Err(format!(
            "{extra}: not a record this run names (its figures' records lie at records/<implementation>.<size>.json, one per figure)"
        ));
    }
    let dataset =
        niccs::Dataset::from_evidence(&ev.subtree(&format!("niccs/{}", config.system_id)))
            .map_err(|e| e.to_string())?;
    let campaign = RunResults {
        started: run.started,
        finished: run.finished,
        environment: read_required(ev, ENVIRONMENT)?,
        kat: read_required(ev, KAT)?,
        libs,
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
    };
    // Each record must be the one the run writes for its figure: its
    // algorithm, implementation, library, counter, method and machine are
    // the run's, not whatever a record says.
    for m in &campaign.measurements {
        let name = record_files::record_name(m);
        let want = crate::records::figure_record(&config, &campaign, m)
            .and_then(|r| serde_json::to_value(r).map_err(|e| e.to_string()))
            .map_err(|e| format!("{name}: {e}"))?;
        let stored: serde_json::Value = read_required(ev, &name)?;
        if let Some(field) = differing_field(&stored, &want) {
            return Err(format!(
                "{name}: {field} is {} but the run's record of this figure says {}",
                brief(&stored[field.as_str()]),
                brief(&want[field.as_str()])
            ));
        }
    }
    Ok(Reloaded {
        config,
        campaign,
        dataset,
    })
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
pub fn write(dir: &Path, rendered: &Rendered) -> Result<(), String> {
    for (name, text) in &rendered.files {
        let path = dir.join(name);
        atomic_write(&path, text.as_bytes()).map_err(|e| format!("{}: {e}", path.display()))?;
    }
    Ok(())
}

/// Compares `rendered` with the files of `ev`, byte for byte; the error
/// names the first file that differs and its first differing line.
pub fn compare(ev: &Evidence, rendered: &Rendered) -> Result<(), String> {
    for (name, text) in &rendered.files {
        let stored = ev.get(name).ok_or_else(|| format!("{name}: missing"))?;
        if stored != text.as_bytes() {
            let line =
                niccs::validate::first_differing_line(&String::from_utf8_lossy(stored), text);
            return Err(format!(
                "{name}: differs from what its records give (first at line {line}): edited, or rendered by another build of pavelor; `pavelor report --render DIR` writes it again from the checked records"
            ));
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
pub fn check_run(dir: &Path, limits: &Limits) -> Result<CheckedRun, String> {
    let ev = Evidence::read(dir, limits).map_err(|e| e.to_string())?;
    let mut datasets = Vec::new();
    let ids = ev.subdirectories("niccs");
    for id in &ids {
        let sub = ev.subtree(&format!("niccs/{id}"));
        let summary = niccs::validate::check_evidence(&sub, &niccs::CheckOptions::default())
            .map_err(|p| format!("{}: {p}", sub.root().display()))?;
        datasets.push(summary.to_string());
    }
    if datasets.is_empty() {
        return Err(format!(
            "{}: no NICCS dataset (no campaign.json under niccs/)",
            dir.display()
        ));
    }
    let run = load_evidence(&ev).map_err(|e| format!("{}: {e}", dir.display()))?;
    compare(&ev, &render(&run)).map_err(|e| format!("{}: {e}", dir.display()))?;
    Ok(CheckedRun {
        datasets,
        run,
        evidence: ev,
    })
}

/// [`load_evidence`]'s checks of a figure's trials: each timed some calls
/// in a positive time, and counted with the run's one counter.
fn check_trials(name: &str, m: &Measurement, counter: &mut CounterKind) -> Result<(), String> {
    for (i, t) in m.trials.iter().enumerate() {
        if t.calls == 0 || t.ns == 0 {
            return Err(format!(
                "{name}: trial {i} timed {} calls in {} ns; a figure needs calls in a positive time",
                t.calls, t.ns
            ));
        }
        if t.counter != CounterKind::None && t.cycles == 0 {
            return Err(format!(
                "{name}: trial {i} counted 0 {} over {} calls",
                t.counter.unit(),
                t.calls
            ));
        }
        if t.counter != *counter {
            return Err(format!(
                "{name}: trial {i} counted with {}, but the run counted with {}: a run has one counter",
                t.counter.unit(),
                counter.unit()
            ));
        }
    }
    Ok(())
}
