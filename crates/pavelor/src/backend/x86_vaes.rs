//! x86/x86-64 VAES batch kernels: several independent Pavelor states hashed
//! at once, one message per 128-bit lane of a wide vector.
//!
//! # Kernel layout
//!
//! A batch of `N` states is kept *interleaved* ([`Lanes<N>`]): subblock `j`
//! of lanes `0..N` is `N * 16` contiguous bytes, so it loads into one vector
//! register. The 4-lane kernel holds the 20 subblocks of 4 states in 20
//! `zmm` registers (`VAESENC zmm` performs 4 AES rounds, one per message);
//! the 2-lane kernel holds 2 states in 20 `ymm` registers. The Paff round is
//! the generic one of [`super::x86_aesni`], so the wiring and constants are
//! shared with the single-message kernels; `RC[i]` is broadcast to every
//! lane.
//!
//! Message blocks are gathered per subblock: 16 bytes from each lane's
//! message, inserted into the lanes of one vector and XOR-ed into the state.
//! All lanes absorb the same number of blocks per call; the driver in
//! `crate::batch` decides (from public lengths only) how many.
//!
//! Levels and tokens:
//!
//! * [`Avx2VaesToken`] (`aes,avx,avx2,vaes`): 2-lane `ymm` kernel with VEX
//!   encoding (16 registers, so part of the state is spilled).
//! * [`Avx512VaesToken`] (`... ,avx512f,avx512vl,avx512bw,vaes`): 4-lane
//!   `zmm` kernel and a 2-lane `ymm` kernel using all 32 EVEX registers.
//!
//! Note: `cpufeatures` reports `vaes` only when the OS enables the AVX-512
//! register state, so on CPUs with VAES but without AVX-512 (e.g. AMD Zen 3)
//! the `avx2-vaes` level is not detected and the `aesni` level is used.
//!
//! Constant-time: `VAESENC` has data-independent timing and there is no
//! branch or address that depends on message or state bytes.

#[cfg(target_arch = "x86")]
use core::arch::x86::*;
#[cfg(target_arch = "x86_64")]
use core::arch::x86_64::*;

use super::Lanes;
use super::x86_aesni::{AesVec, paff};
use super::{Rate, by_rate};
use crate::paff::{RC, SUBBLOCKS};

cpufeatures::new!(cpuid_avx2_vaes, "aes", "sse2", "avx", "avx2", "vaes");
cpufeatures::new!(
    cpuid_avx512_vaes,
    "aes",
    "sse2",
    "avx",
    "avx2",
    "avx512f",
    "avx512vl",
    "avx512bw",
    "vaes"
);

/// Proof that the CPU has AES-NI, AVX2 and VAES (256-bit `vaesenc`).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Avx2VaesToken(());

impl Avx2VaesToken {
    /// Returns a token if this CPU supports the level (a cached atomic load
    /// after the first call).
    #[inline]
    pub(crate) fn detect() -> Option<Self> {
        cpuid_avx2_vaes::get().then_some(Avx2VaesToken(()))
    }
}

/// Proof that the CPU has AES-NI, VAES and AVX-512 F/VL/BW (512-bit
/// `vaesenc`, and `vaesenc` on registers 16–31).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Avx512VaesToken(());

impl Avx512VaesToken {
    /// Returns a token if this CPU supports the level (a cached atomic load
    /// after the first call).
    #[inline]
    pub(crate) fn detect() -> Option<Self> {
        cpuid_avx512_vaes::get().then_some(Avx512VaesToken(()))
    }
}

impl AesVec for __m256i {
    #[inline(always)]
    fn aesenc(self, key: Self) -> Self {
        // SAFETY: only inlined into kernels compiled with `vaes,avx2`,
        // entered only with a token proving those features.
        unsafe { _mm256_aesenc_epi128(self, key) }
    }

    #[inline(always)]
    fn xor(self, other: Self) -> Self {
        // SAFETY: as in `aesenc` (AVX2).
        unsafe { _mm256_xor_si256(self, other) }
    }

    #[inline(always)]
    fn rc(round: usize) -> Self {
        // SAFETY: `RC[round]` is 16 readable bytes (bounds-checked index),
        // `loadu` is unaligned; AVX2 is enabled as in `aesenc`.
        unsafe { _mm256_broadcastsi128_si256(_mm_loadu_si128(RC[round].as_ptr().cast())) }
    }
}

impl AesVec for __m512i {
    #[inline(always)]
    fn aesenc(self, key: Self) -> Self {
        // SAFETY: only inlined into kernels compiled with `vaes,avx512f`,
        // entered only with a token proving those features.
        unsafe { _mm512_aesenc_epi128(self, key) }
    }

    #[inline(always)]
    fn xor(self, other: Self) -> Self {
        // SAFETY: as in `aesenc` (AVX-512F).
        unsafe { _mm512_xor_si512(self, other) }
    }

    #[inline(always)]
    fn rc(round: usize) -> Self {
        // SAFETY: `RC[round]` is 16 readable bytes (bounds-checked index),
        // `loadu` is unaligned; AVX-512F is enabled as in `aesenc`.
        unsafe { _mm512_broadcast_i32x4(_mm_loadu_si128(RC[round].as_ptr().cast())) }
    }
}

/// Number of whole `rate`-byte blocks every lane can supply.
#[inline(always)]
fn common_blocks<const N: usize>(blocks: &[&[u8]; N], rate: Rate) -> usize {
    blocks
        .iter()
        .map(|b| b.len() / rate.bytes())
        .min()
        .unwrap_or(0)
}

/// 4-lane `zmm` kernel: for `nblocks` rounds, XOR block `b` of lane `l`'s
/// message into lane `l` of the rate, then Paff all four states.
/// `blocks[l]` holds at least `nblocks * rate` bytes (only that many are used).
#[inline]
pub(crate) fn absorb_x4(
    _token: Avx512VaesToken,
    st: &mut Lanes<4>,
    blocks: [&[u8]; 4],
    rate: Rate,
) {
    let n = common_blocks(&blocks, rate);
    // SAFETY: the token proves AVX-512F/VL/BW and VAES, the features the
    // implementation is compiled for; every `blocks[l]` has at least
    // `n * rate` bytes and the const parameter is `rate / 16`.
    unsafe { by_rate!(rate, x4_impl(st, &blocks, n)) }
}

/// 2-lane `ymm` kernel for the AVX-512 level (32 registers).
#[inline]
pub(crate) fn absorb_x2_avx512(
    _token: Avx512VaesToken,
    st: &mut Lanes<2>,
    blocks: [&[u8]; 2],
    rate: Rate,
) {
    let n = common_blocks(&blocks, rate);
    // SAFETY: as in `absorb_x4`: the token proves the features, the blocks
    // hold `n * rate` bytes each, the const parameter is `rate / 16`.
    unsafe { by_rate!(rate, x2_evex(st, &blocks, n)) }
}

/// 2-lane `ymm` kernel for the AVX2 + VAES level (16 registers).
#[inline]
pub(crate) fn absorb_x2_avx2(
    _token: Avx2VaesToken,
    st: &mut Lanes<2>,
    blocks: [&[u8]; 2],
    rate: Rate,
) {
    let n = common_blocks(&blocks, rate);
    // SAFETY: as in `absorb_x4`: the token proves AVX2 and VAES, the blocks
    // hold `n * rate` bytes each, the const parameter is `rate / 16`.
    unsafe { by_rate!(rate, x2_vex(st, &blocks, n)) }
}

/// # Safety
/// The CPU must support AVX-512F/VL/BW and VAES; each `blocks[l]` must hold
/// at least `nblocks * 16 * RS` bytes.
#[target_feature(enable = "aes,avx,avx2,avx512f,avx512vl,avx512bw,vaes")]
unsafe fn x4_impl<const RS: usize>(st: &mut Lanes<4>, blocks: &[&[u8]; 4], nblocks: usize) {
    // SAFETY (whole function): `st[j]` is 64 contiguous bytes (4 lanes x 16),
    // loaded/stored unaligned; message reads stay below `nblocks * 16 * RS`
    // bytes of each lane, which the caller guarantees are in bounds.
    let mut s: [__m512i; SUBBLOCKS] =
        core::array::from_fn(|j| unsafe { _mm512_loadu_si512(st[j].as_ptr().cast()) });
    let p = blocks.map(|b| b.as_ptr());
    for b in 0..nblocks {
        let base = b * 16 * RS;
        for (i, sub) in s.iter_mut().take(RS).enumerate() {
            let off = base + 16 * i;
            // SAFETY: `off + 16 <= nblocks * 16 * RS` for every lane.
            let m = unsafe {
                let v = _mm512_castsi128_si512(_mm_loadu_si128(p[0].add(off).cast()));
                let v = _mm512_inserti32x4::<1>(v, _mm_loadu_si128(p[1].add(off).cast()));
                let v = _mm512_inserti32x4::<2>(v, _mm_loadu_si128(p[2].add(off).cast()));
                _mm512_inserti32x4::<3>(v, _mm_loadu_si128(p[3].add(off).cast()))
            };
            *sub = sub.xor(m);
        }
        paff(&mut s);
    }
    for (dst, v) in st.iter_mut().zip(&s) {
        // SAFETY: `dst` is 64 writable bytes; `storeu` is unaligned.
        unsafe { _mm512_storeu_si512(dst.as_mut_ptr().cast(), *v) };
    }
}

/// The 2-lane body, instantiated at two feature levels below.
#[inline(always)]
fn x2_body<const RS: usize>(st: &mut Lanes<2>, blocks: &[&[u8]; 2], nblocks: usize) {
    // SAFETY: `st[j]` is 32 contiguous bytes (2 lanes x 16); `loadu` is
    // unaligned; AVX is enabled in both instantiations.
    // A plain loop rather than `array::from_fn`: a closure does not inherit
    // the caller's target features, so the loads would stay out of line.
    // SAFETY: all-zero is a valid `__m256i`.
    let mut s: [__m256i; SUBBLOCKS] = unsafe { core::mem::zeroed() };
    for (v, src) in s.iter_mut().zip(st.iter()) {
        // SAFETY: as above: 32 readable bytes, unaligned load.
        *v = unsafe { _mm256_loadu_si256(src.as_ptr().cast()) };
    }
    let p = blocks.map(|b| b.as_ptr());
    for b in 0..nblocks {
        let base = b * 16 * RS;
        for (i, sub) in s.iter_mut().take(RS).enumerate() {
            let off = base + 16 * i;
            // SAFETY: `off + 16 <= nblocks * 16 * RS`, in bounds for both
            // lanes (caller's guarantee); unaligned loads.
            let m = unsafe { _mm256_loadu2_m128i(p[1].add(off).cast(), p[0].add(off).cast()) };
            *sub = sub.xor(m);
        }
        paff(&mut s);
    }
    for (dst, v) in st.iter_mut().zip(&s) {
        // SAFETY: `dst` is 32 writable bytes; `storeu` is unaligned.
        unsafe { _mm256_storeu_si256(dst.as_mut_ptr().cast(), *v) };
    }
}

/// # Safety
/// The CPU must support AVX-512F/VL/BW and VAES; each `blocks[l]` must hold
/// at least `nblocks * 16 * RS` bytes.
#[target_feature(enable = "aes,avx,avx2,avx512f,avx512vl,avx512bw,vaes")]
unsafe fn x2_evex<const RS: usize>(st: &mut Lanes<2>, blocks: &[&[u8]; 2], nblocks: usize) {
    x2_body::<RS>(st, blocks, nblocks)
}

/// # Safety
/// The CPU must support AVX2 and VAES; each `blocks[l]` must hold at least
/// `nblocks * 16 * RS` bytes.
#[target_feature(enable = "aes,avx,avx2,vaes")]
unsafe fn x2_vex<const RS: usize>(st: &mut Lanes<2>, blocks: &[&[u8]; 2], nblocks: usize) {
    x2_body::<RS>(st, blocks, nblocks)
}
