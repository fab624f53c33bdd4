//! The report job: the configuration, the run (functional tests, then the
//! measurements), and the files made from it.

use std::path::PathBuf;

use pavelor::{Algorithm, Available, Backend};

use pavelor_measure::campaign::{FaultKind, Measurement, Method, measure};
use pavelor_measure::elf::{StaticSize, static_size};
use pavelor_measure::env::{Environment, collect};
use pavelor_measure::host::{self, HostCheckResult, HostProblem};
use pavelor_measure::library::LibSpec;
use pavelor_measure::library::gate::{self, GateConfig, LibGate, LibStatus};
use pavelor_measure::ops::{Operation, Subject};
use pavelor_measure::protocol::WorkerCommand;
use pavelor_measure::utc::UtcTime;
use pavelor_niccs as niccs;

use pavelor_measure::aes_probe::{AesProbe, aes_probe};

use crate::kat::{self, KatResult};
use crate::{charts, niccs_dataset, records, rows, sections, validate};

/// The message lengths S1..S8 of the NICCS guide, in bytes.
pub const SIZES: [usize; 8] = [32, 128, 512, 1024, 4096, 8192, 16384, 65536];

/// Anchor figures of the reference campaigns: (instance, arm_1, x86_1)
/// cycles per byte at 64 KiB for the submitted reference C.
pub const ANCHORS_64K: [(Algorithm, f64, f64); 3] = [
    (Algorithm::Pavelor512, 187.5, 192.9),
    (Algorithm::Pavelor768, 280.6, 290.2),
    (Algorithm::Pavelor1024, 563.3, 576.5),
];

/// Anchor mean cycles for 32-byte messages: (instance, arm_1, x86_1).
pub const ANCHORS_32B: [(Algorithm, f64, f64); 3] = [
    (Algorithm::Pavelor512, 36_900.0, 37_800.0),
    (Algorithm::Pavelor768, 36_700.0, 37_900.0),
    (Algorithm::Pavelor1024, 72_600.0, 74_500.0),
];

/// What to run and where to write it (kept in `records/report.json`, so
/// that `report.md` can be rendered again from a report directory).
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct Config {
    /// Output directory (`report.md`, `records/`, charts).
    pub out_dir: PathBuf,
    /// Directory of KAT files to check strictly; `None`: check against the
    /// official answers embedded in `pavelor-kat`.
    pub kat_dir: Option<PathBuf>,
    /// The measurement method.
    pub method: Method,
    /// Message lengths, bytes.
    pub sizes: Vec<usize>,
    /// Built-in operations to measure.
    pub ops: Vec<Operation>,
    /// C libraries to check and measure beside them.
    pub libs: Vec<LibSpec>,
    /// The implementation the ratio columns compare with: a library name,
    /// or a Rust backend name [default: the first library, else the best
    /// backend].
    pub baseline: Option<String>,
    /// How to start a trial process.
    pub worker: WorkerCommand,
    /// Also verify KAT_2_33 (3 x 1 GiB per instance).
    pub kat_2_33: bool,
    /// The command line that started the report.
    pub command_line: Vec<String>,
    /// The executable whose code is measured (for static memory).
    pub measured_exe: PathBuf,
    /// Refuse to measure when the host checks find a problem, as the NICCS
    /// harness does (by default pavelor measures and lists the problems at
    /// the top of the report).
    pub require_fixed_host: bool,
    /// The system id of the NICCS dataset (`campaign.json` `system_id`).
    pub system_id: String,
    /// The implementation the NICCS dataset describes: a `--lib` NAME or a
    /// backend [default: the `--baseline`, else the first `--lib`, else the
    /// best backend].
    pub niccs_subject: Option<String>,
    /// Wall-time budget of one library's figures, seconds: a library still
    /// being measured then is a TIMEOUT and the campaign goes on.
    #[serde(default = "default_lib_budget")]
    pub lib_budget_s: f64,
}

/// [`Config::lib_budget_s`] by default: an hour.
pub const DEFAULT_LIB_BUDGET_S: f64 = 3600.0;

fn default_lib_budget() -> f64 {
    DEFAULT_LIB_BUDGET_S
}

/// Progress events for a front end.
pub enum Progress<'a> {
    /// A new phase with this many steps.
    Phase(&'a str, u64),
    /// One step of the phase done, with a short description.
    Step(&'a str),
}

/// A figure that could not be measured (a worker failed, crashed or hung,
/// or its answer failed a check).
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct FigureFailure {
    /// [`Subject::id`].
    pub op: String,
    /// Message length.
    pub size: usize,
    /// The kind of failure.
    #[serde(default)]
    pub kind: FaultKind,
    /// What happened.
    pub error: String,
}

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
    /// Whether the run looks emulated.
    pub emulated: bool,
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
    /// The fastest backend this CPU runs (the default baseline and
    /// subject).
    pub best_backend: Backend,
}

impl RunResults {
    /// Whether anything failed: a Rust KAT, a library, or a figure.
    pub fn failed(&self) -> bool {
        self.kat.iter().any(|k| k.status == "FAIL")
            || self.libs.iter().any(|l| l.status != LibStatus::Pass)
            || !self.failures.is_empty()
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
    let niccs_environment_start = host::niccs_environment(cpu);
    progress(Progress::Phase("environment and AES probe", 1));
    let environment = collect(config.method.cpu);
    let probe = aes_probe(config.method.force_ticks);
    progress(Progress::Step("done"));
    let kat = kat::run_kat(config, progress);

    let worker = emulated_worker(&config.worker);
    let emulated = pavelor_measure::env::emulated();
    // Under user-mode emulation the worker is the emulator, whose own
    // reservations an address-space limit would break: no limit there.
    let mut method = config.method.clone();
    if emulated {
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
        match measure(
            &worker,
            &method,
            subject,
            size,
            probe.as_ref().map(|p| p.per_aesenc),
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
        emulated,
        notes,
        host_checks,
        host_problems,
        started_iso,
        finished_iso: finish.isoformat(),
        niccs_environment_start,
        niccs_environment_end,
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

/// How pavelor's page differs from the harness's in what the dataset does
/// not say: its system, links, evidence paths and subject.
pub fn page_context(config: &Config, c: &RunResults) -> niccs::PageContext {
    let system = config.system_id.as_str();
    let arch = c.environment.target.split('-').next().unwrap_or_default();
    let mut ctx = niccs::PageContext::harness(system, niccs::architecture_wording(arch));
    ctx.summary_link = format!("./niccs/{system}/campaign.json");
    ctx.method_link = "#11-performance-side-by-side-beyond-the-guide".into();
    ctx.evidence_intro = format!(
        "Paths are relative to `niccs/{system}/` beside this page, a dataset in the NICCS harness's layout (`pavelor report --check` checks it); each JSON file records its commands, environment and trials."
    );
    ctx.scripts_line = format!(
        "Measured by `pavelor report` {}; the method is described in the pavelor repository's `docs/method.md`.",
        env!("CARGO_PKG_VERSION")
    );
    ctx.versions = niccs_dataset::NiccsSubject::of(config, c.best_backend)
        .ok()
        .map(|s| s.describe());
    ctx.kat_intro = Some(
        "Each instance was checked before timing against the official ICCS KAT answers, every record by pavelor's strict verifier; each instance's KAT log (section 7) lists the files checked, and section 10 has every backend's and library's."
            .into(),
    );
    ctx
}

/// Every file of a report directory that its records give: `report.md`,
/// the charts, and `report.html` (the same page, self-contained: the
/// charts inline, no script, nothing fetched).
pub fn rendered_files(
    config: &Config,
    c: &RunResults,
    ds: &niccs::Dataset,
) -> Vec<(String, String)> {
    let md = markdown(config, c, ds);
    let charts: Vec<(String, String)> = Algorithm::ALL
        .into_iter()
        .map(|alg| (charts::chart_name(alg), charts::chart_for(c, alg)))
        .collect();
    let inline: Vec<(String, String)> = charts
        .iter()
        .map(|(name, svg)| (format!("./{name}"), svg.clone()))
        .collect();
    let title = crate::html::title_of(&md).unwrap_or_else(|| "pavelor report".into());
    let html = crate::html::render(&crate::html::Page {
        title: &title,
        markdown: &md,
        svgs: &inline,
        nav: &[],
    });
    let mut files = vec![("report.md".to_string(), md)];
    files.extend(charts);
    files.push(("report.html".to_string(), html));
    files
}

/// The report text: the NICCS page of the campaign's subject (sections
/// 1–5 and 7, from `ds` as the harness's renderer makes them), with the
/// verdict and the notes under its intro, then pavelor's own sections.
pub fn markdown(config: &Config, c: &RunResults, ds: &niccs::Dataset) -> String {
    let ctx = rows::Ctx::new(config, c);
    let page = niccs::render_page(ds, &page_context(config, c));
    let mut head = String::new();
    sections::header(&mut head, &ctx);
    let mut s = String::new();
    let mut lines = page.split_inclusive('\n');
    // Title, breadcrumb and intro, each followed by a blank line.
    for line in lines.by_ref().take(6) {
        s.push_str(line);
    }
    s.push_str(&head);
    for line in lines {
        s.push_str(line);
    }
    s.push_str(
        "\n## Beyond the NICCS guide\n\nThe sections below are pavelor's: every Rust backend and library measured side by side, the AES-throughput bound, the comparison hashes and the libraries' statuses.\n\n",
    );
    sections::basic::write(&mut s, &ctx);
    sections::environment::write(&mut s, &ctx);
    sections::functional::write(&mut s, &ctx);
    sections::performance::write(&mut s, &ctx);
    sections::resources::write(&mut s, &ctx);
    sections::evidence::write(&mut s, &ctx);
    sections::comparison::write(&mut s, &ctx);
    sections::baselines::write(&mut s, &ctx);
    s
}
