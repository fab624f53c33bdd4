//! The streaming sponge: state plus backend, absorbing whole blocks,
//! finishing with the padding of [`crate::definition::pad`] and squeezing.
//! One implementation serves all three instances and all backends (the
//! streaming hasher and the batch lanes that leave a multi-lane kernel).

use crate::backend::Available;
use crate::definition::instances::{MAX_RATE, Variant};
use crate::definition::pad::pad;
use crate::definition::paff::State;
use crate::wipe::wipe;

/// The permutation state together with the backend that permutes it.
#[derive(Clone, Debug)]
pub(crate) struct Sponge {
    state: State,
    backend: Available,
}

impl Sponge {
    /// The initial state of instance `V`.
    #[inline]
    pub(crate) fn new<V: Variant>(backend: Available) -> Self {
        Sponge {
            state: V::IV,
            backend,
        }
    }

    /// A sponge continuing from `state` (a lane leaving a multi-lane
    /// kernel).
    #[inline]
    pub(crate) fn from_state(state: State, backend: Available) -> Self {
        Sponge { state, backend }
    }

    /// The backend in use.
    pub(crate) fn backend(&self) -> Available {
        self.backend
    }

    /// The permutation state (secret: for serializing a hasher only).
    pub(crate) fn state(&self) -> &State {
        &self.state
    }

    /// Absorbs whole blocks; `blocks.len()` is a multiple of `V::RATE`.
    #[inline]
    pub(crate) fn absorb_blocks<V: Variant>(&mut self, blocks: &[u8]) {
        self.backend.absorb::<V>(&mut self.state, blocks);
    }

    /// Pads and absorbs the end of the message — `data` (fewer than
    /// `V::RATE` whole bytes) followed by the top `tail_bits` (0..8) bits of
    /// `tail` — then squeezes the digest into `out` (`V::DIGEST` bytes).
    #[inline]
    pub(crate) fn finish<V: Variant>(
        &mut self,
        data: &[u8],
        tail: u8,
        tail_bits: u8,
        out: &mut [u8],
    ) {
        debug_assert_eq!(out.len(), V::DIGEST);
        let mut buf = [0u8; 2 * MAX_RATE];
        let nb = pad::<V>(data, tail, tail_bits, &mut buf);
        self.backend
            .absorb::<V>(&mut self.state, &buf[..nb * V::RATE]);
        wipe(&mut buf[..nb * V::RATE]);
        self.squeeze::<V>(out);
    }

    /// Squeezes `out.len()` bytes: `min(r, left)` bytes of the rate, then
    /// Paff, until `out` is full (Pavelor-1024 reads two rate blocks).
    #[inline]
    pub(crate) fn squeeze<V: Variant>(&mut self, out: &mut [u8]) {
        for (k, chunk) in out.chunks_mut(V::RATE).enumerate() {
            if k > 0 {
                self.backend.permute(&mut self.state);
            }
            chunk.copy_from_slice(&self.state.as_flattened()[..chunk.len()]);
        }
    }
}

impl Drop for Sponge {
    fn drop(&mut self) {
        wipe(self.state.as_flattened_mut());
    }
}
