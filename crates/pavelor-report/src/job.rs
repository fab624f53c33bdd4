//! The report job: the checks, the functional tests and the libraries'
//! gates, then the plan of the figures handed to the campaign
//! ([`pavelor_measure::campaign::run_figures`]), watched through its
//! observer, then the records and pages (`records/`, `report.md`, the
//! charts, `report.html`) from the campaign's result.

use std::path::PathBuf;

use pavelor::{Algorithm, Available};
use pavelor_elf::static_size;
use pavelor_measure::aes_probe::aes_probe;
use pavelor_measure::campaign::{FiguresPlan, Method, Observer, run_figures, settle_libraries};
use pavelor_measure::env::{Emulation, collect};
use pavelor_measure::host;
use pavelor_measure::library::gate::{self, GateConfig, LibGate};
use pavelor_measure::ops::{Operation, Subject};
use pavelor_measure::protocol::WorkerCommand;
use pavelor_measure::utc::UtcTime;

use crate::config::{Config, Progress};
use crate::results::RunResults;
use crate::{kat, niccs_dataset, records, validate};

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
    if let Err(e) = pavelor_measure::isolate::become_subreaper() {
        notes.push(format!(
            "processes that workers leave behind cannot be collected here: {e}"
        ));
    }
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

    let worker = emulated_worker(&config.worker);
    let emulation = pavelor_measure::env::emulation();
    // Under user-mode emulation the worker is the emulator, whose own
    // reservations an address-space limit would break: no limit there.
    let mut method = config.method.clone();
    if emulation == Some(Emulation::UserMode) {
        method.worker_memory_bytes = 0;
        notes.push(
            "no memory limit on the workers: this run is emulated, and the emulator reserves more address space than the limit".into(),
        );
    }
    let libs = run_gates(config, &worker, &method, emulation.is_some(), progress);

    let subjects = subjects(config, &libs);
    let plan = FiguresPlan {
        worker: &worker,
        method: &method,
        subjects: &subjects,
        sizes: &config.sizes,
        lib_budget_s: config.lib_budget_s,
        fixed_clock_hz,
    };
    let mut figures = run_figures(&plan, &mut probe, &mut Watch(progress));
    let libs = settle_libraries(libs, &subjects, &mut figures);
    notes.append(&mut figures.notes);
    host_checks.push(host::check("measure-end", cpu).0);
    let niccs_environment_end = host::niccs_environment(cpu);
    let finish = UtcTime::now();
    let campaign = RunResults {
        started,
        finished: finish.rfc3339_seconds(),
        environment,
        kat,
        libs,
        probe,
        subjects,
        measurements: figures.measurements,
        failures: figures.failures,
        static_size: static_size(&config.measured_exe).ok(),
        emulation,
        notes,
        host_checks,
        host_problems,
        started_iso,
        finished_iso: finish.isoformat(),
        niccs_environment_start,
        niccs_environment_end,
        clock_probe,
        emulated_pmu: host::emulated_pmu(),
        clock_rule: true,
        best_backend,
    };
    records::write(config, &campaign)?;
    Ok(campaign)
}

/// Every `--lib` through its gate (probe, KATs, bad input), one progress
/// step per library. `emulated`: the KAT loop is not run.
fn run_gates(
    config: &Config,
    worker: &WorkerCommand,
    method: &Method,
    emulated: bool,
    progress: &mut dyn FnMut(Progress<'_>),
) -> Vec<LibGate> {
    progress(Progress::Phase(
        "C libraries: probe, KATs, bad input",
        config.libs.len() as u64,
    ));
    let gate_config = GateConfig {
        kat_dir: config.kat_dir.clone(),
        kat_2_33: config.kat_2_33,
        timeout: std::time::Duration::from_secs_f64(config.method.timeout_s.max(0.1)),
        kats: true,
        loop_not_run: emulated.then(|| gate::KAT_LOOP_EMULATED.to_string()),
        memory_bytes: method.worker_memory_bytes,
    };
    config
        .libs
        .iter()
        .map(|l| {
            let g = gate::run(worker, l, &gate_config, &mut |_| {});
            progress(Progress::Step(&format!("{}: {}", l.name, g.status.label())));
            g
        })
        .collect()
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
}

/// Everything to measure, in report order: per instance the Rust
/// backends, then the libraries' instances that passed; then the
/// comparison hashes.
pub fn subjects(config: &Config, libs: &[LibGate]) -> Vec<Subject> {
    let mut v = Vec::new();
    for alg in Algorithm::ALL {
        v.extend(
            config
                .ops
                .iter()
                .filter(|o| matches!(o, Operation::Pavelor(a, _) if *a == alg))
                .map(|&o| Subject::Op(o)),
        );
        for g in libs {
            if g.measured_instances().contains(&alg) {
                v.push(Subject::Lib {
                    name: g.spec.name.clone(),
                    path: g.spec.path.clone(),
                    alg,
                });
            }
        }
    }
    v.extend(
        config
            .ops
            .iter()
            .filter(|o| !matches!(o, Operation::Pavelor(..)))
            .map(|&o| Subject::Op(o)),
    );
    v
}

/// The worker command to use here: under user-mode emulation (qemu-user
/// without binfmt_misc) this binary cannot start itself directly, so the
/// worker is started through the same emulator with the same options.
fn emulated_worker(worker: &WorkerCommand) -> WorkerCommand {
    match pavelor_measure::env::emulator_prefix() {
        Some(prefix) if !prefix.is_empty() => {
            let mut args: Vec<String> = prefix[1..]
                .iter()
                .map(|a| a.to_string_lossy().into_owned())
                .collect();
            args.push(worker.program.display().to_string());
            args.extend(worker.args.iter().cloned());
            WorkerCommand {
                program: PathBuf::from(&prefix[0]),
                args,
            }
        }
        _ => worker.clone(),
    }
}
