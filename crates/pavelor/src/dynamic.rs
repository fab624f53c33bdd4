//! Choosing the instance at run time: [`Algorithm`], [`DynHasher`] and
//! [`InstanceFn`], all generated from the one list of instances
//! ([`crate::definition::instances`]).

use core::fmt;
use core::str::FromStr;

use crate::backend::Available;
use crate::definition::instances::{MAX_DIGEST, P512, P768, P1024, Variant};
use crate::error::Error;
use crate::hasher::Pavelor;

/// Code generic over the instance, run for an instance chosen at run time
/// by [`Algorithm::dispatch`] (closures cannot be generic, so the code is
/// a type with a generic method).
///
/// ```
/// use pavelor::{Algorithm, InstanceFn, Variant};
///
/// struct Rate;
/// impl InstanceFn for Rate {
///     type Output = usize;
///     fn call<V: Variant>(self) -> usize {
///         V::RATE
///     }
/// }
/// assert_eq!(Algorithm::Pavelor768.dispatch(Rate), 128);
/// ```
pub trait InstanceFn {
    /// What the code returns.
    type Output;
    /// Runs the code for instance `V`.
    fn call<V: Variant>(self) -> Self::Output;
}

macro_rules! define_dynamic {
    ($( ($ty:ident, $alg:ident, $bits:literal, $rate:ident, $digest:ident) ),* $(,)?) => {
        /// One of the Pavelor instances, chosen at run time.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum Algorithm {
            $(
                #[doc = concat!("Pavelor-", $bits, ".")]
                $alg,
            )*
        }

        impl Algorithm {
            /// All instances, in order of digest length.
            pub const ALL: [Algorithm; [$($bits),*].len()] = [$(Algorithm::$alg),*];

            /// Runs `f` for this instance's [`Variant`].
            #[inline]
            pub fn dispatch<F: InstanceFn>(self, f: F) -> F::Output {
                match self {
                    $(Algorithm::$alg => f.call::<$ty>(),)*
                }
            }

            /// The instance name, e.g. `"Pavelor-512"`.
            pub const fn name(self) -> &'static str {
                match self {
                    $(Algorithm::$alg => <$ty as Variant>::NAME,)*
                }
            }

            /// Digest length in bytes.
            pub const fn output_len(self) -> usize {
                match self {
                    $(Algorithm::$alg => <$ty as Variant>::DIGEST,)*
                }
            }

            /// Rate (message block) length in bytes.
            pub const fn rate_len(self) -> usize {
                match self {
                    $(Algorithm::$alg => <$ty as Variant>::RATE,)*
                }
            }

            /// A streaming hasher for this instance with the given backend.
            pub fn hasher_with(self, backend: Available) -> DynHasher {
                match self {
                    $(Algorithm::$alg => DynHasher::$ty(Pavelor::<$ty>::with_backend(backend)),)*
                }
            }
        }

        /// A streaming hasher for an instance chosen at run time.
        #[derive(Clone, Debug)]
        pub enum DynHasher {
            $(
                #[doc = concat!("Pavelor-", $bits, ".")]
                $ty(Pavelor<$ty>),
            )*
        }

        impl DynHasher {
            /// The instance.
            pub fn algorithm(&self) -> Algorithm {
                match self {
                    $(DynHasher::$ty(_) => Algorithm::$alg,)*
                }
            }

            /// The backend in use.
            pub fn backend(&self) -> Available {
                match self {
                    $(DynHasher::$ty(h) => h.backend(),)*
                }
            }

            /// See [`Pavelor::update`].
            #[inline]
            pub fn update(&mut self, data: &[u8]) {
                match self {
                    $(DynHasher::$ty(h) => h.update(data),)*
                }
            }

            /// See [`Pavelor::update_bits`].
            pub fn update_bits(&mut self, data: &[u8], nbits: u64) -> Result<(), Error> {
                match self {
                    $(DynHasher::$ty(h) => h.update_bits(data, nbits),)*
                }
            }

            /// Finishes the hash.
            #[inline]
            pub fn finalize(mut self) -> DynOutput {
                let len = self.algorithm().output_len();
                let mut out = DynOutput {
                    bytes: [0; MAX_DIGEST],
                    len,
                };
                match &mut self {
                    $(DynHasher::$ty(h) => h.finish_into(&mut out.bytes[..len]),)*
                }
                out
            }
        }
    };
}

crate::definition::instances::instances!(define_dynamic);

impl Algorithm {
    /// Digest length in bits.
    pub fn output_bits(self) -> u32 {
        8 * self.output_len() as u32
    }

    /// The instance with a digest of `bits` bits, if there is one.
    pub fn from_output_bits(bits: u32) -> Option<Self> {
        Algorithm::ALL.into_iter().find(|a| a.output_bits() == bits)
    }

    /// A streaming hasher for this instance with the fastest backend.
    pub fn hasher(self) -> DynHasher {
        self.hasher_with(Available::best())
    }

    /// One-shot digest of the first `nbits` bits of `data`.
    pub fn digest_bits(self, data: &[u8], nbits: u64) -> Result<DynOutput, Error> {
        let mut h = self.hasher();
        h.update_bits(data, nbits)?;
        Ok(h.finalize())
    }

    /// One-shot digest of a byte message with the fastest backend.
    pub fn digest(self, data: &[u8]) -> DynOutput {
        self.digest_with(Available::best(), data)
    }

    /// One-shot digest of a byte message with the given backend.
    #[inline]
    pub fn digest_with(self, backend: Available, data: &[u8]) -> DynOutput {
        struct OneShot<'a>(Available, &'a [u8], usize);
        impl InstanceFn for OneShot<'_> {
            type Output = DynOutput;
            #[inline]
            fn call<V: Variant>(self) -> DynOutput {
                let mut out = DynOutput {
                    bytes: [0; MAX_DIGEST],
                    len: self.2,
                };
                out.bytes[..self.2].copy_from_slice(&Pavelor::<V>::digest_with(self.0, self.1));
                out
            }
        }
        self.dispatch(OneShot(backend, data, self.output_len()))
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

/// A digest of any instance (up to [`MAX_DIGEST`] bytes), without allocation.
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
