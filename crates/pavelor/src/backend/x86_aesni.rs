//! x86/x86-64 single-message kernels: each AES round of Paff is one
//! `AESENC` (`A(X) XOR Y` with `Y` as the round key), and the 20 subblocks
//! live in vector registers for the whole absorb loop.
//!
//! # Kernel layout
//!
//! The Paff round is written once, generically over a vector type
//! implementing [`AesVec`] (one 128-bit AES block per 128-bit lane), and
//! fully unrolled over the 24 rounds so every subblock index and round
//! constant address is a constant and the register allocator can rename the
//! state from round to round without any move. The same code is compiled at
//! three instruction-set levels:
//!
//! * `aes,sse2` ([`Token`], backend `aesni`): legacy SSE encoding, 16 xmm
//!   registers and two-operand instructions, so the 20-block state partly
//!   lives on the stack (the spills are folded into `AESENC`'s key operand).
//! * `aes,avx,avx2,vaes` ([`Avx2VaesToken`](super::x86_vaes::Avx2VaesToken),
//!   backend `avx2-vaes`): VEX three-operand encoding, still 16 registers.
//! * `aes,avx,avx2,avx512f,avx512vl,avx512bw,vaes`
//!   ([`Avx512VaesToken`](super::x86_vaes::Avx512VaesToken), backend
//!   `avx512-vaes`): EVEX encoding, where VAES + AVX512VL allow `vaesenc` on
//!   xmm16–xmm31. The 20 subblocks, the message words and the round constant
//!   all fit in the 32 registers: no spills.
//!
//! The 4- and 2-lane batch kernels in [`super::x86_vaes`] reuse the same
//! round code on `__m512i`/`__m256i` (one message per 128-bit lane).
//!
//! Constant-time: `AESENC` has data-independent timing, and the only
//! branches are on the (public) number of blocks.

#[cfg(target_arch = "x86")]
use core::arch::x86::*;
#[cfg(target_arch = "x86_64")]
use core::arch::x86_64::*;

use super::x86_vaes::{Avx2VaesToken, Avx512VaesToken};
use super::{Rate, by_rate};
use crate::paff::{RC, SUBBLOCKS, State};

cpufeatures::new!(cpuid_aes, "aes", "sse2");

/// Proof that the CPU has AES-NI and SSE2; only [`Token::detect`] makes one.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Token(());

impl Token {
    /// Returns a token if this CPU supports AES-NI (a cached atomic load
    /// after the first call).
    #[inline]
    pub(crate) fn detect() -> Option<Self> {
        cpuid_aes::get().then_some(Token(()))
    }
}

/// A vector of one or more 128-bit AES blocks, one per 128-bit lane.
///
/// Implementations are only called from functions compiled with the target
/// features their intrinsics need (see the `SAFETY` comments).
pub(crate) trait AesVec: Copy {
    /// `AESENC` on every lane: `A(self) XOR key`.
    fn aesenc(self, key: Self) -> Self;
    /// Bitwise XOR.
    fn xor(self, other: Self) -> Self;
    /// `RC[round]` in every lane.
    fn rc(round: usize) -> Self;
}

impl AesVec for __m128i {
    #[inline(always)]
    fn aesenc(self, key: Self) -> Self {
        // SAFETY: only inlined into kernels compiled with `aes` enabled,
        // which are entered only with a token proving the feature.
        unsafe { _mm_aesenc_si128(self, key) }
    }

    #[inline(always)]
    fn xor(self, other: Self) -> Self {
        // SAFETY: SSE2 is enabled in every kernel (and baseline on x86-64).
        unsafe { _mm_xor_si128(self, other) }
    }

    #[inline(always)]
    fn rc(round: usize) -> Self {
        // SAFETY: `RC[round]` is 16 readable bytes (indexing is
        // bounds-checked); `loadu` has no alignment requirement.
        unsafe { _mm_loadu_si128(RC[round].as_ptr().cast()) }
    }
}

/// One Paff round: `N[j] = AESENC(S[P1[j]], S[P2[j]])`, `N[7] = RC ^ S[8]`
/// (see [`crate::paff`]). Written out so every index is a constant.
///
/// The AES rounds are listed roughly in the order their inputs become ready
/// when the previous round was emitted in the same order, which helps the
/// scheduler keep both AES units busy across round boundaries.
#[inline(always)]
fn round<T: AesVec>(s: &mut [T; SUBBLOCKS], rc: T) {
    let o = *s;
    *s = [
        o[19].aesenc(o[1]),
        o[4].aesenc(o[0]),
        o[6].aesenc(o[3]),
        o[17].aesenc(o[4]),
        o[9].aesenc(o[5]),
        o[0].aesenc(o[2]),
        o[13].aesenc(o[7]),
        rc.xor(o[8]),
        o[8].aesenc(o[9]),
        o[5].aesenc(o[10]),
        o[15].aesenc(o[6]),
        o[10].aesenc(o[12]),
        o[16].aesenc(o[13]),
        o[3].aesenc(o[14]),
        o[12].aesenc(o[15]),
        o[14].aesenc(o[16]),
        o[18].aesenc(o[17]),
        o[7].aesenc(o[18]),
        o[2].aesenc(o[19]),
        o[1].aesenc(o[11]),
    ];
}

/// The 24 rounds of Paff, fully unrolled.
#[inline(always)]
pub(crate) fn paff<T: AesVec>(s: &mut [T; SUBBLOCKS]) {
    macro_rules! rounds {
        ($($i:literal)*) => { $( round(s, T::rc($i)); )* };
    }
    rounds!(0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23);
}

#[inline(always)]
fn load(state: &State) -> [__m128i; SUBBLOCKS] {
    // SAFETY: each subblock is 16 readable bytes; `loadu` is unaligned.
    core::array::from_fn(|j| unsafe { _mm_loadu_si128(state[j].as_ptr().cast()) })
}

#[inline(always)]
fn store(state: &mut State, s: &[__m128i; SUBBLOCKS]) {
    for (dst, v) in state.iter_mut().zip(s) {
        // SAFETY: each subblock is 16 writable bytes; `storeu` is unaligned.
        unsafe { _mm_storeu_si128(dst.as_mut_ptr().cast(), *v) };
    }
}

/// The absorb loop: `RS` = rate in subblocks.
#[inline(always)]
fn absorb_body<const RS: usize>(state: &mut State, blocks: &[u8]) {
    let mut s = load(state);
    for block in blocks.chunks_exact(16 * RS) {
        for (i, sub) in s.iter_mut().take(RS).enumerate() {
            // SAFETY: `block` has 16 * RS bytes, so bytes 16i..16i+16 are in
            // bounds; `loadu` has no alignment requirement.
            let m = unsafe { _mm_loadu_si128(block.as_ptr().add(16 * i).cast()) };
            *sub = sub.xor(m);
        }
        paff(&mut s);
    }
    store(state, &s);
}

/// Stamps out the `permute`/`absorb` entry points of one instruction-set
/// level: a safe wrapper taking the level's token and `#[target_feature]`
/// implementations.
macro_rules! level {
    ($token:ty, $features:literal, $permute:ident, $absorb:ident, $pimpl:ident, $aimpl:ident) => {
        /// Applies Paff to `state`.
        #[inline]
        pub(crate) fn $permute(_token: $token, state: &mut State) {
            // SAFETY: the token proves that the CPU supports the target
            // features the implementation is compiled for.
            unsafe { $pimpl(state) }
        }

        /// Absorbs whole `rate`-byte blocks (see `Engine::absorb`).
        #[inline]
        pub(crate) fn $absorb(_token: $token, state: &mut State, blocks: &[u8], rate: Rate) {
            // SAFETY: as above, the token proves the target features exist.
            // The const parameter is the rate in subblocks, matching `rate`.
            unsafe { by_rate!(rate, $aimpl(state, blocks)) }
        }

        #[target_feature(enable = $features)]
        unsafe fn $pimpl(state: &mut State) {
            let mut s = load(state);
            paff(&mut s);
            store(state, &s);
        }

        #[target_feature(enable = $features)]
        unsafe fn $aimpl<const RS: usize>(state: &mut State, blocks: &[u8]) {
            absorb_body::<RS>(state, blocks)
        }
    };
}

level!(Token, "aes,sse2", permute, absorb, permute_sse, absorb_sse);
level!(
    Avx2VaesToken,
    "aes,avx,avx2,vaes",
    permute_avx2,
    absorb_avx2,
    permute_vex,
    absorb_vex
);
level!(
    Avx512VaesToken,
    "aes,avx,avx2,avx512f,avx512vl,avx512bw,vaes",
    permute_avx512,
    absorb_avx512,
    permute_evex,
    absorb_evex
);
