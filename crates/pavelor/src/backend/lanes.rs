//! Several states at once: the interleaved layout [`Lanes`] the batch
//! kernels work on, and [`LaneKernel`], the absorb step of a kernel of a
//! given width (4, 2 or 1 lanes), as the batch API drives it.

use super::Available;
#[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
use super::x86;
use crate::definition::instances::Variant;
use crate::definition::paff::{SUBBLOCKS, State};

/// `N` interleaved states: `lanes[j][l]` is subblock `j` of state `l`, so
/// subblock `j` of all lanes is `16 * N` contiguous bytes (one vector).
pub(crate) type Lanes<const N: usize> = [[[u8; 16]; N]; SUBBLOCKS];

/// A kernel that absorbs into `N` interleaved states at once.
pub(crate) trait LaneKernel<const N: usize>: Copy {
    /// For `n = min_l blocks[l].len() / V::RATE` blocks: XOR block `b` of
    /// `blocks[l]` into the rate of lane `l`, then apply Paff to every lane.
    fn absorb_lanes<V: Variant>(self, st: &mut Lanes<N>, blocks: [&[u8]; N]);
}

/// One lane at a time: the single-message kernel of the backend.
impl LaneKernel<1> for Available {
    #[inline]
    fn absorb_lanes<V: Variant>(self, st: &mut Lanes<1>, blocks: [&[u8]; 1]) {
        let whole = blocks[0].len() / V::RATE * V::RATE;
        self.absorb::<V>(lanes_as_state(st), &blocks[0][..whole]);
    }
}

/// The 4-lane kernel of a level (uninhabited where there is none).
#[derive(Clone, Copy, Debug)]
pub(crate) enum X4 {
    /// `zmm`, AVX-512 level.
    #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
    Avx512(x86::avx512_vaes::Token),
}

impl LaneKernel<4> for X4 {
    #[inline]
    #[cfg_attr(
        not(any(target_arch = "x86", target_arch = "x86_64")),
        allow(unused_variables)
    )]
    fn absorb_lanes<V: Variant>(self, st: &mut Lanes<4>, blocks: [&[u8]; 4]) {
        match self {
            #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
            X4::Avx512(t) => x86::avx512_vaes_x4::absorb_x4::<V>(t, st, blocks),
        }
    }
}

/// A 2-lane kernel of a level (uninhabited where there is none).
#[derive(Clone, Copy, Debug)]
pub(crate) enum X2 {
    /// VEX `ymm`, AVX2 + VAES level.
    #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
    Avx2(x86::avx2_vaes_x2::Token),
    /// EVEX `ymm`, AVX-512 level.
    #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
    Avx512(x86::avx512_vaes::Token),
}

impl LaneKernel<2> for X2 {
    #[inline]
    #[cfg_attr(
        not(any(target_arch = "x86", target_arch = "x86_64")),
        allow(unused_variables)
    )]
    fn absorb_lanes<V: Variant>(self, st: &mut Lanes<2>, blocks: [&[u8]; 2]) {
        match self {
            #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
            X2::Avx2(t) => x86::avx2_vaes_x2::absorb_x2::<V>(t, st, blocks),
            #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
            X2::Avx512(t) => x86::avx512_vaes_x2::absorb_x2::<V>(t, st, blocks),
        }
    }
}

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
