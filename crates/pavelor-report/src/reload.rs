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

use std::io::Read;
use std::path::Path;

use pavelor::Backend;
use pavelor_kat::atomic_file::atomic_write;
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

/// The largest record file read back, bytes.
pub const MAX_RECORD_BYTES: u64 = 64 << 20;

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

fn read_bounded(path: &Path) -> Result<Option<Vec<u8>>, String> {
    let file = match std::fs::File::open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e.to_string()),
    };
    let mut bytes = Vec::new();
    file.take(MAX_RECORD_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| e.to_string())?;
    if bytes.len() as u64 > MAX_RECORD_BYTES {
        return Err(format!("larger than {MAX_RECORD_BYTES} bytes"));
    }
    Ok(Some(bytes))
}

/// Parses `dir/name`; `None` if there is no such file.
fn read_optional<T: DeserializeOwned>(dir: &Path, name: &str) -> Result<Option<T>, String> {
    let Some(bytes) = read_bounded(&dir.join(name)).map_err(|e| format!("{name}: {e}"))? else {
        return Ok(None);
    };
    serde_json::from_slice(&bytes)
        .map(Some)
        .map_err(|e| format!("{name}: {e}"))
}

fn read_required<T: DeserializeOwned>(dir: &Path, name: &str) -> Result<T, String> {
    read_optional(dir, name)?.ok_or_else(|| format!("{name}: missing"))
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

/// Reads the report directory `dir`.
pub fn load(dir: &Path) -> Result<Reloaded, String> {
    let run: RunRecord = read_optional(dir, RUN_RECORD)?
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
    config.out_dir = dir.to_path_buf();
    let failures: Vec<FigureFailure> = read_optional(dir, FAILURES)?.unwrap_or_default();
    let mut libs = Vec::new();
    for spec in &config.libs {
        let name = record_files::library_record_name(&spec.name);
        let gate: LibGate = read_required(dir, &name)?;
        if &gate.spec != spec {
            return Err(format!("{name}: describes another library than the run's"));
        }
        libs.push(gate);
    }
    let mut measurements = Vec::new();
    for subject in &run.subjects {
        let id = subject.id();
        for &size in &config.sizes {
            let name = record_files::figure_record_name(&id, size);
            match read_optional::<FigureRecord>(dir, &name)? {
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
                    m.check_plan(&config.method)
                        .map_err(|e| format!("{name}: {e}"))?;
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
    let dataset_dir = dir.join("niccs").join(&config.system_id);
    let dataset = niccs::Dataset::load(&dataset_dir).map_err(|e| e.to_string())?;
    let campaign = RunResults {
        started: run.started,
        finished: run.finished,
        environment: read_required(dir, ENVIRONMENT)?,
        kat: read_required(dir, KAT)?,
        libs,
        probe: read_optional(dir, AES_PROBE)?,
        subjects: run.subjects,
        measurements,
        failures,
        static_size: read_optional(dir, STATIC_SIZE)?,
        emulation: run.emulation.or(run
            .emulated
            .then_some(pavelor_measure::env::Emulation::UserMode)),
        notes: run.notes,
        host_checks: read_required(dir, HOST_CHECKS)?,
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

/// Compares `rendered` with the files in `dir`, byte for byte; the error
/// names the first file that differs and its first differing line.
pub fn compare(dir: &Path, rendered: &Rendered) -> Result<(), String> {
    for (name, text) in &rendered.files {
        let stored = read_bounded(&dir.join(name))
            .map_err(|e| format!("{name}: {e}"))?
            .ok_or_else(|| format!("{name}: missing"))?;
        if stored != text.as_bytes() {
            let line =
                niccs::validate::first_differing_line(&String::from_utf8_lossy(&stored), text);
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
}

/// The NICCS datasets of a report directory (`DIR/niccs/<id>/`), sorted.
pub fn datasets_of(dir: &Path) -> Result<Vec<std::path::PathBuf>, String> {
    let entries = std::fs::read_dir(dir.join("niccs"))
        .map_err(|e| format!("{}: {e}", dir.join("niccs").display()))?;
    let mut v: Vec<std::path::PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.join("campaign.json").is_file())
        .collect();
    v.sort();
    if v.is_empty() {
        return Err(format!(
            "{}: no NICCS dataset (no campaign.json under niccs/)",
            dir.display()
        ));
    }
    Ok(v)
}

/// Every check of `pavelor report --check` on a report directory: each
/// NICCS dataset by the harness validator's rules, every record against
/// its trials, and every page and chart against what the records give.
/// The error names the first problem, prefixed with the path it is in.
pub fn check_run(dir: &Path) -> Result<CheckedRun, String> {
    let mut datasets = Vec::new();
    for d in datasets_of(dir)? {
        let summary = niccs::check(&d).map_err(|p| format!("{}: {p}", d.display()))?;
        datasets.push(summary.to_string());
    }
    let run = load(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    compare(dir, &render(&run)).map_err(|e| format!("{}: {e}", dir.display()))?;
    Ok(CheckedRun { datasets, run })
}
