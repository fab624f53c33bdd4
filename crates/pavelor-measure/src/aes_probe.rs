//! The AES-round throughput probe: the physical bound every figure is set
//! against (docs/method.md).

use pavelor::Algorithm;
use serde::{Deserialize, Serialize};

use crate::clock::{CounterKind, CycleCounter};
use crate::hw;

/// AES rounds in one Paff call.
pub const AES_ROUNDS_PER_PAFF: f64 = 456.0;

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
        bound_per_call(self.per_aesenc, alg, size)
    }
}

/// [`AesProbe::bound_per_call`] for a probe result of `per_round` counter
/// units per AES round.
pub fn bound_per_call(per_round: f64, alg: Algorithm, size: usize) -> f64 {
    let squeeze = alg.output_len().div_ceil(alg.rate_len()) - 1;
    let paffs = size / alg.rate_len() + 1 + squeeze;
    paffs as f64 * AES_ROUNDS_PER_PAFF * per_round
}

/// Measures the AES-round throughput with the given counter: `AESENC` on
/// x86, `AESE`+`AESMC` pairs on AArch64 (None without AES instructions).
pub fn aes_probe(force_ticks: bool) -> Option<AesProbe> {
    const ITER: u64 = 2_000_000;
    let mut counter = CycleCounter::open(force_ticks);
    let (best, runs) = probe_aes_with(&mut counter, 7, ITER)?;
    Some(AesProbe {
        per_aesenc: best,
        chains: hw::AES_CHAINS,
        instructions: ITER * hw::AES_CHAINS as u64,
        runs,
        counter: counter.kind(),
    })
}

/// `runs` runs of `iterations` steps of the independent AES chains, timed
/// with `counter`: (the best run's counter units per AES round, every
/// run's). `None` without AES instructions.
pub fn probe_aes_with(
    counter: &mut CycleCounter,
    runs: usize,
    iterations: u64,
) -> Option<(f64, Vec<f64>)> {
    hw::aesenc_chains(1000)?;
    let runs: Vec<f64> = (0..runs)
        .map(|_| {
            let c0 = counter.read();
            std::hint::black_box(hw::aesenc_chains(std::hint::black_box(iterations)));
            let c1 = counter.read();
            c1.wrapping_sub(c0) as f64 / (iterations as f64 * hw::AES_CHAINS as f64)
        })
        .collect();
    let best = runs.iter().copied().fold(f64::MAX, f64::min);
    Some((best, runs))
}
