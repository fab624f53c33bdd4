//! What a run found: [`RunResults`], everything a report is made from, and
//! the figures that could not be measured.

use pavelor::Backend;
use pavelor_elf::StaticSize;
use pavelor_measure::{
    aes_probe::AesProbe,
    campaign::Measurement,
    env::Environment,
    host::{HostCheckResult, HostProblem},
    library::audit::{BackendAudit, CtAudit},
    library::gate::{LibGate, LibStatus},
    ops::Subject,
};

use crate::kat::KatResult;
use pavelor_sweep::record::{SweepFailure, SweepRecord};

pub use pavelor_measure::campaign::FigureFailure;

/// Everything a report is made from.
pub struct RunResults {
    /// Start, UTC.
    pub started: String,
    /// End, UTC.
    pub finished: String,
    /// The environment.
    pub environment: Environment,
    /// KAT results of the Rust backends.
    pub kat: Vec<KatResult>,
    /// The C libraries' gates.
    pub libs: Vec<LibGate>,
    /// The constant-time audit of our own operations.
    pub own_audits: Vec<BackendAudit>,
    /// AES probe, if the CPU has AES-NI.
    pub probe: Option<AesProbe>,
    /// Everything measured, in report order.
    pub subjects: Vec<Subject>,
    /// Measurements.
    pub measurements: Vec<Measurement>,
    /// Figures that could not be measured.
    pub failures: Vec<FigureFailure>,
    /// Static size of the measured executable.
    pub static_size: Option<StaticSize>,
    /// How the run is emulated, if it is.
    pub emulation: Option<pavelor_measure::env::Emulation>,
    /// What validation did to the output directory (stale records removed).
    pub notes: Vec<String>,
    /// The host checks, at the start and at the end of the measurements.
    pub host_checks: Vec<HostCheckResult>,
    /// The problems of the first check, with which check found them.
    pub host_problems: Vec<HostProblem>,
    /// Start and end in the harness's time form.
    pub started_iso: String,
    /// See `started_iso`.
    pub finished_iso: String,
    /// The machine in the harness's `environment` form, at the start.
    pub niccs_environment_start: Vec<(String, serde_json::Value)>,
    /// The same at the end.
    pub niccs_environment_end: Vec<(String, serde_json::Value)>,
    /// The clock probe at the start (`None` without a hardware cycle
    /// counter: ticks are not cycles).
    pub clock_probe: Option<pavelor_measure::clock::ClockProbe>,
    /// Why a cycle counter here counts a virtual machine's cycles
    /// ([`pavelor_measure::host::emulated_pmu`]).
    pub emulated_pmu: Option<String>,
    /// Whether the run applied the clock probe and the 95% rule where
    /// they apply (false for records made before them: no clock rows).
    pub clock_rule: bool,
    /// The fastest backend this CPU runs (the default baseline and
    /// subject).
    pub best_backend: Backend,
    /// The length sweep (`--sweep`; empty without it).
    pub sweeps: Sweeps,
}

/// What was swept: the records, and the sweeps that gave no curve.
#[derive(Clone, Debug, Default)]
pub struct Sweeps {
    /// One per implementation swept, in report order.
    pub records: Vec<SweepRecord>,
    /// Those that gave no curve.
    pub failures: Vec<SweepFailure>,
}

impl RunResults {
    /// Every constant-time audit, with what was audited: our own backends
    /// (`pavelor aesni-avx`) first, then each library by its name.
    pub fn audits(&self) -> Vec<(String, &CtAudit)> {
        let ours = self
            .own_audits
            .iter()
            .map(|a| (format!("pavelor {}", a.backend), &a.audit));
        let theirs = self
            .libs
            .iter()
            .filter_map(|g| Some((g.spec.name.clone(), g.audit.as_ref()?)));
        ours.chain(theirs).collect()
    }

    /// Whether anything failed: a Rust KAT, a library, a figure, or a
    /// sweep.
    pub fn failed(&self) -> bool {
        self.kat.iter().any(|k| k.status == "FAIL")
            || self.libs.iter().any(|l| l.status != LibStatus::Pass)
            || !self.failures.is_empty()
            || !self.sweeps.failures.is_empty()
    }

    /// How many figures still have a disturbed trial after the reruns.
    pub fn disturbed_figures(&self) -> usize {
        self.measurements
            .iter()
            .filter(|m| m.trials.iter().any(|t| t.disturbed.is_some()))
            .count()
    }

    /// The counter unit of the figures.
    pub fn unit(&self) -> &'static str {
        self.measurements
            .first()
            .map_or("cycles", |m| m.counter().unit())
    }
}
