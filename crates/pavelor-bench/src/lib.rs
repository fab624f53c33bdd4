//! `pavelor bench`: one in-process run that puts every Pavelor instance and
//! backend, the batched API and the usual alternatives side by side, with
//! the two AES-round bounds of one message (throughput and latency,
//! [`pavelor_measure::aes_probe`]) measured in the same run.
//!
//! This is the quick comparison for developers; the NICCS-method figures
//! (separate processes, trials, evidence records) come from `pavelor
//! report` (the crate `pavelor-report`).
//!
//! Every figure is taken by one rule ([`timing`]): warm-up calls, a
//! calibration that is not counted, then the timed calls in
//! [`timing::BLOCKS`] consecutive blocks. At the end of the run the first
//! figure is measured again on a message placed at the end of its memory
//! ([`self_check`]); when the two disagree by more than the run's own noise
//! the output says so.

#![forbid(unsafe_code)]

use pavelor::{Algorithm, Available, Backend};
use serde::Serialize;

use pavelor_measure::aes_probe::{
    AesProbe, Binding, Roofline, aes_probe, probe_aes_with, probe_latency_with,
};
use pavelor_measure::clock::{CounterKind, CycleCounter};
use pavelor_measure::ops::Operation;
use pavelor_measure::page_end::PageEndMessage;
use pavelor_measure::protocol::{LoadError, message};
use pavelor_niccs::stats;

pub mod self_check;
pub mod sweep;
mod sweep_text;
mod text;
pub mod timing;

pub use self_check::{SelfCheck, Verdict};
pub use sweep_text::render_sweep_text;
pub use text::render_text;
use timing::{Callable, Timed};

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

/// Why `pavelor bench` could not time a figure: each message is the one
/// line the CLI prints after `bench: `.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// An op of this crate could not be set up (its backend is not
    /// available here).
    #[error("{source}")]
    Prepare {
        /// Why the op could not be prepared.
        source: pavelor::Error,
    },
    /// The backend of a batch op is not available here.
    #[error("{source}")]
    BatchBackend {
        /// The backend asked for.
        backend: Backend,
        /// Why it cannot be used.
        source: pavelor::Error,
    },
    /// A C library could not be loaded or does not export `CryptHash`.
    #[error(transparent)]
    LibraryLoad(#[from] LoadError),
    /// A library's first call gave a wrong digest or wrote past it.
    #[error("library {name}: wrong digest or over-write at {size} B; not timed")]
    WrongDigest {
        /// The library's name.
        name: String,
        /// The message size, bytes.
        size: usize,
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
        timed_sizes: Vec::new(),
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
    /// Both bounds for this message length, in counter units per byte
    /// (its Paff calls' AES rounds at full throughput; its dependent rounds
    /// at one AES latency each), from probes run right after the figure,
    /// for hardware-AES Pavelor rows and libraries.
    pub bounds: Option<Roofline>,
    /// Which of the two binds (the larger).
    pub binds: Option<Binding>,
    /// The binding bound divided by the measured figure (1.0 = at the
    /// bound).
    pub of_bound: Option<f64>,
    /// Counter units per byte of each block of the timed calls, in order.
    pub blocks_per_byte: Vec<f64>,
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
    /// The first figure measured again at the end of the run (absent for
    /// a run of no figure).
    pub self_check: Option<SelfCheck>,
}

impl BenchOp {
    /// What one call of this op costs to set up: everything that can fail
    /// is checked here, before any timing.
    fn callable(&self) -> Result<Callable, Error> {
        Ok(match self {
            BenchOp::Single(o) => {
                Callable::Single(o.prepare().map_err(|source| Error::Prepare { source })?)
            }
            BenchOp::Batch(a, b) => Callable::Batch(
                *a,
                Available::resolve(Some(b.name())).map_err(|source| Error::BatchBackend {
                    backend: *b,
                    source,
                })?,
                vec![0u8; BATCH * a.output_len()],
            ),
            BenchOp::Lib { path, alg, .. } => Callable::Lib(
                pavelor_measure::cabi::CLibrary::open(path)?,
                alg.output_bits() as i32,
                pavelor_measure::cabi::GuardedDigest::new(alg.output_len()),
            ),
        })
    }

    fn bytes_per_call(&self, size: usize) -> usize {
        match self {
            BenchOp::Batch(..) => size * BATCH,
            BenchOp::Single(_) | BenchOp::Lib { .. } => size,
        }
    }

    /// Times this op on `msg` for about `target_ns` by the rule of
    /// [`timing`]. A library's first call is checked against the reference
    /// digest, and a library that answers wrongly is not timed.
    fn time(&self, msg: &[u8], target_ns: u64, counter: &mut CycleCounter) -> Result<Timed, Error> {
        let mut callable = self.callable()?;
        let mut out = [0u8; 128];
        callable.call(msg, &mut out);
        if let (Callable::Lib(_, _, digest), BenchOp::Lib { alg, name, .. }) = (&callable, self)
            && (digest.overwritten() > 0
                || digest.digest()
                    != pavelor_measure::library::reference(*alg, msg, 8 * msg.len() as u64))
        {
            return Err(Error::WrongDigest {
                name: name.clone(),
                size: msg.len(),
            });
        }
        Ok(timing::time(&mut callable, msg, target_ns, counter))
    }
}

/// Runs every op at every size, then measures the first figure again
/// ([`self_check`]). `progress` is told each step (name, size).
pub fn run(
    ops: &[BenchOp],
    sizes: &[usize],
    target_ns: u64,
    progress: &mut dyn FnMut(&str, usize),
) -> Result<BenchOutput, Error> {
    let mut counter = CycleCounter::open(false);
    let probe = aes_probe(false).filter(|p| p.counter == counter.kind());
    let mut rows = Vec::new();
    let mut first: Option<(&BenchOp, usize, Timed)> = None;
    for &size in sizes {
        let msg = message(size);
        for op in ops {
            progress(&op.name(), size);
            let timed = op.time(&msg, target_ns, &mut counter)?;
            let bytes_per_call = op.bytes_per_call(size);
            let per_byte = timed.per_byte(bytes_per_call);
            // The bounds from AES probes run right after the figure (same
            // moment: clock changes during the run cancel out).
            let mut fresh = |alg: pavelor::Algorithm, messages: usize| {
                probe.as_ref()?;
                let t = probe_aes_with(&mut counter, 3, 200_000)?.per_round;
                let l = probe_latency_with(&mut counter, 3, 100_000).map(|l| l.per_round);
                let call = Roofline::of_call(t, l, alg, size);
                // The probe's throughput is per 128-bit block of its fastest
                // form, wide forms included: a batch's throughput bound per
                // byte is the single message's; its messages' chains run
                // side by side, so its latency bound per byte is a
                // `messages`-th of one message's.
                Some(Roofline {
                    throughput: stats::per_byte(call.throughput, size),
                    latency: call.latency.map(|l| stats::per_byte(l, size * messages)),
                })
            };
            let bounds = match op {
                BenchOp::Single(Operation::Pavelor(a, b)) if *b != Backend::Portable => {
                    fresh(*a, 1)
                }
                BenchOp::Lib { alg, .. } => fresh(*alg, 1),
                BenchOp::Batch(a, b) if *b != Backend::Portable => fresh(*a, BATCH),
                _ => None,
            };
            rows.push(Row {
                name: op.name(),
                size,
                bytes_per_call,
                calls: timed.calls(),
                per_byte,
                mb_per_s: timed.mb_per_s(bytes_per_call),
                vs_sha512: None,
                binds: bounds.map(|b| b.binding()),
                of_bound: bounds.map(|b| b.bound() / per_byte),
                bounds,
                blocks_per_byte: timed.blocks_per_byte(bytes_per_call),
            });
            if first.is_none() {
                first = Some((op, size, timed));
            }
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
    let self_check = match first {
        Some((op, size, timed)) => {
            progress(&format!("{} (self-check)", op.name()), size);
            Some(measure_again(op, size, &timed, target_ns, &mut counter)?)
        }
        None => None,
    };
    Ok(BenchOutput {
        counter: counter.kind(),
        unit: counter.kind().unit(),
        counter_note: counter.fallback_reason.clone(),
        aes_probe: probe,
        rows,
        self_check,
    })
}

/// The first figure again, on a copy of its message that ends at a page
/// boundary before an untouched page ([`PageEndMessage`]), timed by the
/// same rule.
fn measure_again(
    op: &BenchOp,
    size: usize,
    first: &Timed,
    target_ns: u64,
    counter: &mut CycleCounter,
) -> Result<SelfCheck, Error> {
    let msg = message(size);
    let bytes = op.bytes_per_call(size);
    let (again, placement) = match PageEndMessage::new(&msg) {
        Ok(placed) => (
            op.time(placed.as_slice(), target_ns, counter)?,
            self_check::Placement::PageEnd,
        ),
        Err(e) => (
            op.time(&msg, target_ns, counter)?,
            self_check::Placement::Heap { why: e.to_string() },
        ),
    };
    Ok(SelfCheck::new(
        op.name(),
        size,
        placement,
        (&first.blocks_per_byte(bytes), &again.blocks_per_byte(bytes)),
        (
            &first.blocks_ns_per_byte(bytes),
            &again.blocks_ns_per_byte(bytes),
        ),
    ))
}
