//! The digests of the records that are not one plain message, computed
//! with any [`Implementation`], for the generator ([`crate::generate`]) and
//! the checks ([`crate::official`]): a long message streamed from its
//! source ([`long_digest`]), the chained `KAT_Loop` digest
//! ([`loop_digest`]), and the longest message either will stream
//! ([`MAX_LONG_BITS`]).

use pavelor::Algorithm;

use crate::error::Error;
use crate::implementation::Implementation;
use crate::suite::LongSource;

/// Longest message a long record may have, in bits (2^34, twice the
/// largest official file), so that a corrupt `Msg_Len` is refused at once
/// instead of hashing for years.
pub const MAX_LONG_BITS: u64 = 1 << 34;

/// A long message's digest and its first and last 8 bytes (the record's
/// `Msg_Exp`).
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
/// `imp` ([`Implementation::digest_stream`]), without holding it in memory
/// unless `imp` does; `progress` gets the message bytes produced so far.
pub fn long_digest(
    imp: &mut dyn Implementation,
    alg: Algorithm,
    source: &LongSource,
    nbits: u64,
    progress: &mut dyn FnMut(u64),
) -> Result<LongDigest, Error> {
    let mut head = [0u8; 8];
    let mut tail = [0u8; 8];
    let mut done = 0u64;
    let digest = imp
        .digest_stream(alg, nbits, &mut |sink| {
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
                done += chunk.len() as u64;
                progress(done);
                sink(chunk);
            })
        })
        .map_err(Error::Implementation)?;
    Ok(LongDigest { digest, head, tail })
}

/// The chained `KAT_Loop` digest computed with `imp`: `h_0 = H(m)`, then
/// `iterations` times rotate `m` left by one digest length, XOR `h_i` into
/// its first bytes and hash again. Returns `h_iterations`; `progress` gets
/// the iteration every 4096 iterations.
pub fn loop_digest(
    imp: &mut dyn Implementation,
    alg: Algorithm,
    msg: &[u8],
    iterations: u32,
    progress: &mut dyn FnMut(u64),
) -> Result<Vec<u8>, Error> {
    let hlen = alg.output_len();
    let nbits = 8 * msg.len() as u64;
    let mut m = msg.to_vec();
    let mut digest = imp.digest(alg, &m, nbits).map_err(Error::Implementation)?;
    for i in 0..iterations {
        if digest.len() != hlen {
            return Err(Error::DigestLength {
                algorithm: alg,
                got: digest.len(),
                want: hlen,
            });
        }
        m.rotate_left(hlen);
        for (b, d) in m.iter_mut().zip(&digest) {
            *b ^= d;
        }
        digest = imp.digest(alg, &m, nbits).map_err(Error::Implementation)?;
        if i.is_multiple_of(4096) {
            progress(u64::from(i));
        }
    }
    Ok(digest)
}
