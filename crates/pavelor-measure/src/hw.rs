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

/// An AES instruction form the probe times. A round of one 128-bit block
/// is a lane-round; the wider x86 forms do one per 128-bit lane.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AesForm {
    /// `AESENC xmm` (AES-NI).
    Aesenc128,
    /// `VAESENC ymm` (VAES with AVX2): two lane-rounds.
    Vaesenc256,
    /// `VAESENC zmm` (VAES with AVX-512 F): four lane-rounds.
    Vaesenc512,
    /// `AESE` (with the key) followed by the `AESMC` that consumes it,
    /// which most AArch64 cores fuse.
    AeseAesmc,
}

impl AesForm {
    /// The instruction's name, as the report prints it.
    pub fn name(self) -> &'static str {
        match self {
            AesForm::Aesenc128 => "AESENC",
            AesForm::Vaesenc256 => "VAESENC ymm",
            AesForm::Vaesenc512 => "VAESENC zmm",
            AesForm::AeseAesmc => "AESE+AESMC pair",
        }
    }

    /// 128-bit blocks one instruction rounds.
    pub fn lanes(self) -> usize {
        match self {
            AesForm::Aesenc128 | AesForm::AeseAesmc => 1,
            AesForm::Vaesenc256 => 2,
            AesForm::Vaesenc512 => 4,
        }
    }

    /// The forms this CPU has, narrowest first (empty without AES
    /// instructions). A wider form is not always faster per lane, so the
    /// probe times every one.
    pub fn available() -> Vec<SupportedAesForm> {
        Self::detected().into_iter().map(SupportedAesForm).collect()
    }

    fn detected() -> Vec<AesForm> {
        let mut forms = Vec::new();
        #[cfg(target_arch = "x86_64")]
        {
            if std::arch::is_x86_feature_detected!("aes") {
                forms.push(AesForm::Aesenc128);
                if std::arch::is_x86_feature_detected!("vaes")
                    && std::arch::is_x86_feature_detected!("avx2")
                {
                    forms.push(AesForm::Vaesenc256);
                    if std::arch::is_x86_feature_detected!("avx512f") {
                        forms.push(AesForm::Vaesenc512);
                    }
                }
            }
        }
        #[cfg(target_arch = "aarch64")]
        {
            if std::arch::is_aarch64_feature_detected!("aes") {
                forms.push(AesForm::AeseAesmc);
            }
        }
        forms
    }
}

/// An [`AesForm`] this CPU has: only [`AesForm::available`] makes one, so
/// the feature check is done once, before any timed run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SupportedAesForm(AesForm);

impl SupportedAesForm {
    /// The form.
    pub fn form(self) -> AesForm {
        self.0
    }
}

/// Runs `iterations` steps of [`AES_CHAINS`] independent AES-round chains
/// of `form` (no barriers in the loop) and returns a value depending on
/// all of them, so none can be optimized away.
pub fn aes_chains(form: SupportedAesForm, iterations: u64) -> u64 {
    match form.0 {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: the CPU has AES-NI (a `SupportedAesForm` is made only by
        // `AesForm::available`, which detected it).
        AesForm::Aesenc128 => unsafe { aesenc_chains_x86(iterations) },
        #[cfg(target_arch = "x86_64")]
        // SAFETY: the CPU has VAES and AVX2 (detected by `available`).
        AesForm::Vaesenc256 => unsafe { vaesenc_ymm_chains_x86(iterations) },
        #[cfg(target_arch = "x86_64")]
        // SAFETY: the CPU has VAES and AVX-512 F (detected by `available`).
        AesForm::Vaesenc512 => unsafe { vaesenc_zmm_chains_x86(iterations) },
        #[cfg(target_arch = "aarch64")]
        // SAFETY: the CPU has the ARMv8 AES instructions (detected by
        // `available`).
        AesForm::AeseAesmc => unsafe { aese_chains_aarch64(iterations) },
        // `available` makes no other form on this architecture.
        #[allow(unreachable_patterns)]
        _ => 0,
    }
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

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "vaes,avx2")]
unsafe fn vaesenc_ymm_chains_x86(iterations: u64) -> u64 {
    use core::arch::x86_64::*;
    let key = _mm256_set_epi64x(
        0x0123_4567_89ab_cdef,
        0x0fed_cba9_8765_4321,
        0x1357_9bdf_0246_8ace,
        0x7654_3210_fedc_ba98,
    );
    let mut s: [__m256i; AES_CHAINS] = core::array::from_fn(|i| _mm256_set1_epi32(i as i32 + 1));
    for _ in 0..iterations {
        for v in s.iter_mut() {
            *v = _mm256_aesenc_epi128(*v, key);
        }
    }
    let acc = s
        .iter()
        .fold(_mm256_setzero_si256(), |a, v| _mm256_xor_si256(a, *v));
    let acc = _mm_xor_si128(
        _mm256_castsi256_si128(acc),
        _mm256_extracti128_si256::<1>(acc),
    );
    _mm_cvtsi128_si64(acc) as u64
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "vaes,avx512f")]
unsafe fn vaesenc_zmm_chains_x86(iterations: u64) -> u64 {
    use core::arch::x86_64::*;
    let key = _mm512_set1_epi64(0x0123_4567_89ab_cdef);
    let mut s: [__m512i; AES_CHAINS] = core::array::from_fn(|i| _mm512_set1_epi32(i as i32 + 1));
    for _ in 0..iterations {
        for v in s.iter_mut() {
            *v = _mm512_aesenc_epi128(*v, key);
        }
    }
    let acc = s
        .iter()
        .fold(_mm512_setzero_si512(), |a, v| _mm512_xor_si512(a, *v));
    let acc = _mm256_xor_si256(
        _mm512_castsi512_si256(acc),
        _mm512_extracti64x4_epi64::<1>(acc),
    );
    let acc = _mm_xor_si128(
        _mm256_castsi256_si128(acc),
        _mm256_extracti128_si256::<1>(acc),
    );
    _mm_cvtsi128_si64(acc) as u64
}

/// Runs `iterations` steps of one dependent AES-round chain of `form` (each
/// step's input is the previous step's output, the round key a constant
/// register): its time per step is the form's latency, the least time one
/// round of Paff can take on any implementation that rounds with it (the
/// round's outputs are AES rounds of the previous round's state). Returns
/// a value depending on the chain, so it cannot be optimized away.
pub fn aes_latency_chain(form: SupportedAesForm, iterations: u64) -> u64 {
    match form.0 {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: the CPU has AES-NI (a `SupportedAesForm` is made only by
        // `AesForm::available`, which detected it).
        AesForm::Aesenc128 => unsafe { aesenc_latency_x86(iterations) },
        #[cfg(target_arch = "x86_64")]
        // SAFETY: the CPU has VAES and AVX2 (detected by `available`).
        AesForm::Vaesenc256 => unsafe { vaesenc_ymm_latency_x86(iterations) },
        #[cfg(target_arch = "x86_64")]
        // SAFETY: the CPU has VAES and AVX-512 F (detected by `available`).
        AesForm::Vaesenc512 => unsafe { vaesenc_zmm_latency_x86(iterations) },
        #[cfg(target_arch = "aarch64")]
        // SAFETY: the CPU has the ARMv8 AES instructions (detected by
        // `available`).
        AesForm::AeseAesmc => unsafe { aese_latency_aarch64(iterations) },
        // `available` makes no other form on this architecture.
        #[allow(unreachable_patterns)]
        _ => 0,
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "aes,sse2")]
unsafe fn aesenc_latency_x86(iterations: u64) -> u64 {
    use core::arch::x86_64::*;
    let key = _mm_set_epi64x(0x0123_4567_89ab_cdef, 0x0fed_cba9_8765_4321);
    let mut x = _mm_set1_epi32(1);
    for _ in 0..iterations {
        x = _mm_aesenc_si128(x, key);
    }
    _mm_cvtsi128_si64(x) as u64
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "vaes,avx2")]
unsafe fn vaesenc_ymm_latency_x86(iterations: u64) -> u64 {
    use core::arch::x86_64::*;
    let key = _mm256_set1_epi64x(0x0123_4567_89ab_cdef);
    let mut x = _mm256_set1_epi32(1);
    for _ in 0..iterations {
        x = _mm256_aesenc_epi128(x, key);
    }
    _mm_cvtsi128_si64(_mm256_castsi256_si128(x)) as u64
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "vaes,avx512f")]
unsafe fn vaesenc_zmm_latency_x86(iterations: u64) -> u64 {
    use core::arch::x86_64::*;
    let key = _mm512_set1_epi64(0x0123_4567_89ab_cdef);
    let mut x = _mm512_set1_epi32(1);
    for _ in 0..iterations {
        x = _mm512_aesenc_epi128(x, key);
    }
    _mm_cvtsi128_si64(_mm512_castsi512_si128(x)) as u64
}

/// One step is `x = AESMC(AESE(x, key))`, the fused pair (see
/// [`aese_chains_aarch64`]).
#[cfg(target_arch = "aarch64")]
#[target_feature(enable = "aes")]
unsafe fn aese_latency_aarch64(iterations: u64) -> u64 {
    use core::arch::aarch64::*;
    let key = vdupq_n_u8(0x5a);
    let mut x = vdupq_n_u8(1);
    for _ in 0..iterations {
        x = vaesmcq_u8(vaeseq_u8(x, key));
    }
    vgetq_lane_u64::<0>(vreinterpretq_u64_u8(x))
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
