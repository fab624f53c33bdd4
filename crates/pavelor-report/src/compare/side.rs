//! One side of a comparison, a report directory or a dataset the NICCS
//! harness published, and its figures with what pairs them.
//!
//! Two report directories pair record by record: the same `op` and
//! length. With a harness dataset on either side, figures pair by instance
//! and message length, a pavelor run's side being its NICCS subject (what
//! its hash-22 page shows). Two harness datasets pair by implementation
//! (the records' variant) too; a run beside a dataset pairs its one
//! implementation with each of the dataset's at that instance and length,
//! one row each. Every such row names the implementation of each side.

use pavelor::Algorithm;
use pavelor_measure::{
    campaign::Measurement,
    clock::CounterKind,
    protocol::{TaskId, TrialResult},
};
use pavelor_niccs::stats;

use super::{Figure, Pair, Quantity, RunSummary, Unpaired};
use crate::harness_run::{HarnessRun, implementation_plain};
use crate::niccs_dataset::NiccsSubject;
use crate::reload::Reloaded;
use crate::rows::Ctx;

/// The unit of the harness's figures: it reads a hardware cycle counter.
pub const HARNESS_UNIT: &str = "cycles";

/// One side of a comparison.
pub enum Side<'a> {
    /// A pavelor report directory.
    Report(&'a Reloaded),
    /// A harness dataset.
    Harness(&'a HarnessRun),
}

/// What a figure is, for pairing and naming it.
#[derive(Clone, Debug)]
pub(super) enum What {
    /// A record of a report directory, beside another report directory.
    Record {
        /// The record's `op`.
        op: String,
        /// The subject as the report names it.
        name: String,
    },
    /// An implementation of an instance, beside a harness dataset.
    Implementation {
        alg: Algorithm,
        /// The implementation's id: `ours-<backend or library>` or
        /// `niccs-<variant>`.
        id: String,
        /// The implementation in words, with who measured it, as plain
        /// text.
        words: String,
        /// From a harness dataset.
        harness: bool,
    },
}

/// One figure of a side.
#[derive(Clone, Debug)]
pub(super) struct SideFigure {
    pub(super) what: What,
    /// Message length, bytes.
    pub(super) size: usize,
    pub(super) figure: Figure,
}

impl SideFigure {
    /// Whether `self` (BASE's) and `other` (NEW's) are one figure: the
    /// same length, and the same record, or the same instance (and the
    /// same implementation when both are a harness dataset's).
    pub(super) fn pairs_with(&self, other: &SideFigure) -> bool {
        self.size == other.size
            && match (&self.what, &other.what) {
                (What::Record { op: a, .. }, What::Record { op: b, .. }) => a == b,
                (
                    What::Implementation {
                        alg: a,
                        id: ia,
                        harness: ha,
                        ..
                    },
                    What::Implementation {
                        alg: b,
                        id: ib,
                        harness: hb,
                        ..
                    },
                ) => a == b && (!(*ha && *hb) || ia == ib),
                _ => false,
            }
    }

    /// The figure's id and name when only one side has it.
    fn id_and_name(&self) -> (String, String) {
        match &self.what {
            What::Record { op, name } => (op.clone(), name.clone()),
            What::Implementation { alg, id, words, .. } => {
                (format!("{alg}:{id}"), format!("{alg} — {words}"))
            }
        }
    }

    /// The figure when only one side has it.
    pub(super) fn unpaired(&self) -> Unpaired {
        let (op, name) = self.id_and_name();
        Unpaired {
            op,
            name,
            size: self.size,
        }
    }

    /// The pair of `self` (BASE's) and `other` (NEW's): a record's id and
    /// name are BASE's; an implementation pair names both sides'.
    pub(super) fn pair(&self, other: &SideFigure) -> Pair {
        let (op, name) = match (&self.what, &other.what) {
            (
                What::Implementation {
                    alg, id, words: x, ..
                },
                What::Implementation {
                    id: y_id, words: y, ..
                },
            ) => (
                format!("{alg}:{id}:{y_id}"),
                format!("{alg} — BASE {x} / NEW {y}"),
            ),
            _ => self.id_and_name(),
        };
        Pair::of(
            op,
            name,
            self.size,
            self.figure.clone(),
            other.figure.clone(),
        )
    }
}

/// A run's subject in a few words, as plain text (the row's name; the
/// page writers escape it).
fn subject_words(s: &NiccsSubject) -> (String, String) {
    match s {
        NiccsSubject::Backend(b) => (
            format!("ours-{}", b.name()),
            format!("ours: Rust {} backend", b.name()),
        ),
        NiccsSubject::Library(n) => (format!("ours-{n}"), format!("ours: C library {n}")),
    }
}

/// The counters of every trial of every record of a run, each once, in
/// the order first seen.
fn counters_of(r: &Reloaded) -> Vec<CounterKind> {
    let mut v = Vec::new();
    for t in r.campaign.measurements.iter().flat_map(|m| &m.trials) {
        if !v.contains(&t.counter) {
            v.push(t.counter);
        }
    }
    v
}

/// The run's counter by its unit (`cycles`, `TSC ticks`), from all its
/// records; when they disagree, every unit they name.
pub(super) fn counter_text(r: &Reloaded) -> String {
    match counters_of(r).as_slice() {
        [] => CounterKind::None.unit().to_string(),
        [one] => one.unit().to_string(),
        several => format!(
            "mixed: its records name {}",
            several
                .iter()
                .map(|c| c.unit())
                .collect::<Vec<_>>()
                .join(" and ")
        ),
    }
}

/// Per-call values of a trial.
fn per_call(t: &TrialResult, q: Quantity) -> f64 {
    match q {
        Quantity::Cycles => stats::per_call(t.cycles, t.calls),
        Quantity::Time => stats::seconds_per_call(t.ns, t.calls),
    }
}

fn figure(m: &Measurement, q: Quantity) -> Figure {
    Figure::of_trials(
        m.trials.iter().map(|t| per_call(t, q)).collect(),
        m.trials.iter().any(|t| t.disturbed.is_some()),
    )
}

/// The subject a run's `op` names, as the report names it.
fn name_of(r: &Reloaded, op: &TaskId) -> String {
    r.campaign
        .subjects
        .iter()
        .find(|s| s.id() == *op)
        .map_or_else(|| op.to_string(), |s| s.to_string())
}

impl Side<'_> {
    /// Whether every figure of the side counts cycles: every trial of a
    /// run read the hardware cycle counter; a harness dataset always.
    pub(super) fn cycle_counted(&self) -> bool {
        match self {
            Side::Report(r) => counters_of(r) == [CounterKind::PerfCycles],
            Side::Harness(_) => true,
        }
    }

    /// The counter's unit (`cycles`, `TSC ticks`), from every record: what
    /// the two sides' counters are compared by.
    pub(super) fn counter(&self) -> String {
        match self {
            Side::Report(r) => counter_text(r),
            Side::Harness(_) => HARNESS_UNIT.to_string(),
        }
    }

    /// The counter as the header says it.
    pub(super) fn unit(&self) -> String {
        match self {
            Side::Report(r) => counter_text(r),
            Side::Harness(_) => format!("{} (the harness's hardware counter)", self.counter()),
        }
    }

    /// The side's description, with the directory as given.
    pub(super) fn summary(&self, dir: &str) -> RunSummary {
        let (started, cpu) = match self {
            Side::Report(r) => (
                r.campaign.started.clone(),
                r.campaign.environment.cpu_model.clone(),
            ),
            Side::Harness(h) => (h.dates().0, h.processor()),
        };
        RunSummary {
            dir: dir.to_string(),
            started,
            cpu,
            unit: self.unit(),
        }
    }

    /// The side's figures of quantity `q`: every record of a run when
    /// `by_record` (two report directories), else each implementation of
    /// each instance (a run's NICCS subject, a dataset's variants).
    pub(super) fn figures(&self, q: Quantity, by_record: bool) -> Vec<SideFigure> {
        match self {
            Side::Report(r) if by_record => r
                .campaign
                .measurements
                .iter()
                .map(|m| SideFigure {
                    what: What::Record {
                        op: m.op.to_string(),
                        name: name_of(r, &m.op),
                    },
                    size: m.size,
                    figure: figure(m, q),
                })
                .collect(),
            Side::Report(r) => {
                let ctx = Ctx::new(&r.config, &r.campaign);
                let Ok(subject) = NiccsSubject::of(&r.config, r.campaign.best_backend) else {
                    return Vec::new();
                };
                let (id, words) = subject_words(&subject);
                Algorithm::ALL
                    .into_iter()
                    .filter_map(|alg| Some((alg, subject.row(&ctx, alg)?)))
                    .flat_map(|(alg, row)| {
                        let (id, words) = (id.clone(), words.clone());
                        row.measurements.iter().map(move |m| SideFigure {
                            what: What::Implementation {
                                alg,
                                id: id.clone(),
                                words: words.clone(),
                                harness: false,
                            },
                            size: m.size,
                            figure: figure(m, q),
                        })
                    })
                    .collect()
            }
            Side::Harness(h) => h
                .figures
                .iter()
                .map(|f| SideFigure {
                    what: What::Implementation {
                        alg: f.alg,
                        id: format!("niccs-{}", f.variant),
                        words: format!("NICCS: {}", implementation_plain(&f.variant)),
                        harness: true,
                    },
                    size: f.size,
                    figure: Figure::of_trials(
                        match q {
                            Quantity::Cycles => f.trial_cycles.clone(),
                            Quantity::Time => f.trial_seconds.clone(),
                        },
                        false,
                    ),
                })
                .collect(),
        }
    }
}
