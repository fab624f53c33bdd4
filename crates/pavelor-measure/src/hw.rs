//! The only hardware-specific code of the measurement crate: the CPU's
//! free-running tick counter (x86 TSC, AArch64 `CNTVCT_EL0`) and the
//! AES-round throughput probe that gives the physical bound.

#![allow(unsafe_code)]

/// Name of the tick counter on this architecture, if there is one.
pub fn tick_counter_name() -> Option<&'static str> {
    if cfg!(any(target_arch = "x86_64", target_arch = "x86")) {
        Some("TSC ticks")
    } else if cfg!(target_arch = "aarch64") {
        Some("CNTVCT_EL0 ticks")
    } else {
        None
    }
}

/// Reads the tick counter (0 where there is none).
#[inline(always)]
pub fn ticks() -> u64 {
    #[cfg(target_arch = "x86_64")]
    {
        // SAFETY: RDTSC exists on every x86-64 CPU and has no preconditions.
        unsafe { core::arch::x86_64::_rdtsc() }
    }
    #[cfg(target_arch = "aarch64")]
    {
        let v: u64;
        // The `isb` keeps the counter read from being executed before the
        // instructions that precede it complete (as the Linux vDSO does).
        // SAFETY: CNTVCT_EL0 is readable from EL0 on Linux (the kernel
        // enables user access); `isb` and `mrs` have no side effects on
        // memory or the stack.
        unsafe {
            core::arch::asm!("isb", "mrs {v}, cntvct_el0", v = out(reg) v, options(nomem, nostack))
        };
        v
    }
    #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
    {
        0
    }
}

/// Number of independent AES-round chains in the probe: the method asks for
/// at least 12, enough to cover latency × throughput of current cores (e.g.
/// 4 cycles × 2 per cycle on x86; on AArch64 up to 4 AES pipes × 3 cycles
/// for a fused `AESE`+`AESMC` pair). On x86 that is, with the round key, 13
/// of the 16 xmm registers; on AArch64 16 chains use 17 of the 32 vector
/// registers. Nothing spills to memory inside the loop.
#[cfg(not(target_arch = "aarch64"))]
pub const AES_CHAINS: usize = 12;
/// See the x86 documentation of this constant.
#[cfg(target_arch = "aarch64")]
pub const AES_CHAINS: usize = 16;

/// The instruction (sequence) the probe counts as one AES round: `AESENC` on
/// x86; on AArch64 an `AESE` (with the key) followed by the `AESMC` that
/// consumes it, which most cores fuse.
pub fn aes_round_name() -> &'static str {
    if cfg!(target_arch = "aarch64") {
        "AESE+AESMC pair"
    } else {
        "AESENC"
    }
}

/// Runs `iterations` rounds of [`AES_CHAINS`] independent AES-round chains
/// (`AESENC`, or `AESE`+`AESMC` on AArch64; no barriers in the loop) and
/// returns a value depending on all of them, so none can be optimized away.
/// `None` if the CPU has no AES instructions (AES-NI, or the ARMv8 `aes`
/// extension).
pub fn aesenc_chains(iterations: u64) -> Option<u64> {
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("aes") {
            // SAFETY: the CPU supports AES-NI (checked just above).
            return Some(unsafe { aesenc_chains_x86(iterations) });
        }
    }
    #[cfg(target_arch = "aarch64")]
    {
        if std::arch::is_aarch64_feature_detected!("aes") {
            // SAFETY: the CPU supports the ARMv8 AES instructions (checked
            // just above).
            return Some(unsafe { aese_chains_aarch64(iterations) });
        }
    }
    let _ = iterations;
    None
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "aes,sse2")]
unsafe fn aesenc_chains_x86(iterations: u64) -> u64 {
    use core::arch::x86_64::*;
    let key = _mm_set_epi64x(0x0123_4567_89ab_cdef, 0x0fed_cba9_8765_4321);
    let mut s: [__m128i; AES_CHAINS] = core::array::from_fn(|i| _mm_set1_epi32(i as i32 + 1));
    for _ in 0..iterations {
        for v in s.iter_mut() {
            *v = _mm_aesenc_si128(*v, key);
        }
    }
    let acc = s
        .iter()
        .fold(_mm_setzero_si128(), |a, v| _mm_xor_si128(a, *v));
    _mm_cvtsi128_si64(acc) as u64
}

/// Each chain step is `x = AESMC(AESE(x, key))`: one full AES round (the
/// key XOR happens before `SubBytes` instead of after `MixColumns`, which
/// does not change the cost).
#[cfg(target_arch = "aarch64")]
#[target_feature(enable = "aes")]
unsafe fn aese_chains_aarch64(iterations: u64) -> u64 {
    use core::arch::aarch64::*;
    let key = vcombine_u8(
        vcreate_u8(0x0123_4567_89ab_cdef),
        vcreate_u8(0x0fed_cba9_8765_4321),
    );
    let mut s: [uint8x16_t; AES_CHAINS] = core::array::from_fn(|i| vdupq_n_u8(i as u8 + 1));
    for _ in 0..iterations {
        for v in s.iter_mut() {
            *v = vaesmcq_u8(vaeseq_u8(*v, key));
        }
    }
    let acc = s.iter().fold(vdupq_n_u8(0), |a, v| veorq_u8(a, *v));
    vgetq_lane_u64::<0>(vreinterpretq_u64_u8(acc))
}
