//! What the verifier checks: anything that computes Pavelor digests of
//! bit-length messages. [`pavelor::Available`] implements it; a C `CryptHash`
//! library can be wrapped the same way.

use pavelor::{Algorithm, Available};

/// Why an [`Implementation`] computed no digest; the `Display` is one line.
#[derive(Debug, thiserror::Error)]
pub enum DigestError {
    /// A Rust backend refused the message.
    #[error(transparent)]
    Backend(#[from] pavelor::Error),
    /// The message's bytes do not fit in the address space.
    #[error("a {nbits}-bit message does not fit in memory")]
    TooLong {
        /// The message's length in bits.
        nbits: u64,
    },
    /// There is no memory for the whole message.
    #[error("cannot hold a {nbits}-bit message in memory: {source}")]
    NoMemory {
        /// The message's length in bits.
        nbits: u64,
        /// The failed reservation.
        source: std::collections::TryReserveError,
    },
    /// The feed gave another number of bytes than the message has.
    #[error("the message feed gave {got} bytes, expected {want}")]
    FeedLength {
        /// The bytes fed.
        got: usize,
        /// The message's bytes.
        want: usize,
    },
    /// The feed ended before the message's last bit.
    #[error("the message feed ended {bits_left} bits early")]
    FeedEndedEarly {
        /// The bits not fed.
        bits_left: u64,
    },
    /// Another implementation's own failure (a C library's, ...).
    #[error(transparent)]
    Other(Box<dyn std::error::Error + Send + Sync>),
}

/// A message fed in chunks: the function receives a sink and calls it with
/// consecutive chunks that together hold the `ceil(nbits / 8)` message bytes
/// (a partial last byte has only its top `nbits % 8` bits set).
pub type Feed<'a> = &'a mut dyn FnMut(&mut dyn FnMut(&[u8]));

/// Something that computes Pavelor digests of bit-length messages (a Rust
/// backend, a C `CryptHash` library, ...).
///
/// Errors ([`DigestError`]) display as one line (`"CryptHash returned 2"`);
/// the verifier reports them as the failure of the record being checked.
pub trait Implementation {
    /// Digest of the first `nbits` bits of `msg` (MSB-first; only the top
    /// `nbits % 8` bits of a partial last byte count), in one shot.
    /// `msg` holds at least `ceil(nbits / 8)` bytes.
    fn digest(&mut self, alg: Algorithm, msg: &[u8], nbits: u64) -> Result<Vec<u8>, DigestError>;

    /// Digest of a long message of `nbits` bits handed over by `feed` in
    /// chunks (see [`Feed`]); used for the 2^23- and 2^33-bit messages.
    ///
    /// The default collects the whole message (1 GiB for `KAT_2_33`) and
    /// calls [`digest`](Implementation::digest); an implementation that can
    /// hash incrementally should override it to keep memory bounded.
    fn digest_stream(
        &mut self,
        alg: Algorithm,
        nbits: u64,
        feed: Feed<'_>,
    ) -> Result<Vec<u8>, DigestError> {
        let len = usize::try_from(nbits.div_ceil(8)).map_err(|_| DigestError::TooLong { nbits })?;
        let mut msg = Vec::new();
        msg.try_reserve_exact(len)
            .map_err(|source| DigestError::NoMemory { nbits, source })?;
        feed(&mut |chunk| msg.extend_from_slice(chunk));
        if msg.len() != len {
            return Err(DigestError::FeedLength {
                got: msg.len(),
                want: len,
            });
        }
        self.digest(alg, &msg, nbits)
    }
}

/// A Rust backend of the `pavelor` crate; long messages are hashed
/// incrementally (bounded memory).
impl Implementation for Available {
    fn digest(&mut self, alg: Algorithm, msg: &[u8], nbits: u64) -> Result<Vec<u8>, DigestError> {
        let mut h = alg.hasher_with(*self);
        h.update_bits(msg, nbits)?;
        Ok(h.finalize().to_vec())
    }

    fn digest_stream(
        &mut self,
        alg: Algorithm,
        nbits: u64,
        feed: Feed<'_>,
    ) -> Result<Vec<u8>, DigestError> {
        let mut h = alg.hasher_with(*self);
        let mut bits_left = nbits;
        let mut result = Ok(());
        feed(&mut |chunk| {
            let bits = bits_left.min(8 * chunk.len() as u64);
            if result.is_ok() {
                result = h.update_bits(chunk, bits);
            }
            bits_left -= bits;
        });
        result?;
        if bits_left != 0 {
            return Err(DigestError::FeedEndedEarly { bits_left });
        }
        Ok(h.finalize().to_vec())
    }
}
