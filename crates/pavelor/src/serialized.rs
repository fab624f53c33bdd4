//! Saving a hasher mid-message and resuming it: RustCrypto's
//! [`SerializableState`] for [`Pavelor`].
//!
//! # Format, version 1
//!
//! A serialized Pavelor-`n` hasher is `336 + r` bytes, `r` being the rate
//! (528 bytes for Pavelor-512, 464 for Pavelor-768, 400 for Pavelor-1024):
//!
//! | offset | bytes | holds |
//! |---|---|---|
//! | 0 | 1 | format version, 1 |
//! | 1 | 1 | the instance: digest length in bits / 256 (2, 3 or 4) |
//! | 2 | 1 | `k`, the message bytes buffered but not absorbed (`0..r`) |
//! | 3 | 1 | `t`, bits of a pending partial final byte (`0..8`) |
//! | 4 | 1 | that partial byte: its top `t` bits, the others zero |
//! | 5 | 11 | zero |
//! | 16 | 320 | the Paff state, subblocks 0 to 19, 16 bytes each |
//! | 336 | `r` | the `k` buffered bytes, then zeros |
//!
//! The pending bits follow the buffered bytes in the message. Restoring
//! refuses ([`DeserializeStateError`]) a state of another version or
//! instance, `k >= r`, `t >= 8`, or a nonzero byte where zeros belong, so
//! every accepted state is one that [`SerializableState::serialize`] writes
//! for some point of some hashing. The permutation state itself is not
//! checked (any 320 bytes are a state): a corrupted one gives a different
//! digest, never a panic.
//!
//! The backend is not saved: a restored hasher uses the fastest one this
//! CPU runs, and every backend computes the same digests.
//!
//! # Secrecy
//!
//! A serialized state holds the sponge's whole state and the unabsorbed
//! message bytes. Whoever has it can finish the hash of any extension of
//! the message, and it reveals the end of the message; with a key in the
//! message (as in HMAC's inner hash) it is as secret as the key. Wipe it
//! when done (it is a plain byte array: `zeroize` it).

use digest::common::hazmat::{DeserializeStateError, SerializableState, SerializedState};

use crate::backend::Available;
use crate::core_api::PavelorCore;
use crate::definition::instances::{SERIALIZED_FIXED, Variant};
use crate::definition::paff::{STATE_BYTES, State};
use crate::hasher::Pavelor;
use crate::wipe::wipe;

/// The version of the format written, and the only one read.
const VERSION: u8 = 1;

/// Offsets of the format's fields.
const AT_VERSION: usize = 0;
const AT_INSTANCE: usize = 1;
const AT_BUFFERED: usize = 2;
const AT_TAIL_BITS: usize = 3;
const AT_TAIL: usize = 4;
const AT_STATE: usize = 16;
const AT_BUFFER: usize = AT_STATE + STATE_BYTES;
const _: () = assert!(AT_BUFFER == SERIALIZED_FIXED);

/// The instance byte of `V`.
fn instance_id<V: Variant>() -> u8 {
    (V::DIGEST * 8 / 256) as u8
}

impl<V: Variant> SerializableState for Pavelor<V> {
    type SerializedStateSize = V::SerializedStateSize;

    fn serialize(&self) -> SerializedState<Self> {
        let (core, buffered) = self.parts();
        let (state, tail, tail_bits) = core.parts();
        let mut out = SerializedState::<Self>::default();
        out[AT_VERSION] = VERSION;
        out[AT_INSTANCE] = instance_id::<V>();
        // `buffered.len() < V::RATE <= 192`.
        out[AT_BUFFERED] = buffered.len() as u8;
        out[AT_TAIL_BITS] = tail_bits;
        out[AT_TAIL] = tail;
        out[AT_STATE..AT_BUFFER].copy_from_slice(state.as_flattened());
        out[AT_BUFFER..AT_BUFFER + buffered.len()].copy_from_slice(buffered);
        out
    }

    fn deserialize(serialized: &SerializedState<Self>) -> Result<Self, DeserializeStateError> {
        let buffered = usize::from(serialized[AT_BUFFERED]);
        let tail_bits = serialized[AT_TAIL_BITS];
        let tail = serialized[AT_TAIL];
        let header_ok = serialized[AT_VERSION] == VERSION
            && serialized[AT_INSTANCE] == instance_id::<V>()
            && buffered < V::RATE
            && tail_bits < 8;
        if !header_ok {
            return Err(DeserializeStateError);
        }
        // What must be zero is OR-ed together and tested once, so that the
        // time taken does not depend on where a stray bit is.
        let mut stray = tail & (0xFF >> tail_bits);
        for &b in &serialized[AT_TAIL + 1..AT_STATE] {
            stray |= b;
        }
        for &b in &serialized[AT_BUFFER + buffered..] {
            stray |= b;
        }
        if stray != 0 {
            return Err(DeserializeStateError);
        }
        let mut state = State::default();
        state
            .as_flattened_mut()
            .copy_from_slice(&serialized[AT_STATE..AT_BUFFER]);
        let core = PavelorCore::from_parts(state, tail, tail_bits, Available::best());
        wipe(state.as_flattened_mut());
        let data = &serialized[AT_BUFFER..AT_BUFFER + buffered];
        Ok(Pavelor::from_core_and_buffer(core, data))
    }
}
