//! x86 single-message kernel, backend `avx512-vaes`: EVEX encoding of
//! `vaesenc xmm`, which VAES + AVX512VL allow on `xmm16`–`xmm31`. The 20
//! subblocks, the message words and the round constant all fit in the 32
//! registers: no spills, no state memory traffic inside the absorb loop.
//!
//! The Paff round is the wiring macro
//! ([`paff_rounds!`](crate::definition::paff::paff_rounds)) and the absorb,
//! permute and one-shot bodies are the shared ones of
//! [`crate::backend::kernel`] (the one-shot without a padding buffer,
//! [`hash_masked`](crate::backend::kernel::hash_masked)); this file supplies
//! the level's feature detection, its masked loads and its
//! `#[target_feature]` entry points (`permute_impl`, `absorb_impl`,
//! `hash_impl`).
//!
//! Constant-time: `AESENC` has data-independent timing; message and state
//! bytes only live in vector registers (the one-shot reads the last block
//! with masked loads that never reach past it: no padding buffer), and the
//! only branches are on public lengths and addresses.

#[cfg(target_arch = "x86")]
use core::arch::x86::*;
#[cfg(target_arch = "x86_64")]
use core::arch::x86_64::*;

use crate::backend::kernel::{Masked, feature_token, single_kernel, span_leaves_page};

feature_token!(
    /// Proof that the CPU has AES-NI, VAES and AVX-512 F/VL/BW; it also
    /// proves what the level's batch kernels need (`avx512_vaes_x2`,
    /// `avx512_vaes_x4`).
    ["aes", "sse2", "avx", "avx2", "avx512f", "avx512vl", "avx512bw", "vaes"]
);

vector_128!(
    /// One AES block in an `xmm` register, EVEX encoding (32 registers).
    Xmm,
    state_in_regs
);

// SAFETY (every method): called only from this file's `#[target_feature]`
// functions (AVX-512 BW + VL enabled, proven by the token).
impl Masked for Xmm {
    #[inline(always)]
    unsafe fn zero() -> Self {
        // SAFETY: SSE2 enabled in the calling kernel.
        Xmm(unsafe { _mm_setzero_si128() })
    }

    #[inline(always)]
    unsafe fn load_last(p: *const u8, len: usize, _msg_len: usize) -> Self {
        // SAFETY: the caller guarantees `p .. p + len` readable; AVX-512
        // BW + VL are enabled in the calling kernel. Each load's mask
        // selects exactly those bytes, and masked-off bytes are not
        // accessed; `span_leaves_page` keeps the masked-off ones in a page
        // the message touches.
        unsafe {
            if !span_leaves_page(p, len) {
                let mask = ((1u32 << len) - 1) as u16;
                Xmm(_mm_maskz_loadu_epi8(mask, p.cast()))
            } else {
                // The 16 bytes that end at the message's end, their top
                // `len` selected, then moved down: byte `i` of the result
                // is byte `i + shift` of `high` for `i < len` and zero
                // above, an in-register shuffle by an index vector made
                // from the (public) length.
                let shift = 16 - len;
                let low = ((1u32 << len) - 1) as u16;
                let high = _mm_maskz_loadu_epi8(
                    0xffffu16 << shift,
                    p.wrapping_add(len).wrapping_sub(16).cast(),
                );
                let index = _mm_add_epi8(
                    _mm_setr_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15),
                    _mm_set1_epi8(shift as i8),
                );
                Xmm(_mm_maskz_shuffle_epi8(low, high, index))
            }
        }
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
