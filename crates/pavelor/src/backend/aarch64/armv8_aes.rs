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
//! plus 20 `EOR`s, at least 39 vector operations per round against a
//! dependency chain of one `AESE`+`AESMC`+`EOR`. The single-message kernel
//! is therefore throughput-bound, and `crate::batch` hashes batches one message
//! at a time with it ([`Available::lanes`](crate::Available::lanes) is 1).
//!
//! # Kernel layout
//!
//! As in the x86 kernels, the round comes from the shared wiring (constant
//! indices, 24 rounds fully unrolled) and the absorb / permute / one-shot
//! bodies are those of [`crate::backend::kernel`]; this file supplies the
//! NEON vector type. The state stays in registers, so the register
//! allocator renames the state from round to round: 20 state registers,
//! the zero key, the round constant and temporaries fit in the 32 NEON
//! registers.
//!
//! `AESE Vd, Vn` overwrites its data operand `Vd`, and every subblock but
//! one is needed twice in a round: as an AES input and as the `EOR` operand
//! of another output. In output order ([`paff_rounds!`](crate::definition::paff::paff_rounds))
//! a subblock is often still needed after its `AESE`, and the compiler
//! copies it first (215 `MOV`s per Paff). This kernel therefore overrides
//! [`Vector::paff_in_regs`] with
//! [`paff_rounds_copy_free!`](crate::definition::paff::paff_rounds_copy_free),
//! the same wiring with each round's outputs in
//! [`COPY_FREE_ORDER`](crate::definition::paff::COPY_FREE_ORDER), derived
//! from the wiring tables at compile time: in that order every subblock's
//! `EOR` use comes before its `AESE`, so the `AESE` is its last use and no
//! copy is needed (the wiring admits such an order; the proof is in
//! `docs/architecture.md`). The compiler's scheduler still moves a few
//! instructions across round boundaries (about one `MOV` per round left;
//! `cargo xtask mca` counts them).
//! The static constant-time check counts the AES rounds of `permute_impl`
//! (exactly one Paff's 456).
//!
//! Constant-time: `AESE`/`AESMC`/`EOR` have data-independent timing (no table
//! lookups), and the only branches are on the public number of blocks.

use core::arch::aarch64::{uint8x16_t, vaeseq_u8, vaesmcq_u8, veorq_u8, vld1q_u8, vst1q_u8};

use crate::backend::kernel::{Vector, feature_token, single_kernel, state_in_regs};
use crate::definition::paff::{RC, SUBBLOCKS, paff_rounds_copy_free};

feature_token!(
    /// Proof that the CPU has the ARMv8 AES instructions (`AESE`, `AESMC`;
    /// the Linux `aes` hwcap).
    ["aes"]
);

/// The all-zero vector, as a value the optimiser cannot see is zero.
///
/// With a visible zero key, LLVM rewrites `AESE(N, 0)` with `N = A XOR Y`
/// into `AESE(A, Y)` (the fold discussed in the module documentation) while
/// still computing `N` for its other use. That keeps the old and the new
/// state live together and spills half of it to the stack in every round;
/// hiding the zero keeps the one-`EOR`-per-output form, which fits in the
/// 32 registers. (The empty `asm!` is pure, so all its uses share one
/// register.)
#[inline(always)]
fn opaque_zero() -> uint8x16_t {
    // SAFETY: 16 readable bytes; NEON is baseline on AArch64.
    let mut v = unsafe { vld1q_u8([0u8; 16].as_ptr()) };
    // SAFETY: an empty assembly block (a comment naming the register): it
    // reads and writes no memory, touches no flags or stack, and leaves the
    // register's value (zero) unchanged.
    unsafe {
        core::arch::asm!("/* {0:v} */", inout(vreg) v, options(pure, nomem, nostack, preserves_flags));
    }
    v
}

/// One AES block in a NEON register.
#[derive(Clone, Copy)]
pub(crate) struct Neon(uint8x16_t);

// SAFETY (every method): called only from this file's `#[target_feature]`
// functions (`aes`, proven by the token); memory operands are in bounds as
// documented on [`Vector`].
impl Vector<1> for Neon {
    state_in_regs!();

    #[inline(always)]
    unsafe fn load(row: &[[u8; 16]; 1]) -> Self {
        // SAFETY: 16 readable bytes; `vld1q_u8` is unaligned.
        Neon(unsafe { vld1q_u8(row[0].as_ptr()) })
    }

    #[inline(always)]
    unsafe fn store(self, row: &mut [[u8; 16]; 1]) {
        // SAFETY: 16 writable bytes; `vst1q_u8` is unaligned.
        unsafe { vst1q_u8(row[0].as_mut_ptr(), self.0) }
    }

    #[inline(always)]
    unsafe fn load_msg(p: &[*const u8; 1], off: usize) -> Self {
        // SAFETY: the caller guarantees 16 readable bytes at `p[0] + off`.
        Neon(unsafe { vld1q_u8(p[0].add(off)) })
    }

    /// `A(self) XOR key = EOR(AESMC(AESE(self, 0)), key)`. Compiled with
    /// the `aes` feature itself (the AArch64 intrinsics are
    /// `#[inline(always)]` and would otherwise not be inlined here); it is
    /// inlined into the kernels, which have the same feature.
    #[inline]
    #[target_feature(enable = "aes")]
    unsafe fn aesenc(self, key: Self) -> Self {
        // `aes` is enabled on this function: the intrinsics are safe here.
        Neon(veorq_u8(
            vaesmcq_u8(vaeseq_u8(self.0, opaque_zero())),
            key.0,
        ))
    }

    #[inline(always)]
    unsafe fn xor(self, other: Self) -> Self {
        // SAFETY: NEON is baseline.
        Neon(unsafe { veorq_u8(self.0, other.0) })
    }

    #[inline(always)]
    unsafe fn rc(round: usize) -> Self {
        // SAFETY: `RC[round]` is 16 readable bytes (bounds-checked index).
        Neon(unsafe { vld1q_u8(RC[round].as_ptr()) })
    }

    /// The rounds in the copy-free order: `AESE` overwrites its input,
    /// and in this order every subblock's AES round is its last use.
    #[inline(always)]
    unsafe fn paff_in_regs(x: &mut [Self; SUBBLOCKS]) {
        let mut s = *x;
        // SAFETY: forwarded to the caller (the `aes` feature is enabled).
        unsafe {
            paff_rounds_copy_free!(s, Self::rc, Self::aesenc, Self::xor);
        }
        *x = s;
    }
}

single_kernel!(Token, "aes", Neon);
