//! `pavelor compare BASE NEW`: two report directories, each checked as
//! `report --check` checks it, their figures paired by implementation,
//! instance and length (or, with a dataset the NICCS harness published on
//! either side, as [`setups`] says), and for each pair the ratio NEW/BASE
//! of the mean time (or cycles) per call with its 95% interval
//! ([`interval`](mod@pavelor_niccs::stats::interval)) and a verdict. A pair without an
//! interval says why ([`Verdict::NoInterval`]); no ratio, mean or interval
//! is ever a NaN or an infinity. What differs between the two runs
//! (machine, counter, method, build, libraries) is named, never mixed
//! silently. [`Comparison::gate`] is `--fail-above`.
//!
//! [`render`] writes the comparison as Markdown, HTML with a chart of the
//! intervals, and JSON.

mod error;
pub mod render;
pub mod setups;

pub use error::Error;

use std::path::Path;

use pavelor_measure::campaign::Measurement;
use pavelor_measure::clock::CounterKind;
use pavelor_measure::protocol::TrialResult;
use pavelor_niccs::Limits;
use serde::Serialize;

use crate::harness_run::{HarnessRun, is_harness_dataset};
use crate::reload::{Reloaded, check_run};
use pavelor_niccs::stats;
use pavelor_niccs::stats::interval::{
    self, NoInterval, RatioInterval, log10_ratio, ratio_interval,
};
use setups::Side;

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
    Ok(match (&b, &n) {
        (Loaded::Report(b), Loaded::Report(n)) => compare(b, &bd, n, &nd),
        _ => setups::compare(&b.side(), &bd, &n.side(), &nd),
    })
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

/// Whether every trial of the run read the hardware cycle counter.
fn cycle_counted(r: &Reloaded) -> bool {
    counters_of(r) == [CounterKind::PerfCycles]
}

/// The run's counter by its unit (`cycles`, `TSC ticks`), from all its
/// records; when they disagree, every unit they name.
fn counter_text(r: &Reloaded) -> String {
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

fn summary(r: &Reloaded, dir: &str) -> RunSummary {
    RunSummary {
        dir: dir.to_string(),
        started: r.campaign.started.clone(),
        cpu: r.campaign.environment.cpu_model.clone(),
        unit: counter_text(r),
    }
}

/// Per-call values of a trial.
fn per_call(t: &TrialResult, q: Quantity) -> f64 {
    match q {
        Quantity::Cycles => stats::per_call(t.cycles, t.calls),
        Quantity::Time => stats::seconds_per_call(t.ns, t.calls),
    }
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

fn figure(m: &Measurement, q: Quantity) -> Figure {
    Figure::of_trials(
        m.trials.iter().map(|t| per_call(t, q)).collect(),
        m.trials.iter().any(|t| t.disturbed.is_some()),
    )
}

fn name_of(r: &Reloaded, op: &str) -> String {
    r.campaign
        .subjects
        .iter()
        .find(|s| s.id() == op)
        .map_or_else(|| op.to_string(), |s| s.to_string())
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

/// Compares two runs already read and checked.
pub fn compare(b: &Reloaded, base_dir: &str, n: &Reloaded, new_dir: &str) -> Comparison {
    let quantity = if cycle_counted(b) && cycle_counted(n) {
        Quantity::Cycles
    } else {
        Quantity::Time
    };
    let key = |m: &Measurement| (m.op.clone(), m.size);
    let mut pairs = Vec::new();
    let mut only_base = Vec::new();
    for mb in &b.campaign.measurements {
        match n.campaign.measurements.iter().find(|mn| key(mn) == key(mb)) {
            Some(mn) => pairs.push(Pair::of(
                mb.op.clone(),
                name_of(b, &mb.op),
                mb.size,
                figure(mb, quantity),
                figure(mn, quantity),
            )),
            None => only_base.push(Unpaired {
                op: mb.op.clone(),
                name: name_of(b, &mb.op),
                size: mb.size,
            }),
        }
    }
    let only_new = n
        .campaign
        .measurements
        .iter()
        .filter(|mn| !b.campaign.measurements.iter().any(|mb| key(mb) == key(mn)))
        .map(|mn| Unpaired {
            op: mn.op.clone(),
            name: name_of(n, &mn.op),
            size: mn.size,
        })
        .collect();
    Comparison {
        base: summary(b, base_dir),
        new: summary(n, new_dir),
        quantity,
        setups: None,
        differences: differences(b, n),
        pairs,
        only_base,
        only_new,
    }
}

/// A sentence when `what` differs: "machine: BASE ran on X, NEW on Y".
fn differ(out: &mut Vec<String>, what: &str, b: String, n: String) {
    if b != n {
        out.push(format!("{what}: BASE {b}; NEW {n}"));
    }
}

fn env_value(r: &Reloaded, key: &str) -> String {
    r.campaign
        .niccs_environment_start
        .iter()
        .find(|(k, _)| k == key)
        .map_or_else(
            || "(not recorded)".into(),
            |(_, v)| v.as_str().map_or_else(|| v.to_string(), str::to_string),
        )
}

fn method_text(r: &Reloaded) -> String {
    let m = &r.config.method;
    // `--quick` is the one way to a run without reruns.
    let kind = if m.disturbed_reruns == 0 {
        "disturbed trials not run again (--quick, not the NICCS method)".to_string()
    } else {
        format!(
            "up to {} reruns of a disturbed trial (the NICCS method)",
            m.disturbed_reruns
        )
    };
    format!("{} trials of {} s, {kind}", m.trials, m.trial_target_s)
}

/// How two runs differ, one sentence per kind.
pub fn differences(b: &Reloaded, n: &Reloaded) -> Vec<String> {
    let mut d = Vec::new();
    let (eb, en) = (&b.campaign.environment, &n.campaign.environment);
    let machine = |r: &Reloaded, e: &pavelor_measure::env::Environment| {
        format!(
            "{} ({} logical CPUs), host {}, kernel {}",
            e.cpu_model,
            e.logical_cpus,
            env_value(r, "hostname"),
            e.kernel
        )
    };
    differ(&mut d, "machine", machine(b, eb), machine(n, en));
    let counter = |r: &Reloaded| {
        let c = counter_text(r);
        let pmu = r
            .campaign
            .emulated_pmu
            .as_ref()
            .map_or(String::new(), |w| format!(" (emulated PMU: {w})"));
        format!("{c}{pmu}")
    };
    differ(&mut d, "counter", counter(b), counter(n));
    differ(&mut d, "method", method_text(b), method_text(n));
    let emulated = |r: &Reloaded| {
        r.campaign.emulation.map_or("native".to_string(), |e| {
            format!("emulated ({})", e.describe())
        })
    };
    differ(&mut d, "execution", emulated(b), emulated(n));
    let build = |e: &pavelor_measure::env::Environment| {
        format!(
            "{}, profile {}, target {}, RUSTFLAGS \"{}\"",
            e.rustc, e.build_profile, e.target, e.rustflags
        )
    };
    differ(&mut d, "build", build(eb), build(en));
    for lb in &b.campaign.libs {
        if let Some(ln) = n.campaign.libs.iter().find(|l| l.spec.name == lb.spec.name) {
            let sha = |g: &pavelor_measure::library::gate::LibGate| {
                g.identity
                    .as_ref()
                    .map_or_else(|| "(unread)".to_string(), |i| i.sha256.clone())
            };
            differ(
                &mut d,
                &format!("library `{}`", lb.spec.name),
                format!("SHA-256 {}", sha(lb)),
                format!("SHA-256 {}", sha(ln)),
            );
        }
    }
    d
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
}
