//! The sponge: state plus backend, 10*1 padding (including a final partial
//! byte), absorbing and squeezing. One implementation serves all three
//! instances and all backends.

use crate::backend::{Engine, Rate, wipe, xor_into_state};
use crate::paff::State;
use crate::params::Variant;

/// The permutation state together with the backend that permutes it.
#[derive(Clone, Debug)]
pub(crate) struct Sponge {
    state: State,
    engine: Engine,
}

impl Sponge {
    /// The initial state of instance `V`.
    #[inline]
    pub(crate) fn new<V: Variant>(engine: Engine) -> Self {
        Sponge {
            state: V::IV,
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
        self.engine.absorb(&mut self.state, blocks, Rate::of::<V>());
    }

    /// Pads and absorbs the end of the message — `data` (fewer than
    /// `V::RATE` whole bytes) followed by the top `tail_bits` (0..8) bits of
    /// `tail` — then squeezes the digest into `out` (`V::DIGEST` bytes).
    ///
    /// Only the public lengths steer the control flow; the message bits are
    /// combined with masks, so a partial byte costs no data-dependent branch.
    #[inline]
    pub(crate) fn finish<V: Variant>(
        &mut self,
        data: &[u8],
        tail: u8,
        tail_bits: u8,
        out: &mut [u8],
    ) {
        let rate = V::RATE;
        debug_assert!(data.len() < rate && tail_bits < 8);
        debug_assert_eq!(out.len(), V::DIGEST);

        // XOR message and padding straight into the rate, one whole
        // subblock at a time: the kernel then loads every subblock from a
        // single full-width store (byte stores into the state would stall its
        // 16-byte loads on store forwarding).
        let (index, used) = (data.len(), usize::from(tail_bits));
        let k = index / 16;
        xor_into_state(&mut self.state, &data[..16 * k]);
        // The subblock holding the end of the message, built in a register:
        // the remaining whole bytes, the top `used` bits of the partial byte,
        // then the first padding bit right after them.
        let mut word = 0u128;
        for (j, &b) in data[16 * k..].iter().enumerate() {
            word |= u128::from(b) << (8 * (15 - j));
        }
        let last = (tail & !(0xFFu8 >> used)) | (0x80 >> used);
        word |= u128::from(last) << (8 * (15 - index % 16));
        xor_word(&mut self.state[k], word);
        if index == rate - 1 && used == 7 {
            // The first `1` filled the block: the closing `1` needs one more.
            self.engine.permute(&mut self.state);
        }
        xor_word(&mut self.state[(rate - 1) / 16], 1); // the last padding bit
        self.engine.permute(&mut self.state);

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

/// XORs a 128-bit word (big-endian: byte 0 is the top byte) into a subblock.
#[inline(always)]
fn xor_word(sub: &mut [u8; 16], word: u128) {
    *sub = (u128::from_be_bytes(*sub) ^ word).to_be_bytes();
}

impl Drop for Sponge {
    fn drop(&mut self) {
        wipe(self.state.as_flattened_mut());
    }
}
