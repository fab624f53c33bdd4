//! How `pavelor bench` takes one figure. The rule, for every op and size:
//!
//! 1. **Warm-up:** [`WARMUP_CALLS`] calls (the first is the one a library's
//!    answer is checked on), not timed.
//! 2. **Calibration:** batches of 1, 2, 4, … calls, each timed, until one
//!    lasts at least a tenth of the figure's time (`--seconds`). None of
//!    these calls is counted; they also warm the caches, the branch
//!    predictors and the clock for at least that long.
//! 3. **Timed calls:** as many as the last batch's rate says fill the
//!    figure's time, run as [`BLOCKS`] consecutive blocks of equal calls,
//!    each read on the counter and the clock. The figure is the whole run's
//!    counter units over its bytes; the blocks' figures are its noise
//!    ([`super::self_check`]).

use std::hint::black_box;

use pavelor::{Algorithm, Available};
use pavelor_measure::clock::{CycleCounter, monotonic_raw_ns};
use pavelor_measure::ops::Prepared;
use pavelor_niccs::stats;

use super::BATCH;

/// Calls made before the calibration.
pub const WARMUP_CALLS: u64 = 3;

/// The consecutive blocks a figure's timed calls are run in.
pub const BLOCKS: usize = 8;

/// A ready-to-call op.
pub(super) enum Callable {
    Single(Prepared),
    Batch(Algorithm, Available, Vec<u8>),
    Lib(
        pavelor_measure::cabi::CLibrary,
        i32,
        pavelor_measure::cabi::GuardedDigest,
    ),
}

impl Callable {
    /// Whether the last call's answer is the digest of `msg` under `alg`
    /// with nothing written past it (a library's; this crate's ops are
    /// checked by its own tests).
    pub(super) fn answer_is(&self, alg: Algorithm, msg: &[u8]) -> bool {
        match self {
            Callable::Lib(_, _, digest) => {
                digest.overwritten() == 0
                    && digest.digest()
                        == pavelor_measure::library::reference(alg, msg, 8 * msg.len() as u64)
            }
            Callable::Single(_) | Callable::Batch(..) => true,
        }
    }

    #[inline]
    pub(super) fn call(&mut self, msg: &[u8], out: &mut [u8; 128]) {
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

/// One block of timed calls.
#[derive(Clone, Copy, Debug)]
pub struct Block {
    /// Calls in the block.
    pub calls: u64,
    /// Counter units over the block.
    pub counts: u64,
    /// Nanoseconds over the block.
    pub ns: u64,
}

/// The timed calls of one figure, block by block.
#[derive(Clone, Debug)]
pub struct Timed {
    /// The blocks, in the order they ran.
    pub blocks: Vec<Block>,
}

impl Timed {
    /// Timed calls in all.
    pub fn calls(&self) -> u64 {
        self.blocks.iter().map(|b| b.calls).sum()
    }

    /// Counter units per byte over all the blocks, `bytes` per call.
    pub fn per_byte(&self, bytes: usize) -> f64 {
        let counts: u64 = self.blocks.iter().map(|b| b.counts).sum();
        stats::per_byte(stats::per_call(counts, self.calls()), bytes)
    }

    /// 10^6 bytes per second over all the blocks.
    pub fn mb_per_s(&self, bytes: usize) -> f64 {
        let ns: u64 = self.blocks.iter().map(|b| b.ns).sum();
        stats::mb_per_s(bytes, stats::per_call(ns, self.calls()))
    }

    /// Each block's nanoseconds per byte.
    pub fn blocks_ns_per_byte(&self, bytes: usize) -> Vec<f64> {
        self.blocks
            .iter()
            .map(|b| stats::per_byte(stats::per_call(b.ns, b.calls), bytes))
            .collect()
    }

    /// Each block's counter units per byte.
    pub fn blocks_per_byte(&self, bytes: usize) -> Vec<f64> {
        self.blocks
            .iter()
            .map(|b| stats::per_byte(stats::per_call(b.counts, b.calls), bytes))
            .collect()
    }
}

/// Takes one figure of `callable` on `msg` for about `target_ns` by the
/// module's rule. The first warm-up call has been made by the caller.
pub(super) fn time(
    callable: &mut Callable,
    msg: &[u8],
    target_ns: u64,
    counter: &mut CycleCounter,
) -> Timed {
    let mut out = [0u8; 128];
    for _ in 1..WARMUP_CALLS {
        callable.call(black_box(msg), &mut out);
    }
    let mut calls = 1u64;
    let mut elapsed;
    loop {
        let t0 = monotonic_raw_ns();
        for _ in 0..calls {
            callable.call(black_box(msg), &mut out);
        }
        elapsed = monotonic_raw_ns() - t0;
        if elapsed >= target_ns / 10 || calls >= 1 << 30 {
            break;
        }
        calls *= 2;
    }
    let total = ((calls as f64) * target_ns as f64 / elapsed.max(1) as f64).ceil();
    let per_block = ((total / BLOCKS as f64).ceil() as u64).max(1);
    let blocks = (0..BLOCKS)
        .map(|_| {
            let (c0, t0) = (counter.read(), monotonic_raw_ns());
            for _ in 0..per_block {
                callable.call(black_box(msg), &mut out);
                black_box(&out);
            }
            let (t1, c1) = (monotonic_raw_ns(), counter.read());
            Block {
                calls: per_block,
                counts: c1.wrapping_sub(c0),
                ns: t1 - t0,
            }
        })
        .collect();
    Timed { blocks }
}
