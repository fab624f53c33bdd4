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
use crate::harness_run::{HarnessRun, implementation_plain};
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
    /// The implementation in words, with who measured it, as plain text.
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
            Side::Report(r) => NiccsSubject::of(&r.config, r.campaign.best_backend).map_or_else(
                |e| e.to_string(),
                |s| format!("{}, measured by pavelor", s.describe()),
            ),
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
                    pavelor_pages::html::markdown_text(&e.cpu_model),
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
                    implementation: format!("NICCS: {}", implementation_plain(&f.variant)),
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

/// BASE's figures `fb` set against NEW's `fnew`: every pair of figures
/// that [`SideFigure::pairs_with`] says are one (each of a side's
/// implementations at an instance and length a row of its own), then the
/// figures only BASE has and those only NEW has.
fn pair_up(fb: &[SideFigure], fnew: &[SideFigure]) -> (Vec<Pair>, Vec<Unpaired>, Vec<Unpaired>) {
    let mut pairs = Vec::new();
    let mut only_base = Vec::new();
    for x in fb {
        let mut paired = false;
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
    (pairs, only_base, only_new)
}

/// Compares two sides, at least one of them a harness dataset.
pub fn compare(b: &Side<'_>, base_dir: &str, n: &Side<'_>, new_dir: &str) -> Comparison {
    let quantity = if b.cycle_counted() && n.cycle_counted() {
        Quantity::Cycles
    } else {
        Quantity::Time
    };
    let (fb, fnew) = (b.figures(quantity), n.figures(quantity));
    let (pairs, only_base, only_new) = pair_up(&fb, &fnew);
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

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::panic)] // tests may fail loudly

    use super::*;

    fn ours(alg: Algorithm, size: usize) -> SideFigure {
        SideFigure {
            alg,
            size,
            id: "ours-avx2-vaes".into(),
            implementation: "ours: Rust avx2-vaes backend".into(),
            harness: false,
            figure: Figure::of_trials(vec![1.0, 1.1, 0.9], false),
        }
    }

    fn niccs(alg: Algorithm, size: usize, variant: &str, cycles: f64) -> SideFigure {
        SideFigure {
            alg,
            size,
            id: format!("niccs-{variant}"),
            implementation: format!("NICCS: {}", implementation_plain(variant)),
            harness: true,
            figure: Figure::of_trials(vec![cycles, cycles * 1.01, cycles * 0.99], false),
        }
    }

    const P512: Algorithm = Algorithm::Pavelor512;

    #[test]
    fn two_datasets_pair_variant_with_variant() {
        // The optimized record first, as its file name sorts first.
        let base = [niccs(P512, 4096, "reference", 100.0)];
        let new = [
            niccs(P512, 4096, "optimized", 33.0),
            niccs(P512, 4096, "reference", 100.0),
        ];
        let (pairs, only_base, only_new) = pair_up(&base, &new);
        assert_eq!(pairs.len(), 1);
        assert_eq!(
            pairs[0].name,
            "Pavelor-512 — BASE NICCS: the reference C / NEW NICCS: the reference C"
        );
        assert_eq!(pairs[0].ratio, Some(1.0));
        assert!(only_base.is_empty());
        assert_eq!(only_new.len(), 1);
        assert_eq!(only_new[0].name, "Pavelor-512 — NICCS: the optimized C");
    }

    #[test]
    fn a_run_beside_a_dataset_gets_a_row_per_variant() {
        let run = [ours(P512, 4096), ours(P512, 32)];
        let dataset = [
            niccs(P512, 4096, "optimized", 33.0),
            niccs(P512, 4096, "reference", 100.0),
            niccs(Algorithm::Pavelor768, 4096, "reference", 100.0),
        ];
        for (b, n, run_is_base) in [
            (&run[..], &dataset[..], true),
            (&dataset[..], &run[..], false),
        ] {
            let (pairs, only_base, only_new) = pair_up(b, n);
            let names: Vec<&str> = pairs.iter().map(|p| p.name.as_str()).collect();
            let want: [&str; 2] = if run_is_base {
                [
                    "Pavelor-512 — BASE ours: Rust avx2-vaes backend / NEW NICCS: the optimized C",
                    "Pavelor-512 — BASE ours: Rust avx2-vaes backend / NEW NICCS: the reference C",
                ]
            } else {
                [
                    "Pavelor-512 — BASE NICCS: the optimized C / NEW ours: Rust avx2-vaes backend",
                    "Pavelor-512 — BASE NICCS: the reference C / NEW ours: Rust avx2-vaes backend",
                ]
            };
            assert_eq!(names, want);
            let (run_only, dataset_only) = if run_is_base {
                (&only_base, &only_new)
            } else {
                (&only_new, &only_base)
            };
            assert_eq!(run_only.len(), 1);
            assert_eq!(run_only[0].size, 32);
            assert_eq!(dataset_only.len(), 1);
            assert_eq!(dataset_only[0].name, "Pavelor-768 — NICCS: the reference C");
        }
    }
}
