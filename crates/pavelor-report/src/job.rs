//! The report job: the checks, the environment and the functional tests,
//! then the plan of the campaign handed to `pavelor-measure`
//! ([`campaign::run()`]: the libraries' gates and the figures), watched
//! through its observer, then the records and pages (`records/`,
//! `report.md`, the charts, `report.html`) from the campaign's result.

use pavelor::Available;
use pavelor_elf::static_size;
use pavelor_measure::{
    aes_probe::aes_probe,
    campaign::{self, CampaignPlan, Observer},
    env::collect,
    host,
    library::gate::LibGate,
    utc::UtcTime,
};

use crate::config::{Config, Progress};
use crate::results::RunResults;
use crate::{kat, niccs_dataset, records, sweep, validate};

/// Why a report job stopped before its report was written.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A check before measuring failed.
    #[error(transparent)]
    Validate(#[from] validate::Error),
    /// `--require-fixed-host` and the host has these problems.
    #[error(
        "refusing to measure on an unfixed host (--require-fixed-host): {}",
        .0.join("; ")
    )]
    UnfixedHost(Vec<String>),
    /// `--niccs-subject` names nothing measured.
    #[error(transparent)]
    NiccsSubject(#[from] niccs_dataset::Error),
    /// The records could not be written.
    #[error(transparent)]
    Records(#[from] records::Error),
}

/// Runs the whole job and writes the report. Returns the campaign; the
/// report is written also when KATs or libraries fail (it says FAIL at
/// the top), so check [`RunResults::failed`].
pub fn run(config: &Config, progress: &mut dyn FnMut(Progress<'_>)) -> Result<RunResults, Error> {
    let mut notes = validate::validate(config)?;
    let cpu = config.method.cpu.unwrap_or(0);
    let (first_check, host_problems) = host::check("measure", cpu);
    if config.require_fixed_host && !host_problems.is_empty() {
        return Err(Error::UnfixedHost(
            host_problems.iter().map(|p| p.text.clone()).collect(),
        ));
    }
    let best_backend = Available::best().backend();
    niccs_dataset::NiccsSubject::of(config, best_backend)?;
    let mut host_checks = vec![first_check];
    let start = UtcTime::now();
    let (started, started_iso) = (start.rfc3339_seconds(), start.isoformat());
    // The clock probe runs with the machine's description, as the
    // harness's `environment()` runs it; the fixed clock of the 95% rule
    // comes from that description (`fixed_clock`).
    let (niccs_environment_start, clock_probe) = host::niccs_environment_with_probe(cpu);
    let fixed_clock_hz = host::fixed_clock_hz(&niccs_environment_start);
    progress(Progress::Phase("environment and AES probe", 1));
    let environment = collect(config.method.cpu);
    let mut probe = aes_probe(config.method.force_ticks);
    progress(Progress::Step("done"));
    let kat = kat::run_kat(config, progress);

    let plan = CampaignPlan {
        worker: &config.worker,
        method: &config.method,
        ops: &config.ops,
        libs: &config.libs,
        kat_dir: config.kat_dir.clone(),
        kat_2_33: config.kat_2_33,
        sizes: &config.sizes,
        lib_budget_s: config.lib_budget_s,
        ct_audit: config.ct_audit,
        fixed_clock_hz,
    };
    let mut campaign = campaign::run(&plan, &mut probe, &mut Watch(progress));
    notes.append(&mut campaign.notes);
    host_checks.push(host::check("measure-end", cpu).0);
    let niccs_environment_end = host::niccs_environment(cpu);
    let mut results = RunResults {
        started,
        environment,
        kat,
        libs: campaign.libs,
        own_audits: campaign.own_audits,
        probe,
        subjects: campaign.subjects,
        measurements: campaign.measurements,
        failures: campaign.failures,
        static_size: static_size(&config.measured_exe).ok(),
        emulation: campaign.emulation,
        notes,
        host_checks,
        host_problems,
        started_iso,
        niccs_environment_start,
        niccs_environment_end,
        clock_probe,
        emulated_pmu: host::emulated_pmu(),
        clock_rule: true,
        best_backend,
        sweeps: crate::results::Sweeps::default(),
        finished: String::new(),
        finished_iso: String::new(),
    };
    results.sweeps = sweep::run(config, &results, progress);
    let finish = UtcTime::now();
    results.finished = finish.rfc3339_seconds();
    results.finished_iso = finish.isoformat();
    records::write(config, &results)?;
    Ok(results)
}

/// The report's progress callback as an observer of the campaign.
struct Watch<'a>(&'a mut dyn FnMut(Progress<'_>));

impl Observer for Watch<'_> {
    fn phase(&mut self, name: &str, steps: u64) {
        (self.0)(Progress::Phase(name, steps));
    }

    fn step(&mut self, text: &str) {
        (self.0)(Progress::Step(text));
    }

    fn library_checked(&mut self, gate: &LibGate) {
        let text = format!("{}: {}", gate.spec.name, gate.status.label());
        (self.0)(Progress::Step(&text));
    }
}
