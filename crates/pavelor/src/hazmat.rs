//! The bare permutation Paff, for analysis and tests. Hashing goes through
//! [`crate::Pavelor`]; nothing here pads, absorbs or wipes.

use crate::backend::Available;
pub use crate::definition::paff::State;

/// Applies Paff to `state` with the fastest backend this CPU runs.
pub fn permute(state: &mut State) {
    Available::best().permute(state);
}

/// Applies Paff to `state` with the given backend.
pub fn permute_with(backend: Available, state: &mut State) {
    backend.permute(state);
}
