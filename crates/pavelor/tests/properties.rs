//! Property tests: every way of feeding a message gives the digest of the
//! same bit string, on every backend, and the bit API matches the
//! independent reference (`tests/reference/`, its own bit-by-bit padding
//! and permutation).

#![allow(clippy::unwrap_used, clippy::panic)] // tests may fail loudly

use pavelor::{Algorithm, Available, DynHasher};
use proptest::prelude::*;

mod common;
mod reference;
use common::backends;

/// The independent reference's digest of the first `nbits` bits of `msg`
/// (its own permutation, padding and sponge: `tests/reference/`).
fn model(alg: Algorithm, msg: &[u8], nbits: usize) -> Vec<u8> {
    reference::hash_bits(alg, msg, nbits)
}

fn one_shot(alg: Algorithm, backend: Available, msg: &[u8], nbits: u64) -> Vec<u8> {
    let mut h = alg.hasher_with(backend);
    h.update_bits(msg, nbits).expect("valid length");
    h.finalize().to_vec()
}

fn algorithm() -> impl Strategy<Value = Algorithm> {
    prop::sample::select(Algorithm::ALL.to_vec())
}

/// A message of up to `max` bytes and a bit length `<= 8 * len`.
fn bit_message(max: usize) -> impl Strategy<Value = (Vec<u8>, u64)> {
    prop::collection::vec(any::<u8>(), 0..max).prop_flat_map(|m| {
        let bits = 8 * m.len() as u64;
        (Just(m), 0..=bits)
    })
}

proptest! {
    // Case count: proptest's default (256), or PROPTEST_CASES (CI's release
    // run uses 10000).
    #[test]
    fn streaming_in_random_chunks_equals_one_shot(
        alg in algorithm(),
        msg in prop::collection::vec(any::<u8>(), 0..1200),
        cuts in prop::collection::vec(any::<prop::sample::Index>(), 0..8),
    ) {
        let mut points: Vec<usize> = cuts.iter().map(|c| c.index(msg.len() + 1)).collect();
        points.sort_unstable();
        let mut h = alg.hasher();
        let mut start = 0;
        for p in points.into_iter().chain([msg.len()]) {
            h.update(&msg[start..p]);
            start = p;
        }
        prop_assert_eq!(h.finalize().to_vec(), alg.digest(&msg).to_vec());
    }

    #[test]
    fn every_backend_equals_portable((msg, nbits) in bit_message(700), alg in algorithm()) {
        let want = one_shot(alg, Available::portable(), &msg, nbits);
        for b in backends() {
            prop_assert_eq!(&one_shot(alg, b, &msg, nbits), &want, "{}", b);
        }
    }

    #[test]
    fn bit_api_matches_model_and_ignores_unused_bits((msg, nbits) in bit_message(420), alg in algorithm(), junk in any::<u8>()) {
        let want = model(alg, &msg, nbits as usize);
        prop_assert_eq!(&one_shot(alg, Available::best(), &msg, nbits), &want);
        // Garbage in the unused low bits of the last partial byte changes nothing.
        if !nbits.is_multiple_of(8) {
            let mut dirty = msg[..nbits.div_ceil(8) as usize].to_vec();
            *dirty.last_mut().expect("nonempty") |= junk >> (nbits % 8);
            prop_assert_eq!(&one_shot(alg, Available::best(), &dirty, nbits), &want);
        }
    }

    #[test]
    fn bit_api_equals_byte_api_on_whole_bytes(msg in prop::collection::vec(any::<u8>(), 0..600), alg in algorithm()) {
        let mut h = alg.hasher();
        h.update(&msg);
        prop_assert_eq!(h.finalize().to_vec(), one_shot(alg, Available::best(), &msg, 8 * msg.len() as u64));
    }

    #[test]
    fn bytes_then_final_bits_equals_one_shot((msg, nbits) in bit_message(500), split in any::<prop::sample::Index>(), alg in algorithm()) {
        let whole = (nbits / 8) as usize;
        let cut = split.index(whole + 1);
        let mut h = alg.hasher();
        h.update(&msg[..cut]);
        h.update_bits(&msg[cut..], nbits - 8 * cut as u64).expect("valid");
        prop_assert_eq!(h.finalize().to_vec(), one_shot(alg, Available::best(), &msg, nbits));
    }
}

/// Every bit length around the rate boundaries: `k*r - 2 ..= k*r + 1` for
/// k = 1, 2, on every backend, against the model.
#[test]
fn rate_boundaries_every_instance_every_backend() {
    for alg in Algorithm::ALL {
        let r = 8 * alg.rate_len();
        let msg: Vec<u8> = (0..(2 * r / 8 + 1)).map(|i| (i * 37 + 11) as u8).collect();
        for k in 1..=2 {
            for nbits in k * r - 2..=k * r + 1 {
                let want = model(alg, &msg, nbits);
                for b in backends() {
                    assert_eq!(
                        one_shot(alg, b, &msg, nbits as u64),
                        want,
                        "{alg} {b} {nbits} bits"
                    );
                }
            }
        }
    }
}

#[test]
fn bits_after_a_partial_byte_are_refused_and_change_nothing() {
    for alg in Algorithm::ALL {
        let mut h: DynHasher = alg.hasher();
        h.update_bits(&[0xA0], 3).expect("first partial byte");
        let before = h.clone().finalize();
        assert_eq!(
            h.update_bits(&[0xFF], 1),
            Err(pavelor::Error::AfterPartialByte)
        );
        assert_eq!(
            h.update_bits(&[0xFF, 0], 8),
            Err(pavelor::Error::AfterPartialByte)
        );
        assert_eq!(h.update_bits(&[], 0), Ok(()));
        assert_eq!(h.finalize(), before);
        assert_eq!(
            before.to_vec(),
            one_shot(alg, Available::best(), &[0xA0], 3)
        );
    }
}

#[test]
fn bit_length_beyond_the_data_is_an_error() {
    let mut h = Algorithm::Pavelor512.hasher();
    assert_eq!(
        h.update_bits(&[1, 2], 17),
        Err(pavelor::Error::BitLength {
            nbits: 17,
            bytes: 2
        })
    );
    assert_eq!(
        h.update_bits(&[], 1),
        Err(pavelor::Error::BitLength { nbits: 1, bytes: 0 })
    );
    assert_eq!(
        h.update_bits(&[1], u64::MAX),
        Err(pavelor::Error::BitLength {
            nbits: u64::MAX,
            bytes: 1
        })
    );
    assert_eq!(h.finalize(), Algorithm::Pavelor512.digest(&[]));
}

#[test]
fn bytes_after_a_partial_byte_extend_the_bit_string() {
    // `update` cannot fail (it is the RustCrypto `Update` contract), so after
    // a partial byte it appends at the bit position: 3 bits 101 followed by
    // the byte 0xFF is the 11-bit string 101 1111 1111.
    for alg in Algorithm::ALL {
        let mut h = alg.hasher();
        h.update_bits(&[0xA0], 3).expect("valid");
        h.update(&[0xFF]);
        assert_eq!(
            h.finalize().to_vec(),
            one_shot(alg, Available::best(), &[0xBF, 0xE0], 11)
        );
    }
}

#[test]
fn an_unknown_backend_name_parses_to_none() {
    assert_eq!(pavelor::Backend::from_name("vaes9"), None);
    assert_eq!(
        pavelor::Backend::from_name("portable"),
        Some(pavelor::Backend::Portable)
    );
}

/// The fused one-shot path for bit-length messages (`digest_bits`, the C
/// ABI's path) equals streaming on the portable backend, at every bit
/// length around the block boundaries, including the two-block padding
/// case (a 7-bit partial byte in the last byte of a block).
#[test]
fn one_shot_bits_on_every_backend_match_streaming_portable() {
    let data: Vec<u8> = (0..400u32).map(|i| (i * 151 + 7) as u8).collect();
    fn check<V: pavelor::Variant>(data: &[u8]) {
        for nbits in (0..(2 * V::RATE as u64 * 8 + 16)).filter(|n| {
            let r = V::RATE as u64 * 8;
            *n < 40 || (n % r) < 24 || (n % r) > r - 24
        }) {
            let mut h = pavelor::Pavelor::<V>::with_backend(Available::portable());
            h.update_bits(data, nbits).unwrap();
            let want = h.finalize();
            assert_eq!(
                pavelor::Pavelor::<V>::digest_bits(data, nbits).unwrap(),
                want,
                "{} nbits {nbits}",
                V::NAME
            );
            for b in backends() {
                assert_eq!(
                    pavelor::Pavelor::<V>::digest_bits_with(b, data, nbits).unwrap(),
                    want,
                    "{} on {b}, nbits {nbits}",
                    V::NAME
                );
            }
        }
    }
    check::<pavelor::P512>(&data);
    check::<pavelor::P768>(&data);
    check::<pavelor::P1024>(&data);
}
