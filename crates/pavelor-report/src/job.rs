//! The report job: functional tests, then the measurements, then the
//! files (`records/`, `report.md`, the charts, `report.html`).

use std::path::PathBuf;

use pavelor::{Algorithm, Available};
use pavelor_measure::aes_probe::{AesBound, aes_probe, probe_again};
use pavelor_measure::campaign::{FaultKind, Measurement, measure};
use pavelor_measure::elf::static_size;
use pavelor_measure::env::{Emulation, collect};
use pavelor_measure::host;
use pavelor_measure::library::gate::{self, GateConfig, LibGate, LibStatus};
use pavelor_measure::ops::{Operation, Subject};
use pavelor_measure::protocol::WorkerCommand;
use pavelor_measure::utc::UtcTime;

use crate::config::{Config, Progress};
use crate::results::{FigureFailure, RunResults};
use crate::{kat, niccs_dataset, records, validate};

/// Runs the whole job and writes the report. Returns the campaign; the
/// report is written also when KATs or libraries fail (it says FAIL at
/// the top), so check [`RunResults::failed`].
pub fn run(config: &Config, progress: &mut dyn FnMut(Progress<'_>)) -> Result<RunResults, String> {
    let mut notes = validate::validate(config)?;
    if let Err(e) = pavelor_measure::isolate::become_subreaper() {
        notes.push(format!(
            "processes that workers leave behind cannot be collected here: {e}"
        ));
    }
    let cpu = config.method.cpu.unwrap_or(0);
    let (first_check, host_problems) = host::check("measure", cpu);
    if config.require_fixed_host && !host_problems.is_empty() {
        let list: Vec<&str> = host_problems.iter().map(|p| p.text.as_str()).collect();
        return Err(format!(
            "refusing to measure on an unfixed host (--require-fixed-host): {}",
            list.join("; ")
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
    progress(Progress::Phase(
        "C libraries: probe, KATs, bad input",
        config.libs.len() as u64,
    ));
    let gate_config = GateConfig {
        kat_dir: config.kat_dir.clone(),
        kat_2_33: config.kat_2_33,
        timeout: std::time::Duration::from_secs_f64(config.method.timeout_s.max(0.1)),
        kats: true,
        loop_not_run: emulation.map(|_| gate::KAT_LOOP_EMULATED.to_string()),
        memory_bytes: method.worker_memory_bytes,
    };
    let libs: Vec<LibGate> = config
        .libs
        .iter()
        .map(|l| {
            let g = gate::run(&worker, l, &gate_config, &mut |_| {});
            progress(Progress::Step(&format!("{}: {}", l.name, g.status.label())));
            g
        })
        .collect();

    let subjects = subjects(config, &libs);
    let jobs: Vec<(&Subject, usize)> = subjects
        .iter()
        .flat_map(|s| config.sizes.iter().map(move |&n| (s, n)))
        .collect();
    progress(Progress::Phase("performance", jobs.len() as u64));
    let mut measurements = Vec::new();
    let mut failures = Vec::new();
    let mut lib_spent: std::collections::HashMap<String, f64> = Default::default();
    let mut leftovers_before = pavelor_measure::campaign::leftovers_killed();
    for (subject, size) in jobs {
        progress(Progress::Step(&format!("{subject} {size} B")));
        let lib = match subject {
            Subject::Lib { name, .. } => Some(name.clone()),
            Subject::Op(_) => None,
        };
        // A library that already failed a figure gets no more: it has a
        // status of its own and no figure.
        if let Some(name) = &lib
            && failures
                .iter()
                .any(|f: &FigureFailure| f.op.starts_with(&format!("lib-{name}.")))
        {
            failures.push(FigureFailure {
                op: subject.id(),
                size,
                kind: FaultKind::Error,
                error: "not measured: the library failed an earlier figure".into(),
            });
            continue;
        }
        if let Some(name) = &lib
            && lib_spent.get(name).copied().unwrap_or(0.0) >= config.lib_budget_s
        {
            failures.push(FigureFailure {
                op: subject.id(),
                size,
                kind: FaultKind::Timeout,
                error: format!(
                    "the library's budget of {} s (--lib-budget) ran out before {} at {size} B",
                    config.lib_budget_s,
                    subject.id()
                ),
            });
            continue;
        }
        let t0 = std::time::Instant::now();
        let force_ticks = config.method.force_ticks;
        let mut again = || probe_again(force_ticks);
        let mut bound = probe.as_mut().map(|p| AesBound::new(p, &mut again));
        match measure(
            &worker,
            &method,
            subject,
            size,
            bound.as_mut(),
            fixed_clock_hz,
        ) {
            Ok(m) => measurements.push(m),
            Err(fault) => failures.push(FigureFailure {
                op: subject.id(),
                size,
                kind: fault.kind,
                error: fault.message,
            }),
        }
        let leftovers = pavelor_measure::campaign::leftovers_killed() - leftovers_before;
        leftovers_before += leftovers;
        if leftovers > 0 {
            notes.push(format!(
                "{leftovers} process(es) left behind by the workers of {subject} at {size} B were found and killed"
            ));
        }
        if let Some(name) = lib {
            *lib_spent.entry(name).or_default() += t0.elapsed().as_secs_f64();
        }
    }
    let libs = settle_libraries(libs, &mut measurements, &failures);
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
        measurements,
        failures,
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

/// A library that passed the gate keeps PASS only if every figure of it
/// was measured: the first failed figure gives it its status and reason,
/// and its figures are dropped.
fn settle_libraries(
    mut libs: Vec<LibGate>,
    measurements: &mut Vec<Measurement>,
    failures: &[FigureFailure],
) -> Vec<LibGate> {
    for g in libs.iter_mut().filter(|g| g.status == LibStatus::Pass) {
        let prefix = format!("lib-{}.", g.spec.name);
        if let Some(f) = failures.iter().find(|f| f.op.starts_with(&prefix)) {
            g.status = LibStatus::of_fault(f.kind);
            g.detail = f.error.clone();
            measurements.retain(|m| !m.op.starts_with(&prefix));
        }
    }
    libs
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
