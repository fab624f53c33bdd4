//! The sponge's 10*1 padding, including a final partial byte, written
//! once: [`pad`] (the fused one-shot kernels, the streaming sponge and the
//! batch lanes), and its two rules [`first_byte`] and [`two_blocks`], which
//! the one-shot kernel without a padding buffer applies in registers.

use crate::definition::instances::{MAX_RATE, Variant};

/// The padded end of a message: writes `data` (fewer than `V::RATE` whole
/// bytes), the top `tail_bits` (0..8) bits of `tail`, then the 10*1 padding
/// into `buf`, and returns the number of `V::RATE`-byte blocks written (1,
/// or 2 when the first padding bit fills the block). `buf` must be all zero
/// on entry.
///
/// Only the public lengths steer the control flow; the bits of the partial
/// byte are combined with masks.
#[inline(always)]
pub(crate) fn pad<V: Variant>(
    data: &[u8],
    tail: u8,
    tail_bits: u8,
    buf: &mut [u8; 2 * MAX_RATE],
) -> usize {
    let rate = V::RATE;
    debug_assert!(data.len() < rate && tail_bits < 8);
    let n = data.len().min(rate - 1);
    buf[..n].copy_from_slice(&data[..n]);
    let first = first_byte(tail, tail_bits);
    let blocks = if two_blocks::<V>(n, tail_bits) { 2 } else { 1 };
    // The closing `1`, in the same byte as the first one when the message
    // ends just before the last byte of the block (plain stores only: no
    // read-modify-write of a buffer byte that may hold message bits).
    let last = blocks * rate - 1;
    if last == n {
        buf[n] = first | 0x01;
    } else {
        buf[n] = first;
        buf[last] = 0x01;
    }
    blocks
}

/// The byte after the message's whole bytes: its partial byte (the top
/// `tail_bits` (0..8) bits of `tail`), then the first padding `1`. Masks
/// only, no branch on the bits.
#[inline(always)]
pub(crate) fn first_byte(tail: u8, tail_bits: u8) -> u8 {
    let used = u32::from(tail_bits % 8);
    (tail & !(0xFFu8.wrapping_shr(used))) | 0x80u8.wrapping_shr(used)
}

/// Whether the padding takes two blocks: only when the message ends `n`
/// bytes into its last block with `n = r - 1` and a 7-bit partial byte, so
/// that the first `1` fills the block.
#[inline(always)]
pub(crate) fn two_blocks<V: Variant>(n: usize, tail_bits: u8) -> bool {
    n == V::RATE - 1 && tail_bits % 8 == 7
}

/// How many rate blocks the squeeze reads (with one Paff between each two):
/// `ceil(DIGEST / RATE)` (two only when the digest is longer than the rate).
pub(crate) const fn squeeze_blocks<V: Variant>() -> usize {
    V::DIGEST.div_ceil(V::RATE)
}
