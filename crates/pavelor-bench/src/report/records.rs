//! The raw evidence: one JSON record per figure, one per library (identity,
//! gate, behaviour), the KATs, the environment, the probe; then the charts
//! and `report.md` last, so that every figure it shows has its record.

use std::path::Path;

use pavelor::Algorithm;
use serde::Serialize;

use super::{Campaign, Config, SIZES, charts, markdown};
use crate::campaign::{Measurement, Method};
use crate::clock::CounterKind;
use crate::env::Environment;
use crate::library::identity::Identity;
use crate::ops::{Operation, Subject};
use crate::output::atomic_write;

/// The record file of a measurement, relative to the output directory.
pub fn record_name(m: &Measurement) -> String {
    let k = SIZES
        .iter()
        .position(|&s| s == m.size)
        .map_or(String::new(), |i| format!("S{}-", i + 1));
    format!("records/{}.{}{}.json", m.op, k, m.size)
}

/// The record file of a library's gate.
pub fn library_record_name(name: &str) -> String {
    format!("records/library-{name}.json")
}

/// The JSON evidence for one figure.
#[derive(Serialize)]
struct Record<'a> {
    schema: &'static str,
    operation: &'a str,
    algorithm: &'a str,
    implementation: String,
    backend: Option<&'a str>,
    library: Option<&'a Identity>,
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
    plan: &'a crate::campaign::Plan,
    n_total: u64,
    mean_cycles: f64,
    cycles_per_byte: f64,
    median_trial_mean_cycles: f64,
    mean_ns: f64,
    mb_per_s: f64,
    baseline_rss_kib: Option<u64>,
    peak_rss_kib: Option<u64>,
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

/// What a record says about its subject: (algorithm, implementation,
/// backend, library identity).
fn describe<'a>(
    c: &'a Campaign,
    subject: &'a Subject,
) -> (
    &'static str,
    String,
    Option<&'static str>,
    Option<&'a Identity>,
) {
    match subject {
        Subject::Op(op) => (
            op.algorithm_name(),
            op.implementation(),
            match op {
                Operation::Pavelor(_, b) => Some(b.name()),
                _ => None,
            },
            None,
        ),
        Subject::Lib { name, alg, .. } => {
            let gate = c.libs.iter().find(|g| &g.spec.name == name);
            (
                alg.name(),
                format!("C library '{name}' through the ICCS CryptHash ABI"),
                None,
                gate.and_then(|g| g.identity.as_ref()),
            )
        }
    }
}

/// Writes every record, the charts and `report.md`.
pub fn write(config: &Config, c: &Campaign) -> Result<(), String> {
    let dir = &config.out_dir;
    for m in &c.measurements {
        let subject = c
            .subjects
            .iter()
            .find(|s| s.id() == m.op)
            .ok_or("a measurement of nothing measured")?;
        let (algorithm, implementation, backend, library) = describe(c, subject);
        let rec = Record {
            schema: "pavelor-report-record/2",
            operation: &m.op,
            algorithm,
            implementation,
            backend,
            library,
            message_bytes: m.size,
            input: format!(
                "{} bytes, byte i = (131 * i + {}) mod 256 (the NICCS driver's message); one-shot hash per call",
                m.size, m.size
            ),
            counter: m.counter(),
            counter_unit: m.counter().unit(),
            counter_note: m.trials.first().and_then(|t| t.counter_note.as_deref()),
            method: &config.method,
            command_line: &m.command_line,
            report_command_line: &config.command_line,
            environment: &c.environment,
            calibration: &m.calibration,
            trials: &m.trials,
            plan: &m.plan,
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
    for g in &c.libs {
        write_file(dir, &library_record_name(&g.spec.name), &json(g)?)?;
    }
    if !c.failures.is_empty() {
        write_file(dir, "records/failures.json", &json(&c.failures)?)?;
    }
    write_file(dir, "records/kat.json", &json(&c.kat)?)?;
    write_file(dir, "records/environment.json", &json(&c.environment)?)?;
    write_file(dir, "records/host-checks.json", &json(&c.host_checks)?)?;
    if let Some(p) = &c.probe {
        write_file(dir, "records/aes-probe.json", &json(p)?)?;
    }
    if let Some(s) = &c.static_size {
        write_file(dir, "records/static-size.json", &json(s)?)?;
    }
    for alg in Algorithm::ALL {
        let svg = charts::chart_for(c, alg);
        write_file(dir, &charts::chart_name(alg), svg.as_bytes())?;
    }
    let ds = super::dataset::dataset(config, c)?;
    ds.write(&dir.join("niccs").join(&config.system_id))
        .map_err(|e| e.to_string())?;
    write_file(dir, "report.md", markdown(config, c, &ds).as_bytes())
}
