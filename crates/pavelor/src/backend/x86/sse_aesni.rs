//! x86 single-message kernel, backend `aesni`: legacy SSE encoding of
//! `AESENC` (two-operand, 16 `xmm` registers, so part of the 20-subblock
//! state is spilled; the spills fold into `AESENC`'s key operand).
//!
//! On x86-64, Paff is the assembly `cargo xtask codegen` generates for this
//! encoding from the wiring tables (`generated/paff_sse.rs`): 15 subblocks in
//! `xmm0..xmm14` and 5 in a 16-byte-aligned scratch area
//! ([`Split`](crate::backend::kernel::Split)), the spills placed by a
//! latency model so that trips through memory stay off the critical path;
//! 32-bit x86 (8 `xmm` registers) uses the wiring macro and lets the
//! compiler allocate. The absorb and permute bodies are the shared ones of
//! [`crate::backend::kernel`], and the one-shot body is its
//! padding-buffer-free `hash_masked`, the last partial block read as the
//! window that ends at the message's end (`masked_by_window!`); this file
//! supplies the level's feature detection and its `#[target_feature]`
//! entry points (`permute_impl`, `absorb_impl`, `hash_impl`).
//!
//! Constant-time: `AESENC` has data-independent timing; message and state
//! bytes only live in vector registers, the scratch area (fixed offsets,
//! no index) and, for a message under 16 bytes, a 16-byte buffer (both
//! wiped); the last block's loads and shifts are chosen by its length
//! alone, and the only branches are on public lengths.

#[cfg(target_arch = "x86")]
use core::arch::x86::*;
#[cfg(target_arch = "x86_64")]
use core::arch::x86_64::*;

#[cfg(pavelor_split)]
use crate::backend::kernel::{IN_REGS, RC_ALIGNED, SpillArea, SplitPaff};
use crate::backend::kernel::{feature_token, single_kernel};

feature_token!(
    /// Proof that the CPU has AES-NI and SSE2.
    ["aes", "sse2"]
);

vector_128!(
    /// One AES block in an `xmm` register, SSE encoding.
    Xmm,
    state_split
);

#[cfg(pavelor_split)]
impl SplitPaff<1> for Xmm {
    #[inline(always)]
    unsafe fn paff_split(r: &mut [Self; IN_REGS], spill: &mut SpillArea<Self>) {
        let m = spill.as_mut_ptr().cast::<Self>();
        let rc = RC_ALIGNED.0.as_ptr();
        // SAFETY: AES-NI and SSE2 are enabled in the calling kernel (see
        // `Vector`). The generated code (`cargo xtask codegen` checks it
        // against the wiring on a model, and `--check` in CI that the
        // committed file is what it generates) names every vector register
        // it writes (`r[i]` in `xmm0..xmm14`, `xmm15` clobbered), reads the
        // 24 round constants at `rc` (32-byte aligned, 384 bytes) and reads
        // and writes only the `SPILL_SLOTS` slots at `m` (`[Xmm; _]` is
        // 16-byte aligned, as the aligned memory operands need; the
        // expression asserts its slot count fits), and no stack; it reads a
        // slot only after writing it, except the subblock slots, which the
        // caller initialised (`SplitPaff`'s precondition).
        unsafe { include!("generated/paff_sse.rs") }
    }
}

masked_by_window!(Xmm);

// The one-shot body without a padding buffer (the last block read as a
// window that ends at the message's end).
single_kernel!(Token, "aes,sse2", Xmm, hash_masked);
