//! [`Error`], the error type of the whole crate.

use core::fmt;

use crate::backend_name::Backend;
use crate::definition::instances::DIGEST_BITS;

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
    /// An instance name or digest length that is not one of the instances.
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
                f.write_str("unknown backend (expected one of: ")?;
                for (i, b) in Backend::ALL.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    f.write_str(b.name())?;
                }
                f.write_str(")")
            }
            Error::UnknownAlgorithm => {
                f.write_str("unknown instance (expected ")?;
                for (i, bits) in DIGEST_BITS.iter().enumerate() {
                    match i {
                        0 => {}
                        _ if i + 1 == DIGEST_BITS.len() => f.write_str(" or ")?,
                        _ => f.write_str(", ")?,
                    }
                    write!(f, "{bits}")?;
                }
                f.write_str(")")
            }
        }
    }
}

impl core::error::Error for Error {}
