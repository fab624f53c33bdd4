//! The one-shot body without a padding buffer ([`hash_masked`]): the last
//! partial block is read straight from the message, by masked byte loads
//! (`avx512-vaes`) or as a 16-byte window that ends at the message's end,
//! shifted down (the SSE and AVX levels), so that its cost does not depend
//! on how many bytes it holds.

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

/// The smallest page size of the targets (x86 and AArch64): a boundary of
/// any page is a multiple of it.
const PAGE: usize = 4096;

/// A one-lane vector type that can load the message's last, partial
/// subblock without reading past the message, for the one-shot body
/// without a padding buffer ([`hash_masked`]).
pub(crate) trait Masked: Vector<1> {
    /// All zeros.
    ///
    /// # Safety
    /// See [`Vector`].
    unsafe fn zero() -> Self;
    /// Loads the message's last `len` (1..=15) bytes, at `p`, into bytes
    /// `0..len`, zero elsewhere, reading nothing outside the message, of
    /// which `readable` (at least `len`) bytes end at `p + len`. Which
    /// loads it makes may depend on `len`, `readable` and the address,
    /// never on the bytes.
    ///
    /// # Safety
    /// See [`Vector`]; `p + len - readable .. p + len` must be readable.
    unsafe fn load_last(p: *const u8, len: usize, readable: usize) -> Self;
    /// `value` in byte `pos` (0..16), zero elsewhere.
    ///
    /// # Safety
    /// See [`Vector`].
    unsafe fn byte_at(pos: usize, value: u8) -> Self;
}

/// Whether the 16 bytes from `p` reach into a later 4 KiB page than the
/// `len`-th byte from `p` (`1 <= len <= 16`), for kernels that load a
/// partial subblock by a masked load of those 16 bytes.
///
/// Masked-off bytes are not read, but where they fall in a page that is
/// not present (mapped and never touched, or not mapped at all) the CPU
/// takes a microcode assist for the load, and nothing ever makes the page
/// present: every later call pays it again (on an Intel Xeon KVM guest a
/// 32 B Pavelor-512 message ending just before such a page costs 2.9 times
/// as much when loaded that way). So a partial subblock whose 16-byte span
/// would cross into the next page is loaded as the 16 bytes that end at
/// the message's end instead, which lie in the page of its first byte. The
/// answer depends only on the length and the address, neither of which is
/// secret.
#[inline(always)]
pub(crate) fn span_leaves_page(p: *const u8, len: usize) -> bool {
    (p as usize + len - 1) / PAGE != (p as usize + 15) / PAGE
}

/// The `len` (0..=16) message bytes at `p` as one subblock, zero above
/// them. A partial one (`0 < len < 16`) is the message's last, so the
/// whole message, `msg_len` bytes, ends at `p + len`.
///
/// # Safety
/// See [`Vector`]; `p .. p + len` must be readable and, for a partial
/// subblock, the `msg_len` bytes that end at `p + len`.
#[inline(always)]
unsafe fn load_subblock<T: Masked>(p: *const u8, len: usize, msg_len: usize) -> T {
    // SAFETY: forwarded to the caller; each form reads only message bytes.
    unsafe {
        match len {
            0 => T::zero(),
            16 => T::load_msg(&[p], 0),
            _ => T::load_last(p, len, msg_len),
        }
    }
}

/// The one-shot body without the padding buffer that the AArch64 body
/// fills: the last partial block is loaded straight from the message
/// ([`load_subblock`]: never past the message's end) and the padding bits
/// are XORed in as vectors: no variable-length copy, whose cost would
/// depend on the length of the tail, and no store-forwarding stall (used
/// by every x86 level).
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
    // `whole * RATE + n` bytes, and the loads read only bytes below that
    // (`len` is clamped to what is left of the message).
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
            let mut m = load_subblock::<T>(rest.wrapping_add(lo), len, data.len());
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
