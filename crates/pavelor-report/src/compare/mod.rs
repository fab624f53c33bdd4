//! `pavelor compare BASE NEW`: two sides, each a report directory checked
//! as `report --check` checks it or a dataset the NICCS harness published
//! ([`Side`]), their figures paired by one loop ([`compare`]): two report
//! directories by implementation, instance and length, a harness dataset
//! on either side by instance and length with each implementation its own
//! row. For each pair, the ratio NEW/BASE of the mean time (or cycles) per
//! call with its 95% interval
//! ([`interval`](mod@pavelor_niccs::stats::interval)) and a verdict. A pair
//! without an interval says why ([`Verdict::NoInterval`]); no ratio, mean
//! or interval is ever a NaN or an infinity. What differs between the two
//! sides (machine, counter, method, build, libraries; or, for two setups,
//! machine, implementation and counter) is named, never mixed silently.
//! [`Comparison::gate`] is `--fail-above`.
//!
//! [`render`] writes the comparison as Markdown, HTML with a chart of the
//! intervals, and JSON.

mod error;
pub mod render;
mod setups;
mod side;
mod sweeps;

pub use error::Error;
pub use side::{HARNESS_UNIT, Side};
pub use sweeps::Sweeps;

use std::path::Path;

use pavelor_niccs::Limits;
use serde::Serialize;

use crate::harness_run::{HarnessRun, is_harness_dataset};
use crate::reload::{Reloaded, check_run};
use pavelor_measure::clock::CounterKind;
use pavelor_niccs::stats::interval::{
    self, NoInterval, RatioInterval, log10_ratio, ratio_interval,
};
use setups::Differences;
use side::SideFigure;

/// What the ratios are of.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Quantity {
    /// Hardware cycles per call: every trial of both runs read the cycle
    /// counter ([`CounterKind::PerfCycles`]).
    Cycles,
    /// Seconds per call (the monotonic clock around each trial's calls):
    /// when a side counted TSC ticks (a fixed-rate clock, whose ratio is
    /// the wall time's), had no counter, or its records disagree.
    Time,
}

impl Quantity {
    /// The quantity as the table heads say it: "cycles per call" only for
    /// the cycle counter's unit.
    pub fn label(self) -> String {
        match self {
            Quantity::Cycles => format!("{} per call", CounterKind::PerfCycles.unit()),
            Quantity::Time => "time per call".to_string(),
        }
    }
}

/// What a pair's interval says.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// The whole interval is below 1.
    Faster,
    /// The whole interval is above 1.
    Slower,
    /// The interval contains 1.
    NoSignificantDifference,
    /// No interval, for the reason given: too few trials, a value that is
    /// not a positive finite number, or a ratio beyond the doubles.
    NoInterval(NoInterval),
}

impl Verdict {
    /// The verdict in words (a missing interval with its reason).
    pub fn text(self) -> &'static str {
        match self {
            Verdict::Faster => "faster",
            Verdict::Slower => "slower",
            Verdict::NoSignificantDifference => "no significant difference",
            Verdict::NoInterval(why) => why.text(),
        }
    }
}

/// One figure of one run.
#[derive(Clone, Debug, Serialize)]
pub struct Figure {
    /// Mean over the trials of the compared quantity per call (`None`
    /// when a trial's value is not a positive finite number).
    pub mean: Option<f64>,
    /// The trials' values per call.
    pub trials: Vec<f64>,
    /// Whether a trial is still disturbed after the reruns (marked †).
    pub disturbed: bool,
}

/// A figure present in both runs.
#[derive(Clone, Debug, Serialize)]
pub struct Pair {
    /// The figure's id (`op` of the records; with a harness dataset, the
    /// instance and each side's implementation).
    pub op: String,
    /// The instance with its implementation on each side, as the report
    /// names them.
    pub name: String,
    /// Message length, bytes.
    pub size: usize,
    /// BASE's figure.
    pub base: Figure,
    /// NEW's figure.
    pub new: Figure,
    /// NEW/BASE of the means, when it is a positive normal number.
    pub ratio: Option<f64>,
    /// The base-10 logarithm of NEW/BASE: also when the ratio itself is
    /// beyond the doubles; `None` when a side's values are not positive
    /// finite numbers (no ratio at all).
    pub log10_ratio: Option<f64>,
    /// NEW/BASE with its 95% interval (none: the verdict says why).
    pub interval: Option<RatioInterval>,
    /// The verdict.
    pub verdict: Verdict,
}

impl Pair {
    /// The pair of two figures: their ratio, its interval and the verdict.
    pub fn of(op: String, name: String, size: usize, base: Figure, new: Figure) -> Pair {
        let i = ratio_interval(&base.trials, &new.trials);
        Pair {
            op,
            name,
            size,
            ratio: interval::ratio_of_means(&base.trials, &new.trials).ok(),
            log10_ratio: log10_ratio(&base.trials, &new.trials).ok(),
            verdict: verdict(&i),
            interval: i.ok(),
            base,
            new,
        }
    }

    /// Whether either side is disturbed.
    pub fn disturbed(&self) -> bool {
        self.base.disturbed || self.new.disturbed
    }

    /// Whether NEW is slower than BASE by more than `pct` percent by this
    /// pair's evidence: by its ratio when the interval excludes no change
    /// or there is no interval, never when the interval contains 1 or is
    /// below it; `None` when there is no ratio at all.
    pub fn slower_by_more_than(&self, pct: f64) -> Option<bool> {
        let log = self.log10_ratio?;
        Some(match self.verdict {
            Verdict::Faster | Verdict::NoSignificantDifference => false,
            Verdict::Slower | Verdict::NoInterval(_) => match self.ratio {
                Some(r) => (r - 1.0) * 100.0 > pct,
                None => log > (1.0 + pct / 100.0).log10(),
            },
        })
    }
}

/// A figure `--fail-above` leaves out, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Excluded {
    /// The figure's name.
    pub name: String,
    /// Message length, bytes.
    pub size: usize,
    /// Why it is not gated.
    pub why: String,
}

/// What `--fail-above PCT` finds.
#[derive(Debug)]
pub struct Gate<'a> {
    /// The pairs slower than BASE by more than PCT percent.
    pub failing: Vec<&'a Pair>,
    /// How many pairs were gated (had a ratio).
    pub gated: usize,
    /// Every figure not gated, with the reason.
    pub excluded: Vec<Excluded>,
}

/// A figure that only one run has.
#[derive(Clone, Debug, Serialize)]
pub struct Unpaired {
    /// The figure's id.
    pub op: String,
    /// Its name.
    pub name: String,
    /// Message length, bytes.
    pub size: usize,
}

/// One side's description.
#[derive(Clone, Debug, Serialize)]
pub struct RunSummary {
    /// The report directory as given.
    pub dir: String,
    /// Start, UTC.
    pub started: String,
    /// The CPU.
    pub cpu: String,
    /// The counter's unit.
    pub unit: String,
}

/// The whole comparison.
#[derive(Clone, Debug, Serialize)]
pub struct Comparison {
    /// The baseline run.
    pub base: RunSummary,
    /// The run compared with it.
    pub new: RunSummary,
    /// What the ratios are of.
    pub quantity: Quantity,
    /// When the two sides are different setups (a harness dataset on
    /// either side): what that means for the ratios. Shown first.
    pub setups: Option<String>,
    /// How the two runs differ (machine, counter, method, build,
    /// libraries), one sentence each; empty when they agree.
    pub differences: Vec<String>,
    /// The figures both runs have, in BASE's order.
    pub pairs: Vec<Pair>,
    /// Figures only BASE has.
    pub only_base: Vec<Unpaired>,
    /// Figures only NEW has.
    pub only_new: Vec<Unpaired>,
    /// The length sweeps both report directories have, paired by
    /// implementation (`report --sweep` on both sides).
    pub sweeps: Sweeps,
}

/// A directory read and checked: a report directory, or a harness dataset.
enum Loaded {
    Report(Box<Reloaded>),
    Harness(Box<HarnessRun>),
}

impl Loaded {
    fn side(&self) -> Side<'_> {
        match self {
            Loaded::Report(r) => Side::Report(r),
            Loaded::Harness(h) => Side::Harness(h),
        }
    }
}

/// Reads and checks both directories (each a report directory or a harness
/// dataset) and compares them. The error is one line naming the directory
/// and its first problem; for a harness dataset it says whether the
/// validator's rules refused it or pavelor did after them.
pub fn compare_dirs(base: &Path, new: &Path, limits: &Limits) -> Result<Comparison, Error> {
    let load = |dir: &Path| {
        if is_harness_dataset(dir) {
            return HarnessRun::check(dir, limits)
                .map(|h| Loaded::Harness(Box::new(h)))
                .map_err(|e| Error::harness(dir.to_path_buf(), e));
        }
        check_run(dir, limits)
            .map(|c| Loaded::Report(Box::new(c.run)))
            .map_err(|problem| Error::NotAReport {
                dir: dir.to_path_buf(),
                problem,
            })
    };
    let (b, n) = (load(base)?, load(new)?);
    let (bd, nd) = (base.display().to_string(), new.display().to_string());
    Ok(compare(&b.side(), &bd, &n.side(), &nd))
}

impl Figure {
    /// A figure of the trials' values per call.
    fn of_trials(trials: Vec<f64>, disturbed: bool) -> Figure {
        Figure {
            mean: interval::mean(&trials),
            trials,
            disturbed,
        }
    }
}

/// What an interval says.
pub fn verdict(i: &Result<RatioInterval, NoInterval>) -> Verdict {
    match i {
        Ok(i) if i.low > 1.0 => Verdict::Slower,
        Ok(i) if i.high < 1.0 => Verdict::Faster,
        Ok(_) => Verdict::NoSignificantDifference,
        Err(why) => Verdict::NoInterval(*why),
    }
}

/// Compares two sides already read and checked, each a report directory
/// or a harness dataset: their figures paired by one loop (two report
/// directories record by record, else implementation by implementation),
/// each pair's ratio and verdict, and what differs between them.
pub fn compare(b: &Side<'_>, base_dir: &str, n: &Side<'_>, new_dir: &str) -> Comparison {
    let quantity = if b.cycle_counted() && n.cycle_counted() {
        Quantity::Cycles
    } else {
        Quantity::Time
    };
    // Two report directories pair record by record; with a harness dataset
    // on either side, implementation by implementation.
    let by_record = matches!((b, n), (Side::Report(_), Side::Report(_)));
    let (fb, fnew) = (
        b.figures(quantity, by_record),
        n.figures(quantity, by_record),
    );
    let (pairs, only_base, only_new) = pair_up(&fb, &fnew);
    let differences = Differences::of(b, n);
    let sweeps = match (b, n) {
        (Side::Report(rb), Side::Report(rn)) => Sweeps::of(rb, rn),
        _ => Sweeps::default(),
    };
    Comparison {
        base: b.summary(base_dir),
        new: n.summary(new_dir),
        quantity,
        setups: differences.setups(b, n, quantity),
        differences: differences.sentences,
        pairs,
        only_base,
        only_new,
        sweeps,
    }
}

/// BASE's figures `fb` set against NEW's `fnew`: every pair of figures
/// that [`SideFigure::pairs_with`] says are one, in BASE's order (each of
/// a side's implementations at an instance and length a row of its own; a
/// checked run has one record per `op` and length, so a record pairs with
/// one at most), then the figures only BASE has and those only NEW has.
fn pair_up(fb: &[SideFigure], fnew: &[SideFigure]) -> (Vec<Pair>, Vec<Unpaired>, Vec<Unpaired>) {
    let mut pairs = Vec::new();
    let mut only_base = Vec::new();
    for x in fb {
        let before = pairs.len();
        pairs.extend(fnew.iter().filter(|y| x.pairs_with(y)).map(|y| x.pair(y)));
        if pairs.len() == before {
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

impl Comparison {
    /// `--fail-above PCT`: the pairs slower than BASE by more than `pct`
    /// percent ([`Pair::slower_by_more_than`]), and every figure left out
    /// (only one side has it, or it has no ratio) with the reason.
    pub fn gate(&self, pct: f64) -> Gate<'_> {
        let mut g = Gate {
            failing: Vec::new(),
            gated: 0,
            excluded: Vec::new(),
        };
        for p in &self.pairs {
            match p.slower_by_more_than(pct) {
                Some(slow) => {
                    g.gated += 1;
                    if slow {
                        g.failing.push(p);
                    }
                }
                None => g.excluded.push(Excluded {
                    name: p.name.clone(),
                    size: p.size,
                    why: format!("no ratio ({})", p.verdict.text()),
                }),
            }
        }
        for (side, list) in [("BASE", &self.only_base), ("NEW", &self.only_new)] {
            for u in list {
                g.excluded.push(Excluded {
                    name: u.name.clone(),
                    size: u.size,
                    why: format!("only in {side}"),
                });
            }
        }
        g
    }

    /// How many pairs have each verdict: (faster, slower, no difference,
    /// no interval).
    pub fn counts(&self) -> (usize, usize, usize, usize) {
        let c = |f: fn(&Verdict) -> bool| self.pairs.iter().filter(|p| f(&p.verdict)).count();
        (
            c(|v| *v == Verdict::Faster),
            c(|v| *v == Verdict::Slower),
            c(|v| *v == Verdict::NoSignificantDifference),
            c(|v| matches!(v, Verdict::NoInterval(_))),
        )
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::panic)] // tests may fail loudly

    use super::*;
    use crate::harness_run::implementation_plain;
    use pavelor::Algorithm;
    use side::What;

    fn figure(trials: &[f64]) -> Figure {
        Figure::of_trials(trials.to_vec(), false)
    }

    fn pair(name: &str, base: &[f64], new: &[f64]) -> Pair {
        Pair::of(
            name.to_string(),
            name.to_string(),
            4096,
            figure(base),
            figure(new),
        )
    }

    fn comparison(pairs: Vec<Pair>, only_base: Vec<Unpaired>) -> Comparison {
        let side = RunSummary {
            dir: "d".into(),
            started: String::new(),
            cpu: String::new(),
            unit: "cycles".into(),
        };
        Comparison {
            base: side.clone(),
            new: side,
            quantity: Quantity::Time,
            setups: None,
            differences: Vec::new(),
            pairs,
            only_base,
            only_new: Vec::new(),
            sweeps: Sweeps::default(),
        }
    }

    const BASE: [f64; 3] = [1.0, 1.01, 0.99];

    #[test]
    fn a_ratio_without_an_interval_is_gated_by_its_ratio() {
        // One trial on NEW's side, three times slower: a ratio, no
        // interval, and the gate counts it.
        let few = pair("few", &BASE, &[3.0]);
        assert_eq!(few.verdict, Verdict::NoInterval(NoInterval::TooFewTrials));
        assert_eq!(few.slower_by_more_than(20.0), Some(true));
        assert_eq!(few.slower_by_more_than(250.0), Some(false));
        // A ratio beyond the doubles (1e-300 against 1e300) keeps its log,
        // and the gate counts that.
        let far = pair("far", &[1e-300, 1.1e-300], &[1e300, 1.1e300]);
        assert_eq!(far.verdict, Verdict::NoInterval(NoInterval::OutOfRange));
        assert_eq!(far.ratio, None);
        assert_eq!(far.slower_by_more_than(20.0), Some(true));
        let back = pair("back", &[1e300, 1.1e300], &[1e-300, 1.1e-300]);
        assert_eq!(back.slower_by_more_than(20.0), Some(false));
        // Slower with an interval above 1; no difference never fails.
        let slow = pair("slow", &BASE, &[2.0, 2.02, 1.98]);
        assert_eq!(slow.verdict, Verdict::Slower);
        assert_eq!(slow.slower_by_more_than(20.0), Some(true));
        let noisy = pair("noisy", &BASE, &[0.5, 3.0, 1.0]);
        assert_eq!(noisy.verdict, Verdict::NoSignificantDifference);
        assert_eq!(noisy.slower_by_more_than(20.0), Some(false));
        let c = comparison(vec![few, far, back, slow, noisy], Vec::new());
        let g = c.gate(20.0);
        let failing: Vec<&str> = g.failing.iter().map(|p| p.name.as_str()).collect();
        assert_eq!(failing, ["few", "far", "slow"]);
        assert_eq!((g.gated, g.excluded.len()), (5, 0));
    }

    #[test]
    fn figures_without_a_ratio_or_a_partner_are_named_as_left_out() {
        let zero = pair("zero", &BASE, &[1.0, 0.0, 189.0]);
        assert_eq!(zero.verdict, Verdict::NoInterval(NoInterval::NotPositive));
        assert_eq!(
            (zero.ratio, zero.log10_ratio, zero.interval),
            (None, None, None)
        );
        assert_eq!(zero.new.mean, None);
        assert_eq!(zero.slower_by_more_than(0.0), None);
        let negative = pair("negative", &[1.0, -0.1], &BASE);
        assert_eq!(
            negative.verdict,
            Verdict::NoInterval(NoInterval::NotPositive)
        );
        assert!(negative.verdict.text().contains("zero or negative"));
        let only = Unpaired {
            op: "o".into(),
            name: "only".into(),
            size: 32,
        };
        let c = comparison(vec![zero, negative], vec![only]);
        let g = c.gate(20.0);
        assert!(g.failing.is_empty());
        assert_eq!(g.gated, 0);
        let why: Vec<(String, String)> = g
            .excluded
            .iter()
            .map(|e| (e.name.clone(), e.why.clone()))
            .collect();
        assert_eq!(
            why,
            [
                (
                    "zero".to_string(),
                    "no ratio (no interval: a trial's value is zero or negative)".to_string()
                ),
                (
                    "negative".to_string(),
                    "no ratio (no interval: a trial's value is zero or negative)".to_string()
                ),
                ("only".to_string(), "only in BASE".to_string()),
            ]
        );
        assert_eq!(c.counts(), (0, 0, 0, 2));
    }

    #[test]
    fn no_output_holds_a_nan_or_an_infinity() {
        let c = comparison(
            vec![
                pair("huge", &[1e-6, 1e-6, 1e308], &BASE),
                pair("tiny", &BASE, &[1e-6, 1e-6, 1e308]),
                pair("near", &[1e308, 1.1e308], &[1e300, 1.1e300]),
                pair("zero", &BASE, &[0.0, 1.0]),
            ],
            Vec::new(),
        );
        let md = render::markdown(&c, true);
        let svg = render::chart(&c);
        let json = serde_json::to_string(&c).unwrap();
        for text in [&md, &svg, &json] {
            let lower = text.to_ascii_lowercase();
            assert!(!lower.contains("nan") && !lower.contains("inf"), "{text}");
        }
        assert!(!md.contains(" 0.000 "), "{md}");
        // The ratios far beyond the doubles read as powers of ten.
        assert!(md.contains("| 3.000e-308 |"), "{md}");
        assert!(md.contains("| 3.333e307 |"), "{md}");
        assert!(md.contains("| 1.000e-8 |"), "{md}");
    }

    fn ours(alg: Algorithm, size: usize) -> SideFigure {
        SideFigure {
            what: What::Implementation {
                alg,
                id: "ours-avx2-vaes".into(),
                words: "ours: Rust avx2-vaes backend".into(),
                harness: false,
            },
            size,
            figure: Figure::of_trials(vec![1.0, 1.1, 0.9], false),
        }
    }

    fn niccs(alg: Algorithm, size: usize, variant: &str, cycles: f64) -> SideFigure {
        SideFigure {
            what: What::Implementation {
                alg,
                id: format!("niccs-{variant}"),
                words: format!("NICCS: {}", implementation_plain(variant)),
                harness: true,
            },
            size,
            figure: Figure::of_trials(vec![cycles, cycles * 1.01, cycles * 0.99], false),
        }
    }

    fn record(op: &str, size: usize, trials: &[f64]) -> SideFigure {
        SideFigure {
            what: What::Record {
                op: op.into(),
                name: format!("the {op} subject"),
            },
            size,
            figure: figure(trials),
        }
    }

    const P512: Algorithm = Algorithm::Pavelor512;

    #[test]
    fn two_runs_pair_record_with_record() {
        let base = [record("a", 32, &BASE), record("b", 32, &BASE)];
        let new = [record("b", 32, &BASE), record("a", 64, &BASE)];
        let (pairs, only_base, only_new) = pair_up(&base, &new);
        let pairs: Vec<(&str, &str, usize)> = pairs
            .iter()
            .map(|p| (p.op.as_str(), p.name.as_str(), p.size))
            .collect();
        assert_eq!(pairs, [("b", "the b subject", 32)]);
        assert_eq!((only_base[0].op.as_str(), only_base[0].size), ("a", 32));
        assert_eq!((only_new[0].op.as_str(), only_new[0].size), ("a", 64));
        assert_eq!((only_base.len(), only_new.len()), (1, 1));
    }

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
