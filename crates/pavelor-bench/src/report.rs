//! The report job: functional tests, measurements, and the NICCS §3.5
//! report with its raw evidence (one JSON record per figure).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use pavelor::{Algorithm, Backend};
use pavelor_kat::official;
use pavelor_kat::suite::KatKind;
use serde::{Deserialize, Serialize};

use crate::campaign::{Measurement, Method, WorkerCommand, measure};
use crate::chart::{self, Marker, Series};
use crate::clock::{CounterKind, CycleCounter};
use crate::elf::{StaticSize, static_size};
use crate::env::{Environment, collect};
use crate::hw;
use crate::ops::Operation;
use crate::output::atomic_write;

/// The message lengths S1..S8 of the NICCS guide, in bytes.
pub const SIZES: [usize; 8] = [32, 128, 512, 1024, 4096, 8192, 16384, 65536];

/// AES rounds in one Paff call.
pub const AES_ROUNDS_PER_PAFF: f64 = 456.0;

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

/// What to run and where to write it.
#[derive(Clone, Debug)]
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
    /// Operations to measure.
    pub ops: Vec<Operation>,
    /// How to start a trial process.
    pub worker: WorkerCommand,
    /// Also verify KAT_2_33 (3 x 1 GiB per instance).
    pub kat_2_33: bool,
    /// The command line that started the report.
    pub command_line: Vec<String>,
    /// The executable whose code is measured (for static memory).
    pub measured_exe: PathBuf,
}

/// Progress events for a front end.
pub enum Progress<'a> {
    /// A new phase with this many steps.
    Phase(&'a str, u64),
    /// One step of the phase done, with a short description.
    Step(&'a str),
}

/// Result of one KAT file.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct KatResult {
    /// Instance name.
    pub instance: String,
    /// File name.
    pub file: String,
    /// Backend used.
    pub backend: String,
    /// "PASS", "FAIL" or "NOT RUN".
    pub status: String,
    /// Records that verified.
    pub passed: usize,
    /// Records in the file.
    pub total: usize,
    /// Failure or reason not run.
    pub detail: Option<String>,
}

/// The AES-round throughput probe.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct AesProbe {
    /// Counter units per AESENC at full throughput (best of the runs).
    pub per_aesenc: f64,
    /// Independent chains.
    pub chains: usize,
    /// AESENC instructions per run.
    pub instructions: u64,
    /// Every run's counter units per AESENC.
    pub runs: Vec<f64>,
    /// The counter used.
    pub counter: CounterKind,
}

impl AesProbe {
    /// Lower bound on counter units per byte for a long single message of
    /// `alg`: `456 × t / rate`.
    pub fn bound_per_byte(&self, alg: Algorithm) -> f64 {
        AES_ROUNDS_PER_PAFF * self.per_aesenc / alg.rate_len() as f64
    }

    /// Lower bound on counter units for one hash of a `size`-byte message:
    /// its Paff calls (`size / rate + 1` absorbing, one more squeezing for
    /// Pavelor-1024) at full AES throughput.
    pub fn bound_per_call(&self, alg: Algorithm, size: usize) -> f64 {
        let squeeze = alg.output_len().div_ceil(alg.rate_len()) - 1;
        let paffs = size / alg.rate_len() + 1 + squeeze;
        paffs as f64 * AES_ROUNDS_PER_PAFF * self.per_aesenc
    }
}

/// Measures the AES-round throughput with the given counter: `AESENC` on
/// x86, `AESE`+`AESMC` pairs on AArch64 (None without AES instructions).
pub fn aes_probe(force_ticks: bool) -> Option<AesProbe> {
    const ITER: u64 = 2_000_000;
    hw::aesenc_chains(1000)?;
    let mut counter = CycleCounter::open(force_ticks);
    let runs: Vec<f64> = (0..7)
        .map(|_| {
            let c0 = counter.read();
            std::hint::black_box(hw::aesenc_chains(std::hint::black_box(ITER)));
            let c1 = counter.read();
            c1.wrapping_sub(c0) as f64 / (ITER as f64 * hw::AES_CHAINS as f64)
        })
        .collect();
    let best = runs.iter().copied().fold(f64::MAX, f64::min);
    Some(AesProbe {
        per_aesenc: best,
        chains: hw::AES_CHAINS,
        instructions: ITER * hw::AES_CHAINS as u64,
        runs,
        counter: counter.kind(),
    })
}

/// UTC time as RFC 3339 (seconds).
pub fn utc_now() -> String {
    humantime::format_rfc3339_seconds(SystemTime::now()).to_string()
}

fn record_name(m: &Measurement) -> String {
    let k = SIZES
        .iter()
        .position(|&s| s == m.size)
        .map_or(String::new(), |i| format!("S{}-", i + 1));
    format!("records/{}.{}{}.json", m.op, k, m.size)
}

/// The JSON evidence for one figure.
#[derive(Serialize)]
struct Record<'a> {
    schema: &'static str,
    operation: &'a str,
    algorithm: &'a str,
    implementation: String,
    backend: Option<&'a str>,
    message_bytes: usize,
    input: String,
    counter: CounterKind,
    counter_unit: &'static str,
    counter_note: Option<&'a str>,
    method: &'a Method,
    command_line: &'a [String],
    report_command_line: &'a [String],
    environment: &'a Environment,
    calibration: &'a crate::worker::TrialResult,
    trials: &'a [crate::worker::TrialResult],
    calls_per_trial: u64,
    n_total: u64,
    mean_cycles: f64,
    cycles_per_byte: f64,
    median_trial_mean_cycles: f64,
    mean_ns: f64,
    mb_per_s: f64,
    baseline_rss_kib: Option<u64>,
    peak_rss_kib: Option<u64>,
}

/// Everything a report is made from.
pub struct Campaign {
    /// Start, UTC.
    pub started: String,
    /// End, UTC.
    pub finished: String,
    /// The environment.
    pub environment: Environment,
    /// KAT results.
    pub kat: Vec<KatResult>,
    /// AES probe, if the CPU has AES-NI.
    pub probe: Option<AesProbe>,
    /// Measurements.
    pub measurements: Vec<Measurement>,
    /// Static size of the measured executable.
    pub static_size: Option<StaticSize>,
    /// Whether the run looks emulated.
    pub emulated: bool,
}

/// Verifies the KAT files (best backend: all four files, `KAT_2_33` only if
/// asked; every other backend: `KAT_2_12` and `KAT_2_23`).
pub fn run_kat(config: &Config, progress: &mut dyn FnMut(Progress<'_>)) -> Vec<KatResult> {
    let best = Backend::best();
    let mut jobs: Vec<(Algorithm, KatKind, Backend)> = Vec::new();
    for alg in Algorithm::ALL {
        for kind in KatKind::ALL {
            jobs.push((alg, kind, best));
        }
        for &b in Backend::ALL
            .iter()
            .filter(|b| b.is_available() && **b != best)
        {
            jobs.push((alg, KatKind::Kat2_12, b));
            jobs.push((alg, KatKind::Kat2_23, b));
        }
    }
    progress(Progress::Phase("functional tests (KAT)", jobs.len() as u64));
    let emulated = crate::env::emulated();
    let mut results = Vec::new();
    for (alg, kind, backend) in jobs {
        let file = kind.file_name(alg);
        progress(Progress::Step(&format!("{file} ({backend})")));
        let mut r = KatResult {
            instance: alg.name().into(),
            file: file.clone(),
            backend: backend.name().into(),
            status: "NOT RUN".into(),
            passed: 0,
            total: 0,
            detail: None,
        };
        if kind == KatKind::Kat2_33 && !config.kat_2_33 {
            r.detail = Some("3 x 1 GiB messages; run with --kat-2-33".into());
            results.push(r);
            continue;
        }
        if kind == KatKind::Loop && emulated {
            r.detail = Some(
                "10^6 chained hashes take too long under emulation (qemu user mode); run natively"
                    .into(),
            );
            results.push(r);
            continue;
        }
        let mut imp = backend;
        let report = match &config.kat_dir {
            Some(dir) => {
                official::check_file(&mut imp, alg, kind, &dir.join(&file), &mut |_, _| {})
            }
            None => official::check_embedded(&mut imp, alg, kind, &mut |_, _| {}),
        };
        r.passed = report.passed;
        r.total = report.total;
        r.status = if report.is_pass() { "PASS" } else { "FAIL" }.into();
        r.detail = report.failure.map(|f| f.to_string());
        results.push(r);
    }
    results
}

/// Runs the whole job and writes the report. Returns the campaign.
pub fn run(config: &Config, progress: &mut dyn FnMut(Progress<'_>)) -> Result<Campaign, String> {
    let started = utc_now();
    std::fs::create_dir_all(config.out_dir.join("records"))
        .map_err(|e| format!("{}: {e}", config.out_dir.display()))?;
    progress(Progress::Phase("environment and AES probe", 1));
    let environment = collect(config.method.cpu);
    let probe = aes_probe(config.method.force_ticks);
    progress(Progress::Step("done"));
    let kat = run_kat(config, progress);

    let jobs: Vec<(Operation, usize)> = config
        .ops
        .iter()
        .flat_map(|&op| config.sizes.iter().map(move |&s| (op, s)))
        .collect();
    progress(Progress::Phase("performance", jobs.len() as u64));
    let worker = emulated_worker(&config.worker);
    let mut measurements = Vec::new();
    for (op, size) in jobs {
        progress(Progress::Step(&format!("{op} {size} B")));
        measurements.push(measure(&worker, &config.method, op, size)?);
    }
    let campaign = Campaign {
        started,
        finished: utc_now(),
        environment,
        kat,
        probe,
        measurements,
        static_size: static_size(&config.measured_exe).ok(),
        emulated: crate::env::emulated(),
    };
    write(config, &campaign)?;
    Ok(campaign)
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

fn write_file(dir: &Path, name: &str, bytes: &[u8]) -> Result<(), String> {
    let path = dir.join(name);
    atomic_write(&path, bytes).map_err(|e| format!("{}: {e}", path.display()))
}

fn json<T: Serialize>(v: &T) -> Result<Vec<u8>, String> {
    let mut s = serde_json::to_vec_pretty(v).map_err(|e| e.to_string())?;
    s.push(b'\n');
    Ok(s)
}

/// Writes records, charts and `report.md` (the report last, so that every
/// figure it shows already has its record).
pub fn write(config: &Config, c: &Campaign) -> Result<(), String> {
    let dir = &config.out_dir;
    for m in &c.measurements {
        let op = Operation::from_id(&m.op).ok_or("unknown operation in measurement")?;
        let backend = match op {
            Operation::Pavelor(_, b) => Some(b.name()),
            _ => None,
        };
        let first = m.trials.first();
        let rec = Record {
            schema: "pavelor-report-record/1",
            operation: &m.op,
            algorithm: op.algorithm_name(),
            implementation: op.implementation(),
            backend,
            message_bytes: m.size,
            input: format!(
                "first {} bytes of get_random_number of the ICCS SM3 DRNG seeded with 'PAVBENCH' x 8; one-shot hash per call",
                m.size
            ),
            counter: m.counter(),
            counter_unit: m.counter().unit(),
            counter_note: first.and_then(|t| t.counter_note.as_deref()),
            method: &config.method,
            command_line: &m.command_line,
            report_command_line: &config.command_line,
            environment: &c.environment,
            calibration: &m.calibration,
            trials: &m.trials,
            calls_per_trial: m.calls_per_trial,
            n_total: m.total_calls(),
            mean_cycles: m.mean_cycles(),
            cycles_per_byte: m.cycles_per_byte(),
            median_trial_mean_cycles: m.median_trial_mean_cycles(),
            mean_ns: m.mean_ns(),
            mb_per_s: m.mb_per_s(),
            baseline_rss_kib: m.baseline_rss_kib(),
            peak_rss_kib: m.peak_rss_kib(),
        };
        write_file(dir, &record_name(m), &json(&rec)?)?;
    }
    write_file(dir, "records/kat.json", &json(&c.kat)?)?;
    write_file(dir, "records/environment.json", &json(&c.environment)?)?;
    if let Some(p) = &c.probe {
        write_file(dir, "records/aes-probe.json", &json(p)?)?;
    }
    if let Some(s) = &c.static_size {
        write_file(dir, "records/static-size.json", &json(s)?)?;
    }
    for alg in Algorithm::ALL {
        let svg = chart_for(c, alg);
        write_file(dir, &chart_name(alg), svg.as_bytes())?;
    }
    write_file(dir, "report.md", markdown(config, c).as_bytes())
}

fn chart_name(alg: Algorithm) -> String {
    format!("chart-{}.svg", alg.name().to_ascii_lowercase())
}

fn unit(c: &Campaign) -> &'static str {
    c.measurements
        .first()
        .map_or("cycles", |m| m.counter().unit())
}

fn chart_for(c: &Campaign, alg: Algorithm) -> String {
    let mut series = Vec::new();
    for &b in Backend::ALL {
        let points: Vec<(f64, f64)> = c
            .measurements
            .iter()
            .filter(|m| m.op == Operation::Pavelor(alg, b).id())
            .map(|m| (m.size as f64, m.cycles_per_byte()))
            .collect();
        if !points.is_empty() {
            series.push(Series {
                label: format!("{alg} {b}"),
                points,
            });
        }
    }
    let markers = ANCHORS_64K
        .iter()
        .filter(|a| a.0 == alg)
        .flat_map(|&(_, arm, x86)| {
            [
                Marker {
                    label: "reference C, x86_1".into(),
                    x: 65536.0,
                    y: x86,
                },
                Marker {
                    label: "reference C, arm_1".into(),
                    x: 65536.0,
                    y: arm,
                },
            ]
        })
        .collect::<Vec<_>>();
    chart::render(
        &format!("{alg}: {} per byte", unit(c)),
        unit(c),
        &series,
        &markers,
    )
}

fn fmt_opt<T: std::fmt::Display>(v: Option<T>, suffix: &str) -> String {
    v.map_or_else(|| "unknown".to_string(), |v| format!("{v}{suffix}"))
}

fn human_ns(ns: f64) -> String {
    if ns >= 1e6 {
        format!("{:.3} ms", ns / 1e6)
    } else if ns >= 1e3 {
        format!("{:.2} µs", ns / 1e3)
    } else {
        format!("{ns:.0} ns")
    }
}

fn find(c: &Campaign, op: Operation, size: usize) -> Option<&Measurement> {
    let id = op.id();
    c.measurements.iter().find(|m| m.op == id && m.size == size)
}

/// The report text.
pub fn markdown(config: &Config, c: &Campaign) -> String {
    let e = &c.environment;
    let u = unit(c);
    let mut s = String::new();
    let backends: Vec<Backend> = Backend::ALL
        .iter()
        .copied()
        .filter(|b| b.is_available())
        .collect();
    let pavelor_ops: Vec<Operation> = config
        .ops
        .iter()
        .copied()
        .filter(|o| matches!(o, Operation::Pavelor(..)))
        .collect();
    let _ = writeln!(
        s,
        "# Pavelor — performance assessment report (NICCS guide §3.5)\n"
    );
    let _ = writeln!(
        s,
        "Generated by `pavelor report` {} on {}. Every figure below comes from a JSON record under `records/` (section 7).\n",
        env!("CARGO_PKG_VERSION"),
        c.finished
    );
    if c.emulated || e.hypervisor {
        let _ = writeln!(
            s,
            "> **Note.** {}\n",
            if c.emulated {
                "This run is emulated (qemu user mode): the timings are not meaningful for the hardware."
            } else {
                "The CPU reports a hypervisor: this is a virtual machine, so counters and clocks are those the VM exposes."
            }
        );
    }

    let _ = writeln!(s, "## 1. Basic information\n");
    let _ = writeln!(s, "| item | value |\n|---|---|");
    let _ = writeln!(s, "| category | cryptographic hash function |");
    let _ = writeln!(
        s,
        "| algorithm | Pavelor (NGCC Round 1 hash candidate hash-22) |"
    );
    let _ = writeln!(s, "| function | hash (one-shot `H(M)` per call) |");
    let _ = writeln!(
        s,
        "| implementations measured | pavelor {} (Rust), backends: {} |",
        env!("CARGO_PKG_VERSION"),
        backends
            .iter()
            .map(|b| format!("`{b}`"))
            .collect::<Vec<_>>()
            .join(", ")
    );
    let _ = writeln!(
        s,
        "| parameter sets | Pavelor-512 (r = 1536, c = 1024, h = 512), Pavelor-768 (r = 1024, c = 1536, h = 768), Pavelor-1024 (r = 512, c = 2048, h = 1024) |"
    );
    let _ = writeln!(
        s,
        "| comparison hashes (same run) | {} |\n",
        Operation::OTHERS
            .iter()
            .filter(|o| config.ops.contains(o))
            .map(|o| format!("{} ({})", o.algorithm_name(), o.implementation()))
            .collect::<Vec<_>>()
            .join("; ")
    );

    let _ = writeln!(s, "## 2. Assessment environment\n");
    let _ = writeln!(s, "| item | value |\n|---|---|");
    let _ = writeln!(s, "| processor | {} |", e.cpu_model);
    let _ = writeln!(s, "| logical CPUs | {} |", e.logical_cpus);
    let _ = writeln!(
        s,
        "| core used | {} |",
        e.core_used.map_or("not pinned".into(), |c| format!(
            "CPU {c} (trials pinned with sched_setaffinity)"
        ))
    );
    let _ = writeln!(
        s,
        "| clock | kernel-reported {}; tick counter measured at {} |",
        fmt_opt(e.cpu_mhz, " MHz"),
        e.tick_rate_hz
            .map_or("n/a".into(), |h| format!("{:.1} MHz", h / 1e6))
    );
    let _ = writeln!(
        s,
        "| frequency pinning / boost | governor: {}; {} |",
        fmt_opt(e.governor.as_deref(), ""),
        fmt_opt(e.boost.as_deref(), "")
    );
    let _ = writeln!(
        s,
        "| virtualization | {} |",
        if e.hypervisor {
            "hypervisor present (virtual machine)"
        } else {
            "none reported"
        }
    );
    let _ = writeln!(
        s,
        "| CPU features used by backends | {} |",
        e.cpu_features.join(" ")
    );
    let _ = writeln!(
        s,
        "| memory | {} |",
        e.memory_kib.map_or("unknown".into(), |k| format!(
            "{:.1} GiB",
            k as f64 / 1048576.0
        ))
    );
    let _ = writeln!(s, "| OS | {} |", e.os);
    let _ = writeln!(s, "| kernel | {} |", e.kernel);
    let _ = writeln!(s, "| compiler | {} |", e.rustc);
    let _ = writeln!(
        s,
        "| build | cargo profile {}; target {}; RUSTFLAGS `{}` |",
        e.build_profile, e.target, e.rustflags
    );
    let counter_note = c
        .measurements
        .first()
        .and_then(|m| m.trials.first())
        .and_then(|t| t.counter_note.clone());
    let _ = writeln!(
        s,
        "| cycle source | {}{} |",
        match c.measurements.first().map(|m| m.counter()) {
            Some(CounterKind::PerfCycles) => "hardware cycle counter, user mode (perf_event_open)",
            Some(CounterKind::Ticks) if cfg!(target_arch = "aarch64") => {
                "**generic timer (CNTVCT_EL0 ticks, not core cycles)**"
            }
            Some(CounterKind::Ticks) => "**time-stamp counter (TSC ticks, not core cycles)**",
            _ => "none",
        },
        counter_note.map_or(String::new(), |n| format!(
            " — cycle counter unavailable: {n}"
        ))
    );
    let _ = writeln!(s, "| time source | CLOCK_MONOTONIC_RAW |");
    let _ = writeln!(s, "| campaign | {} — {} (UTC) |\n", c.started, c.finished);

    let _ = writeln!(s, "## 3. Functional testing\n");
    let _ = match &config.kat_dir {
        Some(dir) => writeln!(
            s,
            "Official ICCS KAT files from `{}`, checked strictly against the embedded official answers.\n",
            dir.display()
        ),
        None => writeln!(
            s,
            "Official ICCS KAT answers embedded in `pavelor-kat` (derived from the 12 official files; \
             every file regenerated and compared with the NICCS strict-form SHA-256 manifest).\n"
        ),
    };
    let _ = writeln!(
        s,
        "| instance | file | backend | result | records |\n|---|---|---|---|---|"
    );
    for k in &c.kat {
        let detail = k
            .detail
            .as_ref()
            .map_or(String::new(), |d| format!(" — {d}"));
        let _ = writeln!(
            s,
            "| {} | {} | {} | **{}**{} | {}/{} |",
            k.instance, k.file, k.backend, k.status, detail, k.passed, k.total
        );
    }
    for alg in Algorithm::ALL {
        let mine: Vec<&KatResult> = c.kat.iter().filter(|k| k.instance == alg.name()).collect();
        let failed = mine.iter().any(|k| k.status == "FAIL");
        let not_run = mine.iter().any(|k| k.status == "NOT RUN");
        let verdict = if failed {
            "FAIL"
        } else if not_run {
            "PASS (files run)"
        } else {
            "PASS"
        };
        let records: usize = mine
            .iter()
            .filter(|k| k.status == "PASS")
            .map(|k| k.passed)
            .sum();
        let _ = writeln!(s, "\n{alg}: **{verdict}** ({records} records verified).");
    }
    let _ = writeln!(s, "\nEvidence: `records/kat.json`.\n");

    let _ = writeln!(s, "## 4. Performance\n");
    let _ = writeln!(
        s,
        "Mean over all timed calls of {} trials, each in its own process; calls per trial chosen from a calibration run to total ≈ {:.1} s and ≥ {} calls. \"{u}\" is the counter named in section 2. MB/s = 10^6 bytes/s.\n",
        config.method.trials,
        config.method.target_ns as f64 / 1e9,
        config.method.min_calls
    );
    for alg in Algorithm::ALL {
        let _ = writeln!(s, "### {alg}\n\n![{alg} {u}/byte](./{})\n", chart_name(alg));
        for op in pavelor_ops
            .iter()
            .filter(|o| matches!(o, Operation::Pavelor(a, _) if *a == alg))
        {
            let _ = writeln!(s, "**{op}**\n");
            perf_table(&mut s, c, *op, &config.sizes, u);
            if let (Some(p), Some(m)) = (&c.probe, find(c, *op, 65536))
                && matches!(op, Operation::Pavelor(_, b) if *b != Backend::Portable)
                && p.counter == m.counter()
            {
                {
                    let bound = p.bound_per_byte(alg);
                    let _ = writeln!(
                        s,
                        "AES-throughput bound at 64 KiB: 456 × {:.3} / {} = {:.3} {u}/byte; measured {:.3}: **{:.0}% of the bound** (`records/aes-probe.json`, {:.3} {u} per {}).{}\n",
                        p.per_aesenc,
                        alg.rate_len(),
                        bound,
                        m.cycles_per_byte(),
                        100.0 * bound / m.cycles_per_byte(),
                        p.per_aesenc,
                        hw::aes_round_name(),
                        if cfg!(target_arch = "aarch64") {
                            " On AArch64 each Paff AES round is an `AESE`+`AESMC` pair plus an `EOR` on the same vector pipes, so this bound (pairs only) is not reachable."
                        } else {
                            ""
                        }
                    );
                }
            }
        }
    }
    let others: Vec<Operation> = Operation::OTHERS
        .iter()
        .copied()
        .filter(|o| config.ops.contains(o))
        .collect();
    if !others.is_empty() {
        let _ = writeln!(s, "### Comparison hashes (same run, same method)\n");
        for op in &others {
            let _ = writeln!(s, "**{} — {}**\n", op.algorithm_name(), op.implementation());
            perf_table(&mut s, c, *op, &config.sizes, u);
        }
    }

    let _ = writeln!(s, "## 5. Resource consumption\n");
    if let Some(st) = &c.static_size {
        let _ = writeln!(
            s,
            "Static memory of the measuring executable `{}`: {} bytes of loadable ELF segments (the whole program: hashing code, command-line tool, comparison hashes, Rust runtime); of these, {} bytes in {} symbols belong to the `pavelor` crate (all backends' code and constants). Evidence: `records/static-size.json`.\n",
            config.measured_exe.display(),
            st.loadable_bytes,
            st.pavelor_symbol_bytes,
            st.pavelor_symbols
        );
    }
    let _ = writeln!(
        s,
        "| instance | backend | static memory (pavelor code + constants) | baseline RSS | peak RSS (VmHWM) |\n|---|---|---:|---:|---:|"
    );
    for op in &pavelor_ops {
        let ms: Vec<&Measurement> = c.measurements.iter().filter(|m| m.op == op.id()).collect();
        let base = ms.iter().filter_map(|m| m.baseline_rss_kib()).max();
        let peak = ms.iter().filter_map(|m| m.peak_rss_kib()).max();
        if let Operation::Pavelor(a, b) = op {
            let _ = writeln!(
                s,
                "| {a} | {b} | {} | {} | {} |",
                c.static_size
                    .as_ref()
                    .map_or("unknown".into(), |st| format!(
                        "{} B",
                        st.pavelor_symbol_bytes
                    )),
                fmt_opt(base, " KiB"),
                fmt_opt(peak, " KiB")
            );
        }
    }
    let _ = writeln!(
        s,
        "\nBoth memory figures are upper-bound proxies: RSS counts the whole measuring process (runtime, message buffer of up to 64 KiB, libraries), not only the hash state (320-byte state plus one rate block). The maxima over every message length's trials are shown; per-trial values are in the records.\n"
    );

    let _ = writeln!(
        s,
        "## 6. Public-key specific figures\n\nNot applicable (hash function).\n"
    );

    let _ = writeln!(s, "## 7. Raw evidence index\n");
    let _ = writeln!(s, "| figure | record |\n|---|---|");
    for m in &c.measurements {
        let name = Operation::from_id(&m.op).map_or(m.op.clone(), |o| o.to_string());
        let _ = writeln!(
            s,
            "| {name}, {} B | [`{}`](./{}) |",
            m.size,
            record_name(m),
            record_name(m)
        );
    }
    let _ = writeln!(
        s,
        "| functional tests | [`records/kat.json`](./records/kat.json) |"
    );
    let _ = writeln!(
        s,
        "| environment | [`records/environment.json`](./records/environment.json) |"
    );
    if c.probe.is_some() {
        let _ = writeln!(
            s,
            "| AES-round throughput probe | [`records/aes-probe.json`](./records/aes-probe.json) |"
        );
    }
    if c.static_size.is_some() {
        let _ = writeln!(
            s,
            "| static memory | [`records/static-size.json`](./records/static-size.json) |"
        );
    }

    let _ = writeln!(
        s,
        "\n## Comparison with the reference campaigns and other hashes\n"
    );
    let _ = writeln!(
        s,
        "Anchor figures: the submitted reference C (byte-wise table AES) measured by the NICCS campaigns on x86_1 (i7-12700, 2.1 GHz) and arm_1 (Oryon, 2.71 GHz), in core cycles. This run's figures are in {u} on this machine, so the ratios compare implementations across machines and counters: indicative, not exact.\n"
    );
    let _ = writeln!(
        s,
        "| instance | backend | this run, {u}/byte at 64 KiB | reference C x86_1 | speed-up vs x86_1 | reference C arm_1 | speed-up vs arm_1 |\n|---|---|---:|---:|---:|---:|---:|"
    );
    for &(alg, arm, x86) in &ANCHORS_64K {
        for op in pavelor_ops
            .iter()
            .filter(|o| matches!(o, Operation::Pavelor(a, _) if *a == alg))
        {
            if let (Operation::Pavelor(_, b), Some(m)) = (op, find(c, *op, 65536)) {
                let cpb = m.cycles_per_byte();
                let _ = writeln!(
                    s,
                    "| {alg} | {b} | {cpb:.2} | {x86} | {:.1}× | {arm} | {:.1}× |",
                    x86 / cpb,
                    arm / cpb
                );
            }
        }
    }
    let _ = writeln!(
        s,
        "\n| instance | backend | this run, mean {u} at 32 B | reference C x86_1 | reference C arm_1 |\n|---|---|---:|---:|---:|"
    );
    for &(alg, arm, x86) in &ANCHORS_32B {
        for op in pavelor_ops
            .iter()
            .filter(|o| matches!(o, Operation::Pavelor(a, _) if *a == alg))
        {
            if let (Operation::Pavelor(_, b), Some(m)) = (op, find(c, *op, 32)) {
                let _ = writeln!(
                    s,
                    "| {alg} | {b} | {:.0} | {x86:.0} | {arm:.0} |",
                    m.mean_cycles()
                );
            }
        }
    }
    if !others.is_empty() {
        let best = Operation::Pavelor(Algorithm::Pavelor512, Backend::best());
        let _ = writeln!(
            s,
            "\nThroughput in this run (MB/s) and Pavelor-512 ({}) relative to each:\n",
            Backend::best()
        );
        let mut header = String::from("| hash |");
        let mut rule = String::from("|---|");
        for size in &config.sizes {
            let _ = write!(header, " {size} B |");
            rule.push_str("---:|");
        }
        let _ = writeln!(s, "{header}\n{rule}");
        for op in pavelor_ops.iter().chain(others.iter()) {
            let mut row = format!("| {op} |");
            for &size in &config.sizes {
                let cell = match (find(c, *op, size), find(c, best, size)) {
                    (Some(m), Some(p)) if *op != best && !matches!(op, Operation::Pavelor(..)) => {
                        format!(
                            " {:.0} ({:.2}×) |",
                            m.mb_per_s(),
                            p.mb_per_s() / m.mb_per_s()
                        )
                    }
                    (Some(m), _) => format!(" {:.0} |", m.mb_per_s()),
                    _ => " – |".into(),
                };
                row.push_str(&cell);
            }
            let _ = writeln!(s, "{row}");
        }
        let _ = writeln!(
            s,
            "\n(×) = Pavelor-512 throughput divided by that hash's, same message length; > 1 means Pavelor-512 is faster."
        );
    }
    s
}

fn perf_table(s: &mut String, c: &Campaign, op: Operation, sizes: &[usize], u: &str) {
    let _ = writeln!(
        s,
        "| size | bytes | mean {u} | {u}/byte | median of trial means | mean time | MB/s | n (trials × calls) | record |\n|---|---:|---:|---:|---:|---:|---:|---|---|"
    );
    for (i, &size) in sizes.iter().enumerate() {
        if let Some(m) = find(c, op, size) {
            let label = SIZES
                .iter()
                .position(|&x| x == size)
                .map_or(format!("#{}", i + 1), |k| format!("S{}", k + 1));
            let _ = writeln!(
                s,
                "| {label} | {size} | {:.0} | {:.2} | {:.0} | {} | {:.1} | {} ({} × {}) | [json](./{}) |",
                m.mean_cycles(),
                m.cycles_per_byte(),
                m.median_trial_mean_cycles(),
                human_ns(m.mean_ns()),
                m.mb_per_s(),
                m.total_calls(),
                m.trials.len(),
                m.calls_per_trial,
                record_name(m)
            );
        }
    }
    s.push('\n');
}
