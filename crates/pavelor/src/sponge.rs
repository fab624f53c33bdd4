//! The sponge: state plus backend, 10*1 padding (including a final partial
//! byte), absorbing and squeezing. One implementation serves all three
//! instances and all backends: the streaming hasher uses [`Sponge`], the
//! fused one-shot kernels and the batch lanes use [`pad`] and
//! [`squeeze_blocks`].

use crate::backend::{Engine, wipe};
use crate::paff::State;
use crate::params::{MAX_RATE, Variant};

/// The permutation state together with the backend that permutes it.
#[derive(Clone, Debug)]
pub(crate) struct Sponge {
    state: State,
    engine: Engine,
}

impl Sponge {
    /// The initial state of instance `V`.
    #[inline]
    pub(crate) fn new<V: Variant>(engine: Engine) -> Self {
        Sponge {
            state: V::IV,
            engine,
        }
    }

    /// A sponge continuing from `state` (a lane leaving a multi-lane
    /// kernel).
    #[inline]
    pub(crate) fn from_state(state: State, engine: Engine) -> Self {
        Sponge { state, engine }
    }

    /// The backend in use.
    pub(crate) fn engine(&self) -> Engine {
        self.engine
    }

    /// Absorbs whole blocks; `blocks.len()` is a multiple of `V::RATE`.
    #[inline]
    pub(crate) fn absorb_blocks<V: Variant>(&mut self, blocks: &[u8]) {
        self.engine.absorb::<V>(&mut self.state, blocks);
    }

    /// Pads and absorbs the end of the message — `data` (fewer than
    /// `V::RATE` whole bytes) followed by the top `tail_bits` (0..8) bits of
    /// `tail` — then squeezes the digest into `out` (`V::DIGEST` bytes).
    #[inline]
    pub(crate) fn finish<V: Variant>(
        &mut self,
        data: &[u8],
        tail: u8,
        tail_bits: u8,
        out: &mut [u8],
    ) {
        debug_assert_eq!(out.len(), V::DIGEST);
        let mut buf = [0u8; 2 * MAX_RATE];
        let nb = pad::<V>(data, tail, tail_bits, &mut buf);
        self.engine
            .absorb::<V>(&mut self.state, &buf[..nb * V::RATE]);
        wipe(&mut buf[..nb * V::RATE]);
        self.squeeze::<V>(out);
    }

    /// Squeezes `out.len()` bytes: `min(r, left)` bytes of the rate, then
    /// Paff, until `out` is full (Pavelor-1024 reads two rate blocks).
    #[inline]
    pub(crate) fn squeeze<V: Variant>(&mut self, out: &mut [u8]) {
        for (k, chunk) in out.chunks_mut(V::RATE).enumerate() {
            if k > 0 {
                self.engine.permute(&mut self.state);
            }
            chunk.copy_from_slice(&self.state.as_flattened()[..chunk.len()]);
        }
    }
}

/// The padded end of a message, the one padding routine of the crate (the
/// fused one-shot kernels, the streaming sponge and the batch lanes all use
/// it): writes `data` (fewer than `V::RATE` whole bytes), the top
/// `tail_bits` (0..8) bits of `tail`, then the 10*1 padding into `buf`, and
/// returns the number of `V::RATE`-byte blocks written (1, or 2 when the
/// first padding bit fills the block). `buf` must be all zero on entry.
///
/// Only the public lengths steer the control flow; the bits of the partial
/// byte are combined with masks.
#[inline(always)]
pub(crate) fn pad<V: Variant>(
    data: &[u8],
    tail: u8,
    tail_bits: u8,
    buf: &mut [u8; 2 * MAX_RATE],
) -> usize {
    let rate = V::RATE;
    debug_assert!(data.len() < rate && tail_bits < 8);
    let n = data.len().min(rate - 1);
    let used = u32::from(tail_bits % 8);
    buf[..n].copy_from_slice(&data[..n]);
    // The message's partial byte (its top `used` bits), then the first `1`.
    let first = (tail & !(0xFFu8.wrapping_shr(used))) | 0x80u8.wrapping_shr(used);
    // The first `1` fills the block only after a 7-bit partial last byte.
    let blocks = if n == rate - 1 && used == 7 { 2 } else { 1 };
    // The closing `1`, in the same byte as the first one when the message
    // ends just before the last byte of the block (plain stores only: no
    // read-modify-write of a buffer byte that may hold message bits).
    let last = blocks * rate - 1;
    if last == n {
        buf[n] = first | 0x01;
    } else {
        buf[n] = first;
        buf[last] = 0x01;
    }
    blocks
}

/// How many rate blocks the squeeze reads (with one Paff between each two):
/// 1 for Pavelor-512 and -768, 2 for Pavelor-1024.
pub(crate) const fn squeeze_blocks<V: Variant>() -> usize {
    V::DIGEST.div_ceil(V::RATE)
}

impl Drop for Sponge {
    fn drop(&mut self) {
        wipe(self.state.as_flattened_mut());
    }
}
