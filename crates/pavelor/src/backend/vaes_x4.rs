//! x86 VAES batch kernels of the AVX-512 level: four independent states in
//! the 128-bit lanes of `zmm` registers (`vaesenc zmm`: four AES rounds,
//! one per message), and two states in `ymm` registers with EVEX encoding
//! (32 registers: no spills), for batches of two or three messages. Used by
//! the `avx512-vaes` backend's batches.
//!
//! The state layout is [`super::Lanes<N>`]: subblock `j` of all lanes is
//! `16 N` contiguous bytes, one vector load. The Paff round and the absorb
//! body are the shared ones ([`crate::paff::paff_rounds!`],
//! [`super::kernel`]); `RC[i]` is broadcast to every lane.
//!
//! Constant-time: `VAESENC` has data-independent timing; the only branches
//! are on the public number of blocks.

#[cfg(target_arch = "x86")]
use core::arch::x86::*;
#[cfg(target_arch = "x86_64")]
use core::arch::x86_64::*;

use super::Lanes;
use super::kernel::{Vector, absorb_lanes, state_in_regs};
use crate::paff::RC;
use crate::params::Variant;

/// Proof that the CPU has VAES and AVX-512 F/VL/BW. The multi-lane
/// kernels need exactly the features of the single-message level, so the
/// proof is made from that level's ([`Token::of_level`]): one detection
/// (one series of CPUID reads, each a trap to the hypervisor in a VM)
/// serves both.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Token(());

impl Token {
    /// The token of the AVX-512 + VAES level, which proves the same
    /// features.
    #[inline]
    pub(crate) fn of_level(_level: super::avx512_vaes::Token) -> Self {
        Token(())
    }
}

/// Four AES blocks in a `zmm` register.
#[derive(Clone, Copy)]
pub(crate) struct Zmm(__m512i);

/// Two AES blocks in a `ymm` register, EVEX-encoded operations.
#[derive(Clone, Copy)]
pub(crate) struct Ymm(__m256i);

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

// SAFETY (every method): as for `Zmm`.
impl Vector<2> for Ymm {
    state_in_regs!();

    #[inline(always)]
    unsafe fn load(row: &[[u8; 16]; 2]) -> Self {
        // SAFETY: 32 readable bytes; unaligned load.
        Ymm(unsafe { _mm256_loadu_si256(row.as_ptr().cast()) })
    }

    #[inline(always)]
    unsafe fn store(self, row: &mut [[u8; 16]; 2]) {
        // SAFETY: 32 writable bytes; unaligned store.
        unsafe { _mm256_storeu_si256(row.as_mut_ptr().cast(), self.0) }
    }

    #[inline(always)]
    unsafe fn load_msg(p: &[*const u8; 2], off: usize) -> Self {
        // SAFETY: the caller guarantees 16 readable bytes at `p[l] + off`.
        Ymm(unsafe { _mm256_loadu2_m128i(p[1].add(off).cast(), p[0].add(off).cast()) })
    }

    #[inline(always)]
    unsafe fn aesenc(self, key: Self) -> Self {
        // SAFETY: VAES + AVX-512VL enabled in the calling kernel.
        Ymm(unsafe { _mm256_aesenc_epi128(self.0, key.0) })
    }

    #[inline(always)]
    unsafe fn xor(self, other: Self) -> Self {
        // SAFETY: AVX2 enabled in the calling kernel.
        Ymm(unsafe { _mm256_xor_si256(self.0, other.0) })
    }

    #[inline(always)]
    unsafe fn rc(round: usize) -> Self {
        // SAFETY: `RC[round]` is 16 readable bytes (bounds-checked index).
        Ymm(unsafe { _mm256_broadcastsi128_si256(_mm_loadu_si128(RC[round].as_ptr().cast())) })
    }
}

/// Absorbs `min_l blocks[l].len() / V::RATE` blocks into each of the four
/// interleaved states.
#[inline]
pub(crate) fn absorb_x4<V: Variant>(_token: Token, st: &mut Lanes<4>, blocks: [&[u8]; 4]) {
    // SAFETY: the token proves the target features.
    unsafe { absorb_x4_impl::<V>(st, blocks) }
}

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
unsafe fn absorb_x4_impl<V: Variant>(st: &mut Lanes<4>, blocks: [&[u8]; 4]) {
    // SAFETY: the target features are enabled here.
    unsafe { absorb_lanes::<4, Zmm, V>(st, blocks) }
}

/// # Safety
/// The CPU must support AVX-512 F/VL/BW and VAES.
#[target_feature(enable = "aes,sse2,avx,avx2,avx512f,avx512vl,avx512bw,vaes")]
unsafe fn absorb_x2_impl<V: Variant>(st: &mut Lanes<2>, blocks: [&[u8]; 2]) {
    // SAFETY: the target features are enabled here.
    unsafe { absorb_lanes::<2, Ymm, V>(st, blocks) }
}
