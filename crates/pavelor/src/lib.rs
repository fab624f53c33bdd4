//! # Pavelor
//!
//! Pavelor-512, Pavelor-768 and Pavelor-1024, the NGCC Round 1 hash
//! candidate hash-22: a sponge over the 2560-bit permutation Paff (24 rounds
//! of 19 AES rounds each).
//!
//! * **Bit-exact** with the official ICCS known-answer tests, including
//!   messages whose length is not a multiple of 8 bits
//!   ([`Pavelor::update_bits`]).
//! * **Constant-time** on every backend: hardware AES where the CPU has it,
//!   a bitsliced software AES round (no S-box table, no data-dependent
//!   branch) elsewhere.
//! * **`no_std`**, no allocation; RustCrypto [`digest`] traits, so
//!   `hmac::Hmac<Pavelor512>` works.
//!
//! ```
//! use pavelor::Pavelor512;
//!
//! let digest = Pavelor512::digest(b"");
//! assert_eq!(digest[..4], [0xc5, 0x35, 0x78, 0xfa]);
//!
//! // Streaming, ending in a partial byte: the 11-bit message 1111_1111 111.
//! let mut h = Pavelor512::new();
//! h.update([0xff]);
//! h.update_bits(&[0xe0], 3)?;
//! let _ = h.finalize();
//! # Ok::<(), pavelor::Error>(())
//! ```
//!
//! ## Round constants
//!
//! `RC[7]` and `RC[22]` differ from the digits of pi they were meant to be:
//! the submitted implementation shifted them by one hex digit, and every
//! official KAT depends on that. This crate uses the constants as the KATs
//! define them (see [`paff::RC`]).

#![no_std]
#![cfg_attr(docsrs, feature(doc_cfg))]
#![deny(unsafe_code)]

#[cfg(any(feature = "std", test))]
extern crate std;

// `unsafe` is allowed in the backend modules only (SIMD intrinsics).
#[allow(unsafe_code)]
mod backend;
pub mod batch;
mod core_api;
mod dynamic;
mod hasher;
pub mod paff;
pub mod params;
mod sponge;

pub use backend::Backend;
pub use batch::{BatchError, LaneError, LaneHasher, hash_many, hash_many_dyn};
pub use core_api::PavelorCore;
pub use digest::{self, Digest};
pub use dynamic::{Algorithm, DynHasher, DynOutput};
pub use hasher::{Pavelor, Pavelor512, Pavelor768, Pavelor1024};
pub use params::{P512, P768, P1024, Variant};

use core::fmt;

/// Errors of the Pavelor API.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Error {
    /// `nbits` is larger than the bits in the given bytes.
    BitLength {
        /// Requested number of bits.
        nbits: u64,
        /// Bytes actually given.
        bytes: usize,
    },
    /// Bits were given after a partial (non-final-byte-aligned) byte.
    AfterPartialByte,
    /// The requested backend cannot run on this CPU.
    BackendUnavailable(Backend),
    /// A backend name that this crate does not know.
    UnknownBackend,
    /// An instance name or digest length that is not 512, 768 or 1024.
    UnknownAlgorithm,
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::BitLength { nbits, bytes } => {
                write!(f, "{nbits} bits requested but only {bytes} bytes given")
            }
            Error::AfterPartialByte => f.write_str("more bits given after a partial final byte"),
            Error::BackendUnavailable(b) => write!(f, "backend '{b}' is not supported by this CPU"),
            Error::UnknownBackend => {
                f.write_str("unknown backend (expected one of:")?;
                for b in Backend::ALL {
                    write!(f, " {b}")?;
                }
                f.write_str(")")
            }
            Error::UnknownAlgorithm => f.write_str("unknown instance (expected 512, 768 or 1024)"),
        }
    }
}

impl core::error::Error for Error {}
