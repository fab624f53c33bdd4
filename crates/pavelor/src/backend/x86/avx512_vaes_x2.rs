//! x86 VAES 2-lane batch kernel of the AVX-512 level: two states in `ymm`
//! registers with EVEX encoding (32 registers: no spills), for batches of
//! two or three messages. Used by the `avx512-vaes` backend's batches.
//!
//! The state layout is [`Lanes<2>`]; the Paff round and the absorb body are
//! the shared ones (the wiring macro, [`crate::backend::kernel`]).
//!
//! Constant-time: `VAESENC` has data-independent timing; the only branches
//! are on the public number of blocks.

#[cfg(target_arch = "x86")]
use core::arch::x86::*;
#[cfg(target_arch = "x86_64")]
use core::arch::x86_64::*;

use crate::backend::kernel::absorb_lanes;
use crate::backend::lanes::Lanes;
use crate::definition::instances::Variant;

/// The level's proof: the batch kernels need exactly the features of the
/// single-message kernel, so one detection serves both.
use super::avx512_vaes::Token;

vector_256!(
    /// Two AES blocks in a `ymm` register, EVEX encoding (32 registers).
    Ymm,
    state_in_regs
);

/// Absorbs `min_l blocks[l].len() / V::RATE` blocks into each of the two
/// interleaved states.
#[inline]
pub(crate) fn absorb_x2<V: Variant>(_token: Token, st: &mut Lanes<2>, blocks: [&[u8]; 2]) {
    // SAFETY: the token proves the target features.
    unsafe { absorb_x2_impl::<V>(st, blocks) }
}

/// # Safety
/// The CPU must support AVX-512 F/VL/BW and VAES.
#[target_feature(enable = "aes,sse2,avx,avx2,avx512f,avx512vl,avx512bw,vaes")]
unsafe fn absorb_x2_impl<V: Variant>(st: &mut Lanes<2>, blocks: [&[u8]; 2]) {
    // SAFETY: the target features are enabled here.
    unsafe { absorb_lanes::<2, Ymm, V>(st, blocks) }
}
