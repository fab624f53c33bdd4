//! x86/x86-64 AES-NI backend: each AES round of Paff is one `AESENC`
//! (`A(X) XOR Y` with `Y` as the round key), and the 20 subblocks live in
//! vector registers for the whole absorb loop.
//!
//! Constant-time: `AESENC` has data-independent timing, and the only
//! branches are on the (public) number of blocks.

#[cfg(target_arch = "x86")]
use core::arch::x86::*;
#[cfg(target_arch = "x86_64")]
use core::arch::x86_64::*;

use crate::paff::{RC, SUBBLOCKS, State};

cpufeatures::new!(cpuid_aes, "aes", "sse2");

/// Proof that the CPU has AES-NI and SSE2; only [`Token::detect`] makes one.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Token(());

impl Token {
    /// Returns a token if this CPU supports AES-NI.
    pub(crate) fn detect() -> Option<Self> {
        cpuid_aes::get().then_some(Token(()))
    }
}

/// Applies Paff to `state`.
pub(crate) fn permute(_token: Token, state: &mut State) {
    // SAFETY: the token proves that the CPU supports AES-NI and SSE2, the
    // target features `permute_impl` is compiled for.
    unsafe { permute_impl(state) }
}

/// Absorbs whole `rate`-byte blocks (see `Engine::absorb`).
pub(crate) fn absorb(_token: Token, state: &mut State, blocks: &[u8], rate: usize) {
    // SAFETY: as in `permute`: the token proves the target features exist.
    // The const parameter is the rate in subblocks, matching `rate`.
    unsafe {
        match rate {
            192 => absorb_impl::<12>(state, blocks),
            128 => absorb_impl::<8>(state, blocks),
            64 => absorb_impl::<4>(state, blocks),
            _ => unreachable_rate(),
        }
    }
}

#[cold]
fn unreachable_rate() {
    debug_assert!(false, "rate is always one of the three instance rates");
}

#[target_feature(enable = "aes,sse2")]
unsafe fn permute_impl(state: &mut State) {
    let mut s = load(state);
    paff(&mut s);
    store(state, &s);
}

#[target_feature(enable = "aes,sse2")]
unsafe fn absorb_impl<const LANES: usize>(state: &mut State, blocks: &[u8]) {
    let mut s = load(state);
    for block in blocks.chunks_exact(16 * LANES) {
        for (i, lane) in s.iter_mut().take(LANES).enumerate() {
            // SAFETY: `block` has 16 * LANES bytes, so bytes 16i..16i+16 are
            // in bounds; `loadu` has no alignment requirement.
            let m = unsafe { _mm_loadu_si128(block.as_ptr().add(16 * i).cast()) };
            *lane = xor(*lane, m);
        }
        paff(&mut s);
    }
    store(state, &s);
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

/// The 24 rounds. Output `j` is `AESENC(S[P1[j]], S[P2[j]])` (see
/// `crate::paff`), written out so every index is a constant and the state
/// stays in registers; output 7 is `RC[i] XOR S[8]`.
#[inline(always)]
fn paff(s: &mut [__m128i; SUBBLOCKS]) {
    macro_rules! round {
        ($o:ident, $k:ident; $(($a:literal, $b:literal)),* ; 7 ; $(($c:literal, $d:literal)),*) => {
            [
                $(enc($o[$a], $o[$b]),)*
                xor($k, $o[8]),
                $(enc($o[$c], $o[$d]),)*
            ]
        };
    }
    for rc in &RC {
        // SAFETY: `rc` is 16 readable bytes; `loadu` is unaligned.
        let k = unsafe { _mm_loadu_si128(rc.as_ptr().cast()) };
        let o = *s;
        *s = round!(o, k;
            (19, 1), (4, 0), (6, 3), (17, 4), (9, 5), (0, 2), (13, 7);
            7;
            (8, 9), (5, 10), (15, 6), (10, 12), (16, 13), (3, 14), (12, 15),
            (14, 16), (18, 17), (7, 18), (2, 19), (1, 11));
    }
}

#[inline(always)]
fn enc(x: __m128i, y: __m128i) -> __m128i {
    // SAFETY: only reached from functions compiled with `aes` enabled,
    // which callers enter after `Token::detect` confirmed the feature.
    unsafe { _mm_aesenc_si128(x, y) }
}

#[inline(always)]
fn xor(x: __m128i, y: __m128i) -> __m128i {
    // SAFETY: SSE2 is enabled wherever this is inlined (see `enc`).
    unsafe { _mm_xor_si128(x, y) }
}
