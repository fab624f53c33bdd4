//! The whole campaign from one plan: the libraries through their gates,
//! then every subject at every size ([`run_figures`]), then each library's
//! verdict settled by its figures ([`settle_libraries`]).
//!
//! A front end builds a [`CampaignPlan`], watches through an [`Observer`]
//! and gets one [`Campaign`] back; it never sees a task id's format, a
//! budget or a skip.

use std::path::PathBuf;
use std::time::Duration;

use pavelor::{Algorithm, Backend};

use crate::aes_probe::AesProbe;
use crate::env::Emulation;
use crate::library::LibSpec;
use crate::library::audit::{BackendAudit, audit, audit_backend, not_run};
use crate::library::gate::{self, GateConfig, LibGate};
use crate::ops::{Operation, Subject};
use crate::protocol::WorkerCommand;

use super::driver::{FigureFailure, FiguresPlan, Observer, run_figures, settle_libraries};
use super::{Measurement, Method};

/// What a campaign measures, how, and within which limits.
pub struct CampaignPlan<'a> {
    /// The worker to start for each trial and each gate task, as
    /// configured (under user-mode emulation the campaign starts it
    /// through the emulator).
    pub worker: &'a WorkerCommand,
    /// The method of every figure.
    pub method: &'a Method,
    /// The built-in operations to measure, in order.
    pub ops: &'a [Operation],
    /// The C libraries to check, then measure beside the operations.
    pub libs: &'a [LibSpec],
    /// Where the libraries' KAT files are; `None`: the embedded answers.
    pub kat_dir: Option<PathBuf>,
    /// Also check the libraries against `KAT_2_33`.
    pub kat_2_33: bool,
    /// The message lengths, in order.
    pub sizes: &'a [usize],
    /// Seconds of measurement each library may use (`--lib-budget`).
    pub lib_budget_s: f64,
    /// The fixed clock of the 95% rule, if the host has one.
    pub fixed_clock_hz: Option<f64>,
    /// Audit our own operations and each library's instances for
    /// constant time under valgrind memcheck ([`crate::library::audit`]).
    pub ct_audit: bool,
}

/// What a campaign gave.
pub struct Campaign {
    /// Every library's gate, with its verdict settled by its figures.
    pub libs: Vec<LibGate>,
    /// The constant-time audit of our own operations (empty when not run).
    pub own_audits: Vec<BackendAudit>,
    /// Everything measured, in report order.
    pub subjects: Vec<Subject>,
    /// The figures measured, in order.
    pub measurements: Vec<Measurement>,
    /// The figures that could not be measured, in order.
    pub failures: Vec<FigureFailure>,
    /// Notes on the run: no subreaper, no memory limit under emulation,
    /// processes left behind.
    pub notes: Vec<String>,
    /// How this process is emulated, if it is.
    pub emulation: Option<Emulation>,
}

/// Runs the campaign of `plan`: a phase of one step per library's gate
/// (the observer hears each verdict), then the figures. `probe` is the
/// AES probe the figures are bounded by, if there is one.
pub fn run(
    plan: &CampaignPlan<'_>,
    probe: &mut Option<AesProbe>,
    observer: &mut dyn Observer,
) -> Campaign {
    let mut notes = Vec::new();
    if let Err(e) = crate::isolate::become_subreaper() {
        notes.push(format!(
            "processes that workers leave behind cannot be collected here: {e}"
        ));
    }
    let worker = emulated_worker(plan.worker);
    let emulation = crate::env::emulation();
    // Under user-mode emulation the worker is the emulator, whose own
    // reservations an address-space limit would break: no limit there.
    let mut method = plan.method.clone();
    if emulation == Some(Emulation::UserMode) {
        method.worker_memory_bytes = 0;
        notes.push(
            "no memory limit on the workers: this run is emulated, and the emulator reserves more address space than the limit".into(),
        );
    }
    let mut libs = run_gates(plan, &worker, &method, emulation.is_some(), observer);
    let own_audits = if plan.ct_audit {
        run_audits(&worker, plan.ops, &mut libs, emulation.is_some(), observer)
    } else {
        Vec::new()
    };
    let subjects = subjects(plan.ops, &libs);
    let figures_plan = FiguresPlan {
        worker: &worker,
        method: &method,
        subjects: &subjects,
        sizes: plan.sizes,
        lib_budget_s: plan.lib_budget_s,
        fixed_clock_hz: plan.fixed_clock_hz,
    };
    let mut figures = run_figures(&figures_plan, probe, observer);
    let libs = settle_libraries(libs, &subjects, &mut figures);
    notes.append(&mut figures.notes);
    Campaign {
        libs,
        own_audits,
        subjects,
        measurements: figures.measurements,
        failures: figures.failures,
        notes,
        emulation,
    }
}

/// Every library through its gate (probe, KATs, bad input), one step per
/// library. `emulated`: the KAT loop is not run.
fn run_gates(
    plan: &CampaignPlan<'_>,
    worker: &WorkerCommand,
    method: &Method,
    emulated: bool,
    observer: &mut dyn Observer,
) -> Vec<LibGate> {
    observer.phase(
        "C libraries: probe, KATs, bad input",
        plan.libs.len() as u64,
    );
    let gate_config = GateConfig {
        kat_dir: plan.kat_dir.clone(),
        kat_2_33: plan.kat_2_33,
        timeout: Duration::from_secs_f64(method.timeout_s.max(0.1)),
        kats: true,
        loop_not_run: emulated.then(|| gate::KAT_LOOP_EMULATED.to_string()),
        memory_bytes: method.worker_memory_bytes,
        timed_sizes: plan.sizes.to_vec(),
    };
    plan.libs
        .iter()
        .map(|l| {
            let g = gate::run(worker, l, &gate_config, &mut |_| {});
            observer.library_checked(&g);
            g
        })
        .collect()
}

/// The constant-time audit, one step per implementation: first each
/// backend of our own operations, then each library (every instance it
/// computes in one run); natively under valgrind memcheck, NOT RUN under
/// emulation. It never changes a library's verdict. Gives our own
/// backends' audits.
fn run_audits(
    worker: &WorkerCommand,
    ops: &[Operation],
    libs: &mut [LibGate],
    emulated: bool,
    observer: &mut dyn Observer,
) -> Vec<BackendAudit> {
    let mut ours: Vec<(Backend, Vec<Algorithm>)> = Vec::new();
    for op in ops {
        if let Operation::Pavelor(alg, backend) = op {
            match ours.iter_mut().find(|(b, _)| b == backend) {
                Some((_, algs)) => algs.push(*alg),
                None => ours.push((*backend, vec![*alg])),
            }
        }
    }
    observer.phase(
        "constant-time audit (valgrind memcheck)",
        (ours.len() + libs.len()) as u64,
    );
    const EMULATED: &str = "this run is emulated; valgrind runs natively only";
    let mut own = Vec::new();
    for (backend, algs) in ours {
        observer.step(&format!("pavelor {}", backend.name()));
        own.push(BackendAudit {
            backend: backend.name().to_string(),
            audit: if emulated {
                not_run(&algs, EMULATED)
            } else {
                audit_backend(worker, backend, &algs)
            },
        });
    }
    for g in libs.iter_mut() {
        observer.step(&g.spec.name);
        let algs = g.computed_instances();
        if algs.is_empty() {
            continue;
        }
        g.audit = Some(if emulated {
            not_run(&algs, EMULATED)
        } else {
            audit(worker, &g.spec.path, &algs)
        });
    }
    own
}

/// Everything to measure, in report order: per instance the built-in
/// Pavelor operations, then the libraries' instances that passed their
/// gate; then the other operations (the comparison hashes).
fn subjects(ops: &[Operation], libs: &[LibGate]) -> Vec<Subject> {
    let mut v = Vec::new();
    for alg in Algorithm::ALL {
        v.extend(
            ops.iter()
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
        ops.iter()
            .filter(|o| !matches!(o, Operation::Pavelor(..)))
            .map(|&o| Subject::Op(o)),
    );
    v
}

/// The worker command to use here: under user-mode emulation (qemu-user
/// without binfmt_misc) this binary cannot start itself directly, so the
/// worker is started through the same emulator with the same options.
fn emulated_worker(worker: &WorkerCommand) -> WorkerCommand {
    match crate::env::emulator_prefix() {
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
