//! The three Pavelor instances: the one list of their names, digest
//! lengths and rates (the `instances!` macro), and what follows from it: the
//! [`Variant`] types [`P512`], [`P768`], [`P1024`] and their initial states.
//!
//! Every other place that needs an instance's numbers or name (the hasher
//! aliases, [`crate::Algorithm`], the batch API, and through `Algorithm` the
//! C library, the OpenSSL provider and the Python module) derives them from
//! this list.

use crate::definition::paff::{STATE_BYTES, SUBBLOCKS, State};
use digest::array::ArraySize;
use digest::block_buffer::BlockSizes;
use digest::typenum::Unsigned;

/// Capacity plus rate: the permutation width in bits.
pub const WIDTH_BITS: usize = STATE_BYTES * 8;

/// The list of instances, the one place their numbers are written: calls
/// `$m! { $( ($variant, $algorithm, $bits, $rate, $digest) ),* }` with, for
/// each instance, its [`Variant`] type name, its [`crate::Algorithm`]
/// variant name, its digest length in bits (which names it), and its rate
/// and digest length in bytes as `digest::consts` type-level numbers.
macro_rules! instances {
    ($m:ident) => {
        $m! {
            (P512, Pavelor512, 512, U192, U64),
            (P768, Pavelor768, 768, U128, U96),
            (P1024, Pavelor1024, 1024, U64, U128),
        }
    };
}
pub(crate) use instances;

/// One Pavelor instance. Implemented only by [`P512`], [`P768`] and [`P1024`].
pub trait Variant: sealed::Sealed + Copy + Default + core::fmt::Debug + 'static {
    /// Instance name as the specification writes it, e.g. `"Pavelor-512"`.
    const NAME: &'static str;
    /// `RATE` as a type-level number (the RustCrypto block size).
    type BlockSize: BlockSizes;
    /// `DIGEST` as a type-level number (the RustCrypto output size).
    type OutputSize: ArraySize;
    /// Rate `r` in bytes.
    const RATE: usize = <Self::BlockSize as Unsigned>::USIZE;
    /// Digest length `h` in bytes.
    const DIGEST: usize = <Self::OutputSize as Unsigned>::USIZE;
    /// Length of a hasher's serialized state as a type-level number:
    /// [`SERIALIZED_FIXED`] bytes, then the rate's buffer.
    type SerializedStateSize: ArraySize;

    /// The initial state: `r`, `c`, `b`, `h` (in bits) as 128-bit big-endian
    /// integers in subblocks 0..4, zero elsewhere.
    const IV: State = iv(Self::RATE * 8, Self::DIGEST * 8);
}

/// The part of a serialized hasher state that every instance has: a
/// 16-byte header and the permutation state (the rate's buffer follows).
pub const SERIALIZED_FIXED: usize = 16 + STATE_BYTES;

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

macro_rules! define_variants {
    ($( ($ty:ident, $alg:ident, $bits:literal, $rate:ident, $digest:ident) ),* $(,)?) => {
        /// What only this crate sees of an instance: which one it is, as a
        /// value.
        mod sealed {
            /// Implemented by the [`Variant`](super::Variant) types only.
            pub trait Sealed {
                /// This instance as a value (see [`Instance`]).
                const INSTANCE: Instance;
            }

            /// The instances as values, in the order of the list. Generic
            /// code turns a [`Variant`](super::Variant) into one of these to
            /// reach the kernels compiled for that instance inside this
            /// crate (see `crate::backend`), instead of compiling them again
            /// in every crate that names a `Variant`.
            #[derive(Clone, Copy, Debug, PartialEq, Eq)]
            pub enum Instance {
                $(
                    #[doc = concat!("Pavelor-", $bits, ".")]
                    $ty,
                )*
            }
        }
        pub(crate) use sealed::Instance;

        $(
            #[doc = concat!(
                "Pavelor-", $bits, ": ", $bits, "-bit digest, rate ",
                stringify!($rate), " bytes (the type-level number)."
            )]
            #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
            pub struct $ty;
            impl sealed::Sealed for $ty {
                const INSTANCE: Instance = Instance::$ty;
            }
            impl Variant for $ty {
                const NAME: &'static str = concat!("Pavelor-", $bits);
                type BlockSize = digest::consts::$rate;
                type OutputSize = digest::consts::$digest;
                type SerializedStateSize =
                    digest::typenum::Sum<digest::consts::$rate, digest::consts::U336>;
            }
            const _: () = assert!(<$ty as Variant>::DIGEST * 8 == $bits);
            const _: () = assert!(
                <<$ty as Variant>::SerializedStateSize as Unsigned>::USIZE
                    == SERIALIZED_FIXED + <$ty as Variant>::RATE
            );
        )*

        /// The digest lengths of the instances in bits (their names), in
        /// order.
        pub(crate) const DIGEST_BITS: &[usize] = &[$($bits),*];

        /// The largest rate of the instances, in bytes.
        pub const MAX_RATE: usize = max(&[$(<$ty as Variant>::RATE),*]);
        /// The largest digest of the instances, in bytes.
        pub const MAX_DIGEST: usize = max(&[$(<$ty as Variant>::DIGEST),*]);

        // What the kernels rely on: a rate is whole subblocks and leaves
        // capacity, and a digest takes at most two squeezes.
        $(
            const _: () = assert!(<$ty as Variant>::RATE % 16 == 0);
            const _: () = assert!(<$ty as Variant>::RATE < STATE_BYTES);
            const _: () = assert!(<$ty as Variant>::DIGEST <= 2 * <$ty as Variant>::RATE);
        )*
    };
}

/// The largest of `values` (at compile time).
const fn max(values: &[usize]) -> usize {
    let mut m = 0;
    let mut i = 0;
    while i < values.len() {
        if values[i] > m {
            m = values[i];
        }
        i += 1;
    }
    m
}

instances!(define_variants);

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
    fn numbers_match_the_specification() {
        // Rates and digest lengths in bytes, as the specification lists them.
        assert_eq!(
            (P512::NAME, P512::RATE, P512::DIGEST),
            ("Pavelor-512", 192, 64)
        );
        assert_eq!(
            (P768::NAME, P768::RATE, P768::DIGEST),
            ("Pavelor-768", 128, 96)
        );
        assert_eq!(
            (P1024::NAME, P1024::RATE, P1024::DIGEST),
            ("Pavelor-1024", 64, 128)
        );
        assert_eq!((MAX_RATE, MAX_DIGEST), (192, 128));
    }
}
