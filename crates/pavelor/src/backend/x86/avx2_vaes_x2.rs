//! x86 2-lane batch kernel for AVX2 + VAES CPUs (AMD Zen 3, Intel Alder
//! Lake and later): two independent states, one per 128-bit lane of a
//! `ymm` register, VEX-encoded `vaesenc ymm` (16 registers, so part of the
//! two states is spilled). Used by the `avx2-vaes` backend's batches.
//!
//! # Detection
//!
//! `cpufeatures` reports `vaes` only together with the AVX-512 register
//! state, so it would never find this level on CPUs that have VAES without
//! AVX-512. [`Token::detect`] therefore reads CPUID and XCR0 itself: AES-NI,
//! OSXSAVE and AVX (leaf 1), the OS saving `xmm` and `ymm` state (XCR0 bits
//! 1 and 2), AVX2 and VAES (leaf 7). The answer is cached.
//!
//! The state layout is [`Lanes<2>`](crate::backend::layout::Lanes): subblock `j` of both lanes is
//! 32 contiguous bytes, one `ymm` load. On x86-64, Paff is the VEX program
//! `cargo xtask codegen` generates from the wiring tables
//! (`generated/paff_vex_ymm.rs`), rendered on `ymm` registers
//! and 32-byte scratch slots (15 subblock pairs in `ymm0..ymm14`, 5 in
//! the scratch area, [`Split`](crate::backend::kernel::Split)); the absorb
//! body is the shared one of [`crate::backend::kernel`].
//!
//! Constant-time: `VAESENC` has data-independent timing; the only branches
//! are on the public number of blocks.

#[cfg(target_arch = "x86")]
use core::arch::x86::*;
#[cfg(target_arch = "x86_64")]
use core::arch::x86_64::*;
use core::sync::atomic::{AtomicU8, Ordering};

use crate::backend::kernel::lane_kernel;
#[cfg(pavelor_split)]
use crate::backend::kernel::{IN_REGS, RC_ALIGNED_X2, SpillArea, SplitPaff};

/// Proof that the CPU has AES-NI, AVX2 and VAES with `ymm` state enabled;
/// only [`Token::detect`] makes one.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Token(());

/// 0: not yet detected, 1: absent, 2: present.
static DETECTED: AtomicU8 = AtomicU8::new(0);

impl Token {
    /// Returns a token if this CPU supports AVX2 + VAES (CPUID and XCR0 are
    /// read once, then cached).
    #[inline]
    pub(crate) fn detect() -> Option<Self> {
        let mut v = DETECTED.load(Ordering::Relaxed);
        if v == 0 {
            v = if detect_uncached() { 2 } else { 1 };
            DETECTED.store(v, Ordering::Relaxed);
        }
        (v == 2).then_some(Token(()))
    }
}

#[cold]
fn detect_uncached() -> bool {
    const AES: u32 = 1 << 25;
    const OSXSAVE: u32 = 1 << 27;
    const AVX: u32 = 1 << 28;
    const AVX2_EBX: u32 = 1 << 5;
    const VAES_ECX: u32 = 1 << 9;
    if __cpuid(0).eax < 7 {
        return false;
    }
    let l1 = __cpuid(1);
    if l1.ecx & (AES | OSXSAVE | AVX) != AES | OSXSAVE | AVX {
        return false;
    }
    // SAFETY: OSXSAVE is set, so `xgetbv` is available and enabled.
    let xcr0 = unsafe { xcr0() };
    if xcr0 & 0b110 != 0b110 {
        return false;
    }
    let l7 = __cpuid_count(7, 0);
    l7.ebx & AVX2_EBX != 0 && l7.ecx & VAES_ECX != 0
}

/// # Safety
/// The CPU must support `xgetbv` (CPUID.1:ECX.OSXSAVE).
#[target_feature(enable = "xsave")]
unsafe fn xcr0() -> u64 {
    // SAFETY: forwarded to the caller.
    unsafe { _xgetbv(0) }
}

vector_256!(
    /// Two AES blocks in a `ymm` register, VEX encoding (16 registers).
    Ymm,
    state_split
);

#[cfg(pavelor_split)]
impl SplitPaff<2> for Ymm {
    #[inline(always)]
    unsafe fn paff_split(r: &mut [Self; IN_REGS], spill: &mut SpillArea<Self>) {
        // SAFETY: forwarded to the caller (AVX2 + VAES enabled).
        unsafe { paff_split_ymm(r, spill) }
    }
}

/// The generated two-lane Paff. A separate function because `ymm`
/// operands of `asm!` need the AVX feature on the function that holds
/// them; `#[inline]` into `absorb_x2_impl`, which has it.
///
/// # Safety
/// The CPU must support AVX2 and VAES; slots `0..20 - IN_REGS` of `spill`
/// must be initialised (see [`SplitPaff::paff_split`]).
#[cfg(pavelor_split)]
#[inline]
#[target_feature(enable = "avx,avx2,vaes")]
unsafe fn paff_split_ymm(r: &mut [Ymm; IN_REGS], spill: &mut SpillArea<Ymm>) {
    let m = spill.as_mut_ptr().cast::<Ymm>();
    let rc = RC_ALIGNED_X2.0.as_ptr();
    // SAFETY: AVX2 and VAES are enabled here. The generated code
    // (`cargo xtask codegen`, which checks the program against the wiring
    // on a model before writing it) names every vector register it writes
    // (`r[i]` in `ymm0..ymm14`, `ymm15` clobbered), reads the 24 two-lane
    // round constants at `rc` (32-byte aligned, 768 bytes) and reads and
    // writes only the `SPILL_SLOTS` 32-byte slots at `m` (`[Ymm; _]` is
    // 32-byte aligned, as the aligned memory operands need; the expression
    // asserts its slot count fits), and no stack; it reads a slot only
    // after writing it, except the subblock slots, which the caller
    // initialised (`SplitPaff`'s precondition, forwarded).
    unsafe { include!("generated/paff_vex_ymm.rs") }
}

lane_kernel!(
    Token,
    "aes,sse2,avx,avx2,vaes",
    2,
    Ymm,
    absorb_x2,
    absorb_x2_impl
);
