//! What the verifier checks: anything that computes Pavelor digests of
//! bit-length messages. [`pavelor::Available`] implements it; a C `CryptHash`
//! library can be wrapped the same way.

use pavelor::{Algorithm, Available};

/// A message fed in chunks: the function receives a sink and calls it with
/// consecutive chunks that together hold the `ceil(nbits / 8)` message bytes
/// (a partial last byte has only its top `nbits % 8` bits set).
pub type Feed<'a> = &'a mut dyn FnMut(&mut dyn FnMut(&[u8]));

/// Something that computes Pavelor digests of bit-length messages (a Rust
/// backend, a C `CryptHash` library, ...).
///
/// Errors are one-line descriptions (`"CryptHash returned 2"`); the verifier
/// reports them as the failure of the record being checked.
pub trait Implementation {
    /// Digest of the first `nbits` bits of `msg` (MSB-first; only the top
    /// `nbits % 8` bits of a partial last byte count), in one shot.
    /// `msg` holds at least `ceil(nbits / 8)` bytes.
    fn digest(&mut self, alg: Algorithm, msg: &[u8], nbits: u64) -> Result<Vec<u8>, String>;

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
    ) -> Result<Vec<u8>, String> {
        let len = usize::try_from(nbits.div_ceil(8))
            .map_err(|_| format!("a {nbits}-bit message does not fit in memory"))?;
        let mut msg = Vec::new();
        msg.try_reserve_exact(len)
            .map_err(|e| format!("cannot hold a {nbits}-bit message in memory: {e}"))?;
        feed(&mut |chunk| msg.extend_from_slice(chunk));
        if msg.len() != len {
            return Err(format!(
                "the message feed gave {} bytes, expected {len}",
                msg.len()
            ));
        }
        self.digest(alg, &msg, nbits)
    }
}

/// A Rust backend of the `pavelor` crate; long messages are hashed
/// incrementally (bounded memory).
impl Implementation for Available {
    fn digest(&mut self, alg: Algorithm, msg: &[u8], nbits: u64) -> Result<Vec<u8>, String> {
        let mut h = alg.hasher_with(*self);
        h.update_bits(msg, nbits).map_err(|e| e.to_string())?;
        Ok(h.finalize().to_vec())
    }

    fn digest_stream(
        &mut self,
        alg: Algorithm,
        nbits: u64,
        feed: Feed<'_>,
    ) -> Result<Vec<u8>, String> {
        let mut h = alg.hasher_with(*self);
        let mut bits_left = nbits;
        let mut result = Ok(());
        feed(&mut |chunk| {
            let bits = bits_left.min(8 * chunk.len() as u64);
            if result.is_ok() {
                result = h.update_bits(chunk, bits).map_err(|e| e.to_string());
            }
            bits_left -= bits;
        });
        result?;
        if bits_left != 0 {
            return Err(format!("the message feed ended {bits_left} bits early"));
        }
        Ok(h.finalize().to_vec())
    }
}
