//! Backends: one place that knows which implementations of Paff exist, which
//! of them this CPU can run, and how to call them.
//!
//! A backend is chosen once, when a hasher is created, and carried inside it
//! as an [`Engine`] value; the hashing loops never detect features again.
//! Every backend implements the same operations: "apply Paff", "absorb
//! whole rate blocks" and "hash a whole message" (the fused one-shot path:
//! IV, absorb, padding and squeeze in one kernel call, the state in
//! registers throughout — on the 16-register levels, 15 of its 20 blocks,
//! the rest in the kernel's wiped scratch area).
//!
//! # Files
//!
//! One kernel file per instruction-set level, as BLAKE3 lays out its
//! platforms; no kernel file imports from another:
//!
//! | file             | encoding                                  | used by backend(s)          |
//! |------------------|-------------------------------------------|-----------------------------|
//! | `aesni.rs`       | SSE `aesenc`, 16 `xmm`, generated Paff    | `aesni`                     |
//! | `aesni_avx.rs`   | VEX `vaesenc xmm`, 16 `xmm` (AES + AVX), generated Paff | `aesni-avx`, `avx2-vaes` |
//! | `avx512_vaes.rs` | EVEX `vaesenc xmm`, 32 `xmm`, no spills   | `avx512-vaes`               |
//! | `vaes_x2.rs`     | VEX `vaesenc ymm`, 2 lanes (AVX2 + VAES), generated Paff | `avx2-vaes` batches |
//! | `vaes_x4.rs`     | EVEX `vaesenc zmm` 4 lanes, `ymm` 2 lanes | `avx512-vaes` batches       |
//! | `aarch64.rs`     | `aese`+`aesmc`+`eor`, 32 NEON registers   | `armv8-aes`                 |
//! | `portable.rs`    | bitsliced software AES                    | `portable`                  |
//!
//! The hardware kernels share the Paff wiring and the absorb / permute /
//! one-shot bodies ([`kernel`]); a kernel file only supplies its vector
//! type, feature detection and `#[target_feature]` entry points. The
//! kernels with 32 vector registers (and the AArch64 one) run the wiring
//! as [`crate::paff::paff_rounds!`] and let the compiler allocate
//! registers. The three with 16 (`aesni`, `aesni-avx`, the `ymm` batch)
//! cannot hold the 20-block state in registers: their Paff is assembly that
//! the crate's `build.rs` generates from the same wiring tables
//! (`src/paff_wiring.rs`), placing the spills where a latency model says
//! they cost least, and checks against the wiring before the build goes on
//! (see `build.rs` and [`kernel::Split`]).
//!
//! A backend is an instruction-set *level*: besides its single-message
//! kernel it names the batch kernels `crate::batch` uses at that level
//! ([`Engine::x4`], [`Engine::x2`]; every level can hash one lane at a time
//! through its single-message kernel):
//!
//! | backend       | single message                   | batch lanes           |
//! |---------------|----------------------------------|-----------------------|
//! | `avx512-vaes` | EVEX `vaesenc xmm`, 32 registers | 4 × `zmm`, 2 × `ymm`  |
//! | `avx2-vaes`   | VEX `vaesenc xmm`, 16 registers  | 2 × `ymm`             |
//! | `aesni-avx`   | VEX `vaesenc xmm`, 16 registers  | 1 (single kernel)     |
//! | `aesni`       | SSE `aesenc`, 16 registers       | 1 (single kernel)     |
//! | `armv8-aes`   | AArch64 `aese`+`aesmc`, 32 registers | 1 (single kernel) |
//! | `portable`    | bitsliced software AES           | 1 (single kernel)     |
//!
//! Every [`Backend`] variant exists on every architecture; only its
//! availability differs (the x86 levels are never available on AArch64 and
//! `armv8-aes` never on x86).

use crate::Error;
use crate::paff::{SUBBLOCKS, State};
use crate::params::Variant;
use crate::sponge::Sponge;

#[cfg(target_arch = "aarch64")]
pub(crate) mod aarch64;
#[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
pub(crate) mod aesni;
#[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
pub(crate) mod aesni_avx;
#[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
pub(crate) mod avx512_vaes;
#[cfg_attr(
    not(any(target_arch = "x86", target_arch = "x86_64", target_arch = "aarch64")),
    allow(dead_code)
)]
pub(crate) mod kernel;
pub(crate) mod portable;
#[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
pub(crate) mod vaes_x2;
#[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
pub(crate) mod vaes_x4;

/// `N` interleaved states: `lanes[j][l]` is subblock `j` of state `l`, so
/// subblock `j` of all lanes is `16 * N` contiguous bytes (one vector).
pub(crate) type Lanes<const N: usize> = [[[u8; 16]; N]; SUBBLOCKS];

/// The implementations of Paff this crate has.
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
    /// `avx2-vaes`, `avx512-vaes`, `armv8-aes`); any other name is
    /// [`Error::UnknownBackend`].
    pub fn from_name(name: &str) -> Result<Self, Error> {
        Backend::ALL
            .iter()
            .copied()
            .find(|b| b.name() == name)
            .ok_or(Error::UnknownBackend)
    }

    /// Whether this CPU can run the backend.
    pub fn is_available(self) -> bool {
        Engine::new(self).is_ok()
    }

    /// The fastest backend this CPU can run.
    pub fn best() -> Self {
        Engine::best().backend()
    }
}

impl core::fmt::Display for Backend {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(self.name())
    }
}

/// A backend that has been checked to run on this CPU. Only [`Engine::new`]
/// and [`Engine::best`] make one, so holding an `Engine` is the proof that
/// its kernels' CPU features are present.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Engine(Inner);

/// One variant per backend available on this architecture, holding the
/// tokens of the kernel files it uses.
#[derive(Clone, Copy, Debug)]
enum Inner {
    Portable,
    #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
    AesNi(aesni::Token),
    #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
    AesNiAvx(aesni_avx::Token),
    #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
    Avx2Vaes(aesni_avx::Token, vaes_x2::Token),
    #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
    Avx512Vaes(avx512_vaes::Token, vaes_x4::Token),
    #[cfg(target_arch = "aarch64")]
    Armv8Aes(aarch64::Token),
}

/// Detection of each backend on this architecture (`None` elsewhere).
mod detect {
    use super::Inner;
    #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
    use super::{aesni, aesni_avx, avx512_vaes, vaes_x2, vaes_x4};

    #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
    #[inline]
    pub(super) fn aesni() -> Option<Inner> {
        aesni::Token::detect().map(Inner::AesNi)
    }
    #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
    #[inline]
    pub(super) fn aesni_avx() -> Option<Inner> {
        aesni_avx::Token::detect().map(Inner::AesNiAvx)
    }
    #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
    #[inline]
    pub(super) fn avx2_vaes() -> Option<Inner> {
        Some(Inner::Avx2Vaes(
            aesni_avx::Token::detect()?,
            vaes_x2::Token::detect()?,
        ))
    }
    #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
    #[inline]
    pub(super) fn avx512_vaes() -> Option<Inner> {
        let level = avx512_vaes::Token::detect()?;
        Some(Inner::Avx512Vaes(level, vaes_x4::Token::of_level(level)))
    }
    #[cfg(not(any(target_arch = "x86", target_arch = "x86_64")))]
    #[inline]
    pub(super) fn aesni() -> Option<Inner> {
        None
    }
    #[cfg(not(any(target_arch = "x86", target_arch = "x86_64")))]
    #[inline]
    pub(super) fn aesni_avx() -> Option<Inner> {
        None
    }
    #[cfg(not(any(target_arch = "x86", target_arch = "x86_64")))]
    #[inline]
    pub(super) fn avx2_vaes() -> Option<Inner> {
        None
    }
    #[cfg(not(any(target_arch = "x86", target_arch = "x86_64")))]
    #[inline]
    pub(super) fn avx512_vaes() -> Option<Inner> {
        None
    }
    #[cfg(target_arch = "aarch64")]
    #[inline]
    pub(super) fn armv8_aes() -> Option<Inner> {
        super::aarch64::Token::detect().map(Inner::Armv8Aes)
    }
    #[cfg(not(target_arch = "aarch64"))]
    #[inline]
    pub(super) fn armv8_aes() -> Option<Inner> {
        None
    }
}

impl Engine {
    /// The fastest backend available here. Feature detection is cached (an
    /// atomic load per level after the first call).
    #[inline]
    pub(crate) fn best() -> Self {
        let inner = detect::avx512_vaes()
            .or_else(detect::avx2_vaes)
            .or_else(detect::aesni_avx)
            .or_else(detect::aesni)
            .or_else(detect::armv8_aes)
            .unwrap_or(Inner::Portable);
        Engine(inner)
    }

    /// The named backend, or [`Error::BackendUnavailable`] if this CPU lacks it.
    pub(crate) fn new(backend: Backend) -> Result<Self, Error> {
        let inner = match backend {
            Backend::Portable => Some(Inner::Portable),
            Backend::AesNi => detect::aesni(),
            Backend::AesNiAvx => detect::aesni_avx(),
            Backend::Avx2Vaes => detect::avx2_vaes(),
            Backend::Avx512Vaes => detect::avx512_vaes(),
            Backend::Armv8Aes => detect::armv8_aes(),
        };
        inner.map(Engine).ok_or(Error::BackendUnavailable(backend))
    }

    /// Which backend this is.
    pub(crate) fn backend(self) -> Backend {
        match self.0 {
            Inner::Portable => Backend::Portable,
            #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
            Inner::AesNi(_) => Backend::AesNi,
            #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
            Inner::AesNiAvx(_) => Backend::AesNiAvx,
            #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
            Inner::Avx2Vaes(..) => Backend::Avx2Vaes,
            #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
            Inner::Avx512Vaes(..) => Backend::Avx512Vaes,
            #[cfg(target_arch = "aarch64")]
            Inner::Armv8Aes(_) => Backend::Armv8Aes,
        }
    }

    /// Applies Paff to `state`.
    #[inline]
    pub(crate) fn permute(self, state: &mut State) {
        match self.0 {
            Inner::Portable => portable::permute(state),
            #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
            Inner::AesNi(t) => aesni::permute(t, state),
            #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
            Inner::AesNiAvx(t) | Inner::Avx2Vaes(t, _) => aesni_avx::permute(t, state),
            #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
            Inner::Avx512Vaes(t, _) => avx512_vaes::permute(t, state),
            #[cfg(target_arch = "aarch64")]
            Inner::Armv8Aes(t) => aarch64::permute(t, state),
        }
    }

    /// For each `V::RATE`-byte block of `blocks`: XOR it into the rate of
    /// the state, then apply Paff. `blocks.len()` is a multiple of the rate
    /// (a partial block at the end is ignored).
    #[inline]
    pub(crate) fn absorb<V: Variant>(self, state: &mut State, blocks: &[u8]) {
        debug_assert_eq!(blocks.len() % V::RATE, 0);
        match self.0 {
            Inner::Portable => {
                for block in blocks.chunks_exact(V::RATE) {
                    xor_into_state(state, block);
                    portable::permute(state);
                }
            }
            #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
            Inner::AesNi(t) => aesni::absorb::<V>(t, state, blocks),
            #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
            Inner::AesNiAvx(t) | Inner::Avx2Vaes(t, _) => aesni_avx::absorb::<V>(t, state, blocks),
            #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
            Inner::Avx512Vaes(t, _) => avx512_vaes::absorb::<V>(t, state, blocks),
            #[cfg(target_arch = "aarch64")]
            Inner::Armv8Aes(t) => aarch64::absorb::<V>(t, state, blocks),
        }
    }

    /// The digest of the message `data` followed by the top `tail_bits`
    /// (0..8) bits of `tail`, into `out` (`V::DIGEST` bytes). On the
    /// hardware backends this is one kernel call that keeps the state in
    /// registers from the IV to the squeeze.
    #[inline]
    pub(crate) fn hash<V: Variant>(self, data: &[u8], tail: u8, tail_bits: u8, out: &mut [u8]) {
        match self.0 {
            Inner::Portable => {
                let whole = data.len() - data.len() % V::RATE;
                let mut sponge = Sponge::new::<V>(self);
                sponge.absorb_blocks::<V>(&data[..whole]);
                sponge.finish::<V>(&data[whole..], tail, tail_bits, out);
            }
            #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
            Inner::AesNi(t) => aesni::hash::<V>(t, data, tail, tail_bits, out),
            #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
            Inner::AesNiAvx(t) | Inner::Avx2Vaes(t, _) => {
                aesni_avx::hash::<V>(t, data, tail, tail_bits, out)
            }
            #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
            Inner::Avx512Vaes(t, _) => avx512_vaes::hash::<V>(t, data, tail, tail_bits, out),
            #[cfg(target_arch = "aarch64")]
            Inner::Armv8Aes(t) => aarch64::hash::<V>(t, data, tail, tail_bits, out),
        }
    }

    /// The 4-lane batch kernel of this level, if it has one.
    #[inline]
    pub(crate) fn x4(self) -> Option<X4> {
        match self.0 {
            #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
            Inner::Avx512Vaes(_, t) => Some(X4::Avx512(t)),
            #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
            Inner::AesNi(_) | Inner::AesNiAvx(_) | Inner::Avx2Vaes(..) => None,
            #[cfg(target_arch = "aarch64")]
            Inner::Armv8Aes(_) => None,
            Inner::Portable => None,
        }
    }

    /// The 2-lane batch kernel of this level, if it has one.
    #[inline]
    pub(crate) fn x2(self) -> Option<X2> {
        match self.0 {
            #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
            Inner::Avx512Vaes(_, t) => Some(X2::Avx512(t)),
            #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
            Inner::Avx2Vaes(_, t) => Some(X2::Avx2(t)),
            #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
            Inner::AesNi(_) | Inner::AesNiAvx(_) => None,
            #[cfg(target_arch = "aarch64")]
            Inner::Armv8Aes(_) => None,
            Inner::Portable => None,
        }
    }

    /// The number of messages the widest batch kernel of this level hashes
    /// at once (1: one at a time with the single-message kernel).
    #[inline]
    pub(crate) fn lanes(self) -> usize {
        if self.x4().is_some() {
            4
        } else if self.x2().is_some() {
            2
        } else {
            1
        }
    }
}

/// A kernel that absorbs into `N` interleaved states at once.
pub(crate) trait LaneKernel<const N: usize>: Copy {
    /// For `n = min_l blocks[l].len() / V::RATE` blocks: XOR block `b` of
    /// `blocks[l]` into the rate of lane `l`, then apply Paff to every lane.
    fn absorb_lanes<V: Variant>(self, st: &mut Lanes<N>, blocks: [&[u8]; N]);
}

/// One lane at a time: the single-message kernel of the engine.
impl LaneKernel<1> for Engine {
    #[inline]
    fn absorb_lanes<V: Variant>(self, st: &mut Lanes<1>, blocks: [&[u8]; 1]) {
        let whole = blocks[0].len() / V::RATE * V::RATE;
        self.absorb::<V>(kernel::lanes_as_state(st), &blocks[0][..whole]);
    }
}

/// The 4-lane kernel of a level (uninhabited where there is none).
#[derive(Clone, Copy, Debug)]
pub(crate) enum X4 {
    /// `zmm`, AVX-512 level.
    #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
    Avx512(vaes_x4::Token),
}

impl LaneKernel<4> for X4 {
    #[inline]
    #[cfg_attr(
        not(any(target_arch = "x86", target_arch = "x86_64")),
        allow(unused_variables)
    )]
    fn absorb_lanes<V: Variant>(self, st: &mut Lanes<4>, blocks: [&[u8]; 4]) {
        match self {
            #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
            X4::Avx512(t) => vaes_x4::absorb_x4::<V>(t, st, blocks),
        }
    }
}

/// A 2-lane kernel of a level (uninhabited where there is none).
#[derive(Clone, Copy, Debug)]
pub(crate) enum X2 {
    /// VEX `ymm`, AVX2 + VAES level.
    #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
    Avx2(vaes_x2::Token),
    /// EVEX `ymm`, AVX-512 level.
    #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
    Avx512(vaes_x4::Token),
}

impl LaneKernel<2> for X2 {
    #[inline]
    #[cfg_attr(
        not(any(target_arch = "x86", target_arch = "x86_64")),
        allow(unused_variables)
    )]
    fn absorb_lanes<V: Variant>(self, st: &mut Lanes<2>, blocks: [&[u8]; 2]) {
        match self {
            #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
            X2::Avx2(t) => vaes_x2::absorb_x2::<V>(t, st, blocks),
            #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
            X2::Avx512(t) => vaes_x4::absorb_x2::<V>(t, st, blocks),
        }
    }
}

/// XORs the whole 16-byte subblocks of `block` into the state.
#[inline]
pub(crate) fn xor_into_state(state: &mut State, block: &[u8]) {
    for (sub, chunk) in state.iter_mut().zip(block.as_chunks::<16>().0) {
        // Whole subblocks as one 128-bit XOR (byte order is irrelevant).
        *sub = (u128::from_ne_bytes(*sub) ^ u128::from_ne_bytes(*chunk)).to_ne_bytes();
    }
}

/// Zeroes `bytes` with volatile 16-byte stores (plus byte stores for a
/// partial chunk), then a compiler fence so the stores are not reordered
/// past later code. Same guarantee as `zeroize`, but about 16× fewer stores
/// than its byte-by-byte volatile loop on the 320-byte state.
#[inline]
pub(crate) fn wipe(bytes: &mut [u8]) {
    let (chunks, rest) = bytes.as_chunks_mut::<16>();
    for chunk in chunks {
        // SAFETY: `chunk` is a valid, exclusive `&mut [u8; 16]`.
        unsafe { core::ptr::write_volatile(chunk, [0; 16]) };
    }
    for b in rest {
        // SAFETY: `b` is a valid, exclusive `&mut u8`.
        unsafe { core::ptr::write_volatile(b, 0) };
    }
    core::sync::atomic::compiler_fence(core::sync::atomic::Ordering::SeqCst);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::params::{P512, P768, P1024};

    /// Every backend's fused one-shot kernel, with partial final bytes,
    /// equals the streaming sponge on the portable backend (the public API
    /// reaches the bit-length one-shot only through the best backend).
    fn one_shot_bits<V: Variant>() {
        let data: std::vec::Vec<u8> = (0..2 * V::RATE as u32 + 3)
            .map(|i| (i * 73 + 5) as u8)
            .collect();
        let portable = Engine::new(Backend::Portable).unwrap_or_else(|_| Engine::best());
        for &b in Backend::ALL {
            let Ok(engine) = Engine::new(b) else { continue };
            for len in (0..data.len()).filter(|l| l % V::RATE < 3 || l % V::RATE > V::RATE - 3) {
                for bits in 0..8u8 {
                    let tail = data[len];
                    let mut want = [0u8; 128];
                    let mut got = [0u8; 128];
                    let whole = len - len % V::RATE;
                    let mut sponge = Sponge::new::<V>(portable);
                    sponge.absorb_blocks::<V>(&data[..whole]);
                    sponge.finish::<V>(&data[whole..len], tail, bits, &mut want[..V::DIGEST]);
                    engine.hash::<V>(&data[..len], tail, bits, &mut got[..V::DIGEST]);
                    assert_eq!(got, want, "{b} {} len {len} bits {bits}", V::NAME);
                }
            }
        }
    }

    #[test]
    fn one_shot_bits_every_backend() {
        one_shot_bits::<P512>();
        one_shot_bits::<P768>();
        one_shot_bits::<P1024>();
    }
}
