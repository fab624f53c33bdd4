//! `pavelor compare` with a dataset the NICCS harness published on one side
//! (or both): figures paired by instance and message length, a pavelor
//! run's side being its NICCS subject (what its hash-22 page shows). Two
//! harness datasets pair by implementation (the records' variant) too; a
//! run beside a dataset pairs its one implementation with each of the
//! dataset's at that instance and length, one row each. Every row names
//! the implementation of each side.
//!
//! Such a comparison is of two setups: the machines, the implementations
//! and (often) the counters differ, so a ratio is a fact about the two
//! setups, not about the hash, and the comparison says so first.

use pavelor::Algorithm;

use super::{Comparison, Figure, Pair, Quantity, RunSummary, Unpaired};
use crate::harness_run::{HarnessRun, implementation_words};
use crate::niccs_dataset::NiccsSubject;
use crate::reload::Reloaded;
use crate::rows::Ctx;

/// One side of a comparison.
pub enum Side<'a> {
    /// A pavelor report directory.
    Report(&'a Reloaded),
    /// A harness dataset.
    Harness(&'a HarnessRun),
}

/// One figure of a side, by instance and length.
struct SideFigure {
    alg: Algorithm,
    size: usize,
    /// The implementation's id: `ours-<backend or library>` or
    /// `niccs-<variant>`.
    id: String,
    /// The implementation in words, with who measured it.
    implementation: String,
    /// From a harness dataset.
    harness: bool,
    figure: Figure,
}

impl SideFigure {
    /// Whether `self` (BASE's) and `other` (NEW's) are one figure: the
    /// same instance and length, and the same implementation when both
    /// are a harness dataset's.
    fn pairs_with(&self, other: &SideFigure) -> bool {
        self.alg == other.alg
            && self.size == other.size
            && (!(self.harness && other.harness) || self.id == other.id)
    }

    /// The figure's name when only one side has it.
    fn unpaired(&self) -> Unpaired {
        Unpaired {
            op: format!("{}:{}", self.alg, self.id),
            name: format!("{} — {}", self.alg, self.implementation),
            size: self.size,
        }
    }
}

/// A run's subject in a few words, as Markdown text.
fn subject_words(s: &NiccsSubject) -> (String, String) {
    match s {
        NiccsSubject::Backend(b) => (
            format!("ours-{}", b.name()),
            format!("ours: Rust `{}` backend", b.name()),
        ),
        NiccsSubject::Library(n) => (
            format!("ours-{n}"),
            format!("ours: C library {}", crate::html::markdown_text(n)),
        ),
    }
}

impl Side<'_> {
    fn cycle_counted(&self) -> bool {
        match self {
            Side::Report(r) => super::cycle_counted(r),
            Side::Harness(_) => true,
        }
    }

    /// The counter's unit (`cycles`, `TSC ticks`), from every record: what
    /// the two sides' counters are compared by.
    fn counter(&self) -> String {
        match self {
            Side::Report(r) => super::counter_text(r),
            Side::Harness(_) => crate::site::system::HARNESS_UNIT.to_string(),
        }
    }

    /// The counter as the header says it.
    fn unit(&self) -> String {
        match self {
            Side::Report(r) => super::counter_text(r),
            Side::Harness(_) => format!("{} (the harness's hardware counter)", self.counter()),
        }
    }

    fn summary(&self, dir: &str) -> RunSummary {
        match self {
            Side::Report(r) => super::summary(r, dir),
            Side::Harness(h) => RunSummary {
                dir: dir.to_string(),
                started: h.dates().0,
                cpu: h.processor(),
                unit: self.unit(),
            },
        }
    }

    /// The implementation of `alg`, with who measured it.
    fn implementation(&self, alg: Algorithm) -> String {
        match self {
            Side::Report(r) => NiccsSubject::of(&r.config, r.campaign.best_backend)
                .map_or_else(|e| e, |s| format!("{}, measured by pavelor", s.describe())),
            Side::Harness(h) => {
                let found = h.implementations(alg);
                if found.is_empty() {
                    format!("no {alg} figure, published by NICCS")
                } else {
                    format!(
                        "{}, published by NICCS (not measured by pavelor)",
                        found.join(", ")
                    )
                }
            }
        }
    }

    fn machine(&self) -> String {
        match self {
            Side::Report(r) => {
                let e = &r.campaign.environment;
                format!(
                    "{} ({} logical CPUs)",
                    crate::html::markdown_text(&e.cpu_model),
                    e.logical_cpus
                )
            }
            Side::Harness(h) => match h.machine() {
                Some(m) => format!("{} ({m})", h.processor()),
                None => h.processor(),
            },
        }
    }

    /// The side's figures of quantity `q`.
    fn figures(&self, q: Quantity) -> Vec<SideFigure> {
        match self {
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
                            alg,
                            size: m.size,
                            id: id.clone(),
                            implementation: words.clone(),
                            harness: false,
                            figure: super::figure(m, q),
                        })
                    })
                    .collect()
            }
            Side::Harness(h) => h
                .figures
                .iter()
                .map(|f| SideFigure {
                    alg: f.alg,
                    size: f.size,
                    id: format!("niccs-{}", f.variant),
                    implementation: format!("NICCS: {}", implementation_words(&f.variant)),
                    harness: true,
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

/// Compares two sides, at least one of them a harness dataset.
pub fn compare(b: &Side<'_>, base_dir: &str, n: &Side<'_>, new_dir: &str) -> Comparison {
    let quantity = if b.cycle_counted() && n.cycle_counted() {
        Quantity::Cycles
    } else {
        Quantity::Time
    };
    let (fb, fnew) = (b.figures(quantity), n.figures(quantity));
    let mut pairs = Vec::new();
    let mut only_base = Vec::new();
    for x in &fb {
        let mut paired = false;
        // Each of NEW's implementations at this instance and length is a
        // row of its own.
        for y in fnew.iter().filter(|y| x.pairs_with(y)) {
            paired = true;
            pairs.push(Pair::of(
                format!("{}:{}:{}", x.alg, x.id, y.id),
                format!(
                    "{} — BASE {} / NEW {}",
                    x.alg, x.implementation, y.implementation
                ),
                x.size,
                x.figure.clone(),
                y.figure.clone(),
            ));
        }
        if !paired {
            only_base.push(x.unpaired());
        }
    }
    let only_new = fnew
        .iter()
        .filter(|y| !fb.iter().any(|x| x.pairs_with(y)))
        .map(SideFigure::unpaired)
        .collect();
    let mut differences = Vec::new();
    let mut differing = Vec::new();
    let mut differ = |what: &'static str, bx: String, nx: String| {
        if bx != nx {
            differences.push(format!("{what}: BASE {bx}; NEW {nx}"));
            differing.push(what);
        }
    };
    differ("machine", b.machine(), n.machine());
    differ(
        "implementation",
        b.implementation(Algorithm::Pavelor512),
        n.implementation(Algorithm::Pavelor512),
    );
    if b.counter() != n.counter() {
        differ("counter", b.unit(), n.unit());
    }
    let quantity_words = format!(
        "Each ratio is of the mean {}{}.",
        quantity.label(),
        if quantity == Quantity::Time {
            " (wall time: the two sides do not both count cycles)"
        } else {
            ""
        }
    );
    let setups = Some(if differing.is_empty() {
        format!(
            "The two sides agree on the machine, the implementation and the counter; pavelor compares nothing else of a harness dataset (its compiler flags and clock policy are on its method page). {quantity_words}"
        )
    } else {
        format!(
            "These are two different setups: the {} differ{}. Each ratio is a fact about these two setups, not about the hash. {quantity_words}",
            join_words(&differing),
            if differing.len() == 1 { "s" } else { "" }
        )
    });
    Comparison {
        base: b.summary(base_dir),
        new: n.summary(new_dir),
        quantity,
        setups,
        differences,
        pairs,
        only_base,
        only_new,
    }
}

/// `a`, `a and b`, `a, b and c`.
fn join_words(words: &[&str]) -> String {
    match words {
        [] => String::new(),
        [one] => (*one).to_string(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}
