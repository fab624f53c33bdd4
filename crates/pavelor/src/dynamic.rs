//! Choosing the instance at run time: [`Algorithm`] and [`DynHasher`].

use core::fmt;
use core::str::FromStr;

use crate::params::MAX_DIGEST;
use crate::{Backend, Error, Pavelor512, Pavelor768, Pavelor1024};

/// One of the three Pavelor instances, chosen at run time.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Algorithm {
    /// Pavelor-512.
    Pavelor512,
    /// Pavelor-768.
    Pavelor768,
    /// Pavelor-1024.
    Pavelor1024,
}

impl Algorithm {
    /// All instances, in order of digest length.
    pub const ALL: [Algorithm; 3] = [
        Algorithm::Pavelor512,
        Algorithm::Pavelor768,
        Algorithm::Pavelor1024,
    ];

    /// The instance name, e.g. `"Pavelor-512"`.
    pub fn name(self) -> &'static str {
        match self {
            Algorithm::Pavelor512 => "Pavelor-512",
            Algorithm::Pavelor768 => "Pavelor-768",
            Algorithm::Pavelor1024 => "Pavelor-1024",
        }
    }

    /// Digest length in bits.
    pub fn output_bits(self) -> u32 {
        8 * self.output_len() as u32
    }

    /// Digest length in bytes.
    pub fn output_len(self) -> usize {
        match self {
            Algorithm::Pavelor512 => 64,
            Algorithm::Pavelor768 => 96,
            Algorithm::Pavelor1024 => 128,
        }
    }

    /// Rate (message block) length in bytes.
    pub fn rate_len(self) -> usize {
        match self {
            Algorithm::Pavelor512 => 192,
            Algorithm::Pavelor768 => 128,
            Algorithm::Pavelor1024 => 64,
        }
    }

    /// The instance with a digest of `bits` bits, if there is one.
    pub fn from_output_bits(bits: u32) -> Option<Self> {
        Algorithm::ALL.into_iter().find(|a| a.output_bits() == bits)
    }

    /// A streaming hasher for this instance with the fastest backend.
    pub fn hasher(self) -> DynHasher {
        match self {
            Algorithm::Pavelor512 => DynHasher::P512(Pavelor512::new()),
            Algorithm::Pavelor768 => DynHasher::P768(Pavelor768::new()),
            Algorithm::Pavelor1024 => DynHasher::P1024(Pavelor1024::new()),
        }
    }

    /// A streaming hasher for this instance with the given backend.
    pub fn hasher_with(self, backend: Backend) -> Result<DynHasher, Error> {
        Ok(match self {
            Algorithm::Pavelor512 => DynHasher::P512(Pavelor512::with_backend(backend)?),
            Algorithm::Pavelor768 => DynHasher::P768(Pavelor768::with_backend(backend)?),
            Algorithm::Pavelor1024 => DynHasher::P1024(Pavelor1024::with_backend(backend)?),
        })
    }

    /// One-shot digest of the first `nbits` bits of `data`.
    pub fn digest_bits(self, data: &[u8], nbits: u64) -> Result<DynOutput, Error> {
        let mut h = self.hasher();
        h.update_bits(data, nbits)?;
        Ok(h.finalize())
    }

    /// One-shot digest of a byte message with the fastest backend.
    pub fn digest(self, data: &[u8]) -> DynOutput {
        let mut out = DynOutput {
            bytes: [0; MAX_DIGEST],
            len: self.output_len(),
        };
        let dst = &mut out.bytes[..out.len];
        match self {
            Algorithm::Pavelor512 => dst.copy_from_slice(&Pavelor512::digest(data)),
            Algorithm::Pavelor768 => dst.copy_from_slice(&Pavelor768::digest(data)),
            Algorithm::Pavelor1024 => dst.copy_from_slice(&Pavelor1024::digest(data)),
        }
        out
    }

    /// One-shot digest of a byte message with the given backend, or
    /// [`Error::BackendUnavailable`].
    #[inline]
    pub fn digest_with(self, backend: Backend, data: &[u8]) -> Result<DynOutput, Error> {
        let mut out = DynOutput {
            bytes: [0; MAX_DIGEST],
            len: self.output_len(),
        };
        let dst = &mut out.bytes[..out.len];
        match self {
            Algorithm::Pavelor512 => dst.copy_from_slice(&Pavelor512::digest_with(backend, data)?),
            Algorithm::Pavelor768 => dst.copy_from_slice(&Pavelor768::digest_with(backend, data)?),
            Algorithm::Pavelor1024 => {
                dst.copy_from_slice(&Pavelor1024::digest_with(backend, data)?)
            }
        }
        Ok(out)
    }
}

impl fmt::Display for Algorithm {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Algorithm {
    type Err = Error;

    /// Accepts `512`, `768`, `1024` or the instance name (any case), e.g.
    /// `Pavelor-768`.
    fn from_str(s: &str) -> Result<Self, Error> {
        let bits = match s.get(..8) {
            Some(prefix) if prefix.eq_ignore_ascii_case("pavelor-") => &s[8..],
            _ => s,
        };
        bits.parse::<u32>()
            .ok()
            .and_then(Algorithm::from_output_bits)
            .ok_or(Error::UnknownAlgorithm)
    }
}

/// A streaming hasher for an instance chosen at run time.
#[derive(Clone, Debug)]
pub enum DynHasher {
    /// Pavelor-512.
    P512(Pavelor512),
    /// Pavelor-768.
    P768(Pavelor768),
    /// Pavelor-1024.
    P1024(Pavelor1024),
}

macro_rules! each {
    ($self:expr, $h:ident => $e:expr) => {
        match $self {
            DynHasher::P512($h) => $e,
            DynHasher::P768($h) => $e,
            DynHasher::P1024($h) => $e,
        }
    };
}

impl DynHasher {
    /// The instance.
    pub fn algorithm(&self) -> Algorithm {
        match self {
            DynHasher::P512(_) => Algorithm::Pavelor512,
            DynHasher::P768(_) => Algorithm::Pavelor768,
            DynHasher::P1024(_) => Algorithm::Pavelor1024,
        }
    }

    /// The backend in use.
    pub fn backend(&self) -> Backend {
        each!(self, h => h.backend())
    }

    /// See [`Pavelor::update`](crate::Pavelor::update).
    #[inline]
    pub fn update(&mut self, data: &[u8]) {
        each!(self, h => h.update(data))
    }

    /// See [`Pavelor::update_bits`](crate::Pavelor::update_bits).
    pub fn update_bits(&mut self, data: &[u8], nbits: u64) -> Result<(), Error> {
        each!(self, h => h.update_bits(data, nbits))
    }

    /// Finishes the hash.
    #[inline]
    pub fn finalize(mut self) -> DynOutput {
        let len = self.algorithm().output_len();
        let mut out = DynOutput {
            bytes: [0; MAX_DIGEST],
            len,
        };
        each!(&mut self, h => h.finish_into(&mut out.bytes[..len]));
        out
    }
}

/// A digest of any instance (64, 96 or 128 bytes), without allocation.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct DynOutput {
    bytes: [u8; MAX_DIGEST],
    len: usize,
}

impl DynOutput {
    /// The digest bytes.
    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes[..self.len]
    }
}

impl AsRef<[u8]> for DynOutput {
    fn as_ref(&self) -> &[u8] {
        self.as_bytes()
    }
}

impl core::ops::Deref for DynOutput {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        self.as_bytes()
    }
}

impl fmt::Debug for DynOutput {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::LowerHex::fmt(self, f)
    }
}

impl DynOutput {
    /// Writes the digest as hex digits (through a stack buffer: no
    /// allocation), upper-case if `upper`.
    fn write_hex(&self, f: &mut fmt::Formatter<'_>, upper: bool) -> fmt::Result {
        let mut buf = [0u8; 2 * MAX_DIGEST];
        let hex = buf.get_mut(..2 * self.as_bytes().len()).ok_or(fmt::Error)?;
        hex::encode_to_slice(self.as_bytes(), hex).map_err(|_| fmt::Error)?;
        if upper {
            hex.make_ascii_uppercase();
        }
        f.write_str(core::str::from_utf8(hex).map_err(|_| fmt::Error)?)
    }
}

impl fmt::LowerHex for DynOutput {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.write_hex(f, false)
    }
}

impl fmt::UpperHex for DynOutput {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.write_hex(f, true)
    }
}
