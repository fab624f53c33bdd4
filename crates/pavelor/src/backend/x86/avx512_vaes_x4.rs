//! x86 VAES 4-lane batch kernel of the AVX-512 level: four independent
//! states in the 128-bit lanes of `zmm` registers (`vaesenc zmm`: four AES
//! rounds, one per message). Used by the `avx512-vaes` backend's batches.
//!
//! The state layout is [`Lanes<4>`](crate::backend::layout::Lanes): subblock `j` of all lanes is 64
//! contiguous bytes, one vector load. The Paff round and the absorb body
//! are the shared ones (the wiring macro, [`crate::backend::kernel`]);
//! `RC[i]` is broadcast to every lane.
//!
//! Constant-time: `VAESENC` has data-independent timing; the only branches
//! are on the public number of blocks.

#[cfg(target_arch = "x86")]
use core::arch::x86::*;
#[cfg(target_arch = "x86_64")]
use core::arch::x86_64::*;

use crate::backend::kernel::{Vector, lane_kernel, state_in_regs};
use crate::definition::paff::RC;

/// The level's proof: the batch kernels need exactly the features of the
/// single-message kernel, so one detection serves both.
use super::avx512_vaes::Token;

/// Four AES blocks in a `zmm` register.
#[derive(Clone, Copy)]
pub(crate) struct Zmm(__m512i);

// SAFETY (every method): called only from this file's `#[target_feature]`
// functions (AVX-512 F/VL/BW + VAES, proven by the token); memory operands
// are in bounds as documented on [`Vector`].
impl Vector<4> for Zmm {
    state_in_regs!();

    #[inline(always)]
    unsafe fn load(row: &[[u8; 16]; 4]) -> Self {
        // SAFETY: 64 readable bytes; unaligned load.
        Zmm(unsafe { _mm512_loadu_si512(row.as_ptr().cast()) })
    }

    #[inline(always)]
    unsafe fn store(self, row: &mut [[u8; 16]; 4]) {
        // SAFETY: 64 writable bytes; unaligned store.
        unsafe { _mm512_storeu_si512(row.as_mut_ptr().cast(), self.0) }
    }

    #[inline(always)]
    unsafe fn load_msg(p: &[*const u8; 4], off: usize) -> Self {
        // SAFETY: the caller guarantees 16 readable bytes at `p[l] + off`.
        Zmm(unsafe {
            let v = _mm512_castsi128_si512(_mm_loadu_si128(p[0].add(off).cast()));
            let v = _mm512_inserti32x4::<1>(v, _mm_loadu_si128(p[1].add(off).cast()));
            let v = _mm512_inserti32x4::<2>(v, _mm_loadu_si128(p[2].add(off).cast()));
            _mm512_inserti32x4::<3>(v, _mm_loadu_si128(p[3].add(off).cast()))
        })
    }

    #[inline(always)]
    unsafe fn aesenc(self, key: Self) -> Self {
        // SAFETY: VAES + AVX-512F enabled in the calling kernel.
        Zmm(unsafe { _mm512_aesenc_epi128(self.0, key.0) })
    }

    #[inline(always)]
    unsafe fn xor(self, other: Self) -> Self {
        // SAFETY: AVX-512F enabled in the calling kernel.
        Zmm(unsafe { _mm512_xor_si512(self.0, other.0) })
    }

    #[inline(always)]
    unsafe fn rc(round: usize) -> Self {
        // SAFETY: `RC[round]` is 16 readable bytes (bounds-checked index).
        Zmm(unsafe { _mm512_broadcast_i32x4(_mm_loadu_si128(RC[round].as_ptr().cast())) })
    }
}

lane_kernel!(
    Token,
    "aes,sse2,avx,avx2,avx512f,avx512vl,avx512bw,vaes",
    4,
    Zmm,
    absorb_x4,
    absorb_x4_impl
);
