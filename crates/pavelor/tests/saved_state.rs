//! Saving a hasher mid-message and resuming it (`SerializableState`):
//! against the independent reference at every split point, a partial
//! final byte included; the format's layout built again from the
//! reference's state; every corrupted byte refused or restored to exactly
//! what it says; and a golden state that must not change between releases.

#![allow(clippy::unwrap_used, clippy::panic)] // tests may fail loudly

mod reference;

use digest::common::hazmat::SerializableState;
use pavelor::{Algorithm, Pavelor, Pavelor512, Pavelor768, Pavelor1024, Variant};

/// A message with no two equal neighbouring bytes.
fn message(len: usize) -> Vec<u8> {
    (0..len).map(|i| (i * 131 + 7) as u8).collect()
}

/// The first `abits` bits of `a` followed by the bytes `b`, as bytes
/// (MSB first) and a bit count.
fn concat_bits(a: &[u8], abits: usize, b: &[u8]) -> (Vec<u8>, usize) {
    let bit = |bytes: &[u8], k: usize| (bytes[k / 8] >> (7 - k % 8)) & 1;
    let bits: Vec<u8> = (0..abits)
        .map(|k| bit(a, k))
        .chain((0..8 * b.len()).map(|k| bit(b, k)))
        .collect();
    let mut out = vec![0u8; bits.len().div_ceil(8)];
    for (k, &v) in bits.iter().enumerate() {
        out[k / 8] |= v << (7 - k % 8);
    }
    (out, bits.len())
}

/// Saves after the first `split` bits of `msg`, restores, appends the
/// whole bytes `rest`, and checks the digest against the reference's.
fn check_split<V: Variant>(alg: Algorithm, msg: &[u8], split: usize, rest: &[u8]) {
    let mut h = Pavelor::<V>::new();
    h.update_bits(msg, split as u64).unwrap();
    let saved = h.serialize();
    let mut resumed = Pavelor::<V>::deserialize(&saved).unwrap();
    assert_eq!(usize::from(resumed.pending_bits()), split % 8);
    resumed.update(rest);
    let (whole, nbits) = concat_bits(msg, split, rest);
    assert_eq!(
        resumed.finalize()[..],
        reference::hash_bits(alg, &whole, nbits)[..],
        "{alg:?} saved after {split} bits, then {} bytes",
        rest.len()
    );
}

fn splits_of<V: Variant>(alg: Algorithm) {
    let rate = V::RATE;
    let msg = message(2 * rate + 9);
    // Every byte-aligned point up to two blocks and a bit; bit points
    // around the block boundaries; then tails of several lengths.
    for split in (0..=8 * (2 * rate + 1)).step_by(8) {
        check_split::<V>(alg, &msg, split, &msg[..3]);
    }
    for edge in [0, rate, 2 * rate] {
        for split in (8 * edge).saturating_sub(9)..8 * edge + 9 {
            check_split::<V>(alg, &msg, split, &[]);
            check_split::<V>(alg, &msg, split, &msg[..rate + 1]);
        }
    }
}

#[test]
fn resuming_at_any_point_gives_the_digest_of_the_whole_message() {
    splits_of::<pavelor::P512>(Algorithm::Pavelor512);
    splits_of::<pavelor::P768>(Algorithm::Pavelor768);
    splits_of::<pavelor::P1024>(Algorithm::Pavelor1024);
}

/// The layout of format 1, written here from its documentation: the header,
/// the reference's state after the whole blocks, the buffered bytes.
fn expected_layout<V: Variant>(alg: Algorithm, msg: &[u8], tail: Option<(u8, u8)>) -> Vec<u8> {
    let rate = V::RATE;
    let whole = msg.len() - msg.len() % rate;
    let (tail_bits, tail_byte) = tail.unwrap_or((0, 0));
    let mut out = vec![0u8; 336 + rate];
    out[0] = 1;
    out[1] = (V::DIGEST * 8 / 256) as u8;
    out[2] = (msg.len() - whole) as u8;
    out[3] = tail_bits;
    out[4] = tail_byte;
    out[16..336].copy_from_slice(&reference::state_after_blocks(alg, &msg[..whole]));
    out[336..336 + msg.len() - whole].copy_from_slice(&msg[whole..]);
    out
}

fn layout_of<V: Variant>(alg: Algorithm) {
    let msg = message(V::RATE + 5);
    let mut h = Pavelor::<V>::new();
    h.update(&msg);
    assert_eq!(h.serialize()[..], expected_layout::<V>(alg, &msg, None)[..]);
    // Five more bits, 10110: kept as the top bits of the partial byte.
    h.update_bits(&[0b1011_0111], 5).unwrap();
    let with_tail = expected_layout::<V>(alg, &msg, Some((5, 0b1011_0000)));
    assert_eq!(h.serialize()[..], with_tail[..]);
    assert_eq!(h.serialize().len(), 336 + V::RATE);
}

#[test]
fn the_golden_states_are_format_1() {
    let golden = [
        (
            Algorithm::Pavelor512,
            &include_bytes!("data/pavelor512_serialization.bin")[..],
        ),
        (
            Algorithm::Pavelor768,
            &include_bytes!("data/pavelor768_serialization.bin")[..],
        ),
        (
            Algorithm::Pavelor1024,
            &include_bytes!("data/pavelor1024_serialization.bin")[..],
        ),
    ];
    for (alg, bytes) in golden {
        let rate = reference::numbers(alg).0 / 8;
        let expected = match alg {
            Algorithm::Pavelor512 => expected_layout::<pavelor::P512>(alg, &[0x13; 193], None),
            Algorithm::Pavelor768 => expected_layout::<pavelor::P768>(alg, &[0x13; 129], None),
            Algorithm::Pavelor1024 => expected_layout::<pavelor::P1024>(alg, &[0x13; 65], None),
        };
        assert_eq!(expected.len(), 336 + rate);
        assert_eq!(bytes, &expected[..], "{alg:?}");
    }
}

#[test]
fn the_serialized_layout_is_format_1() {
    layout_of::<pavelor::P512>(Algorithm::Pavelor512);
    layout_of::<pavelor::P768>(Algorithm::Pavelor768);
    layout_of::<pavelor::P1024>(Algorithm::Pavelor1024);
}

/// Every byte of a saved state, changed in each of its bits (and set to
/// 0xff): restoring refuses it, or gives a hasher that saves to exactly
/// the changed bytes (so it continues from the state they describe).
fn corruption_of<V: Variant>() {
    let mut h = Pavelor::<V>::new();
    h.update(message(V::RATE + 3));
    h.update_bits(&[0xa0], 3).unwrap();
    let good = h.serialize();
    let (mut refused, mut accepted) = (0, 0);
    for at in 0..good.len() {
        let values = (0..8).map(|b| good[at] ^ (1 << b)).chain([0xff]);
        for value in values.filter(|&v| v != good[at]) {
            let mut bad = good.clone();
            bad[at] = value;
            match Pavelor::<V>::deserialize(&bad) {
                Err(_) => refused += 1,
                Ok(restored) => {
                    assert_eq!(restored.serialize(), bad, "byte {at} set to {value:#04x}");
                    let _ = restored.finalize();
                    accepted += 1;
                }
            }
            // The header's fixed fields and the zero bytes are never accepted
            // changed; the pending-bit count may only grow into zero bits.
            if matches!(at, 0 | 1 | 5..16) {
                assert!(Pavelor::<V>::deserialize(&bad).is_err(), "byte {at}");
            }
        }
    }
    // The 320 state bytes and the buffered ones are accepted changed.
    assert!(accepted >= 8 * (320 + 3), "{accepted} accepted");
    assert!(refused > 0);
}

#[test]
fn a_corrupted_state_is_refused_or_restored_as_it_reads() {
    corruption_of::<pavelor::P512>();
    corruption_of::<pavelor::P768>();
    corruption_of::<pavelor::P1024>();
}

#[test]
fn a_state_of_another_instance_or_version_is_refused() {
    let mut h = Pavelor768::new();
    h.update(b"abc");
    let mut s = h.serialize();
    // The same length as no other instance's, so only the instance byte
    // and the version are changed here.
    s[1] = 2;
    assert!(Pavelor768::deserialize(&s).is_err());
    s[1] = 3;
    s[0] = 2;
    assert!(Pavelor768::deserialize(&s).is_err());
    s[0] = 1;
    assert!(Pavelor768::deserialize(&s).is_ok());
    // More buffered bytes than a block can hold.
    s[2] = 128;
    assert!(Pavelor768::deserialize(&s).is_err());
}

// The golden states in tests/data/: these bytes must read the same in
// every 0.1.x release (digest's own test: serialize after a block and a
// byte of 0x13, compare, restore, and continue).
digest::hash_serialization_test!(pavelor512_serialization, Pavelor512);
digest::hash_serialization_test!(pavelor768_serialization, Pavelor768);
digest::hash_serialization_test!(pavelor1024_serialization, Pavelor1024);
