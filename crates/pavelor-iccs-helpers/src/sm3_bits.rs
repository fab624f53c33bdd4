//! SM3 (GB/T 32905-2016) of bit strings: the compression function of
//! RustCrypto's `sm3` core, fed whole blocks, with the padding done here
//! at bit level. A bit string is bytes and a length in bits; its bits are
//! taken from the most significant bit of each byte, and the bits of its
//! last byte past the length are ignored.

use digest::array::Array;
use digest::block_api::UpdateCore;
use digest::common::hazmat::SerializableState;
use sm3::block_api::Sm3Core;

/// Bytes of an SM3 block.
const BLOCK: usize = 64;

/// The first `bits` bits of `bytes`, as [`Sm3Bits::update`] takes them.
/// `bytes` must hold at least `bits.div_ceil(8)` bytes.
#[derive(Clone, Copy, Debug)]
pub struct Bits<'a> {
    bytes: &'a [u8],
    bits: u64,
}

impl<'a> Bits<'a> {
    /// The first `bits` bits of `bytes`, or `None` when `bytes` is too
    /// short for them.
    pub fn new(bytes: &'a [u8], bits: u64) -> Option<Self> {
        (bits.div_ceil(8) <= bytes.len() as u64).then_some(Bits { bytes, bits })
    }

    /// Every bit of `bytes`.
    pub fn whole(bytes: &'a [u8]) -> Self {
        Bits {
            bytes,
            bits: 8 * bytes.len() as u64,
        }
    }

    /// The length in bits.
    pub fn len(&self) -> u64 {
        self.bits
    }

    /// Whether the string has no bits.
    pub fn is_empty(&self) -> bool {
        self.bits == 0
    }
}

/// SM3 over a concatenation of bit strings.
#[derive(Clone)]
pub struct Sm3Bits {
    core: Sm3Core,
    block: [u8; BLOCK],
    /// Bits of `block` already filled (0..512); the bits after them are 0.
    filled: usize,
    /// Bits taken in all.
    total: u64,
}

impl Default for Sm3Bits {
    fn default() -> Self {
        Sm3Bits {
            core: Sm3Core::default(),
            block: [0; BLOCK],
            filled: 0,
            total: 0,
        }
    }
}

impl Sm3Bits {
    /// An empty string so far.
    pub fn new() -> Self {
        Self::default()
    }

    fn compress_block(&mut self) {
        let block = Array::from(self.block);
        self.core.update_blocks(core::slice::from_ref(&block));
        self.block = [0; BLOCK];
        self.filled = 0;
    }

    /// Appends the top `n` (1..=8) bits of `byte`.
    fn push_bits(&mut self, byte: u8, n: usize) {
        let byte = byte & (0xff00u16 >> n) as u8;
        let at = self.filled / 8;
        let shift = self.filled % 8;
        self.block[at] |= byte >> shift;
        // The bits that did not fit into byte `at`, at the top of a byte.
        let spill = (shift + n).saturating_sub(8);
        let rest = if spill > 0 { byte << (8 - shift) } else { 0 };
        self.filled += n - spill;
        if self.filled == 8 * BLOCK {
            self.compress_block();
        }
        if spill > 0 {
            self.block[self.filled / 8] = rest;
            self.filled += spill;
        }
    }

    /// Appends the bits of `s`.
    pub fn update(&mut self, s: Bits<'_>) {
        let whole = (s.bits / 8) as usize;
        let mut bytes = &s.bytes[..whole];
        if self.filled.is_multiple_of(8) {
            // Byte-aligned: fill the block, then whole blocks straight from
            // the input, then the rest into the block.
            if self.filled > 0 {
                let at = self.filled / 8;
                let take = (BLOCK - at).min(bytes.len());
                self.block[at..at + take].copy_from_slice(&bytes[..take]);
                self.filled += 8 * take;
                bytes = &bytes[take..];
                if self.filled == 8 * BLOCK {
                    self.compress_block();
                }
            }
            if self.filled == 0 {
                let (blocks, rest) = Array::slice_as_chunks(bytes);
                self.core.update_blocks(blocks);
                self.block[..rest.len()].copy_from_slice(rest);
                self.filled = 8 * rest.len();
            }
        } else {
            for &b in bytes {
                self.push_bits(b, 8);
            }
        }
        let tail = (s.bits % 8) as usize;
        if tail > 0 {
            self.push_bits(s.bytes[whole], tail);
        }
        self.total = self.total.wrapping_add(s.bits);
    }

    /// The digest: a 1 bit, zeros to 448 bits modulo 512, then the length
    /// in bits as 64 big-endian bits.
    pub fn finish(mut self) -> [u8; 32] {
        let total = self.total;
        self.push_bits(0x80, 1);
        if self.filled > 448 {
            self.compress_block();
        }
        self.block[56..].copy_from_slice(&total.to_be_bytes());
        self.compress_block();
        let state = self.core.serialize();
        let mut out = [0u8; 32];
        // The serialized state is the eight chaining words, little-endian,
        // then the block count; the digest is the words big-endian.
        for (o, w) in out.chunks_exact_mut(4).zip(state[..32].chunks_exact(4)) {
            o.copy_from_slice(&[w[3], w[2], w[1], w[0]]);
        }
        out
    }

    /// SM3 of the concatenation of `parts`.
    pub fn digest(parts: &[Bits<'_>]) -> [u8; 32] {
        let mut h = Sm3Bits::new();
        for &p in parts {
            h.update(p);
        }
        h.finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use digest::Digest;

    #[test]
    fn byte_strings_agree_with_the_sm3_crate() {
        let data: Vec<u8> = (0..300u32).map(|i| (i * 7 + 1) as u8).collect();
        for n in [0, 1, 3, 55, 56, 63, 64, 65, 119, 128, 200, 300] {
            let want = sm3::Sm3::digest(&data[..n]);
            assert_eq!(Sm3Bits::digest(&[Bits::whole(&data[..n])]), want[..], "{n}");
            // The same bytes in pieces, aligned and not.
            for cut in [0, 1, 2, 30, 64] {
                let cut = cut.min(n);
                let got = Sm3Bits::digest(&[Bits::whole(&data[..cut]), Bits::whole(&data[cut..n])]);
                assert_eq!(got, want[..], "{n} cut at {cut}");
            }
        }
    }

    /// A bit string as its bits, one per byte, and back into packed bytes:
    /// a second, naive way to join bit strings.
    fn unpack(s: Bits<'_>) -> Vec<u8> {
        (0..s.bits)
            .map(|i| (s.bytes[(i / 8) as usize] >> (7 - i % 8)) & 1)
            .collect()
    }

    fn pack(bits: &[u8]) -> Vec<u8> {
        let mut out = vec![0u8; bits.len().div_ceil(8)];
        for (i, &b) in bits.iter().enumerate() {
            out[i / 8] |= b << (7 - i % 8);
        }
        out
    }

    #[test]
    fn unaligned_joins_agree_with_joining_bit_by_bit() {
        let data: Vec<u8> = (0..200u32).map(|i| (i * 131 + 17) as u8).collect();
        for (a, b) in [
            (1, 7),
            (3, 500),
            (7, 1),
            (9, 1000),
            (511, 1),
            (513, 511),
            (100, 927),
        ] {
            let x = Bits::new(&data, a).expect("a");
            let y = Bits::new(&data[60..], b).expect("b");
            let joined: Vec<u8> = unpack(x).into_iter().chain(unpack(y)).collect();
            let packed = pack(&joined);
            let once = Sm3Bits::digest(&[Bits::new(&packed, joined.len() as u64).expect("j")]);
            assert_eq!(Sm3Bits::digest(&[x, y]), once, "{a}+{b}");
            if joined.len().is_multiple_of(8) {
                assert_eq!(once, sm3::Sm3::digest(&packed)[..], "{a}+{b}");
            }
        }
    }

    #[test]
    fn bits_past_the_length_are_ignored() {
        let a = Sm3Bits::digest(&[Bits::new(&[0b1010_0000], 3).expect("3")]);
        let b = Sm3Bits::digest(&[Bits::new(&[0b1011_1111], 3).expect("3")]);
        assert_eq!(a, b);
        assert_ne!(
            a,
            Sm3Bits::digest(&[Bits::new(&[0b1000_0000], 3).expect("3")])
        );
        assert!(Bits::new(&[0], 9).is_none());
    }
}
