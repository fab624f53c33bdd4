//! What differs between the two sides of a comparison, one sentence each
//! through one [`Differences::differ`].
//!
//! Two report directories are two runs of pavelor: their machines,
//! counters, methods, execution, builds and libraries are named where they
//! differ. With a harness dataset on either side the comparison is of two
//! setups: the machines, the implementations and (often) the counters
//! differ, so a ratio is a fact about the two setups, not about the hash,
//! and the comparison says so first ([`Differences::setups`]).

use pavelor::Algorithm;
use pavelor_measure::{env::Environment, library::gate::LibGate};

use super::Quantity;
use super::side::{Side, counter_text};
use crate::niccs_dataset::NiccsSubject;
use crate::reload::Reloaded;

/// How the two sides differ.
#[derive(Default)]
pub(super) struct Differences {
    /// One sentence per kind that differs: "machine: BASE X; NEW Y".
    pub(super) sentences: Vec<String>,
    /// The kinds that differ, in the order of the sentences.
    kinds: Vec<String>,
}

impl Differences {
    /// How `b` (BASE) and `n` (NEW) differ: two runs by their machine,
    /// counter, method, execution, build and libraries; two setups (a
    /// harness dataset on either side) by their machine, implementation
    /// and counter.
    pub(super) fn of(b: &Side<'_>, n: &Side<'_>) -> Differences {
        let mut d = Differences::default();
        match (b, n) {
            (Side::Report(b), Side::Report(n)) => d.of_runs(b, n),
            _ => {
                d.differ("machine", machine(b), machine(n));
                d.differ(
                    "implementation",
                    implementation(b, Algorithm::Pavelor512),
                    implementation(n, Algorithm::Pavelor512),
                );
                if b.counter() != n.counter() {
                    d.differ("counter", b.unit(), n.unit());
                }
            }
        }
        d
    }

    /// A sentence when `what` differs: "machine: BASE X; NEW Y".
    fn differ(&mut self, what: &str, b: String, n: String) {
        if b != n {
            self.sentences.push(format!("{what}: BASE {b}; NEW {n}"));
            self.kinds.push(what.to_string());
        }
    }

    /// How two runs differ, one sentence per kind.
    fn of_runs(&mut self, b: &Reloaded, n: &Reloaded) {
        let (eb, en) = (&b.campaign.environment, &n.campaign.environment);
        let machine = |r: &Reloaded, e: &Environment| {
            format!(
                "{} ({} logical CPUs), host {}, kernel {}",
                e.cpu_model,
                e.logical_cpus,
                env_value(r, "hostname"),
                e.kernel
            )
        };
        self.differ("machine", machine(b, eb), machine(n, en));
        let counter = |r: &Reloaded| {
            let c = counter_text(r);
            let pmu = r
                .campaign
                .emulated_pmu
                .as_ref()
                .map_or(String::new(), |w| format!(" (emulated PMU: {w})"));
            format!("{c}{pmu}")
        };
        self.differ("counter", counter(b), counter(n));
        self.differ("method", method_text(b), method_text(n));
        let emulated = |r: &Reloaded| {
            r.campaign.emulation.map_or("native".to_string(), |e| {
                format!("emulated ({})", e.describe())
            })
        };
        self.differ("execution", emulated(b), emulated(n));
        let build = |e: &Environment| {
            format!(
                "{}, profile {}, target {}, RUSTFLAGS \"{}\"",
                e.rustc, e.build_profile, e.target, e.rustflags
            )
        };
        self.differ("build", build(eb), build(en));
        for lb in &b.campaign.libs {
            if let Some(ln) = n.campaign.libs.iter().find(|l| l.spec.name == lb.spec.name) {
                let sha = |g: &LibGate| {
                    g.identity
                        .as_ref()
                        .map_or_else(|| "(unread)".to_string(), |i| i.sha256.clone())
                };
                self.differ(
                    &format!("library `{}`", lb.spec.name),
                    format!("SHA-256 {}", sha(lb)),
                    format!("SHA-256 {}", sha(ln)),
                );
            }
        }
        self.audit_changes(b, n);
    }

    /// A sentence per implementation both runs audited whose verdict
    /// changed ("constant-time audit of `x`: BASE no ...; NEW 2 findings").
    /// An implementation audited on one side only is not named: its
    /// figures are listed as unpaired already.
    fn audit_changes(&mut self, b: &Reloaded, n: &Reloaded) {
        let (ab, an) = (b.campaign.audits(), n.campaign.audits());
        for (who, a) in &ab {
            if let Some((_, other)) = an.iter().find(|(w, _)| w == who) {
                self.differ(
                    &format!("constant-time audit of `{who}`"),
                    a.line(),
                    other.line(),
                );
            }
        }
    }

    /// What two setups (a harness dataset on either side) mean for the
    /// ratios of `quantity`: that they are of these setups, naming what
    /// differs, or that the setups agree. `None` for two report
    /// directories.
    pub(super) fn setups(&self, b: &Side<'_>, n: &Side<'_>, quantity: Quantity) -> Option<String> {
        if let (Side::Report(_), Side::Report(_)) = (b, n) {
            return None;
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
        Some(if self.kinds.is_empty() {
            format!(
                "The two sides agree on the machine, the implementation and the counter; pavelor compares nothing else of a harness dataset (its compiler flags and clock policy are on its method page). {quantity_words}"
            )
        } else {
            format!(
                "These are two different setups: the {} differ{}. Each ratio is a fact about these two setups, not about the hash. {quantity_words}",
                join_words(&self.kinds),
                if self.kinds.len() == 1 { "s" } else { "" }
            )
        })
    }
}

/// The side's machine, as the setups sentence names it.
fn machine(s: &Side<'_>) -> String {
    match s {
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

/// The side's implementation of `alg`, with who measured it.
fn implementation(s: &Side<'_>, alg: Algorithm) -> String {
    match s {
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

/// A value of the run's `niccs_environment_start`, or `(not recorded)`.
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

/// The run's method: its trials and its reruns of a disturbed trial.
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

/// `a`, `a and b`, `a, b and c`.
fn join_words(words: &[String]) -> String {
    match words {
        [] => String::new(),
        [one] => one.clone(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}
