//! `report --sweep`: the eBASH length sweep ([`pavelor_sweep`]) of every
//! Pavelor implementation the report measured, after its KATs and the
//! libraries' gates: each in a worker process of its own, its records
//! under `records/sweep/`, read back by [`read`] for `--check`,
//! `--render`, `compare` and the site.

use std::collections::BTreeSet;
use std::time::{Duration, Instant};

use pavelor_measure::library::gate::LibStatus;
use pavelor_measure::ops::{Operation, Subject};
use pavelor_niccs::evidence::Evidence;
use pavelor_sweep::record::{self, SweepFailure, SweepRecord};
use pavelor_sweep::task::{SweepTask, run_in_worker};
use pavelor_sweep::{SweepPlan, chart};

use crate::config::{Config, Progress};
use crate::results::{RunResults, Sweeps};

/// The longest a worker may sweep one implementation: a library slower
/// than the submitted reference C by a factor of ten still finishes.
const WORKER_LIMIT: Duration = Duration::from_secs(900);

/// Whether `subject` passed the checks before it: its backend's KAT files
/// of its instance all pass (Rust), or its library's gate passed.
fn checked(c: &RunResults, subject: &Subject) -> bool {
    match subject {
        Subject::Op(Operation::Pavelor(alg, backend)) => {
            let mine: Vec<_> = c
                .kat
                .iter()
                .filter(|k| k.instance == alg.name() && k.backend == backend.name())
                .collect();
            !mine.is_empty() && mine.iter().all(|k| k.status != "FAIL")
        }
        Subject::Lib { name, .. } => c
            .libs
            .iter()
            .any(|g| &g.spec.name == name && g.status == LibStatus::Pass),
        Subject::Op(_) => false,
    }
}

/// Sweeps every Pavelor subject of `c` that passed its KATs or gate.
pub fn run(config: &Config, c: &RunResults, progress: &mut dyn FnMut(Progress<'_>)) -> Sweeps {
    let Some(settings) = config.sweep else {
        return Sweeps::default();
    };
    let subjects: Vec<&Subject> = c
        .subjects
        .iter()
        .filter(|s| s.algorithm().is_some() && checked(c, s))
        .collect();
    progress(Progress::Phase(
        "length sweep (the eBASH method)",
        subjects.len() as u64,
    ));
    let mut out = Sweeps::default();
    for subject in subjects {
        let Some(alg) = subject.algorithm() else {
            continue;
        };
        let plan = if settings.quick {
            SweepPlan::quick(&[alg.rate_len()], settings.seed)
        } else {
            SweepPlan::full(settings.seed)
        };
        let method = &config.method;
        let Some(task) = SweepTask::of(subject, plan, method.force_ticks, method.cpu) else {
            continue;
        };
        let start = Instant::now();
        let memory = method.worker_memory_bytes;
        match run_in_worker(&config.worker, &task, WORKER_LIMIT, memory) {
            Ok(answer) => {
                let wall = start.elapsed().as_secs_f64();
                out.records
                    .extend(SweepRecord::new(subject.clone(), answer, wall));
            }
            Err(fault) => out.failures.push(SweepFailure {
                subject: subject.clone(),
                fault,
            }),
        }
        progress(Progress::Step(subject.id().as_str()));
    }
    out
}

/// The files of `sweeps`: each record, and the failures when there are
/// some (name, JSON).
pub fn record_files(sweeps: &Sweeps) -> Vec<(String, String)> {
    let mut files: Vec<(String, String)> = sweeps
        .records
        .iter()
        .map(|r| (r.file_name(), r.to_json() + "\n"))
        .collect();
    if !sweeps.failures.is_empty() {
        let json = serde_json::to_string_pretty(&sweeps.failures).unwrap_or_default();
        files.push((record::FAILURES.into(), json + "\n"));
    }
    files
}

/// The charts of `sweeps`, one per instance swept (name, SVG).
pub fn charts(sweeps: &Sweeps) -> Vec<(String, String)> {
    let unit = sweeps
        .records
        .first()
        .map_or("cycles", |r| r.counter_unit.as_str());
    pavelor::Algorithm::ALL
        .into_iter()
        .filter_map(|alg| {
            let panels: Vec<chart::Panel<'_>> = sweeps
                .records
                .iter()
                .filter(|r| r.algorithm() == alg)
                .map(|r| chart::Panel {
                    label: r.implementation.clone(),
                    quartiles: &r.summary.quartiles,
                })
                .collect();
            (!panels.is_empty()).then(|| (chart::file_name(alg), chart::render(alg, unit, &panels)))
        })
        .collect()
}

/// Why the sweep's records of a report directory cannot be read.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    /// A record that is not a sweep's, or contradicts itself.
    #[error("{name}: {source}")]
    Record {
        /// The file.
        name: String,
        /// Why.
        source: record::RecordError,
    },
    /// A record of a subject the run did not measure, of another seed or
    /// plan than the run's, or whose subject has its record elsewhere.
    #[error("{name}: {why}")]
    NotTheRuns {
        /// The file.
        name: String,
        /// Why.
        why: String,
    },
    /// A subject the run measured and checked has neither a record nor a
    /// failure.
    #[error("{name}: missing (the run swept {subject})")]
    Missing {
        /// The file that should be there.
        name: String,
        /// Its subject.
        subject: String,
    },
}

/// Reads the sweep's records of `ev` for the run `c` of `config`, adding
/// their names to `named`. Every record must be of a subject the run
/// measured, of the run's seed and plan; every Pavelor subject the run
/// checked must have a record or a failure.
pub fn read(
    ev: &Evidence,
    config: &Config,
    c: &RunResults,
    named: &mut BTreeSet<String>,
) -> Result<Sweeps, ReadError> {
    let Some(settings) = config.sweep else {
        return Ok(Sweeps::default());
    };
    let failures = match ev.get(record::FAILURES) {
        Some(bytes) => {
            named.insert(record::FAILURES.into());
            record::read_failures(bytes).map_err(|source| ReadError::Record {
                name: record::FAILURES.into(),
                source,
            })?
        }
        None => Vec::new(),
    };
    let mut records = Vec::new();
    for subject in c.subjects.iter().filter(|s| s.algorithm().is_some()) {
        let name = record::file_name(subject);
        let Some(bytes) = ev.get(&name) else {
            if checked(c, subject) && !failures.iter().any(|f| &f.subject == subject) {
                return Err(ReadError::Missing {
                    name,
                    subject: subject.to_string(),
                });
            }
            continue;
        };
        named.insert(name.clone());
        let r = SweepRecord::read(bytes).map_err(|source| ReadError::Record {
            name: name.clone(),
            source,
        })?;
        let not = |why: String| {
            Err(ReadError::NotTheRuns {
                name: name.clone(),
                why,
            })
        };
        if &r.subject != subject {
            return not(format!("holds the sweep of {}", r.subject.id()));
        }
        let alg = r.algorithm();
        let plan = if settings.quick {
            SweepPlan::quick(&[alg.rate_len()], settings.seed)
        } else {
            SweepPlan::full(settings.seed)
        };
        if r.curve.plan != plan {
            return not("its lengths, samples or seed are not the run's".into());
        }
        records.push(r);
    }
    Ok(Sweeps { records, failures })
}
