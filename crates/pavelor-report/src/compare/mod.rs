//! `pavelor compare BASE NEW`: two report directories, each checked as
//! `report --check` checks it, their figures paired by implementation,
//! instance and length (or, with a dataset the NICCS harness published on
//! either side, by instance and length: [`setups`]), and for each pair the ratio NEW/BASE of the mean
//! time (or cycles) per call with its 95% interval ([`interval`](crate::interval)) and a
//! verdict. What differs between the two runs (machine, counter, method,
//! build, libraries) is named, never mixed silently.
//!
//! [`render`] writes the comparison as Markdown, HTML with a chart of the
//! intervals, and JSON.

pub mod render;
pub mod setups;

use std::path::Path;

use pavelor_measure::campaign::Measurement;
use pavelor_measure::clock::CounterKind;
use pavelor_measure::protocol::TrialResult;
use pavelor_niccs::Limits;
use serde::Serialize;

use crate::harness_run::{HarnessRun, is_harness_dataset};
use crate::interval::{NoInterval, RatioInterval, ratio_interval};
use crate::reload::{Reloaded, check_run};
use setups::Side;

/// What the ratios are of.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Quantity {
    /// Hardware cycles per call (both runs read a cycle counter).
    Cycles,
    /// Seconds per call (the monotonic clock around each trial's calls).
    Time,
}

impl Quantity {
    /// The quantity as the table heads say it.
    pub fn label(self) -> &'static str {
        match self {
            Quantity::Cycles => "cycles per call",
            Quantity::Time => "time per call",
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
    /// A side has fewer than two trials: no interval.
    TooFewTrials,
}

impl Verdict {
    /// The verdict in words.
    pub fn text(self) -> &'static str {
        match self {
            Verdict::Faster => "faster",
            Verdict::Slower => "slower",
            Verdict::NoSignificantDifference => "no significant difference",
            Verdict::TooFewTrials => "too few trials for an interval",
        }
    }
}

/// One figure of one run.
#[derive(Clone, Debug, Serialize)]
pub struct Figure {
    /// Mean over the trials of the compared quantity per call.
    pub mean: f64,
    /// The trials' values per call.
    pub trials: Vec<f64>,
    /// Whether a trial is still disturbed after the reruns (marked †).
    pub disturbed: bool,
}

/// A figure present in both runs.
#[derive(Clone, Debug, Serialize)]
pub struct Pair {
    /// The figure's id (`op` of the records).
    pub op: String,
    /// The implementation and instance, as the report names them.
    pub name: String,
    /// Message length, bytes.
    pub size: usize,
    /// BASE's figure.
    pub base: Figure,
    /// NEW's figure.
    pub new: Figure,
    /// NEW/BASE with its 95% interval (none with too few trials).
    pub interval: Option<RatioInterval>,
    /// The verdict.
    pub verdict: Verdict,
}

impl Pair {
    /// Whether either side is disturbed.
    pub fn disturbed(&self) -> bool {
        self.base.disturbed || self.new.disturbed
    }
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
/// and its first problem.
pub fn compare_dirs(base: &Path, new: &Path, limits: &Limits) -> Result<Comparison, String> {
    let load = |dir: &Path| {
        if is_harness_dataset(dir) {
            return HarnessRun::check(dir, limits)
                .map(|h| Loaded::Harness(Box::new(h)))
                .map_err(|e| {
                    format!("{} is not a harness dataset that passes the harness validator's rules: {e}", dir.display())
                });
        }
        check_run(dir, limits)
            .map(|c| Loaded::Report(Box::new(c.run)))
            .map_err(|e| {
                format!(
                    "{} is not a report directory that passes report --check: {e}",
                    dir.display()
                )
            })
    };
    let (b, n) = (load(base)?, load(new)?);
    let (bd, nd) = (base.display().to_string(), new.display().to_string());
    Ok(match (&b, &n) {
        (Loaded::Report(b), Loaded::Report(n)) => compare(b, &bd, n, &nd),
        _ => setups::compare(&b.side(), &bd, &n.side(), &nd),
    })
}

fn counter_of(r: &Reloaded) -> CounterKind {
    r.campaign
        .measurements
        .first()
        .map_or(CounterKind::None, |m| m.counter())
}

fn summary(r: &Reloaded, dir: &str) -> RunSummary {
    RunSummary {
        dir: dir.to_string(),
        started: r.campaign.started.clone(),
        cpu: r.campaign.environment.cpu_model.clone(),
        unit: r.campaign.unit().to_string(),
    }
}

/// Per-call values of a trial.
fn per_call(t: &TrialResult, q: Quantity) -> f64 {
    let calls = t.calls.max(1) as f64;
    match q {
        Quantity::Cycles => t.cycles as f64 / calls,
        Quantity::Time => t.ns as f64 / 1e9 / calls,
    }
}

impl Figure {
    /// A figure of the trials' values per call.
    fn of_trials(trials: Vec<f64>, disturbed: bool) -> Figure {
        Figure {
            mean: trials.iter().sum::<f64>() / trials.len().max(1) as f64,
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
        // Times that are not positive cannot pass `report --check`.
        Err(_) => Verdict::TooFewTrials,
    }
}

/// Compares two runs already read and checked.
pub fn compare(b: &Reloaded, base_dir: &str, n: &Reloaded, new_dir: &str) -> Comparison {
    let cycles =
        counter_of(b) == CounterKind::PerfCycles && counter_of(n) == CounterKind::PerfCycles;
    let quantity = if cycles {
        Quantity::Cycles
    } else {
        Quantity::Time
    };
    let key = |m: &Measurement| (m.op.clone(), m.size);
    let mut pairs = Vec::new();
    let mut only_base = Vec::new();
    for mb in &b.campaign.measurements {
        match n.campaign.measurements.iter().find(|mn| key(mn) == key(mb)) {
            Some(mn) => {
                let (fb, fn_) = (figure(mb, quantity), figure(mn, quantity));
                let i = ratio_interval(&fb.trials, &fn_.trials);
                pairs.push(Pair {
                    op: mb.op.clone(),
                    name: name_of(b, &mb.op),
                    size: mb.size,
                    verdict: verdict(&i),
                    interval: i.ok(),
                    base: fb,
                    new: fn_,
                });
            }
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
        let c = counter_of(r);
        let pmu = r
            .campaign
            .emulated_pmu
            .as_ref()
            .map_or(String::new(), |w| format!(" (emulated PMU: {w})"));
        format!("{}{pmu}", c.unit())
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
    /// The pairs slower by more than `pct` percent with an interval that
    /// excludes no change (`--fail-above`).
    pub fn regressions(&self, pct: f64) -> Vec<&Pair> {
        self.pairs
            .iter()
            .filter(|p| {
                p.verdict == Verdict::Slower
                    && (p.interval.map_or(0.0, |i| i.ratio) - 1.0) * 100.0 > pct
            })
            .collect()
    }

    /// How many pairs have each verdict: (faster, slower, no difference,
    /// too few trials).
    pub fn counts(&self) -> (usize, usize, usize, usize) {
        let c = |v: Verdict| self.pairs.iter().filter(|p| p.verdict == v).count();
        (
            c(Verdict::Faster),
            c(Verdict::Slower),
            c(Verdict::NoSignificantDifference),
            c(Verdict::TooFewTrials),
        )
    }
}
