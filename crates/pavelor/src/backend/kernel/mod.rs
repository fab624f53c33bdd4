//! The bodies every hardware kernel shares, written once, generically over
//! the kernel's vector type.
//!
//! A kernel file (one per instruction-set level, e.g. `x86/sse_aesni.rs`) supplies
//! only a vector type implementing [`Vector`] — its loads, stores, XOR and
//! AES round, each an `unsafe fn` needing that level's target features —
//! and instantiates the bodies below inside its own `#[target_feature]`
//! functions (with [`single_kernel!`] for single-message kernels). Because
//! every body and every `Vector` method is `#[inline(always)]`, each kernel
//! function compiles to one straight-line loop at its own instruction-set
//! level, with the state in registers.
//!
//! The vector type also says how the state is held ([`Vector::Regs`]):
//! [`InRegs`] (all 20 subblocks in registers, Paff from
//! [`Vector::paff_in_regs`]: [`paff_rounds!`](crate::definition::paff::paff_rounds), on AArch64
//! [`paff_rounds_copy_free!`](crate::definition::paff::paff_rounds_copy_free); the 32-register levels and AArch64) or
//! [`Split`] (15 in registers and 5 in a scratch area, Paff the assembly
//! `cargo xtask codegen` generates from the same wiring tables
//! (`x86/generated/`); the 16-register x86 levels). Either way every kernel runs the one wiring.
//!
//! Rates are types: every body is generic over the instance
//! [`Variant`], so the rate (in subblocks) and the squeeze length
//! are compile-time constants and the rate loops unroll; there is no
//! run-time rate dispatch at all.
//!
//! Constant-time: the bodies branch only on the (public) number of blocks
//! and lengths; message and state bytes are only ever loaded into vector
//! registers, combined with XOR and AES rounds, and stored.

use core::ops::{Index, IndexMut};

#[cfg(target_arch = "aarch64")]
use super::layout::as_lanes_ref;
use super::layout::{Lanes, as_lanes};
#[cfg(target_arch = "aarch64")]
use crate::definition::instances::MAX_RATE;
use crate::definition::instances::Variant;
use crate::definition::pad;
use crate::definition::paff::{SUBBLOCKS, State, paff_rounds};
#[cfg(target_arch = "aarch64")]
use crate::wipe::wipe;

#[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
mod masked;
#[cfg(pavelor_split)]
mod split;

#[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
pub(crate) use masked::{Masked, hash_masked, span_leaves_page};
#[cfg(pavelor_split)]
pub(crate) use split::{
    IN_REGS, RC_ALIGNED, RC_ALIGNED_X2, SPILL_SLOTS, SpillArea, Split, SplitPaff, wipe_spill,
};

/// A vector holding one 128-bit AES block for each of `N` lanes.
///
/// # Safety (all methods)
///
/// The methods use intrinsics of the implementing kernel's instruction-set
/// level: they may only be called from code compiled with those target
/// features, i.e. from inside that kernel's `#[target_feature]` functions,
/// which are entered only with a token proving the features.
pub(crate) trait Vector<const N: usize>: Copy {
    /// Loads one interleaved state row: `row[l]` into lane `l`.
    unsafe fn load(row: &[[u8; 16]; N]) -> Self;
    /// Stores lane `l` into `row[l]`.
    unsafe fn store(self, row: &mut [[u8; 16]; N]);
    /// Loads the 16 bytes at `p[l] + off` into lane `l`.
    ///
    /// The caller guarantees that `p[l] + off .. p[l] + off + 16` is
    /// readable for every lane.
    unsafe fn load_msg(p: &[*const u8; N], off: usize) -> Self;
    /// `AESENC` in every lane: `A(self) XOR key`.
    unsafe fn aesenc(self, key: Self) -> Self;
    /// Bitwise XOR.
    unsafe fn xor(self, other: Self) -> Self;
    /// `RC[round]` in every lane.
    unsafe fn rc(round: usize) -> Self;

    /// Paff on the 20 registers of an [`InRegs`] state: by default
    /// [`paff_rounds!`] (each round's outputs in output order). A level
    /// whose AES instruction overwrites its input (AArch64) runs
    /// [`paff_rounds_copy_free!`](crate::definition::paff::paff_rounds_copy_free)
    /// instead.
    #[inline(always)]
    unsafe fn paff_in_regs(x: &mut [Self; SUBBLOCKS]) {
        let mut s = *x;
        // SAFETY: forwarded to the caller (target features of `Self` enabled).
        unsafe {
            paff_rounds!(s, Self::rc, Self::aesenc, Self::xor);
        }
        *x = s;
    }

    /// How this level holds the 20 subblocks while it works: all in
    /// registers ([`InRegs`]), or, on the 16-register x86-64 levels, 15 in
    /// registers and 5 in a spill area ([`Split`]).
    type Regs<'a>: Regs<'a, N, Self>
    where
        Self: 'a;

    /// The memory a [`Self::Regs`] may keep part of the state and its
    /// spills in (`()` for [`InRegs`]). A separate local from the state
    /// itself, so that handing its address to assembly leaves the register
    /// part of the state to the compiler's register allocation.
    type Scratch;

    /// A new scratch area (its contents are undefined until written).
    fn scratch() -> Self::Scratch;

    /// Overwrites a scratch area with zeros (it held state and spilled
    /// intermediate values), with volatile stores.
    fn wipe_scratch(scratch: &mut Self::Scratch);
}

/// The 20 subblocks of `N` states as a kernel holds them while it works,
/// indexed by subblock number. The kernel bodies only use constant
/// indices (their loops are unrolled), so an implementation may keep
/// different subblocks in different places.
pub(crate) trait Regs<'a, const N: usize, T: Vector<N> + 'a>:
    Index<usize, Output = T> + IndexMut<usize>
{
    /// Loads `N` interleaved states, using `scratch` for the part kept in
    /// memory.
    ///
    /// # Safety
    /// See [`Vector`].
    unsafe fn load(st: &Lanes<N>, scratch: &'a mut T::Scratch) -> Self;

    /// Applies Paff.
    ///
    /// # Safety
    /// See [`Vector`].
    unsafe fn paff(&mut self);
}

/// The whole state in 20 registers, Paff from [`Vector::paff_in_regs`] (the
/// compiler allocates the registers: no spills with 32 vector registers).
#[derive(Clone, Copy)]
pub(crate) struct InRegs<T>([T; SUBBLOCKS]);

impl<T> Index<usize> for InRegs<T> {
    type Output = T;
    #[inline(always)]
    fn index(&self, i: usize) -> &T {
        &self.0[i]
    }
}

impl<T> IndexMut<usize> for InRegs<T> {
    #[inline(always)]
    fn index_mut(&mut self, i: usize) -> &mut T {
        &mut self.0[i]
    }
}

impl<'a, const N: usize, T> Regs<'a, N, T> for InRegs<T>
where
    T: Vector<N, Scratch = ()> + 'a,
{
    #[inline(always)]
    unsafe fn load(st: &Lanes<N>, _scratch: &'a mut ()) -> Self {
        // SAFETY: forwarded to the caller. A plain unrolled loop, not
        // `array::from_fn`: a closure would not share the target features.
        unsafe {
            let mut s = [T::load(&st[0]); SUBBLOCKS];
            for j in 1..SUBBLOCKS {
                s[j] = T::load(&st[j]);
            }
            InRegs(s)
        }
    }

    #[inline(always)]
    unsafe fn paff(&mut self) {
        // SAFETY: forwarded to the caller (target features of `T` enabled).
        unsafe { T::paff_in_regs(&mut self.0) }
    }
}

/// Declares a level's proof of its CPU features: `Token`, which only
/// `Token::detect` makes, from a `cpufeatures` check of the listed features (cached:
/// an atomic load after the first call).
macro_rules! feature_token {
    ($(#[$doc:meta])* [$($feature:tt),+ $(,)?]) => {
        cpufeatures::new!(detected, $($feature),+);

        $(#[$doc])*
        #[derive(Clone, Copy, Debug)]
        pub(crate) struct Token(());

        impl Token {
            /// Returns a token if this CPU supports the level.
            #[inline]
            pub(crate) fn detect() -> Option<Self> {
                detected::get().then_some(Token(()))
            }
        }
    };
}
pub(crate) use feature_token;

/// The [`Vector`] items of a level that holds the state in [`InRegs`]
/// (written inside its `impl Vector<N>` block).
macro_rules! state_in_regs {
    () => {
        type Regs<'a> = $crate::backend::kernel::InRegs<Self>;
        type Scratch = ();

        #[inline(always)]
        fn scratch() {}

        #[inline(always)]
        fn wipe_scratch(_: &mut ()) {}
    };
}
pub(crate) use state_in_regs;

/// The [`Vector`] items of a 16-register level: a [`Split`] state with the
/// generated Paff where the target runs it (`cfg(pavelor_split)`: x86-64
/// with 64-bit pointers, see `build.rs`), [`InRegs`] elsewhere (32-bit
/// x86: 8 vector registers, the compiler allocates).
#[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
macro_rules! state_split {
    () => {
        #[cfg(pavelor_split)]
        type Regs<'a> = $crate::backend::kernel::Split<'a, Self>;
        #[cfg(pavelor_split)]
        type Scratch = $crate::backend::kernel::SpillArea<Self>;
        #[cfg(not(pavelor_split))]
        type Regs<'a> = $crate::backend::kernel::InRegs<Self>;
        #[cfg(not(pavelor_split))]
        type Scratch = ();

        #[cfg(pavelor_split)]
        #[inline(always)]
        fn scratch() -> Self::Scratch {
            $crate::backend::kernel::SpillArea::uninit()
        }
        #[cfg(not(pavelor_split))]
        #[inline(always)]
        fn scratch() {}

        #[cfg(pavelor_split)]
        #[inline(always)]
        fn wipe_scratch(scratch: &mut Self::Scratch) {
            $crate::backend::kernel::wipe_spill(scratch);
        }
        #[cfg(not(pavelor_split))]
        #[inline(always)]
        fn wipe_scratch(_: &mut ()) {}
    };
}
#[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
pub(crate) use state_split;

/// Paff on a kernel's state.
///
/// # Safety
/// See [`Vector`]: only inside the kernel's target-feature functions.
#[inline(always)]
pub(crate) unsafe fn paff<const N: usize, T: Vector<N>>(s: &mut T::Regs<'_>) {
    // SAFETY: forwarded to the caller (target features of `T` enabled).
    unsafe { s.paff() }
}

/// Loads `N` interleaved states into a kernel's state.
///
/// # Safety
/// See [`Vector`].
#[inline(always)]
pub(crate) unsafe fn load_lanes<'a, const N: usize, T: Vector<N>>(
    st: &Lanes<N>,
    scratch: &'a mut T::Scratch,
) -> T::Regs<'a> {
    // SAFETY: forwarded to the caller.
    unsafe { T::Regs::load(st, scratch) }
}

/// Stores a kernel's state back into `N` interleaved states.
///
/// # Safety
/// See [`Vector`].
#[inline(always)]
pub(crate) unsafe fn store_lanes<const N: usize, T: Vector<N>>(s: &T::Regs<'_>, st: &mut Lanes<N>) {
    for (j, row) in st.iter_mut().enumerate() {
        // SAFETY: forwarded to the caller.
        unsafe { s[j].store(row) };
    }
}

/// For `nblocks` blocks: XOR block `b` at `p[l] + b * RATE` into lane `l`'s
/// rate, then Paff. The state stays where the kernel keeps it (registers,
/// and for a [`Split`] state its scratch area) throughout.
///
/// # Safety
/// See [`Vector`]; also `p[l] .. p[l] + nblocks * V::RATE` must be readable
/// for every lane.
#[inline(always)]
pub(crate) unsafe fn absorb_regs<const N: usize, T: Vector<N>, V: Variant>(
    s: &mut T::Regs<'_>,
    p: [*const u8; N],
    nblocks: usize,
) {
    for b in 0..nblocks {
        let base = b * V::RATE;
        for i in 0..V::RATE / 16 {
            // SAFETY: `base + 16 * i + 16 <= nblocks * RATE` (caller's
            // guarantee for every lane); target features as the caller's.
            s[i] = unsafe { s[i].xor(T::load_msg(&p, base + 16 * i)) };
        }
        // SAFETY: forwarded to the caller.
        unsafe { paff::<N, T>(s) };
    }
}

/// `N` states in memory: absorbs `min_l blocks[l].len() / RATE` blocks into
/// each lane.
///
/// # Safety
/// See [`Vector`].
#[inline(always)]
pub(crate) unsafe fn absorb_lanes<const N: usize, T: Vector<N>, V: Variant>(
    st: &mut Lanes<N>,
    blocks: [&[u8]; N],
) {
    let n = blocks.iter().map(|b| b.len() / V::RATE).min().unwrap_or(0);
    // SAFETY: target features forwarded; every `blocks[l]` holds at least
    // `n * RATE` bytes.
    unsafe {
        let mut scratch = T::scratch();
        let mut s = load_lanes::<N, T>(st, &mut scratch);
        absorb_regs::<N, T, V>(&mut s, blocks.map(|b| b.as_ptr()), n);
        store_lanes::<N, T>(&s, st);
        // The state borrows the scratch area: end it, then wipe the area.
        drop(s);
        T::wipe_scratch(&mut scratch);
    }
}

/// Paff on one state in memory.
///
/// # Safety
/// See [`Vector`].
#[inline(always)]
pub(crate) unsafe fn permute<T: Vector<1>>(state: &mut State) {
    let st = as_lanes(state);
    // SAFETY: forwarded to the caller.
    unsafe {
        let mut scratch = T::scratch();
        let mut s = load_lanes::<1, T>(st, &mut scratch);
        paff::<1, T>(&mut s);
        store_lanes::<1, T>(&s, st);
        // The state borrows the scratch area: end it, then wipe the area.
        drop(s);
        T::wipe_scratch(&mut scratch);
    }
}

/// Absorbs the whole blocks of `blocks` into one state in memory.
///
/// # Safety
/// See [`Vector`].
#[inline(always)]
pub(crate) unsafe fn absorb<T: Vector<1>, V: Variant>(state: &mut State, blocks: &[u8]) {
    // SAFETY: forwarded to the caller.
    unsafe { absorb_lanes::<1, T, V>(as_lanes(state), [blocks]) }
}

/// Squeezes the digest (`V::DIGEST` bytes) from a kernel's state into
/// `out`, with compile-time trip counts, so every subblock index is a
/// constant and the state never leaves the kernel's registers (one Paff
/// between two rate blocks, when the digest is longer than the rate).
///
/// # Safety
/// See [`Vector`].
#[inline(always)]
pub(crate) unsafe fn squeeze<T: Vector<1>, V: Variant>(s: &mut T::Regs<'_>, out: &mut [u8]) {
    let words = out.as_chunks_mut::<16>().0;
    for k in 0..pad::squeeze_blocks::<V>() {
        if k > 0 {
            // SAFETY: forwarded to the caller.
            unsafe { paff::<1, T>(s) };
        }
        let n = (V::DIGEST - k * V::RATE).min(V::RATE) / 16;
        for i in 0..n {
            // SAFETY: forwarded to the caller; `out` holds `V::DIGEST`
            // bytes, so the word index is in bounds.
            unsafe { s[i].store(core::array::from_mut(&mut words[k * (V::RATE / 16) + i])) };
        }
    }
}

/// The whole hash of one message, the state held by the kernel from start to
/// end (in registers, plus the scratch area of a [`Split`] state): loads the
/// IV, absorbs the whole blocks of `data` straight from the caller's
/// memory, pads the rest (`data`'s last `len % RATE` bytes, then the top
/// `tail_bits` bits of `tail`) with the sponge's padding, squeezes into
/// `out` (`V::DIGEST` bytes). The only memory written besides `out` is the
/// padding buffer and the kernel's scratch area, both wiped with vector
/// stores before returning. The AArch64 level's one-shot body; the x86
/// levels use [`hash_masked`], which needs no padding buffer.
///
/// # Safety
/// See [`Vector`].
#[cfg(target_arch = "aarch64")]
#[inline(always)]
pub(crate) unsafe fn hash<T: Vector<1>, V: Variant>(
    data: &[u8],
    tail: u8,
    tail_bits: u8,
    out: &mut [u8],
) {
    debug_assert_eq!(out.len(), V::DIGEST);
    let iv = as_lanes_ref(&V::IV);
    let whole = data.len() / V::RATE;
    let mut buf = [0u8; 2 * MAX_RATE];
    let nb = pad::pad::<V>(&data[whole * V::RATE..], tail, tail_bits, &mut buf);
    // SAFETY: target features forwarded from the caller; `data` holds
    // `whole * RATE` bytes and `buf` holds `nb * RATE <= 2 * MAX_RATE`.
    unsafe {
        let mut scratch = T::scratch();
        let mut s = load_lanes::<1, T>(iv, &mut scratch);
        // One loop over the message blocks then the padded blocks (one
        // inlined Paff instead of two: less code to fetch per call).
        for b in 0..whole + nb {
            let p = if b < whole {
                data.as_ptr().add(b * V::RATE)
            } else {
                buf.as_ptr().add((b - whole) * V::RATE)
            };
            absorb_regs::<1, T, V>(&mut s, [p], 1);
        }
        squeeze::<T, V>(&mut s, out);
        // Wiped last, when the state registers are dead (wiping earlier
        // makes the compiler park the state on the stack around the loop).
        wipe(&mut buf[..nb * V::RATE]);
        // The state borrows the scratch area: end it, then wipe the area.
        drop(s);
        T::wipe_scratch(&mut scratch);
    }
}

/// Stamps out the entry points of a batch kernel of `$lanes` lanes from its
/// token type, target-feature string and [`Vector<$lanes>`] type: the safe
/// `$absorb::<V>` and the `#[target_feature]` `$absorb_impl` it calls (the
/// function the constant-time static check disassembles).
#[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
macro_rules! lane_kernel {
    ($token:ty, $features:literal, $lanes:literal, $vec:ty, $absorb:ident, $absorb_impl:ident) => {
        /// Absorbs `min_l blocks[l].len() / V::RATE` blocks into each of the
        /// interleaved states.
        #[inline]
        pub(crate) fn $absorb<V: $crate::definition::instances::Variant>(
            _token: $token,
            st: &mut $crate::backend::layout::Lanes<$lanes>,
            blocks: [&[u8]; $lanes],
        ) {
            // SAFETY: the token proves the target features.
            unsafe { $absorb_impl::<V>(st, blocks) }
        }

        /// # Safety
        /// The CPU must support the kernel's target features.
        #[target_feature(enable = $features)]
        unsafe fn $absorb_impl<V: $crate::definition::instances::Variant>(
            st: &mut $crate::backend::layout::Lanes<$lanes>,
            blocks: [&[u8]; $lanes],
        ) {
            // SAFETY: the target features are enabled here.
            unsafe { $crate::backend::kernel::absorb_lanes::<$lanes, $vec, V>(st, blocks) }
        }
    };
}
#[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
pub(crate) use lane_kernel;

/// Stamps out the safe entry points of a single-message kernel from its
/// token type, target-feature string and [`Vector<1>`] type:
/// `permute`, `absorb::<V>` and `hash::<V>` (see the bodies above), plus
/// the `#[target_feature]` implementations they call
/// (`permute_impl`, `absorb_impl`, `hash_impl`: the functions the
/// constant-time static check disassembles).
macro_rules! single_kernel {
    ($token:ty, $features:literal, $vec:ty) => {
        $crate::backend::kernel::single_kernel!($token, $features, $vec, hash);
    };
    ($token:ty, $features:literal, $vec:ty, $hash:ident) => {
        /// Applies Paff to `state`.
        #[inline]
        pub(crate) fn permute(_token: $token, state: &mut $crate::definition::paff::State) {
            // SAFETY: the token proves the target features.
            unsafe { permute_impl(state) }
        }

        /// Absorbs the whole `V::RATE`-byte blocks of `blocks`.
        #[inline]
        pub(crate) fn absorb<V: $crate::definition::instances::Variant>(
            _token: $token,
            state: &mut $crate::definition::paff::State,
            blocks: &[u8],
        ) {
            // SAFETY: the token proves the target features.
            unsafe { absorb_impl::<V>(state, blocks) }
        }

        /// The whole hash of one message (see `kernel::hash`).
        #[inline]
        pub(crate) fn hash<V: $crate::definition::instances::Variant>(
            _token: $token,
            data: &[u8],
            tail: u8,
            tail_bits: u8,
            out: &mut [u8],
        ) {
            // SAFETY: the token proves the target features.
            unsafe { hash_impl::<V>(data, tail, tail_bits, out) }
        }

        /// # Safety
        /// The CPU must support the kernel's target features.
        #[target_feature(enable = $features)]
        unsafe fn permute_impl(state: &mut $crate::definition::paff::State) {
            // SAFETY: the target features are enabled here.
            unsafe { $crate::backend::kernel::permute::<$vec>(state) }
        }

        /// # Safety
        /// The CPU must support the kernel's target features.
        #[target_feature(enable = $features)]
        unsafe fn absorb_impl<V: $crate::definition::instances::Variant>(
            state: &mut $crate::definition::paff::State,
            blocks: &[u8],
        ) {
            // SAFETY: the target features are enabled here.
            unsafe { $crate::backend::kernel::absorb::<$vec, V>(state, blocks) }
        }

        /// # Safety
        /// The CPU must support the kernel's target features.
        #[target_feature(enable = $features)]
        unsafe fn hash_impl<V: $crate::definition::instances::Variant>(
            data: &[u8],
            tail: u8,
            tail_bits: u8,
            out: &mut [u8],
        ) {
            // SAFETY: the target features are enabled here.
            unsafe { $crate::backend::kernel::$hash::<$vec, V>(data, tail, tail_bits, out) }
        }
    };
}
pub(crate) use single_kernel;
