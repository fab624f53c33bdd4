//! x86 single-message kernel, backend `aesni-avx`: VEX encoding of
//! `AESENC` (`vaesenc xmm`, three-operand, 16 `xmm` registers). Needs only
//! AES-NI and AVX (Sandy Bridge / Bulldozer and later); it is the
//! single-message kernel of the `aesni-avx` and `avx2-vaes` backends, and
//! the default on CPUs without AVX-512 VL + VAES.
//!
//! On x86-64, Paff is the assembly `build.rs` generates for this encoding
//! from the wiring tables (`src/paff_wiring.rs`): 15 subblocks in
//! `xmm0..xmm14` and 5 in a 16-byte-aligned scratch area
//! ([`super::kernel::Split`]), the spills placed by a latency model so that
//! trips through memory stay off the critical path; 32-bit x86 (8 `xmm`
//! registers) uses [`crate::paff::paff_rounds!`]. The absorb, permute and
//! one-shot bodies are the shared ones of [`super::kernel`]; this file only
//! supplies the level's vector type, its feature detection and the
//! `#[target_feature]` entry points (`permute_impl`, `absorb_impl`,
//! `hash_impl`).
//!
//! Constant-time: `AESENC` has data-independent timing; message and state
//! bytes only live in vector registers, the scratch area (fixed offsets,
//! no index) and the wiped padding buffer, and the only branches are on
//! public lengths.

#[cfg(target_arch = "x86")]
use core::arch::x86::*;
#[cfg(target_arch = "x86_64")]
use core::arch::x86_64::*;

#[cfg(pavelor_split)]
use super::kernel::{IN_REGS, RC_ALIGNED, SpillArea, SplitPaff};
use super::kernel::{Vector, single_kernel, state_split};
use crate::paff::RC;

cpufeatures::new!(cpuid, "aes", "sse2", "avx");

/// Proof that the CPU has AES-NI and AVX (with the OS saving `ymm` state);
/// only [`Token::detect`] makes one.
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
#[repr(transparent)]
pub(crate) struct Xmm(__m128i);

// SAFETY (every method): called only from this file's `#[target_feature]`
// functions, i.e. with the features this level's token proves; the memory
// operands are in bounds as documented on [`Vector`].
impl Vector<1> for Xmm {
    // x86-64: the generated Paff of `build.rs` (15 subblocks in registers,
    // spills placed by a latency model). 32-bit x86 has 8 `xmm` registers:
    // the compiler allocates.
    state_split!();

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

#[cfg(pavelor_split)]
impl SplitPaff<1> for Xmm {
    #[inline(always)]
    unsafe fn paff_split(r: &mut [Self; IN_REGS], spill: &mut SpillArea<Self>) {
        let m = spill.as_mut_ptr().cast::<Self>();
        let rc = RC_ALIGNED.0.as_ptr();
        // SAFETY: AES-NI and AVX are enabled in the calling kernel (see `Vector`).
        // The generated code (`build.rs`, which checks it against the
        // wiring before writing it) names every vector register it
        // writes (`r[i]` in `xmm0..xmm14`, `xmm15` clobbered), reads the
        // 24 round constants at `rc` (32-byte aligned, 384 bytes) and
        // reads and writes only the `SPILL_SLOTS` slots at `m` (`[Xmm; _]`
        // is 16-byte aligned, as the aligned memory operands need; the
        // expression asserts its slot count fits), and no stack; it reads a
        // slot only after writing it, except the subblock slots, which the
        // caller initialised (`SplitPaff`'s precondition).
        unsafe { include!(concat!(env!("OUT_DIR"), "/paff_vex.rs")) }
    }
}

single_kernel!(Token, "aes,sse2,avx", Xmm);
