//! AArch64 single-message kernel (backend `armv8-aes`): the ARMv8
//! Cryptographic Extension's `AESE` and `AESMC` instructions, with the 20
//! subblocks in NEON registers for the whole absorb loop.
//!
//! # One Paff AES round on ARMv8
//!
//! `AESE(X, K) = ShiftRows(SubBytes(X XOR K))` and `AESMC(X) =
//! MixColumns(X)`, so with a zero key
//!
//! ```text
//! A(X) XOR Y = EOR(AESMC(AESE(X, 0)), Y)        (= x86 AESENC(X, Y))
//! ```
//!
//! Most ARM cores fuse an `AESE` with the `AESMC` that consumes it, so the
//! kernel always emits the two back to back; the zero key is one register
//! set once.
//!
//! # Why the XOR is not folded into the next `AESE`
//!
//! `AESE` XORs its key *before* `SubBytes`, so the XOR of one round could be
//! folded into the `AESE` of the next: `AESE(A(S[a]) , S[b])` instead of
//! `AESE(A(S[a]) XOR S[b], 0)`. It does not save an instruction here: every
//! new subblock is also needed whole, as the XOR operand (`P2`) of the next
//! round, so each of the 20 outputs is materialised by one `EOR` anyway.
//! Folding would only shorten the dependency chain, at the price of keeping
//! both the 19 `A` outputs and the 20 old subblocks live (39 vectors, more
//! than the 32 registers), i.e. spills. A three-way `EOR3` (SHA3 extension)
//! does not help for the same reason: the minimum per Paff round is 19
//! `AESE` + 19 `AESMC` + 20 `EOR` (the `RC[i] XOR S[8]` output included).
//!
//! # No multi-lane batch kernel
//!
//! NEON registers are 128 bits, so interleaving two messages would be two
//! register sets (40 vectors, spilled), not wider instructions as with VAES.
//! Interleaving only pays when a single state leaves the AES units idle
//! waiting on latency; a Paff round already offers 19 independent AES rounds
//! plus 20 `EOR`s, at least ~39 vector operations per round against a
//! dependency chain of one `AESE`+`AESMC`+`EOR` (about 4–6 cycles on current
//! cores with up to four vector pipes). The single-message kernel is
//! therefore throughput-bound, and `crate::batch` hashes batches one message
//! at a time with it ([`crate::batch::lanes`] is 1).
//!
//! # Kernel layout
//!
//! As in the x86 kernels, the round is written out with constant indices and
//! the 24 rounds are fully unrolled, so the register allocator renames the
//! state from round to round: 20 state registers, the zero key, the round
//! constant and temporaries fit in the 32 NEON registers. `AESE` overwrites
//! its data operand, so a subblock still needed as an `EOR` operand is
//! copied first; LLVM adds about 9 register `MOV`s per round (cheap, and
//! eliminated at rename on big cores), which keeps the round parallel
//! instead of one serial chain. (Compiled with rustc 1.95: 456 `AESE`, 456
//! `AESMC`, 480 `EOR`, no state spills per Paff.)
//!
//! Constant-time: `AESE`/`AESMC`/`EOR` have data-independent timing (no table
//! lookups), and the only branches are on the public number of blocks.

use core::arch::aarch64::{uint8x16_t, vaeseq_u8, vaesmcq_u8, veorq_u8, vld1q_u8, vst1q_u8};

use super::{Rate, by_rate};
use crate::paff::{RC, SUBBLOCKS, State};

cpufeatures::new!(hwcap_aes, "aes");

/// Proof that the CPU has the ARMv8 AES instructions (`AESE`, `AESMC`; the
/// Linux `aes` + `pmull` hwcaps); only [`Token::detect`] makes one.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Token(());

impl Token {
    /// Returns a token if this CPU supports the AES instructions (a cached
    /// atomic load after the first call).
    #[inline]
    pub(crate) fn detect() -> Option<Self> {
        hwcap_aes::get().then_some(Token(()))
    }
}

// The kernel is written as macros rather than `#[inline(always)]` helper
// functions: the AES intrinsics are `#[inline(always)]` functions that need
// the `aes` target feature, so every call must sit (after expansion) inside
// a function compiled with that feature, namely `permute_impl` and
// `absorb_impl` below. They are safe to call there; only the loads and
// stores need `unsafe`.

/// `A($x) XOR $y`, with `$z` the all-zero vector as the `AESE` key.
macro_rules! enc {
    ($x:expr, $y:expr, $z:expr) => {
        veorq_u8(vaesmcq_u8(vaeseq_u8($x, $z)), $y)
    };
}

/// One Paff round on the register array `$s`: `N[j] = A(S[P1[j]]) XOR
/// S[P2[j]]`, `N[7] = RC[$i] XOR S[8]` (see [`crate::paff`]), every index a
/// constant.
macro_rules! round {
    ($s:ident, $i:literal, $z:ident) => {{
        let o = $s;
        let rc = load16(&RC[$i]);
        $s = [
            enc!(o[19], o[1], $z),
            enc!(o[4], o[0], $z),
            enc!(o[6], o[3], $z),
            enc!(o[17], o[4], $z),
            enc!(o[9], o[5], $z),
            enc!(o[0], o[2], $z),
            enc!(o[13], o[7], $z),
            veorq_u8(rc, o[8]),
            enc!(o[8], o[9], $z),
            enc!(o[5], o[10], $z),
            enc!(o[15], o[6], $z),
            enc!(o[10], o[12], $z),
            enc!(o[16], o[13], $z),
            enc!(o[3], o[14], $z),
            enc!(o[12], o[15], $z),
            enc!(o[14], o[16], $z),
            enc!(o[18], o[17], $z),
            enc!(o[7], o[18], $z),
            enc!(o[2], o[19], $z),
            enc!(o[1], o[11], $z),
        ];
    }};
}

/// The 24 rounds of Paff on the register array `$s`, fully unrolled.
macro_rules! paff {
    ($s:ident) => {{
        let z = opaque_zero();
        paff!(@rounds $s, z; 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23);
    }};
    (@rounds $s:ident, $z:ident; $($i:literal)*) => {
        $( round!($s, $i, $z); )*
    };
}

/// The all-zero vector, as a value the optimiser cannot see is zero.
///
/// With a visible zero key, LLVM rewrites `AESE(N, 0)` with `N = A XOR Y`
/// into `AESE(A, Y)` (the fold discussed in the module documentation) while
/// still computing `N` for its other use. That keeps the old and the new
/// state live together and spills half of it to the stack in every round;
/// hiding the zero keeps the one-`EOR`-per-output form, which fits in the
/// 32 registers.
#[inline(always)]
fn opaque_zero() -> uint8x16_t {
    let mut v = load16(&[0u8; 16]);
    // SAFETY: an empty assembly block (a comment naming the register): it
    // reads and writes no memory, touches no flags or stack, and leaves the
    // register's value (zero) unchanged.
    unsafe {
        core::arch::asm!("/* {0:v} */", inout(vreg) v, options(pure, nomem, nostack, preserves_flags));
    }
    v
}

/// Loads 16 bytes.
#[inline(always)]
fn load16(bytes: &[u8; 16]) -> uint8x16_t {
    // SAFETY: `bytes` is 16 readable bytes; `vld1q_u8` has no alignment
    // requirement beyond that of `u8`. NEON is baseline on AArch64.
    unsafe { vld1q_u8(bytes.as_ptr()) }
}

#[inline(always)]
fn load(state: &State) -> [uint8x16_t; SUBBLOCKS] {
    core::array::from_fn(|j| load16(&state[j]))
}

#[inline(always)]
fn store(state: &mut State, s: &[uint8x16_t; SUBBLOCKS]) {
    for (dst, v) in state.iter_mut().zip(s) {
        // SAFETY: `dst` is 16 writable bytes; `vst1q_u8` is unaligned.
        unsafe { vst1q_u8(dst.as_mut_ptr(), *v) };
    }
}

/// Applies Paff to `state`.
#[inline]
pub(crate) fn permute(_token: Token, state: &mut State) {
    // SAFETY: the token proves that the CPU supports the `aes` target
    // feature the implementation is compiled for.
    unsafe { permute_impl(state) }
}

/// Absorbs whole `rate`-byte blocks (see `Engine::absorb`).
#[inline]
pub(crate) fn absorb(_token: Token, state: &mut State, blocks: &[u8], rate: Rate) {
    // SAFETY: as in `permute`, the token proves the target feature; the
    // const parameter is the rate in subblocks, matching `rate`.
    unsafe { by_rate!(rate, absorb_impl(state, blocks)) }
}

/// # Safety
/// The CPU must support the ARMv8 AES instructions.
#[target_feature(enable = "aes")]
unsafe fn permute_impl(state: &mut State) {
    let mut s = load(state);
    paff!(s);
    store(state, &s);
}

/// # Safety
/// The CPU must support the ARMv8 AES instructions.
#[target_feature(enable = "aes")]
unsafe fn absorb_impl<const RS: usize>(state: &mut State, blocks: &[u8]) {
    let mut s = load(state);
    for block in blocks.chunks_exact(16 * RS) {
        for (sub, m) in s.iter_mut().zip(block.chunks_exact(16)) {
            // SAFETY: `m` is a 16-byte chunk of `block`; `vld1q_u8` reads
            // exactly 16 bytes with no alignment requirement.
            *sub = veorq_u8(*sub, unsafe { vld1q_u8(m.as_ptr()) });
        }
        paff!(s);
    }
    store(state, &s);
}
