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
        // SAFETY: CNTVCT_EL0 is readable from EL0 on Linux (the kernel
        // enables user access); the instruction has no side effects.
        unsafe { core::arch::asm!("mrs {v}, cntvct_el0", v = out(reg) v, options(nomem, nostack)) };
        v
    }
    #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
    {
        0
    }
}

/// Number of independent AESENC chains in the probe: the method asks for at
/// least 12, enough to cover latency × throughput of current cores (e.g. 4
/// cycles × 2 per cycle); with the round key that is 13 of the 16 xmm
/// registers, so nothing spills to memory inside the loop.
pub const AES_CHAINS: usize = 12;

/// Runs `iterations` rounds of [`AES_CHAINS`] independent `AESENC` chains
/// (no barriers in the loop) and returns a value depending on all of them,
/// so none can be optimized away. `None` if the CPU has no AES-NI.
pub fn aesenc_chains(iterations: u64) -> Option<u64> {
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("aes") {
            // SAFETY: the CPU supports AES-NI (checked just above).
            return Some(unsafe { aesenc_chains_x86(iterations) });
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
