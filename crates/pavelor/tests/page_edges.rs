//! Messages that start or end next to a 4 KiB page boundary, on every
//! backend, against the independent reference of `tests/reference/`.
//!
//! A one-shot kernel that loads its last partial block with masked loads
//! chooses where the 16-byte load lies from the message's address: inside
//! the page of the message's last bytes when it can, else ending at the
//! message's end. Only messages placed across every offset from a page
//! boundary reach both forms, so these tests place each one at every
//! distance up to 17 bytes on either side of a boundary, at every length
//! up to two blocks and around the block boundaries.

#![allow(clippy::unwrap_used, clippy::panic)] // tests may fail loudly

use pavelor::digest::Output;
use pavelor::{Algorithm, Available, InstanceFn, Pavelor, Variant};

mod common;
mod reference;
use common::{Rng, backends};

const PAGE: usize = 4096;

/// A buffer with a 4 KiB boundary at `boundary`, at least `margin` bytes
/// from either end.
struct Straddle {
    buf: Vec<u8>,
    boundary: usize,
}

impl Straddle {
    fn new(margin: usize) -> Self {
        let buf = vec![0u8; 2 * margin + 2 * PAGE];
        let base = buf.as_ptr() as usize;
        let boundary = (base + margin).next_multiple_of(PAGE) - base;
        Straddle { buf, boundary }
    }

    /// `msg` copied so that it starts at `start` (an index of the buffer);
    /// the bytes around it are set to `0xa5`, so that a kernel reading them
    /// would change the digest.
    fn place(&mut self, start: usize, msg: &[u8]) -> &[u8] {
        self.buf.fill(0xa5);
        self.buf[start..start + msg.len()].copy_from_slice(msg);
        &self.buf[start..start + msg.len()]
    }
}

/// Lengths up to two blocks of `rate`, every one up to 40 and around each
/// block boundary.
fn lengths(rate: usize) -> Vec<usize> {
    let mut v: Vec<usize> = (0..=40).collect();
    for k in 1..=2 {
        v.extend(k * rate - 17..=k * rate + 17);
    }
    v.sort_unstable();
    v.dedup();
    v
}

/// The digest of the first `nbits` bits of `data` by the fused bit-length
/// one-shot of `backend`.
fn digest_bits(alg: Algorithm, backend: Available, data: &[u8], nbits: u64) -> Vec<u8> {
    struct Bits<'a>(Available, &'a [u8], u64);
    impl InstanceFn for Bits<'_> {
        type Output = Vec<u8>;
        fn call<V: Variant>(self) -> Vec<u8> {
            let mut out = Output::<Pavelor<V>>::default();
            Pavelor::<V>::digest_bits_into_with(self.0, self.1, self.2, &mut out).unwrap();
            out.to_vec()
        }
    }
    alg.dispatch(Bits(backend, data, nbits))
}

#[test]
fn one_shot_digests_hold_at_every_distance_from_a_page_boundary() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut area = Straddle::new(2 * 192 + 64);
    let mut checked = 0usize;
    for alg in Algorithm::ALL {
        for len in lengths(alg.rate_len()) {
            let msg = rng.bytes(len);
            let want = reference::hash(alg, &msg);
            // Ending 0..=17 bytes before the boundary, and starting
            // 0..=17 bytes after it.
            let starts = (0..=17)
                .map(|d| area.boundary - d - len)
                .chain((0..=17).map(|d| area.boundary + d));
            for start in starts.collect::<Vec<_>>() {
                let placed = area.place(start, &msg);
                for &b in &backends() {
                    assert_eq!(
                        alg.digest_with(b, placed).as_ref(),
                        &want[..],
                        "{alg} {b}: {len} B from page offset {}",
                        (placed.as_ptr() as usize) % PAGE
                    );
                    checked += 1;
                }
            }
        }
    }
    assert!(checked > 0);
}

#[test]
fn bit_length_digests_hold_when_the_message_ends_at_a_page_boundary() {
    let mut rng = Rng(0x3c6e_f372_fe94_f82b);
    let mut area = Straddle::new(2 * 192 + 64);
    for alg in Algorithm::ALL {
        for len in lengths(alg.rate_len()).into_iter().filter(|&l| l > 0) {
            let msg = rng.bytes(len);
            let bits = 8 * (len as u64 - 1) + 1 + rng.below(7) as u64;
            let want = reference::hash_bits(alg, &msg, bits as usize);
            for d in 0..=17 {
                let placed = area.place(area.boundary - d - len, &msg);
                for &b in &backends() {
                    assert_eq!(
                        digest_bits(alg, b, placed, bits),
                        want,
                        "{alg} {b}: {bits} bits ending {d} B before a page boundary"
                    );
                }
            }
        }
    }
}
