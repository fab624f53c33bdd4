//! The sponge's 10*1 padding, including a final partial byte: the one
//! padding routine of the crate (the fused one-shot kernels, the streaming
//! sponge and the batch lanes all use it).

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
    let used = u32::from(tail_bits % 8);
    buf[..n].copy_from_slice(&data[..n]);
    // The message's partial byte (its top `used` bits), then the first `1`.
    let first = (tail & !(0xFFu8.wrapping_shr(used))) | 0x80u8.wrapping_shr(used);
    // The first `1` fills the block only after a 7-bit partial last byte.
    let blocks = if n == rate - 1 && used == 7 { 2 } else { 1 };
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

/// How many rate blocks the squeeze reads (with one Paff between each two):
/// 1 for Pavelor-512 and -768, 2 for Pavelor-1024.
pub(crate) const fn squeeze_blocks<V: Variant>() -> usize {
    V::DIGEST.div_ceil(V::RATE)
}
