//! The layout of several states at once: [`Lanes`], the interleaved form
//! the batch kernels work on, and the conversions between one state and
//! one lane. The lowest module of `backend/`: it uses nothing else there.

use crate::definition::paff::{SUBBLOCKS, State};

/// `N` interleaved states: `lanes[j][l]` is subblock `j` of state `l`, so
/// subblock `j` of all lanes is `16 * N` contiguous bytes (one vector).
pub(crate) type Lanes<const N: usize> = [[[u8; 16]; N]; SUBBLOCKS];

/// One state as a one-lane interleaved state (the same bytes).
#[inline(always)]
pub(crate) fn as_lanes(state: &mut State) -> &mut Lanes<1> {
    // SAFETY: `[[u8; 16]; 1]` has the layout of `[u8; 16]`, so `State` and
    // `Lanes<1>` have the same size, alignment (1) and layout; the borrow
    // is carried over unchanged.
    unsafe { &mut *core::ptr::from_mut(state).cast::<Lanes<1>>() }
}

/// Shared-reference version of [`as_lanes`].
#[inline(always)]
pub(crate) fn as_lanes_ref(state: &State) -> &Lanes<1> {
    // SAFETY: as in `as_lanes`.
    unsafe { &*core::ptr::from_ref(state).cast::<Lanes<1>>() }
}

/// A one-lane interleaved state as one state (the same bytes).
#[inline(always)]
pub(crate) fn lanes_as_state(st: &mut Lanes<1>) -> &mut State {
    // SAFETY: as in `as_lanes`, the two types have the same layout.
    unsafe { &mut *core::ptr::from_mut(st).cast::<State>() }
}

/// Writes `state` into lane `l` of `st`.
pub(crate) fn set_lane<const N: usize>(st: &mut Lanes<N>, l: usize, state: &State) {
    for (sub, src) in st.iter_mut().zip(state) {
        sub[l] = *src;
    }
}

/// Reads lane `l` of `st`.
pub(crate) fn get_lane<const N: usize>(st: &Lanes<N>, l: usize) -> State {
    core::array::from_fn(|j| st[j][l])
}

/// Copies the first `dst.len()` bytes of lane `l`'s state into `dst`.
pub(crate) fn read_lane<const N: usize>(st: &Lanes<N>, l: usize, dst: &mut [u8]) {
    for (chunk, sub) in dst.chunks_mut(16).zip(st) {
        chunk.copy_from_slice(&sub[l][..chunk.len()]);
    }
}
