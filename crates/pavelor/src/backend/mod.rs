//! Backends: one place that knows which implementations of Paff exist, which
//! of them this CPU can run, and how to call them.
//!
//! A backend is chosen once, when a hasher is created, and carried inside it
//! as an [`Engine`] value; the hashing loops never detect features again.
//! Every backend implements the same two operations: "apply Paff" and
//! "absorb whole rate blocks" (which lets register-based kernels keep the
//! state in registers across blocks).
//!
//! A backend is an instruction-set *level*: besides its single-message
//! kernel it names the batch kernels `crate::batch` uses at that level
//! ([`Engine::x4`], [`Engine::x2`]; every level can hash one lane at a time
//! through its single-message kernel). Forcing a backend therefore gives a
//! well-defined kernel for both paths:
//!
//! | backend       | single message                  | batch lanes            |
//! |---------------|---------------------------------|------------------------|
//! | `avx512-vaes` | EVEX `vaesenc xmm`, 32 registers | 4 × `zmm`, 2 × `ymm`  |
//! | `avx2-vaes`   | VEX `vaesenc xmm`, 16 registers  | 2 × `ymm`             |
//! | `aesni`       | SSE `aesenc`, 16 registers       | 1 (single kernel)     |
//! | `armv8-aes`   | AArch64 `aese`+`aesmc`, 32 registers | 1 (single kernel) |
//! | `portable`    | bitsliced software AES           | 1 (single kernel)     |
//!
//! Every [`Backend`] variant exists on every architecture; only its
//! availability differs (the x86 levels are never available on AArch64 and
//! `armv8-aes` never on x86).

use crate::Error;
use crate::paff::{SUBBLOCKS, State};

#[cfg(target_arch = "aarch64")]
pub(crate) mod aarch64;
pub(crate) mod portable;
#[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
pub(crate) mod x86_aesni;
#[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
pub(crate) mod x86_vaes;

#[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
use x86_vaes::{Avx2VaesToken, Avx512VaesToken};

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
    /// x86 AES-NI + AVX2 + VAES: VEX-encoded single-message kernel, 2-lane
    /// `ymm` batch kernel.
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
        Backend::AesNi,
        Backend::Armv8Aes,
        Backend::Portable,
    ];

    /// Short lowercase name, as accepted by [`Backend::from_name`].
    pub fn name(self) -> &'static str {
        match self {
            Backend::Portable => "portable",
            Backend::AesNi => "aesni",
            Backend::Avx2Vaes => "avx2-vaes",
            Backend::Avx512Vaes => "avx512-vaes",
            Backend::Armv8Aes => "armv8-aes",
        }
    }

    /// Parses a backend name (`portable`, `aesni`, `avx2-vaes`,
    /// `avx512-vaes`, `armv8-aes`); any other name is
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
/// its kernel's CPU features are present.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Engine(Inner);

#[derive(Clone, Copy, Debug)]
enum Inner {
    Portable,
    #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
    AesNi(x86_aesni::Token),
    #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
    Avx2Vaes(Avx2VaesToken),
    #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
    Avx512Vaes(Avx512VaesToken),
    #[cfg(target_arch = "aarch64")]
    Armv8Aes(aarch64::Token),
}

impl Engine {
    /// The fastest backend available here. Feature detection is cached by
    /// `cpufeatures` (an atomic load per level after the first call).
    #[inline]
    pub(crate) fn best() -> Self {
        #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
        {
            if let Some(t) = Avx512VaesToken::detect() {
                return Engine(Inner::Avx512Vaes(t));
            }
            if let Some(t) = Avx2VaesToken::detect() {
                return Engine(Inner::Avx2Vaes(t));
            }
            if let Some(t) = x86_aesni::Token::detect() {
                return Engine(Inner::AesNi(t));
            }
        }
        #[cfg(target_arch = "aarch64")]
        if let Some(t) = aarch64::Token::detect() {
            return Engine(Inner::Armv8Aes(t));
        }
        Engine(Inner::Portable)
    }

    /// The named backend, or [`Error::BackendUnavailable`] if this CPU lacks it.
    pub(crate) fn new(backend: Backend) -> Result<Self, Error> {
        let inner = match backend {
            Backend::Portable => Some(Inner::Portable),
            #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
            Backend::AesNi => x86_aesni::Token::detect().map(Inner::AesNi),
            #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
            Backend::Avx2Vaes => Avx2VaesToken::detect().map(Inner::Avx2Vaes),
            #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
            Backend::Avx512Vaes => Avx512VaesToken::detect().map(Inner::Avx512Vaes),
            #[cfg(target_arch = "aarch64")]
            Backend::Armv8Aes => aarch64::Token::detect().map(Inner::Armv8Aes),
            #[allow(unreachable_patterns)]
            _ => None,
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
            Inner::Avx2Vaes(_) => Backend::Avx2Vaes,
            #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
            Inner::Avx512Vaes(_) => Backend::Avx512Vaes,
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
            Inner::AesNi(t) => x86_aesni::permute(t, state),
            #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
            Inner::Avx2Vaes(t) => x86_aesni::permute_avx2(t, state),
            #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
            Inner::Avx512Vaes(t) => x86_aesni::permute_avx512(t, state),
            #[cfg(target_arch = "aarch64")]
            Inner::Armv8Aes(t) => aarch64::permute(t, state),
        }
    }

    /// For each `rate`-byte block of `blocks`: XOR it into the first `rate`
    /// bytes of the state, then apply Paff. `blocks.len()` is a multiple of
    /// `rate`, and `rate` is one of the three instance rates.
    #[inline]
    pub(crate) fn absorb(self, state: &mut State, blocks: &[u8], rate: Rate) {
        debug_assert_eq!(blocks.len() % rate.bytes(), 0);
        match self.0 {
            Inner::Portable => {
                for block in blocks.chunks_exact(rate.bytes()) {
                    xor_into_state(state, block);
                    portable::permute(state);
                }
            }
            #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
            Inner::AesNi(t) => x86_aesni::absorb(t, state, blocks, rate),
            #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
            Inner::Avx2Vaes(t) => x86_aesni::absorb_avx2(t, state, blocks, rate),
            #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
            Inner::Avx512Vaes(t) => x86_aesni::absorb_avx512(t, state, blocks, rate),
            #[cfg(target_arch = "aarch64")]
            Inner::Armv8Aes(t) => aarch64::absorb(t, state, blocks, rate),
        }
    }

    /// The 4-lane batch kernel of this level, if it has one.
    #[inline]
    pub(crate) fn x4(self) -> Option<X4> {
        match self.0 {
            #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
            Inner::Avx512Vaes(t) => Some(X4(t)),
            _ => None,
        }
    }

    /// The 2-lane batch kernel of this level, if it has one.
    #[inline]
    pub(crate) fn x2(self) -> Option<X2> {
        match self.0 {
            #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
            Inner::Avx512Vaes(t) => Some(X2(X2Inner::Avx512(t))),
            #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
            Inner::Avx2Vaes(t) => Some(X2(X2Inner::Avx2(t))),
            _ => None,
        }
    }
}

/// A kernel that absorbs into `N` interleaved states at once.
pub(crate) trait LaneKernel<const N: usize>: Copy {
    /// For `n = min_l blocks[l].len() / rate` blocks: XOR block `b` of
    /// `blocks[l]` into the rate of lane `l`, then apply Paff to every lane.
    /// `rate` is one of the three instance rates.
    fn absorb_lanes(self, st: &mut Lanes<N>, blocks: [&[u8]; N], rate: Rate);
}

/// One lane at a time: the single-message kernel of the engine.
impl LaneKernel<1> for Engine {
    #[inline]
    fn absorb_lanes(self, st: &mut Lanes<1>, blocks: [&[u8]; 1], rate: Rate) {
        let mut state: State = core::array::from_fn(|j| st[j][0]);
        let whole = blocks[0].len() / rate.bytes() * rate.bytes();
        self.absorb(&mut state, &blocks[0][..whole], rate);
        for (dst, src) in st.iter_mut().zip(&state) {
            dst[0] = *src;
        }
        wipe(state.as_flattened_mut());
    }
}

/// The 4-lane `zmm` kernel (proof of AVX-512 + VAES inside).
#[derive(Clone, Copy, Debug)]
pub(crate) struct X4(#[cfg(any(target_arch = "x86", target_arch = "x86_64"))] Avx512VaesToken);

impl LaneKernel<4> for X4 {
    #[inline]
    fn absorb_lanes(self, st: &mut Lanes<4>, blocks: [&[u8]; 4], rate: Rate) {
        #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
        x86_vaes::absorb_x4(self.0, st, blocks, rate);
        #[cfg(not(any(target_arch = "x86", target_arch = "x86_64")))]
        let _ = (st, blocks, rate);
    }
}

/// A 2-lane `ymm` kernel (proof of its features inside).
#[derive(Clone, Copy, Debug)]
pub(crate) struct X2(X2Inner);

#[derive(Clone, Copy, Debug)]
enum X2Inner {
    #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
    Avx2(Avx2VaesToken),
    #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
    Avx512(Avx512VaesToken),
}

impl LaneKernel<2> for X2 {
    #[inline]
    fn absorb_lanes(self, st: &mut Lanes<2>, blocks: [&[u8]; 2], rate: Rate) {
        #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
        match self.0 {
            X2Inner::Avx2(t) => x86_vaes::absorb_x2_avx2(t, st, blocks, rate),
            X2Inner::Avx512(t) => x86_vaes::absorb_x2_avx512(t, st, blocks, rate),
        }
        // Elsewhere `X2Inner` has no variants: no `X2` value can exist.
        #[cfg(not(any(target_arch = "x86", target_arch = "x86_64")))]
        {
            let _ = (st, blocks, rate);
            match self.0 {}
        }
    }
}

/// The rate of one of the three instances. An enum rather than a byte
/// count so that [`by_rate!`] matches exhaustively: no fourth "impossible"
/// rate can reach a kernel (and be silently not absorbed).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Rate {
    /// Pavelor-512: 192 bytes (12 subblocks).
    R192,
    /// Pavelor-768: 128 bytes (8 subblocks).
    R128,
    /// Pavelor-1024: 64 bytes (4 subblocks).
    R64,
}

impl Rate {
    /// The rate of instance `V`. A rate other than the three is rejected
    /// when the crate is compiled (the `const` block is evaluated per `V`).
    #[inline]
    pub(crate) const fn of<V: crate::params::Variant>() -> Self {
        const {
            match V::RATE {
                192 => Rate::R192,
                128 => Rate::R128,
                64 => Rate::R64,
                #[allow(clippy::panic)] // compile-time only: a const evaluation error
                _ => panic!("a Pavelor rate is 192, 128 or 64 bytes"),
            }
        }
    }

    /// The rate in bytes.
    #[inline]
    pub(crate) const fn bytes(self) -> usize {
        match self {
            Rate::R192 => 192,
            Rate::R128 => 128,
            Rate::R64 => 64,
        }
    }
}

/// Calls the kernel `$f` monomorphized for the rate in subblocks
/// (12, 8 or 4), so that the rate loop is unrolled and the state stays in
/// registers: `by_rate!(rate, f(args...))` with `rate: Rate`.
macro_rules! by_rate {
    ($rate:expr, $f:ident($($arg:expr),* $(,)?)) => {
        match $rate {
            $crate::backend::Rate::R192 => $f::<12>($($arg),*),
            $crate::backend::Rate::R128 => $f::<8>($($arg),*),
            $crate::backend::Rate::R64 => $f::<4>($($arg),*),
        }
    };
}
pub(crate) use by_rate;

/// XORs `block` into the first `block.len()` bytes of the state.
#[inline]
pub(crate) fn xor_into_state(state: &mut State, block: &[u8]) {
    let mut chunks = block.chunks_exact(16);
    for (sub, chunk) in state.iter_mut().zip(&mut chunks) {
        // Whole subblocks as one 128-bit XOR (byte order is irrelevant).
        let mut m = [0u8; 16];
        m.copy_from_slice(chunk);
        *sub = (u128::from_ne_bytes(*sub) ^ u128::from_ne_bytes(m)).to_ne_bytes();
    }
    let rest = chunks.remainder();
    if !rest.is_empty() {
        for (s, m) in state[block.len() / 16].iter_mut().zip(rest) {
            *s ^= m;
        }
    }
}

/// Zeroes `bytes` with volatile 16-byte stores (plus byte stores for a
/// partial chunk), then a compiler fence so the stores are not reordered
/// past later code. Same guarantee as `zeroize`, but about 16× fewer stores
/// than its byte-by-byte volatile loop on the 320-byte state.
#[inline]
pub(crate) fn wipe(bytes: &mut [u8]) {
    let mut chunks = bytes.chunks_exact_mut(16);
    for chunk in &mut chunks {
        // SAFETY: `chunk` is 16 writable bytes and `[u8; 16]` has
        // alignment 1, so the pointer is valid for this write.
        unsafe { core::ptr::write_volatile(chunk.as_mut_ptr().cast::<[u8; 16]>(), [0; 16]) };
    }
    for b in chunks.into_remainder() {
        // SAFETY: `b` is a valid, exclusive `&mut u8`.
        unsafe { core::ptr::write_volatile(b, 0) };
    }
    core::sync::atomic::compiler_fence(core::sync::atomic::Ordering::SeqCst);
}
