//! The bodies every hardware kernel shares, written once, generically over
//! the kernel's vector type.
//!
//! A kernel file (one per instruction-set level, e.g. `aesni.rs`) supplies
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
//! [`crate::paff::paff_rounds!`]; the 32-register levels and AArch64) or
//! [`Split`] (15 in registers and 5 in a scratch area, Paff the assembly
//! `build.rs` generates from the same wiring tables; the 16-register x86
//! levels). Either way every kernel runs the one wiring.
//!
//! Rates are types: every body is generic over the instance
//! [`Variant`], so the rate (12, 8 or 4 subblocks) and the squeeze length
//! are compile-time constants and the rate loops unroll; there is no
//! run-time rate dispatch at all.
//!
//! Constant-time: the bodies branch only on the (public) number of blocks
//! and lengths; message and state bytes are only ever loaded into vector
//! registers, combined with XOR and AES rounds, and stored.

use super::Lanes;
use core::mem::MaybeUninit;
use core::ops::{Index, IndexMut};

use crate::paff::{SUBBLOCKS, State, paff_rounds};
use crate::params::{MAX_RATE, Variant};
use crate::sponge;

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

/// The whole state in 20 registers, Paff from [`paff_rounds!`] (the
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
        let mut x = self.0;
        // SAFETY: forwarded to the caller (target features of `T` enabled).
        unsafe {
            paff_rounds!(x, T::rc, T::aesenc, T::xor);
        }
        self.0 = x;
    }
}

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
#[cfg_attr(
    not(any(target_arch = "x86", target_arch = "x86_64")),
    allow(unused_macros)
)]
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
#[cfg_attr(
    not(any(target_arch = "x86", target_arch = "x86_64")),
    allow(unused_imports)
)]
pub(crate) use state_split;

/// Subblocks `0..IN_REGS` of a [`Split`] state are in registers (every
/// rate and every squeezed subblock, for all three instances).
#[cfg_attr(not(pavelor_split), allow(dead_code))]
pub(crate) const IN_REGS: usize = 15;
/// Size of a [`Split`] state's spill area, in 16-byte slots: subblocks
/// `IN_REGS..20` in slots `0..5`, the rest scratch for the generated Paff.
#[cfg_attr(not(pavelor_split), allow(dead_code))]
pub(crate) const SPILL_SLOTS: usize = 16;

const _: () = assert!(SUBBLOCKS - IN_REGS <= SPILL_SLOTS);
// The message XOR and the squeeze only index subblocks below the rate,
// which must then be register subblocks of a `Split` state.
const _: () = assert!(MAX_RATE / 16 <= IN_REGS);

/// The scratch area of a [`Split`] state.
#[cfg_attr(not(pavelor_split), allow(dead_code))]
pub(crate) type SpillArea<T> = MaybeUninit<[T; SPILL_SLOTS]>;

/// Zeroes a scratch area with volatile 16-byte stores.
#[cfg_attr(not(pavelor_split), allow(dead_code))]
#[inline(always)]
pub(crate) fn wipe_spill<T>(area: &mut SpillArea<T>) {
    let p = area.as_mut_ptr().cast::<[u8; 16]>();
    for i in 0..size_of::<SpillArea<T>>() / 16 {
        // SAFETY: `p + i` is inside the area (a multiple of 16 bytes: the
        // vector types are), writable through `&mut`; a `[u8; 16]` store
        // needs alignment 1; writing to uninitialised memory is allowed.
        unsafe { p.add(i).write_volatile([0; 16]) };
    }
    core::sync::atomic::compiler_fence(core::sync::atomic::Ordering::SeqCst);
}

/// The round constants of `N` lanes (each constant repeated in every
/// lane), 32-byte aligned for the generated Paff's aligned memory operands
/// (`movdqa`, and legacy SSE `aesenc`/`pxor`, fault on unaligned ones).
#[cfg_attr(not(pavelor_split), allow(dead_code))]
#[repr(C, align(32))]
pub(crate) struct AlignedRc<const N: usize>(pub [[[u8; 16]; N]; crate::paff::ROUNDS]);

impl<const N: usize> AlignedRc<N> {
    const fn new() -> Self {
        let mut t = [[[0; 16]; N]; crate::paff::ROUNDS];
        let mut r = 0;
        while r < crate::paff::ROUNDS {
            t[r] = [crate::paff::RC[r]; N];
            r += 1;
        }
        AlignedRc(t)
    }
}

/// [`crate::paff::RC`], aligned, for one lane.
#[cfg_attr(not(pavelor_split), allow(dead_code))]
pub(crate) static RC_ALIGNED: AlignedRc<1> = AlignedRc::new();
/// [`crate::paff::RC`], aligned, repeated in two lanes.
#[cfg_attr(not(pavelor_split), allow(dead_code))]
pub(crate) static RC_ALIGNED_X2: AlignedRc<2> = AlignedRc::new();

/// A vector type whose level has a hand-allocated Paff for the [`Split`]
/// layout (generated by the crate's `build.rs`).
#[cfg_attr(not(pavelor_split), allow(dead_code))]
pub(crate) trait SplitPaff<const N: usize>: Vector<N> {
    /// Paff with subblocks `0..IN_REGS` in `r` and the others in slots
    /// `0..20 - IN_REGS` of `spill`; the other slots are scratch.
    ///
    /// # Safety
    /// See [`Vector`]; also slots `0..20 - IN_REGS` of `spill` must be
    /// initialised (the [`Split`] invariant), since the generated code
    /// loads them into registers.
    unsafe fn paff_split(r: &mut [Self; IN_REGS], spill: &mut SpillArea<Self>);
}

/// The state of a 16-register level: 15 subblocks in registers, 5 in the
/// kernel's scratch area, which the generated Paff also uses for its
/// other spills.
///
/// Invariant: slots `0..20 - IN_REGS` of `spill` are initialised (by
/// [`Regs::load`]; the generated Paff leaves its output there).
#[cfg_attr(not(pavelor_split), allow(dead_code))]
pub(crate) struct Split<'a, T> {
    r: [T; IN_REGS],
    spill: &'a mut SpillArea<T>,
}

#[cfg_attr(not(pavelor_split), allow(dead_code))]
impl<T> Split<'_, T> {
    /// Slot `i - IN_REGS` of the spill area, for `i >= IN_REGS` (read).
    #[inline(always)]
    fn home(&self, i: usize) -> *const T {
        assert!((IN_REGS..SUBBLOCKS).contains(&i));
        self.spill.as_ptr().cast::<T>().wrapping_add(i - IN_REGS)
    }

    /// Slot `i - IN_REGS` of the spill area, for `i >= IN_REGS` (write).
    #[inline(always)]
    fn home_mut(&mut self, i: usize) -> *mut T {
        assert!((IN_REGS..SUBBLOCKS).contains(&i));
        self.spill
            .as_mut_ptr()
            .cast::<T>()
            .wrapping_add(i - IN_REGS)
    }
}

impl<T> Index<usize> for Split<'_, T> {
    type Output = T;
    #[inline(always)]
    fn index(&self, i: usize) -> &T {
        if i < IN_REGS {
            &self.r[i]
        } else {
            // SAFETY: `home` checked `i` (a subblock slot, in bounds), and
            // the subblock slots are initialised (type invariant).
            unsafe { &*self.home(i) }
        }
    }
}

impl<T> IndexMut<usize> for Split<'_, T> {
    #[inline(always)]
    fn index_mut(&mut self, i: usize) -> &mut T {
        if i < IN_REGS {
            &mut self.r[i]
        } else {
            let p = self.home_mut(i);
            // SAFETY: as in `index`; the pointer comes from `as_mut_ptr`
            // under `&mut self`, which borrows the area uniquely.
            unsafe { &mut *p }
        }
    }
}

impl<'a, const N: usize, T> Regs<'a, N, T> for Split<'a, T>
where
    T: SplitPaff<N, Scratch = SpillArea<T>> + 'a,
{
    #[inline(always)]
    unsafe fn load(st: &Lanes<N>, scratch: &'a mut SpillArea<T>) -> Self {
        // SAFETY: forwarded to the caller.
        unsafe {
            let first = T::load(&st[0]);
            let mut r = [first; IN_REGS];
            for j in 1..IN_REGS {
                r[j] = T::load(&st[j]);
            }
            let slots = scratch.as_mut_ptr().cast::<T>();
            for (k, row) in st[IN_REGS..].iter().enumerate() {
                // In bounds: `SUBBLOCKS - IN_REGS <= SPILL_SLOTS`.
                slots.add(k).write(T::load(row));
            }
            Split { r, spill: scratch }
        }
    }

    #[inline(always)]
    unsafe fn paff(&mut self) {
        // SAFETY: target features forwarded to the caller; the subblock
        // slots are initialised (type invariant: `load` wrote them, and
        // the generated Paff leaves its output there).
        unsafe { T::paff_split(&mut self.r, self.spill) }
    }
}

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

/// The whole hash of one message, the state held by the kernel from start to
/// end (in registers, plus the scratch area of a [`Split`] state): loads the
/// IV, absorbs the whole blocks of `data` straight from the caller's
/// memory, pads the rest (`data`'s last `len % RATE` bytes, then the top
/// `tail_bits` bits of `tail`) with the sponge's padding, squeezes into
/// `out` (`V::DIGEST` bytes). The only memory written besides `out` is the
/// padding buffer and the kernel's scratch area, both wiped with vector
/// stores before returning.
///
/// # Safety
/// See [`Vector`].
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
    let nb = sponge::pad::<V>(&data[whole * V::RATE..], tail, tail_bits, &mut buf);
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
        // Squeeze with compile-time trip counts, so every subblock index
        // is a constant and the state never leaves the kernel's registers.
        let words = out.as_chunks_mut::<16>().0;
        for k in 0..sponge::squeeze_blocks::<V>() {
            if k > 0 {
                paff::<1, T>(&mut s);
            }
            let n = (V::DIGEST - k * V::RATE).min(V::RATE) / 16;
            for i in 0..n {
                s[i].store(core::array::from_mut(&mut words[k * (V::RATE / 16) + i]));
            }
        }
        // Wiped last, when the state registers are dead (wiping earlier
        // makes the compiler park the state on the stack around the loop).
        super::wipe(&mut buf[..nb * V::RATE]);
        // The state borrows the scratch area: end it, then wipe the area.
        drop(s);
        T::wipe_scratch(&mut scratch);
    }
}

/// `$body` for `$i` = 0, 1, .. up to the rate in subblocks `$rs` (at most
/// 12, Pavelor-512), unrolled: every `$i` is a literal.
macro_rules! unroll_rate {
    ($i:ident, $rs:expr, $body:block) => {
        unroll_rate!(@ $i, $rs, $body; 0 1 2 3 4 5 6 7 8 9 10 11)
    };
    (@ $i:ident, $rs:expr, $body:block; $($n:literal)*) => {
        $(
            if $n < $rs {
                let $i: usize = $n;
                $body
            }
        )*
    };
}

/// A one-lane vector type with AVX-512-style masked byte operations, for
/// the one-shot body without a padding buffer ([`hash_masked`]).
#[cfg_attr(
    not(any(target_arch = "x86", target_arch = "x86_64")),
    allow(dead_code)
)]
pub(crate) trait Masked: Vector<1> {
    /// Loads the `len` (0..=16) bytes at `p` into bytes `0..len`, zero
    /// elsewhere. Only those bytes are read (masked-off bytes are neither
    /// read nor can they fault), so `p` may point past the message when
    /// `len == 0`.
    ///
    /// # Safety
    /// See [`Vector`]; `p .. p + len` must be readable.
    unsafe fn load_partial(p: *const u8, len: usize) -> Self;
    /// `value` in byte `pos` (0..16), zero elsewhere.
    ///
    /// # Safety
    /// See [`Vector`].
    unsafe fn byte_at(pos: usize, value: u8) -> Self;
}

/// [`hash`] without the padding buffer: the last partial block is loaded
/// straight from the message with masked loads and the padding bits are
/// XORed in as vectors: no copy, no padding buffer to wipe, no
/// store-forwarding stall (used by `avx512-vaes`, whose state is all in
/// registers, so nothing but the digest is stored).
///
/// # Safety
/// See [`Vector`].
#[inline(always)]
#[cfg_attr(
    not(any(target_arch = "x86", target_arch = "x86_64")),
    allow(dead_code)
)]
pub(crate) unsafe fn hash_masked<T: Masked, V: Variant>(
    data: &[u8],
    tail: u8,
    tail_bits: u8,
    out: &mut [u8],
) {
    debug_assert_eq!(out.len(), V::DIGEST);
    let iv = as_lanes_ref(&V::IV);
    let whole = data.len() / V::RATE;
    let n = data.len() % V::RATE;
    let used = u32::from(tail_bits % 8);
    // The partial byte (top `used` bits of `tail`) and the first `1`; the
    // padding of `sponge::pad`, built in registers.
    let first = (tail & !(0xFFu8.wrapping_shr(used))) | 0x80u8.wrapping_shr(used);
    let two = n == V::RATE - 1 && used == 7;
    // SAFETY: target features forwarded from the caller; `data` holds
    // `whole * RATE + n` bytes, and the masked loads read only bytes below
    // that (`len` is clamped to what is left of the message).
    unsafe {
        let mut scratch = T::scratch();
        let mut s = load_lanes::<1, T>(iv, &mut scratch);
        absorb_regs::<1, T, V>(&mut s, [data.as_ptr()], whole);
        let rest = data.as_ptr().wrapping_add(whole * V::RATE);
        // Unrolled by hand (LLVM would keep a 12-iteration loop of masked
        // loads rolled, indexing the state array in memory).
        unroll_rate!(i, V::RATE / 16, {
            let lo = 16 * i;
            let len = n.saturating_sub(lo).min(16);
            let mut m = T::load_partial(rest.wrapping_add(lo), len);
            if (lo..lo + 16).contains(&n) {
                m = m.xor(T::byte_at(n - lo, first));
            }
            if i == V::RATE / 16 - 1 && !two {
                m = m.xor(T::byte_at(15, 0x01));
            }
            s[i] = s[i].xor(m);
        });
        paff::<1, T>(&mut s);
        if two {
            let last = V::RATE / 16 - 1;
            s[last] = s[last].xor(T::byte_at(15, 0x01));
            paff::<1, T>(&mut s);
        }
        let words = out.as_chunks_mut::<16>().0;
        for k in 0..sponge::squeeze_blocks::<V>() {
            if k > 0 {
                paff::<1, T>(&mut s);
            }
            let cnt = (V::DIGEST - k * V::RATE).min(V::RATE) / 16;
            for i in 0..cnt {
                s[i].store(core::array::from_mut(&mut words[k * (V::RATE / 16) + i]));
            }
        }
        // The state borrows the scratch area: end it, then wipe the area.
        drop(s);
        T::wipe_scratch(&mut scratch);
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
        pub(crate) fn permute(_token: $token, state: &mut $crate::paff::State) {
            // SAFETY: the token proves the target features.
            unsafe { permute_impl(state) }
        }

        /// Absorbs the whole `V::RATE`-byte blocks of `blocks`.
        #[inline]
        pub(crate) fn absorb<V: $crate::params::Variant>(
            _token: $token,
            state: &mut $crate::paff::State,
            blocks: &[u8],
        ) {
            // SAFETY: the token proves the target features.
            unsafe { absorb_impl::<V>(state, blocks) }
        }

        /// The whole hash of one message (see `kernel::hash`).
        #[inline]
        pub(crate) fn hash<V: $crate::params::Variant>(
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
        unsafe fn permute_impl(state: &mut $crate::paff::State) {
            // SAFETY: the target features are enabled here.
            unsafe { $crate::backend::kernel::permute::<$vec>(state) }
        }

        /// # Safety
        /// The CPU must support the kernel's target features.
        #[target_feature(enable = $features)]
        unsafe fn absorb_impl<V: $crate::params::Variant>(
            state: &mut $crate::paff::State,
            blocks: &[u8],
        ) {
            // SAFETY: the target features are enabled here.
            unsafe { $crate::backend::kernel::absorb::<$vec, V>(state, blocks) }
        }

        /// # Safety
        /// The CPU must support the kernel's target features.
        #[target_feature(enable = $features)]
        unsafe fn hash_impl<V: $crate::params::Variant>(
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

/// A one-lane interleaved state as one state (the same bytes).
#[inline(always)]
pub(crate) fn lanes_as_state(st: &mut Lanes<1>) -> &mut State {
    // SAFETY: as in `as_lanes`, the two types have the same layout.
    unsafe { &mut *core::ptr::from_mut(st).cast::<State>() }
}
