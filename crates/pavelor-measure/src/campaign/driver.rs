//! The campaign over many figures: every subject at every size, in order,
//! with the policy around [`measure`]: a library that failed a figure gets
//! no more, a library's figures stop when its budget runs out, processes
//! the workers left behind are counted, and a library that passed its gate
//! keeps PASS only if every figure of it was measured.
//!
//! [`super::run()`] drives it with the libraries' gates before it.

use std::collections::HashMap;

use crate::aes_probe::{AesBound, AesProbe, probe_again};
use crate::library::gate::{LibGate, LibStatus};
use crate::ops::Subject;
use crate::protocol::TaskId;
use crate::protocol::WorkerCommand;

use super::run::{leftovers_killed, measure};
use super::{FaultKind, Measurement, Method};

/// Events of a campaign, for a front end that shows progress.
pub trait Observer {
    /// A new phase with this many steps.
    fn phase(&mut self, name: &str, steps: u64);
    /// One step of the phase begins or ends, with a short description.
    fn step(&mut self, text: &str);
    /// A library's gate is done: its verdict before its figures (one step
    /// of the gates' phase).
    fn library_checked(&mut self, gate: &LibGate);
}

/// A figure that could not be measured (a worker failed, crashed or hung,
/// or its answer failed a check).
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct FigureFailure {
    /// [`Subject::id`].
    pub op: TaskId,
    /// Message length.
    pub size: usize,
    /// The kind of failure.
    #[serde(default)]
    pub kind: FaultKind,
    /// What happened.
    pub error: String,
}

/// What the figures of a campaign are: every subject at every size, the
/// method, and the limits.
pub(super) struct FiguresPlan<'a> {
    /// The worker to start for each trial.
    pub worker: &'a WorkerCommand,
    /// The method of every figure.
    pub method: &'a Method,
    /// Everything to measure, in order.
    pub subjects: &'a [Subject],
    /// The message lengths, in order.
    pub sizes: &'a [usize],
    /// Seconds of measurement each library may use (`--lib-budget`).
    pub lib_budget_s: f64,
    /// The fixed clock of the 95% rule, if the host has one.
    pub fixed_clock_hz: Option<f64>,
}

/// What the figures of a campaign gave.
#[derive(Default)]
pub(super) struct FiguresResult {
    /// The figures measured, in order.
    pub measurements: Vec<Measurement>,
    /// The figures that could not be measured, in order.
    pub failures: Vec<FigureFailure>,
    /// Notes on the run (processes left behind).
    pub notes: Vec<String>,
}

/// Measures every subject of `plan` at every size, in order, reporting a
/// phase `"performance"` and one step per figure to `observer`.
/// `probe` is the AES probe the figures are bounded by, if there is one.
pub(super) fn run_figures(
    plan: &FiguresPlan<'_>,
    probe: &mut Option<AesProbe>,
    observer: &mut dyn Observer,
) -> FiguresResult {
    let jobs: Vec<(&Subject, usize)> = plan
        .subjects
        .iter()
        .flat_map(|s| plan.sizes.iter().map(move |&n| (s, n)))
        .collect();
    observer.phase("performance", jobs.len() as u64);
    let mut result = FiguresResult::default();
    let mut failed_libs: Vec<&str> = Vec::new();
    let mut lib_spent: HashMap<&str, f64> = HashMap::new();
    let mut leftovers_before = leftovers_killed();
    for (subject, size) in jobs {
        observer.step(&format!("{subject} {size} B"));
        let lib = subject.library();
        if let Some(skip) = skipped(plan, subject, size, &failed_libs, &lib_spent) {
            // A skipped figure is a failure of its library too.
            failed_libs.extend(lib);
            result.failures.push(skip);
            continue;
        }
        let t0 = std::time::Instant::now();
        let force_ticks = plan.method.force_ticks;
        let mut again = || probe_again(force_ticks);
        let mut bound = probe.as_mut().map(|p| AesBound::new(p, &mut again));
        let figure = measure(
            plan.worker,
            plan.method,
            subject,
            size,
            bound.as_mut(),
            plan.fixed_clock_hz,
        );
        match figure {
            Ok(m) => result.measurements.push(m),
            Err(fault) => {
                failed_libs.extend(lib);
                result.failures.push(FigureFailure {
                    op: subject.id(),
                    size,
                    kind: fault.kind,
                    error: fault.message,
                });
            }
        }
        let leftovers = leftovers_killed() - leftovers_before;
        leftovers_before += leftovers;
        if leftovers > 0 {
            result.notes.push(format!(
                "{leftovers} process(es) left behind by the workers of {subject} at {size} B were found and killed"
            ));
        }
        if let Some(name) = lib {
            *lib_spent.entry(name).or_default() += t0.elapsed().as_secs_f64();
        }
    }
    result
}

/// The failure of a library's figure that is not measured: the library
/// already failed a figure, or its budget ran out. `None` for a figure
/// to measure.
fn skipped(
    plan: &FiguresPlan<'_>,
    subject: &Subject,
    size: usize,
    failed_libs: &[&str],
    lib_spent: &HashMap<&str, f64>,
) -> Option<FigureFailure> {
    let name = subject.library()?;
    // A library that already failed a figure gets no more: it has a
    // status of its own and no figure.
    if failed_libs.contains(&name) {
        return Some(FigureFailure {
            op: subject.id(),
            size,
            kind: FaultKind::Error,
            error: "not measured: the library failed an earlier figure".into(),
        });
    }
    if lib_spent.get(name).copied().unwrap_or(0.0) >= plan.lib_budget_s {
        return Some(FigureFailure {
            op: subject.id(),
            size,
            kind: FaultKind::Timeout,
            error: format!(
                "the library's budget of {} s (--lib-budget) ran out before {} at {size} B",
                plan.lib_budget_s,
                subject.id()
            ),
        });
    }
    None
}

/// A library that passed the gate keeps PASS only if every figure of it
/// was measured: the first failed figure gives it its status and reason,
/// and its figures are dropped. `subjects` are the subjects the figures
/// were measured of.
pub(super) fn settle_libraries(
    mut libs: Vec<LibGate>,
    subjects: &[Subject],
    figures: &mut FiguresResult,
) -> Vec<LibGate> {
    let ids_of = |name: &str| -> Vec<TaskId> {
        subjects
            .iter()
            .filter(|s| s.library() == Some(name))
            .map(Subject::id)
            .collect()
    };
    for g in libs.iter_mut().filter(|g| g.status == LibStatus::Pass) {
        let ids = ids_of(&g.spec.name);
        if let Some(f) = figures.failures.iter().find(|f| ids.contains(&f.op)) {
            g.status = status_of_fault(f.kind);
            g.detail = f.error.clone();
            figures.measurements.retain(|m| !ids.contains(&m.op));
        }
    }
    libs
}

/// The status a figure's fault gives its library.
fn status_of_fault(kind: FaultKind) -> LibStatus {
    match kind {
        FaultKind::Error | FaultKind::WrongDigest => LibStatus::Fail,
        FaultKind::Crash => LibStatus::Crash,
        FaultKind::Hang => LibStatus::Hang,
        FaultKind::Timeout => LibStatus::Timeout,
        FaultKind::WritesOutside => LibStatus::Overwrite,
        FaultKind::Untrusted => LibStatus::Untrusted,
        FaultKind::Cached => LibStatus::Cached,
        FaultKind::Implausible => LibStatus::Implausible,
        FaultKind::Unverified => LibStatus::Unverified,
    }
}
