//! The implementation-agnostic row: one measured implementation (a Rust
//! backend, one instance of a C library, a comparison hash) with its
//! figures per message length, its failures and its static memory. Every
//! report section reads rows, never the kind of implementation behind them.

use pavelor::Algorithm;

use crate::config::Config;
use crate::config::SIZES;
use crate::results::RunResults;
use pavelor_measure::{
    campaign::Measurement,
    ops::{Operation, Subject},
};

/// Where an implementation comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Family {
    /// A backend of this crate's Rust implementation.
    Rust,
    /// A `CryptHash` library through the C ABI.
    CLibrary,
    /// A comparison hash (SHA-512, BLAKE3, ...).
    Comparison,
    /// An ICCS helper, a baseline of the NICCS summary.
    Baseline,
}

/// One implementation's figures.
pub struct Row<'a> {
    /// What was measured.
    pub subject: &'a Subject,
    /// Its family.
    pub family: Family,
    /// Static memory of the code that hashes, bytes, and what it counts.
    pub static_memory: Option<(u64, String)>,
    /// The measurements, by message length.
    pub measurements: Vec<&'a Measurement>,
    /// Figures that failed: (message length, what happened).
    pub failures: Vec<(usize, &'a str)>,
}

impl<'a> Row<'a> {
    /// The figure at `size`.
    pub fn at(&self, size: usize) -> Option<&'a Measurement> {
        self.measurements.iter().copied().find(|m| m.size == size)
    }

    /// Why there is no figure at `size`.
    pub fn failure_at(&self, size: usize) -> Option<&'a str> {
        self.failures.iter().find(|f| f.0 == size).map(|f| f.1)
    }

    /// Short name in a table of one instance (`Rust aesni`, `C subref`).
    pub fn name(&self) -> String {
        self.subject.short_name()
    }

    /// Largest baseline RSS over every trial, KiB.
    pub fn baseline_rss_kib(&self) -> Option<u64> {
        self.measurements
            .iter()
            .filter_map(|m| m.baseline_rss_kib())
            .max()
    }

    /// Largest peak RSS (VmHWM) over every trial, KiB.
    pub fn peak_rss_kib(&self) -> Option<u64> {
        self.measurements
            .iter()
            .filter_map(|m| m.peak_rss_kib())
            .max()
    }
}

/// What every section gets.
pub struct Ctx<'a> {
    /// The configuration.
    pub config: &'a Config,
    /// The campaign.
    pub c: &'a RunResults,
    /// One row per subject, in report order.
    pub rows: Vec<Row<'a>>,
    /// The counter unit.
    pub unit: &'static str,
    /// The name the ratio columns compare with (a library name or a backend).
    pub baseline: String,
}

impl<'a> Ctx<'a> {
    /// Builds the rows of `c`.
    pub fn new(config: &'a Config, c: &'a RunResults) -> Self {
        let rows = c
            .subjects
            .iter()
            .map(|subject| {
                let id = subject.id();
                let (family, static_memory) = match subject {
                    Subject::Op(Operation::Pavelor(..)) => (
                        Family::Rust,
                        c.static_size.as_ref().map(|s| {
                            (
                                s.pavelor_symbol_bytes,
                                "pavelor crate code + constants".to_string(),
                            )
                        }),
                    ),
                    Subject::Op(Operation::Iccs(_)) => (Family::Baseline, None),
                    Subject::Op(_) => (Family::Comparison, None),
                    Subject::Lib { name, .. } => (
                        Family::CLibrary,
                        c.libs
                            .iter()
                            .find(|g| &g.spec.name == name)
                            .and_then(|g| g.identity.as_ref())
                            .map(|i| (i.static_bytes, "library PT_LOAD segments".to_string())),
                    ),
                };
                Row {
                    subject,
                    family,
                    static_memory,
                    measurements: c.measurements.iter().filter(|m| m.op == id).collect(),
                    failures: c
                        .failures
                        .iter()
                        .filter(|f| f.op == id)
                        .map(|f| (f.size, f.error.as_str()))
                        .collect(),
                }
            })
            .collect();
        let baseline = config
            .baseline
            .clone()
            .or_else(|| config.libs.first().map(|l| l.name.clone()))
            .unwrap_or_else(|| c.best_backend.name().to_string());
        Ctx {
            config,
            c,
            rows,
            unit: c.unit(),
            baseline,
        }
    }

    /// The rows of one Pavelor instance (Rust backends and libraries).
    pub fn instance_rows(&self, alg: Algorithm) -> impl Iterator<Item = &Row<'a>> {
        self.rows
            .iter()
            .filter(move |r| r.subject.algorithm() == Some(alg))
    }

    /// The comparison hashes' rows.
    pub fn comparison_rows(&self) -> impl Iterator<Item = &Row<'a>> {
        self.rows.iter().filter(|r| r.family == Family::Comparison)
    }

    /// The baseline row of an instance, if it was measured.
    pub fn baseline_row(&self, alg: Algorithm) -> Option<&Row<'a>> {
        self.instance_rows(alg).find(|r| match r.subject {
            Subject::Lib { name, .. } => *name == self.baseline,
            Subject::Op(Operation::Pavelor(_, b)) => b.name() == self.baseline,
            Subject::Op(_) => false,
        })
    }

    /// The label of a message length: `S3`, or `#2` outside S1..S8.
    pub fn size_label(&self, size: usize) -> String {
        SIZES.iter().position(|&x| x == size).map_or_else(
            || {
                let i = self
                    .config
                    .sizes
                    .iter()
                    .position(|&x| x == size)
                    .unwrap_or(0);
                format!("#{}", i + 1)
            },
            |k| format!("S{}", k + 1),
        )
    }
}

/// `v` with `suffix`, or "unknown".
pub fn fmt_opt<T: std::fmt::Display>(v: Option<T>, suffix: &str) -> String {
    v.map_or_else(|| "unknown".to_string(), |v| format!("{v}{suffix}"))
}

/// Nanoseconds as ns, µs or ms.
pub fn human_ns(ns: f64) -> String {
    if ns >= 1e6 {
        format!("{:.3} ms", ns / 1e6)
    } else if ns >= 1e3 {
        format!("{:.2} µs", ns / 1e3)
    } else {
        format!("{ns:.0} ns")
    }
}
