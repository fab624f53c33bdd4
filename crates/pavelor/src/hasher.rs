//! The streaming hasher [`Pavelor`]: bytes and bits in, digest out, and the
//! RustCrypto `digest` traits on top.

use core::fmt;

use digest::block_api::{AlgorithmName, BlockSizeUser, Buffer, CoreProxy, OutputSizeUser};
use digest::{FixedOutput, FixedOutputReset, HashMarker, Output, Reset, Update};

use crate::backend::Available;
use crate::core_api::PavelorCore;
use crate::definition::instances::{MAX_RATE, P512, P768, P1024, Variant};
use crate::error::Error;
use crate::wipe::wipe;

/// Streaming Pavelor hasher for instance `V` (see [`Pavelor512`],
/// [`Pavelor768`], [`Pavelor1024`]).
///
/// Messages are bit strings: [`update`](Self::update) appends whole bytes,
/// [`update_bits`](Self::update_bits) appends the first `nbits` bits of a byte
/// slice (MSB-first), which may end in a partial byte. A partial byte ends
/// the bit-level input: a later `update_bits` with bits in it is refused with
/// [`Error::AfterPartialByte`] and changes nothing.
///
/// The backend is chosen once, when the hasher is made ([`Pavelor::new`]
/// picks the fastest this CPU runs, [`Pavelor::with_backend`] takes one
/// already resolved into an [`Available`]).
/// The state and buffer are zeroized when the hasher is dropped.
#[derive(Clone)]
pub struct Pavelor<V: Variant> {
    core: PavelorCore<V>,
    /// Message bytes not yet absorbed: `buf[..pos]`, `pos < V::RATE`.
    buf: [u8; MAX_RATE],
    pos: usize,
}

macro_rules! define_aliases {
    ($( ($ty:ident, $alg:ident, $bits:literal, $rate:ident, $digest:ident) ),* $(,)?) => {
        $(
            #[doc = concat!("Pavelor-", $bits, ": ", $bits, "-bit digest.")]
            pub type $alg = Pavelor<$ty>;
        )*
    };
}
crate::definition::instances::instances!(define_aliases);

impl<V: Variant> Pavelor<V> {
    /// A hasher using the fastest backend this CPU supports.
    #[inline]
    pub fn new() -> Self {
        Self::with_backend(Available::best())
    }

    /// A hasher using `backend`.
    #[inline]
    pub fn with_backend(backend: Available) -> Self {
        Self::from_core(PavelorCore::with_backend(backend))
    }

    #[inline]
    pub(crate) fn from_core(core: PavelorCore<V>) -> Self {
        Pavelor {
            core,
            buf: [0; MAX_RATE],
            pos: 0,
        }
    }

    /// A hasher continuing from `core` with the message bytes `data`
    /// (fewer than `V::RATE`) not yet absorbed.
    pub(crate) fn from_core_and_buffer(core: PavelorCore<V>, data: &[u8]) -> Self {
        debug_assert!(data.len() < V::RATE);
        let mut h = Pavelor::from_core(core);
        h.buf[..data.len()].copy_from_slice(data);
        h.pos = data.len();
        h
    }

    /// The core and the message bytes not yet absorbed (secret: for
    /// serializing a hasher only).
    pub(crate) fn parts(&self) -> (&PavelorCore<V>, &[u8]) {
        (&self.core, &self.buf[..self.pos])
    }

    /// The backend this hasher uses.
    pub fn backend(&self) -> Available {
        self.core.backend()
    }

    /// Appends whole bytes to the message.
    ///
    /// This cannot fail. If a partial byte is pending (after
    /// [`update_bits`](Self::update_bits)), the bytes are appended at the
    /// current bit position, so the digest is that of the concatenated bit
    /// string; use `update_bits` to have such mixing refused instead.
    #[inline]
    pub fn update(&mut self, data: impl AsRef<[u8]>) {
        self.absorb_bytes(data.as_ref());
    }

    /// Appends the first `nbits` bits of `data` (MSB-first within each
    /// byte). When `nbits % 8 != 0` the last byte used is partial: only its
    /// top `nbits % 8` bits count, whatever its other bits hold.
    ///
    /// Errors: [`Error::BitLength`] if `nbits > 8 * data.len()`;
    /// [`Error::AfterPartialByte`] if a partial byte was already given and
    /// `nbits > 0`. On error the hasher is unchanged.
    pub fn update_bits(&mut self, data: &[u8], nbits: u64) -> Result<(), Error> {
        let (whole, rest) = split_bits(data, nbits)?;
        if nbits == 0 {
            return Ok(());
        }
        if self.core.tail_bits() != 0 {
            return Err(Error::AfterPartialByte);
        }
        self.absorb_bytes(&data[..whole]);
        if rest != 0 {
            self.core.set_tail(data[whole], rest);
        }
        Ok(())
    }

    /// Number of message bits given so far, modulo 8 (0 when the message so
    /// far is byte-aligned).
    pub fn pending_bits(&self) -> u8 {
        self.core.tail_bits()
    }

    /// Finishes the hash and returns the digest.
    #[inline]
    pub fn finalize(mut self) -> Output<Self> {
        let mut out = Output::<Self>::default();
        self.finish_into(&mut out);
        out
    }

    /// Finishes the hash, returns the digest and resets the hasher (keeping
    /// its backend).
    pub fn finalize_reset(&mut self) -> Output<Self> {
        FixedOutputReset::finalize_fixed_reset(self)
    }

    /// Resets to the empty message, keeping the backend.
    pub fn reset(&mut self) {
        Reset::reset(self)
    }

    /// One-shot digest of a byte message with the fastest backend.
    ///
    /// Absorbs straight from `data` (no buffering), so a short message costs
    /// little more than its permutation calls.
    #[inline]
    pub fn digest(data: impl AsRef<[u8]>) -> Output<Self> {
        Self::digest_with(Available::best(), data)
    }

    /// One-shot digest of a byte message with the given backend.
    #[inline]
    pub fn digest_with(backend: Available, data: impl AsRef<[u8]>) -> Output<Self> {
        let mut out = Output::<Self>::default();
        backend.hash::<V>(data.as_ref(), 0, 0, &mut out);
        out
    }

    /// One-shot digest of the first `nbits` bits of `data` (MSB-first; a
    /// partial last byte contributes its top `nbits % 8` bits), with the
    /// fastest backend: one fused kernel call, like [`Pavelor::digest`].
    ///
    /// Errors: [`Error::BitLength`] if `nbits > 8 * data.len()`.
    #[inline]
    pub fn digest_bits(data: &[u8], nbits: u64) -> Result<Output<Self>, Error> {
        let mut out = Output::<Self>::default();
        Self::digest_bits_into(data, nbits, &mut out)?;
        Ok(out)
    }

    /// Like [`Pavelor::digest_bits`], writing the digest into `out` (no
    /// digest-sized return value to move: the C ABI's path).
    ///
    /// Errors: [`Error::BitLength`] if `nbits > 8 * data.len()`; `out` is
    /// then unchanged.
    #[inline]
    pub fn digest_bits_into(data: &[u8], nbits: u64, out: &mut Output<Self>) -> Result<(), Error> {
        Self::digest_bits_into_with(Available::best(), data, nbits, out)
    }

    /// Like [`Pavelor::digest_bits_into`], with the given backend.
    ///
    /// Errors: [`Error::BitLength`] if `nbits > 8 * data.len()`; `out` is
    /// then unchanged.
    #[inline]
    pub fn digest_bits_into_with(
        backend: Available,
        data: &[u8],
        nbits: u64,
        out: &mut Output<Self>,
    ) -> Result<(), Error> {
        let (whole, bits) = split_bits(data, nbits)?;
        let tail = if bits == 0 { 0 } else { data[whole] };
        backend.hash::<V>(&data[..whole], tail, bits, out);
        Ok(())
    }

    /// Like [`Pavelor::digest_bits`], with the given backend.
    ///
    /// Errors: [`Error::BitLength`] if `nbits > 8 * data.len()`.
    #[inline]
    pub fn digest_bits_with(
        backend: Available,
        data: &[u8],
        nbits: u64,
    ) -> Result<Output<Self>, Error> {
        let mut out = Output::<Self>::default();
        Self::digest_bits_into_with(backend, data, nbits, &mut out)?;
        Ok(out)
    }

    /// Appends whole bytes at a byte-aligned position: fills the buffer,
    /// absorbs straight from `data` while whole blocks remain, keeps the rest.
    /// The buffer never holds a full block (blocks are absorbed eagerly).
    #[inline]
    fn absorb_aligned(&mut self, mut data: &[u8]) {
        let rate = V::RATE;
        if self.pos > 0 {
            let take = data.len().min(rate - self.pos);
            self.buf[self.pos..self.pos + take].copy_from_slice(&data[..take]);
            self.pos += take;
            data = &data[take..];
            if self.pos < rate {
                return;
            }
            self.core.absorb_blocks(&self.buf[..rate]);
            self.pos = 0;
        }
        let whole = data.len() - data.len() % rate;
        if whole > 0 {
            self.core.absorb_blocks(&data[..whole]);
        }
        let rest = &data[whole..];
        self.buf[..rest.len()].copy_from_slice(rest);
        self.pos = rest.len();
    }

    fn absorb_bytes(&mut self, data: &[u8]) {
        let shift = self.core.tail_bits();
        if shift == 0 {
            self.absorb_aligned(data);
            return;
        }
        // A partial byte is pending: realign `data` behind its `shift` bits.
        let (mut carry, _) = self.core.take_tail();
        let mut aligned = [0u8; 64];
        for chunk in data.chunks(aligned.len()) {
            for (out, &b) in aligned.iter_mut().zip(chunk) {
                *out = carry | (b >> shift);
                carry = b << (8 - shift);
            }
            self.absorb_aligned(&aligned[..chunk.len()]);
        }
        wipe(&mut aligned);
        self.core.set_tail(carry, shift);
    }

    /// Finishes the hash into `out` (`V::DIGEST` bytes), leaving the hasher
    /// spent (callers drop or reset it).
    #[inline]
    pub(crate) fn finish_into(&mut self, out: &mut [u8]) {
        self.core.finish(&self.buf[..self.pos], out);
    }
}

/// The first `nbits` bits of `data` as whole bytes and the bits (0..8) of
/// a partial last byte: `(nbits / 8, nbits % 8)`, or [`Error::BitLength`]
/// if `data` holds fewer bits.
#[inline]
fn split_bits(data: &[u8], nbits: u64) -> Result<(usize, u8), Error> {
    let whole = usize::try_from(nbits / 8)
        .ok()
        .filter(|&w| w < data.len() || (w == data.len() && nbits.is_multiple_of(8)))
        .ok_or(Error::BitLength {
            nbits,
            bytes: data.len(),
        })?;
    Ok((whole, (nbits % 8) as u8))
}

impl<V: Variant> Default for Pavelor<V> {
    fn default() -> Self {
        Self::new()
    }
}

impl<V: Variant> HashMarker for Pavelor<V> {}

impl<V: Variant> BlockSizeUser for Pavelor<V> {
    type BlockSize = V::BlockSize;
}

impl<V: Variant> OutputSizeUser for Pavelor<V> {
    type OutputSize = V::OutputSize;
}

impl<V: Variant> Update for Pavelor<V> {
    #[inline]
    fn update(&mut self, data: &[u8]) {
        self.absorb_bytes(data);
    }
}

impl<V: Variant> FixedOutput for Pavelor<V> {
    fn finalize_into(mut self, out: &mut Output<Self>) {
        self.finish_into(out);
    }
}

impl<V: Variant> FixedOutputReset for Pavelor<V> {
    fn finalize_into_reset(&mut self, out: &mut Output<Self>) {
        self.finish_into(out);
        Reset::reset(self);
    }
}

impl<V: Variant> Reset for Pavelor<V> {
    fn reset(&mut self) {
        Reset::reset(&mut self.core);
        wipe(&mut self.buf[..self.pos]);
        self.pos = 0;
    }
}

impl<V: Variant> AlgorithmName for Pavelor<V> {
    fn write_alg_name(f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(V::NAME)
    }
}

impl<V: Variant> CoreProxy for Pavelor<V> {
    type Core = PavelorCore<V>;

    fn compose(core: Self::Core, buffer: Buffer<Self::Core>) -> Self {
        // An eager buffer holds fewer than RATE bytes.
        Pavelor::from_core_and_buffer(core, buffer.get_data())
    }

    fn decompose(self) -> (Self::Core, Buffer<Self::Core>) {
        // `pos < RATE` always holds, which is all `try_new` checks.
        let buffer = Buffer::<Self::Core>::try_new(&self.buf[..self.pos]);
        debug_assert!(buffer.is_ok());
        (self.core.clone(), buffer.unwrap_or_default())
    }
}

impl<V: Variant> fmt::Debug for Pavelor<V> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Never print the state or buffered message bytes.
        write!(f, "{} {{ backend: {} }}", V::NAME, self.backend())
    }
}

impl<V: Variant> Drop for Pavelor<V> {
    fn drop(&mut self) {
        wipe(&mut self.buf);
    }
}

impl<V: Variant> zeroize::ZeroizeOnDrop for Pavelor<V> {}
