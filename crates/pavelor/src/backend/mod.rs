//! Backends: which implementations of Paff exist ([`Backend`]), which of
//! them this CPU runs ([`Available`], made only by detection), and how to
//! call them.
//!
//! A backend is resolved once, into an [`Available`], and carried inside
//! every hasher; the hashing loops never detect features again. Every
//! backend implements the same operations: "apply Paff", "absorb whole rate
//! blocks" and "hash a whole message" (the fused one-shot path: IV, absorb,
//! padding and squeeze in one kernel call, the state in registers
//! throughout; on the 16-register levels, 15 of its 20 blocks, the rest in
//! the kernel's wiped scratch area).
//!
//! # Files
//!
//! One kernel file per instruction-set level, named after the level; a
//! kernel file imports from no other, except that the AVX-512 level's batch
//! kernels take the level's token (`avx512_vaes::Token`):
//!
//! | file                     | encoding                                | used by backend(s)       |
//! |--------------------------|-----------------------------------------|--------------------------|
//! | `x86/sse_aesni.rs`       | SSE `aesenc`, 16 `xmm`, generated Paff  | `aesni`                  |
//! | `x86/avx_aesni.rs`       | VEX `vaesenc xmm`, 16 `xmm`, generated Paff | `aesni-avx`, `avx2-vaes` |
//! | `x86/avx512_vaes.rs`     | EVEX `vaesenc xmm`, 32 `xmm`, no spills | `avx512-vaes`            |
//! | `x86/avx2_vaes_x2.rs`    | VEX `vaesenc ymm`, 2 lanes, generated Paff | `avx2-vaes` batches   |
//! | `x86/avx512_vaes_x2.rs`  | EVEX `vaesenc ymm`, 2 lanes             | `avx512-vaes` batches    |
//! | `x86/avx512_vaes_x4.rs`  | EVEX `vaesenc zmm`, 4 lanes             | `avx512-vaes` batches    |
//! | `aarch64/armv8_aes.rs`   | `aese`+`aesmc`+`eor`, 32 NEON registers | `armv8-aes`              |
//! | `portable.rs`            | bitsliced software AES                  | `portable`               |
//!
//! The hardware kernels share the absorb / permute / one-shot bodies
//! ([`kernel`]) and, per register width, the intrinsic wrappers
//! (`x86/vectors.rs`); a kernel file supplies its feature detection and
//! `#[target_feature]` entry points. The kernels with 32 vector registers
//! (and the AArch64 one) run the wiring as
//! [`paff_rounds!`](crate::definition::paff::paff_rounds) and let the
//! compiler allocate registers. The three with 16 (`aesni`, `aesni-avx`,
//! the `ymm` batch of `avx2-vaes`) cannot hold the 20-block state in
//! registers: their Paff is assembly that `cargo xtask codegen` generates
//! from the same wiring tables, placing the spills where a latency model
//! says they cost least and checking each program against the wiring on a
//! model; it is committed under `x86/generated/`, and CI fails if it is
//! stale (`cargo xtask codegen --check`).
//!
//! A backend is an instruction-set *level*: besides its single-message
//! kernel it names the batch kernels `crate::batch` uses at that level
//! ([`Available::lanes`]; every level can hash one lane at a time through
//! its single-message kernel):
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

use core::fmt;

use crate::backend_name::Backend;
use crate::definition::instances::Variant;
#[cfg(debug_assertions)]
use crate::definition::instances::{Instance, instances};
use crate::definition::paff::State;
use crate::error::Error;

#[cfg(target_arch = "aarch64")]
mod aarch64;
#[cfg(any(target_arch = "x86", target_arch = "x86_64", target_arch = "aarch64"))]
mod kernel;
pub(crate) mod layout;
mod portable;
#[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
mod x86;

use layout::{Lanes, lanes_as_state};

/// A backend this CPU has been checked to run: the proof hashers are made
/// from. Only detection makes one ([`Available::best`],
/// [`Available::detect`], [`Available::resolve`], [`Available::all`];
/// [`Available::portable`] needs none), so
/// a constructor that takes an `Available` cannot fail, and nothing after
/// it checks the CPU again.
///
/// ```
/// use pavelor::{Available, Backend, Pavelor512};
///
/// // A user's choice, resolved once: `None` is the fastest backend.
/// let backend = Available::resolve(Some("portable"))?;
/// assert_eq!(backend.backend(), Backend::Portable);
/// let digest = Pavelor512::digest_with(backend, b"abc");
/// assert_eq!(digest, Pavelor512::digest(b"abc"));
/// # Ok::<(), pavelor::Error>(())
/// ```
#[derive(Clone, Copy)]
pub struct Available(Inner);

/// One variant per backend available on this architecture, holding the
/// tokens of the kernel files it uses.
#[derive(Clone, Copy)]
enum Inner {
    Portable,
    #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
    AesNi(x86::sse_aesni::Token),
    #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
    AesNiAvx(x86::avx_aesni::Token),
    #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
    Avx2Vaes(x86::avx_aesni::Token, x86::avx2_vaes_x2::Token),
    #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
    Avx512Vaes(x86::avx512_vaes::Token),
    #[cfg(target_arch = "aarch64")]
    Armv8Aes(aarch64::armv8_aes::Token),
}

/// Detection of one backend on this architecture (`None` where it cannot
/// run). Each level's feature detection is cached by its kernel file (an
/// atomic load after the first call).
fn detect(backend: Backend) -> Option<Inner> {
    match backend {
        Backend::Portable => Some(Inner::Portable),
        #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
        Backend::AesNi => x86::sse_aesni::Token::detect().map(Inner::AesNi),
        #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
        Backend::AesNiAvx => x86::avx_aesni::Token::detect().map(Inner::AesNiAvx),
        #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
        Backend::Avx2Vaes => Some(Inner::Avx2Vaes(
            x86::avx_aesni::Token::detect()?,
            x86::avx2_vaes_x2::Token::detect()?,
        )),
        #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
        Backend::Avx512Vaes => x86::avx512_vaes::Token::detect().map(Inner::Avx512Vaes),
        #[cfg(target_arch = "aarch64")]
        Backend::Armv8Aes => aarch64::armv8_aes::Token::detect().map(Inner::Armv8Aes),
        #[allow(unreachable_patterns)] // the levels of other architectures
        _ => None,
    }
}

impl Available {
    /// The fastest backend this CPU runs (the first available one of
    /// [`Backend::ALL`]; `portable` always is).
    #[inline]
    pub fn best() -> Self {
        Available(
            Backend::ALL
                .iter()
                .find_map(|&b| detect(b))
                .unwrap_or(Inner::Portable),
        )
    }

    /// The portable software backend, which runs everywhere.
    pub fn portable() -> Self {
        Available(Inner::Portable)
    }

    /// `backend`, if this CPU runs it; [`Error::BackendUnavailable`] if not.
    pub fn detect(backend: Backend) -> Result<Self, Error> {
        detect(backend)
            .map(Available)
            .ok_or(Error::BackendUnavailable(backend))
    }

    /// The one resolution of a user's choice of backend, for every front
    /// end: `None` is the fastest backend ([`Available::best`]); a name is
    /// parsed ([`Backend::from_name`]) and detected
    /// ([`Available::detect`]). The error's message says what went wrong
    /// ([`Error::UnknownBackend`] lists the names).
    pub fn resolve(name: Option<&str>) -> Result<Self, Error> {
        match name {
            None => Ok(Self::best()),
            Some(name) => Self::detect(Backend::from_name(name).ok_or(Error::UnknownBackend)?),
        }
    }

    /// Every backend this CPU runs, fastest first.
    pub fn all() -> impl Iterator<Item = Available> {
        Backend::ALL
            .iter()
            .filter_map(|&b| detect(b).map(Available))
    }

    /// Which backend this is.
    pub fn backend(self) -> Backend {
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

    /// The backend's name (as [`Backend::name`]).
    pub fn name(self) -> &'static str {
        self.backend().name()
    }

    /// The number of messages the widest batch kernel of this backend
    /// hashes at once: 4 or 2 with VAES, 1 (one message at a time with the
    /// single-message kernel) otherwise.
    #[inline]
    pub fn lanes(self) -> usize {
        if self.x4().is_some() {
            MAX_LANES
        } else if self.x2().is_some() {
            2
        } else {
            1
        }
    }

    /// Applies Paff to `state`.
    #[inline]
    pub(crate) fn permute(self, state: &mut State) {
        match self.0 {
            Inner::Portable => portable::permute(state),
            #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
            Inner::AesNi(t) => x86::sse_aesni::permute(t, state),
            #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
            Inner::AesNiAvx(t) | Inner::Avx2Vaes(t, _) => x86::avx_aesni::permute(t, state),
            #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
            Inner::Avx512Vaes(t) => x86::avx512_vaes::permute(t, state),
            #[cfg(target_arch = "aarch64")]
            Inner::Armv8Aes(t) => aarch64::armv8_aes::permute(t, state),
        }
    }

    /// For each `V::RATE`-byte block of `blocks`: XOR it into the rate of
    /// the state, then apply Paff. `blocks.len()` is a multiple of the rate
    /// (a partial block at the end is ignored).
    #[inline]
    pub(crate) fn absorb<V: Variant>(self, state: &mut State, blocks: &[u8]) {
        debug_assert_eq!(blocks.len() % V::RATE, 0);
        #[cfg(debug_assertions)]
        per_instance::absorb(V::INSTANCE, self, state, blocks);
        #[cfg(not(debug_assertions))]
        self.absorb_typed::<V>(state, blocks);
    }

    /// [`Self::absorb`] for one instance, compiled here.
    #[inline(always)]
    fn absorb_typed<V: Variant>(self, state: &mut State, blocks: &[u8]) {
        match self.0 {
            Inner::Portable => portable::absorb::<V>(state, blocks),
            #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
            Inner::AesNi(t) => x86::sse_aesni::absorb::<V>(t, state, blocks),
            #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
            Inner::AesNiAvx(t) | Inner::Avx2Vaes(t, _) => {
                x86::avx_aesni::absorb::<V>(t, state, blocks)
            }
            #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
            Inner::Avx512Vaes(t) => x86::avx512_vaes::absorb::<V>(t, state, blocks),
            #[cfg(target_arch = "aarch64")]
            Inner::Armv8Aes(t) => aarch64::armv8_aes::absorb::<V>(t, state, blocks),
        }
    }

    /// The digest of the message `data` followed by the top `tail_bits`
    /// (0..8) bits of `tail`, into `out` (`V::DIGEST` bytes). On the
    /// hardware backends this is one kernel call that keeps the state in
    /// registers from the IV to the squeeze.
    #[inline]
    pub(crate) fn hash<V: Variant>(self, data: &[u8], tail: u8, tail_bits: u8, out: &mut [u8]) {
        #[cfg(debug_assertions)]
        per_instance::hash(V::INSTANCE, self, data, tail, tail_bits, out);
        #[cfg(not(debug_assertions))]
        self.hash_typed::<V>(data, tail, tail_bits, out);
    }

    /// [`Self::hash`] for one instance, compiled here.
    #[inline(always)]
    fn hash_typed<V: Variant>(self, data: &[u8], tail: u8, tail_bits: u8, out: &mut [u8]) {
        match self.0 {
            Inner::Portable => portable::hash::<V>(data, tail, tail_bits, out),
            #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
            Inner::AesNi(t) => x86::sse_aesni::hash::<V>(t, data, tail, tail_bits, out),
            #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
            Inner::AesNiAvx(t) | Inner::Avx2Vaes(t, _) => {
                x86::avx_aesni::hash::<V>(t, data, tail, tail_bits, out)
            }
            #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
            Inner::Avx512Vaes(t) => x86::avx512_vaes::hash::<V>(t, data, tail, tail_bits, out),
            #[cfg(target_arch = "aarch64")]
            Inner::Armv8Aes(t) => aarch64::armv8_aes::hash::<V>(t, data, tail, tail_bits, out),
        }
    }

    /// The 4-lane batch kernel of this level, if it has one.
    #[inline]
    pub(crate) fn x4(self) -> Option<X4> {
        match self.0 {
            #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
            Inner::Avx512Vaes(t) => Some(X4::Avx512(t)),
            _ => None,
        }
    }

    /// The 2-lane batch kernel of this level, if it has one.
    #[inline]
    pub(crate) fn x2(self) -> Option<X2> {
        match self.0 {
            #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
            Inner::Avx512Vaes(t) => Some(X2::Avx512(t)),
            #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
            Inner::Avx2Vaes(_, t) => Some(X2::Avx2(t)),
            _ => None,
        }
    }
}

impl PartialEq for Available {
    fn eq(&self, other: &Self) -> bool {
        self.backend() == other.backend()
    }
}

impl Eq for Available {}

impl fmt::Debug for Available {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Available({})", self.backend())
    }
}

impl fmt::Display for Available {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The most lanes any backend's batch kernel has (the 4-lane `zmm` kernel,
/// [`X4`]).
pub(crate) const MAX_LANES: usize = 4;

/// A kernel that absorbs into `N` interleaved states at once.
pub(crate) trait LaneKernel<const N: usize>: Copy {
    /// For `n = min_l blocks[l].len() / V::RATE` blocks: XOR block `b` of
    /// `blocks[l]` into the rate of lane `l`, then apply Paff to every lane.
    fn absorb_lanes<V: Variant>(self, st: &mut Lanes<N>, blocks: [&[u8]; N]);
}

/// One lane at a time: the single-message kernel of the backend.
impl LaneKernel<1> for Available {
    #[inline]
    fn absorb_lanes<V: Variant>(self, st: &mut Lanes<1>, blocks: [&[u8]; 1]) {
        let whole = blocks[0].len() / V::RATE * V::RATE;
        self.absorb::<V>(lanes_as_state(st), &blocks[0][..whole]);
    }
}

/// The 4-lane kernel of a level (uninhabited where there is none).
#[derive(Clone, Copy, Debug)]
pub(crate) enum X4 {
    /// `zmm`, AVX-512 level.
    #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
    Avx512(x86::avx512_vaes::Token),
}

impl LaneKernel<4> for X4 {
    #[inline]
    #[cfg_attr(
        not(any(target_arch = "x86", target_arch = "x86_64")),
        allow(unused_variables)
    )]
    fn absorb_lanes<V: Variant>(self, st: &mut Lanes<4>, blocks: [&[u8]; 4]) {
        #[cfg(debug_assertions)]
        per_instance::absorb_x4(V::INSTANCE, self, st, blocks);
        #[cfg(not(debug_assertions))]
        self.absorb_typed::<V>(st, blocks);
    }
}

impl X4 {
    /// [`LaneKernel::absorb_lanes`] for one instance, compiled here.
    #[inline(always)]
    #[cfg_attr(
        not(any(target_arch = "x86", target_arch = "x86_64")),
        allow(unused_variables)
    )]
    fn absorb_typed<V: Variant>(self, st: &mut Lanes<4>, blocks: [&[u8]; 4]) {
        match self {
            #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
            X4::Avx512(t) => x86::avx512_vaes_x4::absorb_x4::<V>(t, st, blocks),
        }
    }
}

/// A 2-lane kernel of a level (uninhabited where there is none).
#[derive(Clone, Copy, Debug)]
pub(crate) enum X2 {
    /// VEX `ymm`, AVX2 + VAES level.
    #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
    Avx2(x86::avx2_vaes_x2::Token),
    /// EVEX `ymm`, AVX-512 level.
    #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
    Avx512(x86::avx512_vaes::Token),
}

impl LaneKernel<2> for X2 {
    #[inline]
    #[cfg_attr(
        not(any(target_arch = "x86", target_arch = "x86_64")),
        allow(unused_variables)
    )]
    fn absorb_lanes<V: Variant>(self, st: &mut Lanes<2>, blocks: [&[u8]; 2]) {
        #[cfg(debug_assertions)]
        per_instance::absorb_x2(V::INSTANCE, self, st, blocks);
        #[cfg(not(debug_assertions))]
        self.absorb_typed::<V>(st, blocks);
    }
}

impl X2 {
    /// [`LaneKernel::absorb_lanes`] for one instance, compiled here.
    #[inline(always)]
    #[cfg_attr(
        not(any(target_arch = "x86", target_arch = "x86_64")),
        allow(unused_variables)
    )]
    fn absorb_typed<V: Variant>(self, st: &mut Lanes<2>, blocks: [&[u8]; 2]) {
        match self {
            #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
            X2::Avx2(t) => x86::avx2_vaes_x2::absorb_x2::<V>(t, st, blocks),
            #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
            X2::Avx512(t) => x86::avx512_vaes_x2::absorb_x2::<V>(t, st, blocks),
        }
    }
}

/// In builds with debug assertions (the test profile, plain `cargo
/// build`), the kernels' entry points for each instance as plain
/// (non-generic) functions of this crate, one module per instance. The
/// generic entry points above turn their [`Variant`] into an [`Instance`]
/// (a constant, so the `match` below folds away wherever they are used)
/// and call the instance's function directly, so each kernel is compiled
/// once per instance, here, and not again in every crate and test binary
/// that uses a hasher. The kernels are the bulk of the compiler's work:
/// without this, each of `pavelor`'s test binaries took about 12 s to
/// build on x86-64 and 85 s on AArch64, with it about 2 s.
///
/// Release builds (no debug assertions) instantiate the kernels where
/// they are used: the extra call layer made the one-shot figures at 32 B
/// 3–30% slower on an AMD EPYC (`pavelor bench`), and the code that ships
/// is the code that was measured. Only the route to the kernel differs;
/// the kernels are the same functions.
#[cfg(debug_assertions)]
macro_rules! compiled_once_per_instance {
    ($( ($ty:ident, $alg:ident, $bits:literal, $rate:ident, $digest:ident) ),* $(,)?) => {
        mod per_instance {
            use super::{Available, Instance, Lanes, State, X2, X4};

            $(
                #[allow(non_snake_case)]
                mod $ty {
                    use super::{Available, Lanes, State, X2, X4};
                    use crate::definition::instances::$ty;

                    pub(super) fn absorb(backend: Available, state: &mut State, blocks: &[u8]) {
                        backend.absorb_typed::<$ty>(state, blocks);
                    }

                    pub(super) fn hash(
                        backend: Available,
                        data: &[u8],
                        tail: u8,
                        tail_bits: u8,
                        out: &mut [u8],
                    ) {
                        backend.hash_typed::<$ty>(data, tail, tail_bits, out);
                    }

                    pub(super) fn absorb_x4(kernel: X4, st: &mut Lanes<4>, blocks: [&[u8]; 4]) {
                        kernel.absorb_typed::<$ty>(st, blocks);
                    }

                    pub(super) fn absorb_x2(kernel: X2, st: &mut Lanes<2>, blocks: [&[u8]; 2]) {
                        kernel.absorb_typed::<$ty>(st, blocks);
                    }
                }
            )*

            #[inline(always)]
            pub(super) fn absorb(
                instance: Instance,
                backend: Available,
                state: &mut State,
                blocks: &[u8],
            ) {
                match instance {
                    $(Instance::$ty => $ty::absorb(backend, state, blocks),)*
                }
            }

            #[inline(always)]
            pub(super) fn hash(
                instance: Instance,
                backend: Available,
                data: &[u8],
                tail: u8,
                tail_bits: u8,
                out: &mut [u8],
            ) {
                match instance {
                    $(Instance::$ty => $ty::hash(backend, data, tail, tail_bits, out),)*
                }
            }

            #[inline(always)]
            pub(super) fn absorb_x4(
                instance: Instance,
                kernel: X4,
                st: &mut Lanes<4>,
                blocks: [&[u8]; 4],
            ) {
                match instance {
                    $(Instance::$ty => $ty::absorb_x4(kernel, st, blocks),)*
                }
            }

            #[inline(always)]
            pub(super) fn absorb_x2(
                instance: Instance,
                kernel: X2,
                st: &mut Lanes<2>,
                blocks: [&[u8]; 2],
            ) {
                match instance {
                    $(Instance::$ty => $ty::absorb_x2(kernel, st, blocks),)*
                }
            }
        }
    };
}
#[cfg(debug_assertions)]
instances!(compiled_once_per_instance);
