//! The SM3-based deterministic random number generator of the ICCS KAT
//! files (Hash_DRBG style, SEEDLEN = 55 bytes, OUTLEN = 32 bytes).

use sm3::{Digest, Sm3};

/// Seed length in bytes: the size of `V`, `C` and the reseed counter.
pub const SEEDLEN: usize = 55;
const OUTLEN: usize = 32;

/// A 440-bit big-endian number.
type Num = [u8; SEEDLEN];

/// The DRNG state.
#[derive(Clone)]
pub struct Drng {
    v: Num,
    c: Num,
    reseed_counter: Num,
}

impl core::fmt::Debug for Drng {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("Drng { .. }")
    }
}

/// The derivation function: the first 55 bytes of
/// `SM3(1 || 440 || input) || SM3(2 || 440 || input)` (440 as 4 bytes BE).
fn df(parts: &[&[u8]]) -> Num {
    let mut out = [0u8; SEEDLEN];
    for (counter, chunk) in (1u8..).zip(out.chunks_mut(OUTLEN)) {
        let mut h = Sm3::new();
        h.update([counter]);
        h.update(440u32.to_be_bytes());
        for p in parts {
            h.update(p);
        }
        chunk.copy_from_slice(&h.finalize()[..chunk.len()]);
    }
    out
}

/// `acc = acc + addend mod 2^440`, with `addend` right-aligned (big-endian).
fn add_assign(acc: &mut Num, addend: &[u8]) {
    debug_assert!(addend.len() <= SEEDLEN);
    let mut carry = 0u16;
    let mut rhs = addend.iter().rev();
    for a in acc.iter_mut().rev() {
        let sum = u16::from(*a) + u16::from(*rhs.next().unwrap_or(&0)) + carry;
        *a = sum as u8;
        carry = sum >> 8;
    }
}

impl Drng {
    /// `init_random_number(seed)`: `V = df(seed)`, `C = df(0x00 || V)`,
    /// reseed counter 1.
    pub fn new(seed: &[u8]) -> Self {
        let v = df(&[seed]);
        let c = df(&[&[0u8], &v]);
        let mut reseed_counter = [0u8; SEEDLEN];
        reseed_counter[SEEDLEN - 1] = 1;
        Drng {
            v,
            c,
            reseed_counter,
        }
    }

    /// The seed of the official files: `tag` (8 ASCII bytes such as
    /// `KAT_2_12`) repeated 8 times.
    pub fn official_seed(tag: &[u8; 8]) -> [u8; 64] {
        let mut seed = [0u8; 64];
        for chunk in seed.chunks_mut(8) {
            chunk.copy_from_slice(tag);
        }
        seed
    }

    /// `get_random_number(nbits)` into a new vector of `ceil(nbits / 8)` bytes.
    ///
    /// # Panics
    /// Never for lengths that fit in memory; use [`Drng::generate_with`] for
    /// messages that should not be held in memory at once.
    pub fn generate(&mut self, nbits: u64) -> Vec<u8> {
        let cap = usize::try_from(nbits.div_ceil(8))
            .unwrap_or(usize::MAX)
            .min(1 << 24);
        let mut out = Vec::with_capacity(cap);
        self.generate_with(nbits, |chunk| out.extend_from_slice(chunk));
        out
    }

    /// `get_random_number(nbits)`, handing the `ceil(nbits / 8)` output bytes
    /// to `sink` in order, in chunks of at most 64 KiB, so that a 1 GiB
    /// message needs no 1 GiB buffer. A partial last byte keeps only its top
    /// `nbits % 8` bits. The state update happens for every call, also for
    /// `nbits == 0`.
    pub fn generate_with(&mut self, nbits: u64, mut sink: impl FnMut(&[u8])) {
        const CHUNK: usize = 64 * 1024;
        let mut buf = vec![0u8; CHUNK];
        let mut data = self.v;
        let mut remaining = nbits.div_ceil(8);
        let mut fill = 0;
        while remaining > 0 {
            let block = Sm3::digest(data);
            let take = usize::try_from(remaining.min(OUTLEN as u64)).unwrap_or(OUTLEN);
            buf[fill..fill + take].copy_from_slice(&block[..take]);
            fill += take;
            remaining -= take as u64;
            add_assign(&mut data, &[1]);
            if remaining == 0 && !nbits.is_multiple_of(8) {
                buf[fill - 1] &= !(0xFFu8 >> (nbits % 8));
            }
            if fill == CHUNK || remaining == 0 {
                sink(&buf[..fill]);
                fill = 0;
            }
        }
        let h = Sm3::new()
            .chain_update([3u8])
            .chain_update(self.v)
            .finalize();
        add_assign(&mut self.v, &h);
        let (c, rc) = (self.c, self.reseed_counter);
        add_assign(&mut self.v, &c);
        add_assign(&mut self.v, &rc);
        add_assign(&mut self.reseed_counter, &[1]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sm3_abc() {
        let d = Sm3::digest(b"abc");
        assert_eq!(d[..4], [0x66, 0xc7, 0xf0, 0xf4]);
        assert_eq!(d[28..], [0x8f, 0x4b, 0xa8, 0xe0]);
    }

    #[test]
    fn addition_wraps_mod_2_440() {
        let mut a = [0xFFu8; SEEDLEN];
        add_assign(&mut a, &[1]);
        assert_eq!(a, [0u8; SEEDLEN]);
        let mut b = [0u8; SEEDLEN];
        b[SEEDLEN - 1] = 0xFF;
        add_assign(&mut b, &[0x01, 0x01]);
        assert_eq!(b[SEEDLEN - 2..], [0x02, 0x00]);
    }

    #[test]
    fn streamed_equals_buffered_and_masks_partial_byte() {
        let seed = Drng::official_seed(b"KAT_TEST");
        let (mut a, mut b) = (Drng::new(&seed), Drng::new(&seed));
        for nbits in [0u64, 1, 7, 255, 256, 257, 8 * 65536 + 3, 8 * 70000] {
            let buffered = a.generate(nbits);
            let mut streamed = Vec::new();
            b.generate_with(nbits, |c| streamed.extend_from_slice(c));
            assert_eq!(buffered, streamed);
            assert_eq!(buffered.len() as u64, nbits.div_ceil(8));
            if !nbits.is_multiple_of(8) {
                assert_eq!(
                    buffered.last().copied().unwrap_or(0) & (0xFF >> (nbits % 8)),
                    0
                );
            }
        }
    }
}
