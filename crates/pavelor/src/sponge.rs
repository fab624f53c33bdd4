//! The sponge: state plus backend, 10*1 padding (including a final partial
//! byte), absorbing and squeezing. One implementation serves all three
//! instances and all backends.

use crate::backend::Engine;
use crate::paff::State;
use crate::params::{MAX_RATE, Variant};
use zeroize::Zeroize;

/// The permutation state together with the backend that permutes it.
#[derive(Clone, Debug)]
pub(crate) struct Sponge {
    state: State,
    engine: Engine,
}

impl Sponge {
    /// The initial state of instance `V`.
    pub(crate) fn new<V: Variant>(engine: Engine) -> Self {
        Sponge {
            state: V::iv(),
            engine,
        }
    }

    /// The backend in use.
    pub(crate) fn engine(&self) -> Engine {
        self.engine
    }

    /// Absorbs whole blocks; `blocks.len()` is a multiple of `V::RATE`.
    #[inline]
    pub(crate) fn absorb_blocks<V: Variant>(&mut self, blocks: &[u8]) {
        self.engine.absorb(&mut self.state, blocks, V::RATE);
    }

    /// Pads and absorbs the last `nbits < 8 * V::RATE` message bits held in
    /// `tail` (`ceil(nbits / 8)` bytes, MSB-first; the unused low bits of a
    /// partial last byte are ignored), then squeezes the digest into `out`
    /// (`V::DIGEST` bytes).
    ///
    /// Only the public length `nbits` steers the control flow; the message
    /// bits are combined with masks.
    pub(crate) fn finish<V: Variant>(&mut self, tail: &[u8], nbits: usize, out: &mut [u8]) {
        let rate = V::RATE;
        debug_assert!(nbits < 8 * rate && tail.len() == nbits.div_ceil(8));
        debug_assert_eq!(out.len(), V::DIGEST);

        let mut block = [0u8; MAX_RATE];
        let block = &mut block[..rate];
        block[..tail.len()].copy_from_slice(tail);
        let (index, used) = (nbits / 8, nbits % 8);
        // Keep the top `used` bits of a partial byte (all of them when
        // `used == 0`, where the byte is not part of the message and is 0).
        block[index] &= !(0xFFu8 >> used);
        block[index] |= 0x80 >> used; // the first padding bit
        if nbits == 8 * rate - 1 {
            // The first `1` filled the block: the closing `1` needs one more.
            self.absorb_blocks::<V>(block);
            block.fill(0);
        }
        block[rate - 1] |= 0x01; // the last padding bit
        self.absorb_blocks::<V>(block);
        block.zeroize();

        // Squeeze: `min(r, h - |out|)` bits, then Paff, until `h` bits.
        let mut chunks = out.chunks_mut(rate).peekable();
        while let Some(chunk) = chunks.next() {
            let bytes = self.state.as_flattened();
            chunk.copy_from_slice(&bytes[..chunk.len()]);
            if chunks.peek().is_some() {
                self.engine.permute(&mut self.state);
            }
        }
    }
}

impl Drop for Sponge {
    fn drop(&mut self) {
        self.state.zeroize();
    }
}
