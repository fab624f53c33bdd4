//! The three Pavelor instances: rate, digest length and initial state.

use crate::paff::{STATE_BYTES, SUBBLOCKS, State};
use digest::array::ArraySize;
use digest::block_buffer::BlockSizes;
use digest::consts::{U64, U96, U128, U192};

/// Capacity plus rate: the permutation width in bits.
pub const WIDTH_BITS: usize = STATE_BYTES * 8;
/// The largest rate of the three instances, in bytes (Pavelor-512).
pub const MAX_RATE: usize = 192;
/// The largest digest of the three instances, in bytes (Pavelor-1024).
pub const MAX_DIGEST: usize = 128;

mod sealed {
    pub trait Sealed {}
}

/// One Pavelor instance. Implemented only by [`P512`], [`P768`] and [`P1024`].
pub trait Variant: sealed::Sealed + Copy + Default + core::fmt::Debug + 'static {
    /// Instance name as the specification writes it, e.g. `"Pavelor-512"`.
    const NAME: &'static str;
    /// Rate `r` in bytes.
    const RATE: usize;
    /// Digest length `h` in bytes.
    const DIGEST: usize;
    /// `RATE` as a type-level number (the RustCrypto block size).
    type BlockSize: BlockSizes;
    /// `DIGEST` as a type-level number (the RustCrypto output size).
    type OutputSize: ArraySize;

    /// The initial state: `r`, `c`, `b`, `h` (in bits) as 128-bit big-endian
    /// integers in subblocks 0..4, zero elsewhere.
    const IV: State = iv(Self::RATE * 8, Self::DIGEST * 8);
}

/// The initial state for rate `rate_bits` and digest `digest_bits`.
const fn iv(rate_bits: usize, digest_bits: usize) -> State {
    let words = [rate_bits, WIDTH_BITS - rate_bits, WIDTH_BITS, digest_bits];
    let mut state = [[0u8; 16]; SUBBLOCKS];
    let mut i = 0;
    while i < words.len() {
        state[i] = (words[i] as u128).to_be_bytes();
        i += 1;
    }
    state
}

macro_rules! variant {
    ($(#[$doc:meta])* $ty:ident, $name:literal, $rate:literal, $digest:literal, $bs:ty, $os:ty) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
        pub struct $ty;
        impl sealed::Sealed for $ty {}
        impl Variant for $ty {
            const NAME: &'static str = $name;
            const RATE: usize = $rate;
            const DIGEST: usize = $digest;
            type BlockSize = $bs;
            type OutputSize = $os;
        }
    };
}

variant!(
    /// Pavelor-512: 512-bit digest, 1536-bit rate, 1024-bit capacity.
    P512, "Pavelor-512", 192, 64, U192, U64
);
variant!(
    /// Pavelor-768: 768-bit digest, 1024-bit rate, 1536-bit capacity.
    P768, "Pavelor-768", 128, 96, U128, U96
);
variant!(
    /// Pavelor-1024: 1024-bit digest, 512-bit rate, 2048-bit capacity, two squeeze blocks.
    P1024, "Pavelor-1024", 64, 128, U64, U128
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn iv_512_matches_spec_bytes() {
        let iv = P512::IV;
        let flat: std::vec::Vec<u8> = iv.iter().flatten().copied().collect();
        let nonzero: std::vec::Vec<(usize, u8)> = flat
            .iter()
            .enumerate()
            .filter(|(_, b)| **b != 0)
            .map(|(i, b)| (i, *b))
            .collect();
        assert_eq!(nonzero, [(14, 0x06), (30, 0x04), (46, 0x0a), (62, 0x02)]);
    }

    #[test]
    fn digest_never_exceeds_two_squeezes() {
        for (rate, digest) in [
            (P512::RATE, P512::DIGEST),
            (P768::RATE, P768::DIGEST),
            (P1024::RATE, P1024::DIGEST),
        ] {
            assert!(rate.is_multiple_of(16) && rate <= MAX_RATE && digest <= MAX_DIGEST);
            assert!(digest <= 2 * rate);
        }
    }
}
