//! Backends: one place that knows which implementations of Paff exist, which
//! of them this CPU can run, and how to call them.
//!
//! A backend is chosen once, when a hasher is created, and carried inside it
//! as an [`Engine`] value; the hashing loops never detect features again.
//! Every backend implements the same two operations: "apply Paff" and
//! "absorb whole rate blocks" (which lets register-based kernels keep the
//! state in registers across blocks).

use crate::Error;
use crate::paff::State;

pub(crate) mod portable;
#[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
pub(crate) mod x86_aesni;

/// The implementations of Paff this crate has.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Backend {
    /// Portable constant-time software: bitsliced AES rounds, no tables.
    Portable,
    /// x86 AES-NI: one `AESENC` per AES round, the whole state in registers.
    AesNi,
}

impl Backend {
    /// Every backend, fastest first.
    pub const ALL: &'static [Backend] = &[Backend::AesNi, Backend::Portable];

    /// Short lowercase name, as accepted by [`Backend::from_name`].
    pub fn name(self) -> &'static str {
        match self {
            Backend::Portable => "portable",
            Backend::AesNi => "aesni",
        }
    }

    /// Parses a backend name (`portable`, `aesni`).
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
}

impl Engine {
    /// The fastest backend available here.
    pub(crate) fn best() -> Self {
        #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
        if let Some(token) = x86_aesni::Token::detect() {
            return Engine(Inner::AesNi(token));
        }
        Engine(Inner::Portable)
    }

    /// The named backend, or [`Error::BackendUnavailable`] if this CPU lacks it.
    pub(crate) fn new(backend: Backend) -> Result<Self, Error> {
        match backend {
            Backend::Portable => Ok(Engine(Inner::Portable)),
            #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
            Backend::AesNi => x86_aesni::Token::detect()
                .map(|t| Engine(Inner::AesNi(t)))
                .ok_or(Error::BackendUnavailable(backend)),
            #[allow(unreachable_patterns)]
            _ => Err(Error::BackendUnavailable(backend)),
        }
    }

    /// Which backend this is.
    pub(crate) fn backend(self) -> Backend {
        match self.0 {
            Inner::Portable => Backend::Portable,
            #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
            Inner::AesNi(_) => Backend::AesNi,
        }
    }

    /// Applies Paff to `state`.
    #[inline]
    pub(crate) fn permute(self, state: &mut State) {
        match self.0 {
            Inner::Portable => portable::permute(state),
            #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
            Inner::AesNi(token) => x86_aesni::permute(token, state),
        }
    }

    /// For each `rate`-byte block of `blocks`: XOR it into the first `rate`
    /// bytes of the state, then apply Paff. `blocks.len()` is a multiple of
    /// `rate`, and `rate` is one of the three instance rates.
    #[inline]
    pub(crate) fn absorb(self, state: &mut State, blocks: &[u8], rate: usize) {
        debug_assert!(blocks.len() % rate == 0);
        match self.0 {
            Inner::Portable => {
                for block in blocks.chunks_exact(rate) {
                    xor_into_state(state, block);
                    portable::permute(state);
                }
            }
            #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
            Inner::AesNi(token) => x86_aesni::absorb(token, state, blocks, rate),
        }
    }
}

/// XORs `block` into the first `block.len()` bytes of the state.
#[inline]
pub(crate) fn xor_into_state(state: &mut State, block: &[u8]) {
    for (sub, chunk) in state.iter_mut().zip(block.chunks(16)) {
        for (s, m) in sub.iter_mut().zip(chunk) {
            *s ^= m;
        }
    }
}
