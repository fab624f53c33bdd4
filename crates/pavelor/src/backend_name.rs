//! [`Backend`]: the names of the implementations of Paff this crate has.
//! A name says nothing about this CPU; [`crate::Available`] is the proof
//! that it runs one.

use core::fmt;

/// The implementations of Paff this crate has: a name, which this CPU may
/// or may not run. To hash with one, resolve it into an
/// [`Available`](crate::Available).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Backend {
    /// Portable constant-time software: bitsliced AES rounds, no tables.
    Portable,
    /// x86 AES-NI with SSE encoding: one `AESENC` per AES round, 16 vector
    /// registers. Batches are hashed one message at a time.
    AesNi,
    /// x86 AES-NI + AVX: VEX-encoded `vaesenc xmm` (three-operand), 16
    /// vector registers. Batches are hashed one message at a time. The
    /// default on CPUs with AVX but neither AVX-512 VL + VAES nor AVX2 +
    /// VAES.
    AesNiAvx,
    /// x86 AES-NI + AVX2 + VAES: the VEX single-message kernel of
    /// [`Backend::AesNiAvx`], and a 2-lane `ymm` batch kernel. Detected with
    /// its own CPUID/XCR0 check, so CPUs with VAES but without AVX-512 (AMD
    /// Zen 3, Intel Alder Lake) get it.
    Avx2Vaes,
    /// x86 VAES + AVX-512F/VL/BW: single-message kernel using all 32 EVEX
    /// registers (the whole state stays in registers), 4-lane `zmm` and
    /// 2-lane `ymm` batch kernels.
    Avx512Vaes,
    /// AArch64 with the ARMv8 Cryptographic Extension (`aes`): `AESE` with a
    /// zero key, `AESMC` and `EOR` per AES round, the 20 subblocks in NEON
    /// registers. Batches are hashed one message at a time.
    Armv8Aes,
}

impl Backend {
    /// Every backend, fastest first.
    pub const ALL: &'static [Backend] = &[
        Backend::Avx512Vaes,
        Backend::Avx2Vaes,
        Backend::AesNiAvx,
        Backend::AesNi,
        Backend::Armv8Aes,
        Backend::Portable,
    ];

    /// Short lowercase name, as accepted by [`Backend::from_name`].
    pub fn name(self) -> &'static str {
        match self {
            Backend::Portable => "portable",
            Backend::AesNi => "aesni",
            Backend::AesNiAvx => "aesni-avx",
            Backend::Avx2Vaes => "avx2-vaes",
            Backend::Avx512Vaes => "avx512-vaes",
            Backend::Armv8Aes => "armv8-aes",
        }
    }

    /// Parses a backend name (`portable`, `aesni`, `aesni-avx`,
    /// `avx2-vaes`, `avx512-vaes`, `armv8-aes`); `None` for any other name.
    /// To resolve a user's choice into a backend this CPU runs, use
    /// [`Available::resolve`](crate::Available::resolve).
    pub fn from_name(name: &str) -> Option<Self> {
        Backend::ALL.iter().copied().find(|b| b.name() == name)
    }
}

impl fmt::Display for Backend {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}
