//! The one-shot body without a padding buffer ([`hash_masked`]), for
//! levels with AVX-512-style masked byte loads (`avx512-vaes`).

use super::{Vector, absorb_regs, load_lanes, paff, squeeze};
use crate::backend::layout::as_lanes_ref;
use crate::definition::instances::Variant;
use crate::definition::pad;

// `unroll_rate!` spells out twelve subblock indices: every rate must fit.
const _: () = assert!(crate::definition::instances::MAX_RATE / 16 <= 12);

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

/// [`hash`](super::hash) without the padding buffer: the last partial block is loaded
/// straight from the message with masked loads and the padding bits are
/// XORed in as vectors: no copy, no padding buffer to wipe, no
/// store-forwarding stall (used by `avx512-vaes`, whose state is all in
/// registers, so nothing but the digest is stored).
///
/// # Safety
/// See [`Vector`].
#[inline(always)]
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
    // The padding of `definition::pad`, built in registers.
    let first = pad::first_byte(tail, tail_bits);
    let two = pad::two_blocks::<V>(n, tail_bits);
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
        squeeze::<T, V>(&mut s, out);
        // The state borrows the scratch area: end it, then wipe the area.
        drop(s);
        T::wipe_scratch(&mut scratch);
    }
}
