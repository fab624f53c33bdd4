//! `pavelor bench --sweep`: the eBASH length sweep
//! ([`pavelor_sweep`]) of each instance, in this process,
//! for a quick look in the terminal: Pavelor on the fastest backend here,
//! and each `--lib` library.

use serde::Serialize;

use pavelor::{Algorithm, Available};
use pavelor_measure::clock::{CounterKind, CycleCounter};
use pavelor_measure::ops::Operation;
use pavelor_sweep::{Curve, Summary, SweepPlan};

use super::{BenchOp, Error};

/// One implementation of one instance, swept.
#[derive(Clone, Debug, Serialize)]
pub struct SweepRow {
    /// What was swept.
    pub name: String,
    /// The instance (its name in JSON).
    #[serde(serialize_with = "algorithm_name")]
    pub alg: Algorithm,
    /// What the samples say.
    pub summary: Summary,
    /// The raw samples.
    pub curve: Curve,
}

fn algorithm_name<S: serde::Serializer>(alg: &Algorithm, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(alg.name())
}

/// A whole `bench --sweep` run.
#[derive(Clone, Debug, Serialize)]
pub struct SweepOutput {
    /// The counter.
    pub counter: CounterKind,
    /// Its unit.
    pub unit: &'static str,
    /// Why the cycle counter is not used, if it is not.
    pub counter_note: Option<String>,
    /// The seed of the random messages.
    pub seed: u64,
    /// Whether the lengths were the sparse subset (`--sweep quick`).
    pub quick: bool,
    /// Every curve, instance by instance.
    pub rows: Vec<SweepRow>,
}

/// The ops a sweep covers: each instance on the fastest backend here, and
/// the library ops given (from [`super::lib_ops`]).
pub fn sweep_ops(libs: Vec<BenchOp>) -> Vec<BenchOp> {
    let best = Available::best().backend();
    let mut ops: Vec<BenchOp> = Algorithm::ALL
        .iter()
        .map(|&a| BenchOp::Single(Operation::Pavelor(a, best)))
        .collect();
    ops.extend(
        libs.into_iter()
            .filter(|o| matches!(o, BenchOp::Lib { .. })),
    );
    ops
}

/// The lengths a library's answers are checked at before its sweep: the
/// empty message, the block boundaries of every rate, 4096.
const CHECKED: [usize; 8] = [0, 1, 63, 64, 127, 128, 191, 4096];

/// Sweeps every op (Pavelor ops and library ops only). `progress` is told
/// each op's name before its sweep.
pub fn run_sweep(
    ops: &[BenchOp],
    quick: bool,
    seed: u64,
    progress: &mut dyn FnMut(&str),
) -> Result<SweepOutput, Error> {
    let mut counter = CycleCounter::open(false);
    let mut rows = Vec::new();
    for op in ops {
        let alg = match op {
            BenchOp::Single(Operation::Pavelor(a, _)) | BenchOp::Lib { alg: a, .. } => *a,
            _ => continue,
        };
        progress(&op.name());
        let mut callable = op.callable()?;
        let mut out = [0u8; 128];
        if let BenchOp::Lib { name, .. } = op {
            for n in CHECKED {
                let msg = pavelor_measure::protocol::message(n);
                callable.call(&msg, &mut out);
                if !callable.answer_is(alg, &msg) {
                    return Err(Error::WrongDigest {
                        name: name.clone(),
                        size: n,
                    });
                }
            }
        }
        let plan = if quick {
            SweepPlan::quick(&[alg.rate_len()], seed)
        } else {
            SweepPlan::full(seed)
        };
        let curve = pavelor_sweep::sweep(&plan, &mut counter, &mut |m: &[u8]| {
            callable.call(m, &mut out);
        });
        rows.push(SweepRow {
            name: op.name(),
            alg,
            summary: curve.summary(alg),
            curve,
        });
    }
    Ok(SweepOutput {
        counter: counter.kind(),
        unit: counter.kind().unit(),
        counter_note: counter.fallback_reason.clone(),
        seed,
        quick,
        rows,
    })
}
