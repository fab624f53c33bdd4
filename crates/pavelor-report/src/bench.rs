//! `pavelor bench`: one in-process run that puts every Pavelor instance and
//! backend, the batched API and the usual alternatives side by side, with
//! the AES-round throughput bound measured in the same run.
//!
//! This is the quick comparison for developers; the NICCS-method figures
//! (separate processes, trials, evidence records) come from [`crate`].

use std::hint::black_box;

use pavelor::{Algorithm, Available, Backend};
use serde::Serialize;

use pavelor_measure::aes_probe::{AesProbe, aes_probe, bound_per_call, probe_aes_with};
use pavelor_measure::clock::{CounterKind, CycleCounter, monotonic_raw_ns};
use pavelor_measure::ops::{Operation, Prepared};
use pavelor_measure::protocol::message;

/// Messages per call of the batched API.
pub const BATCH: usize = 16;

/// One thing to time.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BenchOp {
    /// A one-shot hash call.
    Single(Operation),
    /// `hash_many` over [`BATCH`] messages of the same length.
    Batch(Algorithm, Backend),
    /// One `CryptHash` call of a C library (`--lib`) at one instance.
    Lib {
        /// The library's name.
        name: String,
        /// The library file.
        path: std::path::PathBuf,
        /// The instance.
        alg: Algorithm,
    },
}

impl BenchOp {
    /// Display name.
    pub fn name(&self) -> String {
        match self {
            BenchOp::Single(op) => op.to_string(),
            BenchOp::Batch(a, b) => format!("{a} ({b}, hash_many ×{BATCH})"),
            BenchOp::Lib { name, alg, .. } => format!("{alg} (C library {name})"),
        }
    }

    /// Every op `pavelor bench` measures by default: each instance on each
    /// backend, the batched API on each backend with more than one lane, and
    /// the comparison hashes.
    pub fn all() -> Vec<BenchOp> {
        let mut ops: Vec<BenchOp> = Operation::pavelor_all()
            .into_iter()
            .map(BenchOp::Single)
            .collect();
        for alg in Algorithm::ALL {
            for b in Available::all().filter(|b| b.lanes() > 1) {
                ops.push(BenchOp::Batch(alg, b.backend()));
            }
        }
        ops.extend(Operation::OTHERS.into_iter().map(BenchOp::Single));
        ops
    }
}

/// The C libraries for `pavelor bench --lib`: each is probed in a worker
/// process first (isolated: crash, hang, wrong digest or over-write are
/// reported, never timed); the instances it computes correctly become ops,
/// timed in this process. (The full KAT gate and per-trial isolation are
/// `pavelor report --lib`'s.)
pub fn lib_ops(
    worker: &pavelor_measure::protocol::WorkerCommand,
    libs: &[pavelor_measure::library::LibSpec],
    timeout: std::time::Duration,
) -> (Vec<BenchOp>, Vec<pavelor_measure::library::gate::LibGate>) {
    let config = pavelor_measure::library::gate::GateConfig {
        kat_dir: None,
        kat_2_33: false,
        timeout,
        kats: false,
        loop_not_run: None,
        memory_bytes: pavelor_measure::campaign::DEFAULT_WORKER_MEMORY_BYTES,
    };
    let mut ops = Vec::new();
    let mut gates = Vec::new();
    for l in libs {
        let g = pavelor_measure::library::gate::run(worker, l, &config, &mut |_| {});
        for alg in g.measured_instances() {
            ops.push(BenchOp::Lib {
                name: l.name.clone(),
                path: l.path.clone(),
                alg,
            });
        }
        gates.push(g);
    }
    (ops, gates)
}

/// One measured figure.
#[derive(Clone, Debug, Serialize)]
pub struct Row {
    /// What was measured.
    pub name: String,
    /// Message length in bytes.
    pub size: usize,
    /// Bytes hashed per call (size, or size × BATCH).
    pub bytes_per_call: usize,
    /// Timed calls.
    pub calls: u64,
    /// Counter units per message byte.
    pub per_byte: f64,
    /// Throughput, 10^6 bytes per second.
    pub mb_per_s: f64,
    /// Throughput relative to SHA-512 at the same size, if measured.
    pub vs_sha512: Option<f64>,
    /// AES-throughput bound for this message length (its Paff calls at full
    /// AESENC throughput) divided by the measured figure (1.0 = at the
    /// bound), for hardware-AES Pavelor rows.
    pub of_bound: Option<f64>,
}

/// The whole run.
#[derive(Clone, Debug, Serialize)]
pub struct BenchOutput {
    /// Counter used for `per_byte`.
    pub counter: CounterKind,
    /// Its unit.
    pub unit: &'static str,
    /// Why the cycle counter is not used, if it is not.
    pub counter_note: Option<String>,
    /// The AES probe (x86 with AES-NI).
    pub aes_probe: Option<AesProbe>,
    /// The figures.
    pub rows: Vec<Row>,
}

enum Callable {
    Single(Prepared),
    Batch(Algorithm, Available, Vec<u8>),
    Lib(
        pavelor_measure::cabi::CLibrary,
        i32,
        pavelor_measure::cabi::GuardedDigest,
    ),
}

impl Callable {
    #[inline]
    fn call(&mut self, msg: &[u8], out: &mut [u8; 128]) {
        match self {
            Callable::Single(p) => p.hash(msg, out),
            Callable::Batch(alg, backend, buf) => {
                let inputs = [msg; BATCH];
                let _ = pavelor::batch::hash_many_dyn_with(*alg, *backend, &inputs, buf);
                black_box(&buf);
            }
            Callable::Lib(lib, bits, digest) => {
                lib.hash(*bits, msg, 8 * msg.len() as u64, digest);
                black_box(digest.digest());
            }
        }
    }
}

/// Times `op` at `size` for about `target_ns`; returns (calls, counter delta, ns).
fn time_op(
    op: &BenchOp,
    size: usize,
    target_ns: u64,
    counter: &mut CycleCounter,
) -> Result<(u64, u64, u64), String> {
    let mut callable = match op {
        BenchOp::Single(o) => Callable::Single(o.prepare().map_err(|e| e.to_string())?),
        BenchOp::Batch(a, b) => Callable::Batch(
            *a,
            Available::resolve(Some(b.name())).map_err(|e| e.to_string())?,
            vec![0u8; BATCH * a.output_len()],
        ),
        BenchOp::Lib { path, alg, .. } => Callable::Lib(
            pavelor_measure::cabi::CLibrary::open(path)?,
            alg.output_bits() as i32,
            pavelor_measure::cabi::GuardedDigest::new(alg.output_len()),
        ),
    };
    let msg = message(size);
    let mut out = [0u8; 128];
    callable.call(&msg, &mut out); // warm-up / calibration call
    if let (Callable::Lib(_, _, digest), BenchOp::Lib { alg, name, .. }) = (&callable, op)
        && (digest.overwritten() > 0
            || digest.digest()
                != pavelor_measure::library::tasks::reference(*alg, &msg, 8 * size as u64))
    {
        return Err(format!(
            "library {name}: wrong digest or over-write at {size} B; not timed"
        ));
    }
    let mut calls = 1u64;
    let mut elapsed;
    loop {
        let t0 = monotonic_raw_ns();
        for _ in 0..calls {
            callable.call(black_box(&msg), &mut out);
        }
        elapsed = monotonic_raw_ns() - t0;
        if elapsed >= target_ns / 10 || calls >= 1 << 30 {
            break;
        }
        calls *= 2;
    }
    let calls = ((calls as f64) * target_ns as f64 / elapsed.max(1) as f64)
        .ceil()
        .max(1.0) as u64;
    let (c0, t0) = (counter.read(), monotonic_raw_ns());
    for _ in 0..calls {
        callable.call(black_box(&msg), &mut out);
        black_box(&out);
    }
    let (t1, c1) = (monotonic_raw_ns(), counter.read());
    Ok((calls, c1.wrapping_sub(c0), t1 - t0))
}

/// Runs every op at every size. `progress` is told each step (name, size).
pub fn run(
    ops: &[BenchOp],
    sizes: &[usize],
    target_ns: u64,
    progress: &mut dyn FnMut(&str, usize),
) -> Result<BenchOutput, String> {
    let mut counter = CycleCounter::open(false);
    let probe = aes_probe(false).filter(|p| p.counter == counter.kind());
    let mut rows = Vec::new();
    for &size in sizes {
        for op in ops {
            progress(&op.name(), size);
            let (calls, cycles, ns) = time_op(op, size, target_ns, &mut counter)?;
            let bytes_per_call = match op {
                BenchOp::Batch(..) => size * BATCH,
                BenchOp::Single(_) | BenchOp::Lib { .. } => size,
            };
            let total = (calls * bytes_per_call as u64) as f64;
            let per_byte = cycles as f64 / total;
            // The bound from an AES probe run right after the figure (same
            // moment: clock changes during the run cancel out).
            let mut fresh = |alg: pavelor::Algorithm| {
                probe.as_ref()?;
                probe_aes_with(&mut counter, 3, 200_000)
                    .map(|r| bound_per_call(r.per_round, alg, size) / size as f64)
            };
            let bound = match op {
                BenchOp::Single(Operation::Pavelor(a, b)) if *b != Backend::Portable => fresh(*a),
                BenchOp::Lib { alg, .. } => fresh(*alg),
                // The probe's figure is per 128-bit block of its fastest
                // form, wide forms included: a batch's bound per byte is the
                // single message's.
                BenchOp::Batch(a, b) if *b != Backend::Portable => fresh(*a),
                _ => None,
            };
            rows.push(Row {
                name: op.name(),
                size,
                bytes_per_call,
                calls,
                per_byte,
                mb_per_s: total * 1e3 / ns.max(1) as f64,
                vs_sha512: None,
                of_bound: bound.map(|b| b / per_byte),
            });
        }
        let sha = rows
            .iter()
            .find(|r| r.size == size && r.name == Operation::Sha512.to_string())
            .map(|r| r.mb_per_s);
        if let Some(sha) = sha {
            for r in rows.iter_mut().filter(|r| r.size == size) {
                r.vs_sha512 = Some(r.mb_per_s / sha);
            }
        }
    }
    Ok(BenchOutput {
        counter: counter.kind(),
        unit: counter.kind().unit(),
        counter_note: counter.fallback_reason.clone(),
        aes_probe: probe,
        rows,
    })
}

/// The human-readable table.
pub fn render_text(b: &BenchOutput) -> String {
    use std::fmt::Write as _;
    let mut s = String::new();
    let _ = writeln!(
        s,
        "counter: {}{}",
        b.unit,
        b.counter_note
            .as_ref()
            .map_or(String::new(), |n| format!(" ({n})"))
    );
    if let Some(p) = &b.aes_probe {
        let _ = writeln!(
            s,
            "{} at full throughput: {:.3} {} per 128-bit AES round ({} chains); single-message bound: {} (\"of bound\": against a probe run right after each figure)",
            p.instruction_name(),
            p.per_round,
            b.unit,
            p.chains,
            Algorithm::ALL
                .iter()
                .map(|&a| format!("{a} {:.3}/B", p.bound_per_byte(a)))
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    let mut sizes: Vec<usize> = b.rows.iter().map(|r| r.size).collect();
    sizes.dedup();
    let width = b
        .rows
        .iter()
        .map(|r| r.name.len())
        .max()
        .unwrap_or(10)
        .max(10);
    for size in sizes {
        let _ = writeln!(s, "\nmessage length {size} B");
        let _ = writeln!(
            s,
            "  {:<width$} {:>10} {:>12} {:>10} {:>9}",
            "hash",
            "MB/s",
            format!("{}/B", short(b.unit)),
            "vs SHA-512",
            "of bound"
        );
        for r in b.rows.iter().filter(|r| r.size == size) {
            let _ = writeln!(
                s,
                "  {:<width$} {:>10.1} {:>12.3} {:>10} {:>9}",
                r.name,
                r.mb_per_s,
                r.per_byte,
                r.vs_sha512.map_or("-".into(), |v| format!("{v:.2}x")),
                r.of_bound
                    .map_or("-".into(), |v| format!("{:.0}%", 100.0 * v))
            );
        }
    }
    s
}

fn short(unit: &str) -> &str {
    unit.split_whitespace().next().unwrap_or(unit)
}
