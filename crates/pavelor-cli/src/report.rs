//! `pavelor report`: the NICCS §3.5 report for this machine.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;
use pavelor_measure::campaign::Method;
use pavelor_measure::library::LibSpec;
use pavelor_measure::ops::Operation;
use pavelor_measure::protocol::WorkerCommand;
use pavelor_report::{self as report, Config, Progress, RunResults, SIZES};

use crate::arg_error::{ArgError, parse_seconds_in};
use crate::terminal::{errln, outln};
use std::io::Write;

#[derive(Args)]
pub(crate) struct ReportArgs {
    /// Directory for report.md, report.html, records/ and the charts.
    #[arg(long, value_name = "DIR", default_value = "report")]
    out: PathBuf,
    /// Check the KAT files in DIR strictly [default: the official answers built into pavelor].
    #[arg(long, value_name = "DIR")]
    kat_dir: Option<PathBuf>,
    /// Quick run, not the NICCS method: 3 trials of ~0.02 s per figure, disturbed trials marked but not run again, and no KAT_2_33 (the report says so in its first lines).
    #[arg(long)]
    quick: bool,
    /// Target seconds of one trial (the NICCS harness's T: 0.5 on arm_1, 1 on x86_1) [default: 0.5, or 0.02 with --quick].
    #[arg(long, value_name = "S", value_parser = parse_trial_seconds)]
    trial_seconds: Option<f64>,
    /// Trials per figure, each in its own process [default: 5, or 3 with --quick].
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=100))]
    trials: Option<u32>,
    /// Message lengths in bytes, comma-separated [default: S1..S8 = 32,128,512,1024,4096,8192,16384,65536].
    #[arg(long, value_name = "LIST", value_delimiter = ',', value_parser = clap::value_parser!(u32).range(1..=(1 << 26)))]
    sizes: Vec<u32>,
    /// Pin the trials to this CPU; it must be in this process's affinity mask [default: the last CPU of the mask].
    #[arg(long, value_name = "N")]
    cpu: Option<usize>,
    /// Use the time-stamp counter even where the hardware cycle counter is available.
    #[arg(long)]
    ticks: bool,
    /// Check a report directory without measuring: its NICCS datasets (DIR/niccs/ID/) by the rules of the harness's validator, every record's derived figures against its trials, and report.md, report.html and the charts against what the records give, byte for byte; or check one harness dataset directory. Exit 1 naming the first problem.
    #[arg(long, value_name = "DIR", conflicts_with_all = ["render", "quick", "libs", "kat_dir", "sizes", "trials", "trial_seconds", "cpu", "ticks", "system_id", "niccs_subject", "require_fixed_host", "skip_2_33", "no_compare", "no_baselines", "baseline", "sweep"])]
    check: Option<PathBuf>,
    /// Rewrite a report directory's report.md, report.html and charts from its records, without measuring; given a harness dataset directory, print the harness's page of it.
    #[arg(long, value_name = "DIR", conflicts_with_all = ["quick", "libs", "kat_dir", "sizes", "trials", "trial_seconds", "cpu", "ticks", "system_id", "niccs_subject", "require_fixed_host", "skip_2_33", "no_compare", "no_baselines", "baseline", "sweep"])]
    render: Option<PathBuf>,
    /// The system id of the NICCS dataset in OUT/niccs/ (letters, digits, '_', '-', '.') [default: the host name].
    #[arg(long, value_name = "ID", value_parser = parse_system_id)]
    system_id: Option<String>,
    /// The implementation OUT/niccs/ describes: a --lib NAME or a backend [default: --baseline, else the first --lib, else the fastest backend].
    #[arg(long, value_name = "NAME")]
    niccs_subject: Option<String>,
    /// Refuse to measure if the host checks find a problem (clock not fixed, turbo, SMT sibling, no cycle counter), as the NICCS harness does [default: measure and list the problems at the top of the report].
    #[arg(long)]
    require_fixed_host: bool,
    /// Skip the 3 x 1 GiB messages of KAT_2_33.
    #[arg(long)]
    skip_2_33: bool,
    /// Only measure Pavelor (no SHA-512, SHA3-512, BLAKE2b, BLAKE3, SM3 comparison).
    #[arg(long)]
    no_compare: bool,
    /// Do not measure the ICCS helpers sm3hash, pseudohash and pseudoXOF (the baselines of the × pseudoXOF factors).
    #[arg(long)]
    no_baselines: bool,
    /// Do not audit our backends and the --lib libraries for constant time under valgrind memcheck (the audit never changes RESULT).
    #[arg(long)]
    no_ct_audit: bool,
    /// Also check (probe, API checks, KATs) and measure an ICCS CryptHash shared library, side by side (repeatable).
    #[arg(long = "lib", value_name = "NAME=PATH")]
    libs: Vec<LibSpec>,
    /// The implementation the ratio columns compare with: a --lib NAME or a backend [default: the first --lib].
    #[arg(long, value_name = "NAME")]
    baseline: Option<String>,
    /// Seconds a library probe, bad-input check or calibration run may take before it counts as hung.
    #[arg(long, value_name = "S", default_value_t = 60.0, value_parser = parse_timeout)]
    timeout: f64,
    /// Seconds one operation at one length may take in all (calibration, trials, reruns, check trials) before its figure is a TIMEOUT.
    #[arg(long, value_name = "S", default_value_t = pavelor_measure::campaign::DEFAULT_OP_LIMIT_S, value_parser = parse_budget)]
    op_limit: f64,
    /// Seconds one library's figures may take in all before the library is a TIMEOUT (the campaign goes on).
    #[arg(long, value_name = "S", default_value_t = report::DEFAULT_LIB_BUDGET_S, value_parser = parse_budget)]
    lib_budget: f64,
    /// Also time every Pavelor implementation at every length 0-4096 B and up to 64 KiB as eBASH does (medians and quartiles of single calls, the step at each block boundary): a section, a chart per instance and records/sweep/. With --quick, a sparse subset of the lengths that keeps every block boundary and its neighbours.
    #[arg(long)]
    sweep: bool,
    /// The seed of the sweep's random messages [default: drawn at the start; recorded].
    #[arg(long, value_name = "N", requires = "sweep")]
    sweep_seed: Option<u64>,
    /// Memory limit of each worker process, MiB (its address space, RLIMIT_AS).
    #[arg(long, value_name = "MIB", default_value_t = pavelor_measure::campaign::DEFAULT_WORKER_MEMORY_BYTES >> 20, value_parser = clap::value_parser!(u64).range(64..=(1 << 22)))]
    worker_memory: u64,
    // The limits of --check and --render on a directory another machine
    // wrote.
    #[command(flatten)]
    limits: crate::options::EvidenceLimits,
}

fn parse_budget(s: &str) -> Result<f64, ArgError> {
    parse_seconds_in(s, 1.0, 604_800.0)
}

/// `pavelor report --check DIR`: every dataset under `DIR/niccs/`, then the
/// report's own records and files; or `DIR` itself when it is a harness
/// dataset.
fn check(dir: &std::path::Path, limits: &pavelor_niccs::Limits) -> ExitCode {
    if report::harness_run::is_harness_dataset(dir) {
        let checked = pavelor_niccs::Evidence::read(dir, limits)
            .map_err(|e| e.to_string())
            .and_then(|ev| {
                pavelor_niccs::validate::check_evidence(&ev, &Default::default())
                    .map_err(|p| p.to_string())
            });
        return match checked {
            Ok(summary) => crate::terminal::finish(outln!("{summary}").map(|()| ExitCode::SUCCESS)),
            Err(problem) => {
                errln!("report --check: {}: {problem}", dir.display());
                ExitCode::FAILURE
            }
        };
    }
    match report::reload::check_run(dir, limits) {
        Ok(checked) => {
            let mut text = String::new();
            for d in &checked.datasets {
                text.push_str(d);
                text.push('\n');
            }
            let sweeps = &checked.run.campaign.sweeps;
            let swept = if checked.run.config.sweep.is_some() {
                format!(
                    ", {} sweep records agree with their samples",
                    sweeps.records.len()
                )
            } else {
                String::new()
            };
            let charts = pavelor::Algorithm::ALL.len() + report::sweep::charts(sweeps).len();
            text.push_str(&format!(
                "{}: {} figure records agree with their trials{swept}; report.md, report.html and {charts} charts regenerate byte for byte",
                dir.display(),
                checked.run.campaign.measurements.len(),
            ));
            crate::terminal::finish(outln!("{text}").map(|()| ExitCode::SUCCESS))
        }
        Err(problem) => {
            errln!("report --check: {problem}");
            ExitCode::FAILURE
        }
    }
}

/// `pavelor report --render DIR`: a report directory's `report.md` and
/// charts made again from its records, or a harness dataset's page on
/// stdout.
fn render(dir: &std::path::Path, limits: &pavelor_niccs::Limits) -> ExitCode {
    if report::harness_run::is_harness_dataset(dir) {
        let page = pavelor_niccs::Evidence::read(dir, limits).and_then(|ev| {
            let ds = pavelor_niccs::Dataset::from_evidence(&ev)?;
            let ctx = pavelor_niccs::PageContext::for_dataset(&ds)?;
            Ok(pavelor_niccs::render_page(&ds, &ctx))
        });
        return match page {
            Ok(page) => crate::terminal::finish(
                crate::terminal::out_text(&page).map(|()| ExitCode::SUCCESS),
            ),
            Err(problem) => {
                errln!("report --render: {}: {problem}", dir.display());
                ExitCode::FAILURE
            }
        };
    }
    let result = report::reload::load(dir, limits).and_then(|r| {
        let rendered = report::reload::render(&r);
        report::reload::write(dir, &rendered).map(|()| rendered)
    });
    match result {
        Ok(rendered) => crate::terminal::finish(
            rendered
                .files
                .iter()
                .try_for_each(|(name, _)| outln!("{}", dir.join(name).display()))
                .map(|()| ExitCode::SUCCESS),
        ),
        Err(problem) => {
            errln!("report --render: {}: {problem}", dir.display());
            ExitCode::FAILURE
        }
    }
}

fn parse_system_id(s: &str) -> Result<String, ArgError> {
    use pavelor_niccs::evidence::{SYSTEM_ID_RULE, is_system_id};
    if is_system_id(s) {
        Ok(s.to_string())
    } else {
        Err(ArgError::SystemId {
            text: s.to_string(),
            rule: SYSTEM_ID_RULE,
        })
    }
}

/// The host name, reduced to what a system id may hold.
fn default_system_id() -> String {
    let host = std::fs::read_to_string("/proc/sys/kernel/hostname").unwrap_or_default();
    let id: String = host
        .trim()
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c.to_ascii_lowercase()
            } else {
                '_'
            }
        })
        .take(64)
        .collect();
    if id.is_empty() { "local".into() } else { id }
}

fn parse_trial_seconds(s: &str) -> Result<f64, ArgError> {
    parse_seconds_in(s, 0.001, 60.0)
}

fn parse_timeout(s: &str) -> Result<f64, ArgError> {
    parse_seconds_in(s, 0.1, 3600.0)
}

pub(crate) fn run(args: &ReportArgs) -> ExitCode {
    if let Some(dir) = &args.check {
        return check(dir, &args.limits.limits());
    }
    if let Some(dir) = &args.render {
        return render(dir, &args.limits.limits());
    }
    let exe = match std::env::current_exe() {
        Ok(p) => p,
        Err(e) => {
            errln!("cannot find the pavelor executable to start trials: {e}");
            return ExitCode::FAILURE;
        }
    };
    let mut method = method(args);
    let allowed = match pavelor_measure::worker::allowed_cpus() {
        Ok(a) if !a.is_empty() => a,
        Ok(_) => {
            errln!("report: the affinity mask of this process is empty");
            return ExitCode::FAILURE;
        }
        Err(e) => {
            errln!("report: {e}");
            return ExitCode::FAILURE;
        }
    };
    method.cpu = Some(args.cpu.unwrap_or(allowed[allowed.len() - 1]));
    let config = config(args, method, exe);
    let mut bar: Option<indicatif::ProgressBar> = None;
    let mut progress = |p: Progress<'_>| match p {
        Progress::Phase(name, steps) => {
            if let Some(b) = bar.take() {
                b.finish_and_clear();
            }
            let _ = writeln!(std::io::stderr(), "pavelor report: {name}");
            bar = Some(crate::terminal::progress_bar(steps, name));
        }
        Progress::Step(what) => {
            if let Some(b) = &bar {
                b.set_message(what.to_string());
                b.inc(1);
            }
        }
    };
    let result = report::run(&config, &mut progress);
    if let Some(b) = bar.take() {
        b.finish_and_clear();
    }
    crate::terminal::finish(match result {
        Ok(c) => summary(&config, &c),
        Err(e) => {
            errln!("report: {e}");
            Ok(ExitCode::FAILURE)
        }
    })
}

/// The measurement method of the options: the NICCS method, or the quick
/// one, with the trial, timeout and memory options applied (the CPU is
/// chosen by the caller).
fn method(args: &ReportArgs) -> Method {
    let mut method = Method::standard();
    if args.quick {
        method.trials = 3;
        method.trial_target_s = 0.02;
        method.min_total = 30;
        method.disturbed_reruns = 0;
    }
    if let Some(t) = args.trial_seconds {
        method.trial_target_s = t;
    }
    if let Some(t) = args.trials {
        method.trials = t as usize;
    }
    method.force_ticks = args.ticks;
    method.timeout_s = args.timeout;
    method.op_limit_s = args.op_limit;
    method.worker_memory_bytes = args.worker_memory << 20;
    method
}

/// The report's configuration: what the options ask for, measured with
/// `method` in workers started as `exe __trial`.
fn config(args: &ReportArgs, method: Method, exe: PathBuf) -> Config {
    let mut ops = Operation::pavelor_all();
    if !args.no_compare {
        ops.extend(Operation::OTHERS);
    }
    if !args.no_baselines {
        ops.extend(Operation::baselines());
    }
    Config {
        out_dir: args.out.clone(),
        kat_dir: args.kat_dir.clone(),
        method,
        sizes: if args.sizes.is_empty() {
            SIZES.to_vec()
        } else {
            args.sizes.iter().map(|&s| s as usize).collect()
        },
        ops,
        libs: args.libs.clone(),
        baseline: args.baseline.clone(),
        worker: WorkerCommand {
            program: exe.clone(),
            args: vec!["__trial".into()],
        },
        kat_2_33: !(args.skip_2_33 || args.quick),
        command_line: std::env::args().collect(),
        measured_exe: exe,
        require_fixed_host: args.require_fixed_host,
        system_id: args.system_id.clone().unwrap_or_else(default_system_id),
        niccs_subject: args.niccs_subject.clone(),
        lib_budget_s: args.lib_budget,
        ct_audit: !args.no_ct_audit,
        sweep: args.sweep.then(|| pavelor_sweep::record::Settings {
            quick: args.quick,
            seed: args
                .sweep_seed
                .unwrap_or_else(pavelor_measure::campaign::nonce),
        }),
    }
}

/// Prints where the report is, its counts and each library's verdict;
/// the exit status is a failure when the report failed.
fn summary(config: &Config, c: &RunResults) -> std::io::Result<ExitCode> {
    let failed = c.kat.iter().filter(|k| k.status == "FAIL").count();
    outln!(
        "report written to {}",
        config.out_dir.join("report.md").display()
    )?;
    outln!(
        "{} figures ({} failed), {} KAT files checked ({failed} failed)",
        c.measurements.len(),
        c.failures.len(),
        c.kat.len()
    )?;
    if config.sweep.is_some() {
        let s = &c.sweeps;
        outln!(
            "{} implementations swept at every length ({} failed)",
            s.records.len(),
            s.failures.len()
        )?;
        for f in &s.failures {
            outln!("sweep of {}: {}", f.subject, f.fault)?;
        }
    }
    for g in &c.libs {
        outln!(
            "library {}: {} ({})",
            g.spec.name,
            g.status.label(),
            g.detail
        )?;
    }
    if c.failed() {
        errln!("report: FAIL (see the top of report.md)");
        Ok(ExitCode::FAILURE)
    } else {
        Ok(ExitCode::SUCCESS)
    }
}
