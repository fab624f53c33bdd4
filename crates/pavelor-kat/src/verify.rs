//! Digest helpers shared by the generator ([`crate::generate`]) and the
//! strict verifier ([`crate::official`]): the streamed long-message digest,
//! the chained `KAT_Loop` digest and the long-message size limit.
//!
//! Checking KAT files is [`crate::official`]'s job (`check_file`,
//! `check_file_bytes`, `check_embedded`).

use pavelor::{Algorithm, Backend, DynHasher, Error as HashError};

use crate::suite::LongSource;

/// Longest message the verifier will generate for a long record, in bits
/// (2^34, twice the largest official file), so that a corrupt `Msg_Len`
/// is refused at once instead of hashing for years.
pub const MAX_LONG_BITS: u64 = 1 << 34;

/// A long message's digest and its first and last 8 bytes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LongDigest {
    /// The digest.
    pub digest: Vec<u8>,
    /// The first 8 message bytes.
    pub head: [u8; 8],
    /// The last 8 message bytes.
    pub tail: [u8; 8],
}

/// Streams the `nbits`-bit message of `source` (at least 8 bytes) through
/// `h`, without holding it in memory; `progress` gets the bytes hashed so far.
pub fn hash_long(
    mut h: DynHasher,
    source: &LongSource,
    nbits: u64,
    progress: &mut dyn FnMut(u64),
) -> Result<LongDigest, HashError> {
    let mut head = [0u8; 8];
    let mut tail = [0u8; 8];
    let mut done = 0u64;
    let mut bits_left = nbits;
    let mut result: Result<(), HashError> = Ok(());
    source.stream(nbits, |chunk| {
        if done < 8 {
            for (slot, &b) in head[done as usize..].iter_mut().zip(chunk) {
                *slot = b;
            }
        }
        // Keep the last 8 bytes seen (chunks may be shorter than 8).
        for &b in chunk.iter().rev().take(8).rev() {
            tail.rotate_left(1);
            tail[7] = b;
        }
        let bits = bits_left.min(8 * chunk.len() as u64);
        if result.is_ok() {
            result = h.update_bits(chunk, bits);
        }
        bits_left -= bits;
        done += chunk.len() as u64;
        progress(done);
    });
    result?;
    Ok(LongDigest {
        digest: h.finalize().to_vec(),
        head,
        tail,
    })
}

/// The chained `KAT_Loop` digest: `h_0 = H(m)`, then `iterations` times
/// rotate `m` left by `h` bits, XOR `h_i` into its first `h/8` bytes and
/// hash again. Returns `h_iterations`.
pub fn loop_digest(
    alg: Algorithm,
    backend: Backend,
    msg: &[u8],
    iterations: u32,
    progress: &mut dyn FnMut(u64),
) -> Result<Vec<u8>, HashError> {
    let hlen = alg.output_len();
    let mut m = msg.to_vec();
    let mut digest = {
        let mut h = alg.hasher_with(backend)?;
        h.update(&m);
        h.finalize()
    };
    for i in 0..iterations {
        m.rotate_left(hlen);
        for (b, d) in m.iter_mut().zip(digest.iter()) {
            *b ^= d;
        }
        let mut h = alg.hasher_with(backend)?;
        h.update(&m);
        digest = h.finalize();
        if i.is_multiple_of(4096) {
            progress(u64::from(i));
        }
    }
    Ok(digest.to_vec())
}
