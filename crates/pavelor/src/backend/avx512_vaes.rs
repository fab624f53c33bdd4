//! x86 single-message kernel, backend `avx512-vaes`: EVEX encoding of
//! `vaesenc xmm`, which VAES + AVX512VL allow on `xmm16`–`xmm31`. The 20
//! subblocks, the message words and the round constant all fit in the 32
//! registers: no spills, no state memory traffic inside the absorb loop.
//!
//! The Paff round is [`crate::paff::paff_rounds!`] and the absorb, permute
//! and one-shot bodies are the shared ones of [`super::kernel`]; this file
//! only supplies the level's vector type, its feature detection and the
//! `#[target_feature]` entry points (`permute_impl`, `absorb_impl`,
//! `hash_impl`).
//!
//! Constant-time: `AESENC` has data-independent timing; message and state
//! bytes only live in vector registers (and the wiped padding buffer), and
//! the only branches are on public lengths.

#[cfg(target_arch = "x86")]
use core::arch::x86::*;
#[cfg(target_arch = "x86_64")]
use core::arch::x86_64::*;

use super::kernel::{Masked, Vector, single_kernel, state_in_regs};
use crate::paff::RC;

cpufeatures::new!(
    cpuid, "aes", "sse2", "avx", "avx2", "avx512f", "avx512vl", "avx512bw", "vaes"
);

/// Proof that the CPU has AES-NI, VAES and AVX-512 F/VL/BW; only
/// [`Token::detect`] makes one.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Token(());

impl Token {
    /// Returns a token if this CPU supports the level (a cached atomic load
    /// after the first call).
    #[inline]
    pub(crate) fn detect() -> Option<Self> {
        cpuid::get().then_some(Token(()))
    }
}

/// One AES block in an `xmm` register, operated on with this level's
/// encoding.
#[derive(Clone, Copy)]
pub(crate) struct Xmm(__m128i);

// SAFETY (every method): called only from this file's `#[target_feature]`
// functions, i.e. with the features this level's token proves; the memory
// operands are in bounds as documented on [`Vector`].
impl Vector<1> for Xmm {
    state_in_regs!();

    #[inline(always)]
    unsafe fn load(row: &[[u8; 16]; 1]) -> Self {
        // SAFETY: 16 readable bytes; unaligned load.
        Xmm(unsafe { _mm_loadu_si128(row.as_ptr().cast()) })
    }

    #[inline(always)]
    unsafe fn store(self, row: &mut [[u8; 16]; 1]) {
        // SAFETY: 16 writable bytes; unaligned store.
        unsafe { _mm_storeu_si128(row.as_mut_ptr().cast(), self.0) }
    }

    #[inline(always)]
    unsafe fn load_msg(p: &[*const u8; 1], off: usize) -> Self {
        // SAFETY: the caller guarantees 16 readable bytes at `p[0] + off`.
        Xmm(unsafe { _mm_loadu_si128(p[0].add(off).cast()) })
    }

    #[inline(always)]
    unsafe fn aesenc(self, key: Self) -> Self {
        // SAFETY: AES-NI is enabled in the calling kernel.
        Xmm(unsafe { _mm_aesenc_si128(self.0, key.0) })
    }

    #[inline(always)]
    unsafe fn xor(self, other: Self) -> Self {
        // SAFETY: SSE2 is enabled in the calling kernel.
        Xmm(unsafe { _mm_xor_si128(self.0, other.0) })
    }

    #[inline(always)]
    unsafe fn rc(round: usize) -> Self {
        // SAFETY: `RC[round]` is 16 readable bytes (bounds-checked index).
        Xmm(unsafe { _mm_loadu_si128(RC[round].as_ptr().cast()) })
    }
}

// SAFETY (every method): as for `Vector` above (AVX-512 BW + VL enabled).
impl Masked for Xmm {
    #[inline(always)]
    unsafe fn load_partial(p: *const u8, len: usize) -> Self {
        let mask = ((1u32 << len.min(16)) - 1) as u16;
        // SAFETY: the caller guarantees `p .. p + len` readable; masked-off
        // bytes are not accessed (AVX-512 fault suppression).
        Xmm(unsafe { _mm_maskz_loadu_epi8(mask, p.cast()) })
    }

    #[inline(always)]
    unsafe fn byte_at(pos: usize, value: u8) -> Self {
        // SAFETY: AVX-512 BW + VL enabled in the calling kernel.
        Xmm(unsafe { _mm_maskz_set1_epi8(1u16 << (pos % 16), value as i8) })
    }
}

// The one-shot body without a padding buffer (masked loads).
single_kernel!(
    Token,
    "aes,sse2,avx,avx2,avx512f,avx512vl,avx512bw,vaes",
    Xmm,
    hash_masked
);
