//! Block-level core for the RustCrypto `digest` traits (`block_api`).
//!
//! [`PavelorCore`] absorbs whole blocks and finalizes from the byte buffer the
//! `digest` machinery keeps; it is what `hmac::Hmac<Pavelor512>` builds on.
//! It also carries the one partial byte the bit-oriented API may add after
//! the buffered bytes, so that a hasher can be split into core and buffer
//! and put back together without losing bits.

use core::fmt;
use core::marker::PhantomData;

use digest::block_api::{
    AlgorithmName, Block, BlockSizeUser, Buffer, BufferKindUser, Eager, FixedOutputCore,
    OutputSizeUser, Reset, UpdateCore,
};
use digest::{HashMarker, Output};

use crate::backend::Available;
use crate::definition::instances::Variant;
use crate::definition::paff::State;
use crate::sponge::Sponge;
use crate::wipe::wipe;

/// Block-level Pavelor core for instance `V`.
#[derive(Clone)]
pub struct PavelorCore<V: Variant> {
    sponge: Sponge,
    /// Final partial byte (top `tail_bits` bits valid, the rest zero) that
    /// follows the buffered bytes; `tail_bits == 0` when there is none.
    tail: u8,
    tail_bits: u8,
    _variant: PhantomData<V>,
}

impl<V: Variant> PavelorCore<V> {
    /// A core hashing with `backend`.
    #[inline]
    pub fn with_backend(backend: Available) -> Self {
        PavelorCore {
            sponge: Sponge::new::<V>(backend),
            tail: 0,
            tail_bits: 0,
            _variant: PhantomData,
        }
    }

    /// A core continuing a byte-aligned message whose whole blocks have been
    /// absorbed into `state` (a lane leaving the multi-lane hasher).
    #[inline]
    pub(crate) fn from_state(state: State, backend: Available) -> Self {
        Self::from_parts(state, 0, 0, backend)
    }

    /// A core continuing from `state` with the pending partial byte
    /// `tail` of `tail_bits` (0..8) bits, whose other bits are zero (a
    /// serialized hasher being restored).
    pub(crate) fn from_parts(state: State, tail: u8, tail_bits: u8, backend: Available) -> Self {
        debug_assert!(tail_bits < 8 && tail & (0xFF >> tail_bits) == 0);
        PavelorCore {
            sponge: Sponge::from_state(state, backend),
            tail,
            tail_bits,
            _variant: PhantomData,
        }
    }

    /// The permutation state and the pending partial byte with its number
    /// of bits (secret: for serializing a hasher only).
    pub(crate) fn parts(&self) -> (&State, u8, u8) {
        (self.sponge.state(), self.tail, self.tail_bits)
    }

    /// The backend this core hashes with.
    pub fn backend(&self) -> Available {
        self.sponge.backend()
    }

    /// Absorbs whole `V::RATE`-byte blocks given as bytes.
    #[inline]
    pub(crate) fn absorb_blocks(&mut self, blocks: &[u8]) {
        debug_assert_eq!(
            self.tail_bits, 0,
            "whole blocks never follow a partial byte"
        );
        self.sponge.absorb_blocks::<V>(blocks);
    }

    /// Finishes the message `data` (fewer than `V::RATE` bytes) followed by
    /// the pending partial byte, and writes the digest.
    #[inline]
    pub(crate) fn finish(&mut self, data: &[u8], out: &mut [u8]) {
        self.sponge
            .finish::<V>(data, self.tail, self.tail_bits, out);
    }

    /// Number of valid bits in the pending partial byte (0 if none).
    pub(crate) fn tail_bits(&self) -> u8 {
        self.tail_bits
    }

    /// Takes the pending partial byte, leaving none.
    pub(crate) fn take_tail(&mut self) -> (u8, u8) {
        let tail = (self.tail, self.tail_bits);
        self.tail = 0;
        self.tail_bits = 0;
        tail
    }

    /// Sets the pending partial byte: its top `bits` (1..=7) bits are kept.
    pub(crate) fn set_tail(&mut self, byte: u8, bits: u8) {
        debug_assert!((1..8).contains(&bits));
        self.tail = byte & !(0xFFu8 >> bits);
        self.tail_bits = bits;
    }
}

impl<V: Variant> Default for PavelorCore<V> {
    fn default() -> Self {
        Self::with_backend(Available::best())
    }
}

impl<V: Variant> HashMarker for PavelorCore<V> {}

impl<V: Variant> BlockSizeUser for PavelorCore<V> {
    type BlockSize = V::BlockSize;
}

impl<V: Variant> BufferKindUser for PavelorCore<V> {
    type BufferKind = Eager;
}

impl<V: Variant> OutputSizeUser for PavelorCore<V> {
    type OutputSize = V::OutputSize;
}

impl<V: Variant> UpdateCore for PavelorCore<V> {
    #[inline]
    fn update_blocks(&mut self, blocks: &[Block<Self>]) {
        self.absorb_blocks(Block::<Self>::slice_as_flattened(blocks));
    }
}

impl<V: Variant> FixedOutputCore for PavelorCore<V> {
    #[inline]
    fn finalize_fixed_core(&mut self, buffer: &mut Buffer<Self>, out: &mut Output<Self>) {
        self.finish(buffer.get_data(), out);
    }
}

impl<V: Variant> Reset for PavelorCore<V> {
    fn reset(&mut self) {
        *self = Self::with_backend(self.sponge.backend());
    }
}

impl<V: Variant> AlgorithmName for PavelorCore<V> {
    fn write_alg_name(f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(V::NAME)
    }
}

impl<V: Variant> fmt::Debug for PavelorCore<V> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Never print the state.
        write!(f, "{}Core {{ backend: {} }}", V::NAME, self.backend())
    }
}

impl<V: Variant> Drop for PavelorCore<V> {
    fn drop(&mut self) {
        // The one secret byte kept here; the sponge wipes its own state.
        wipe(core::slice::from_mut(&mut self.tail));
    }
}

impl<V: Variant> zeroize::ZeroizeOnDrop for PavelorCore<V> {}
