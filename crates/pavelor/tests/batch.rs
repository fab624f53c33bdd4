//! The batch API gives exactly the single-message digests, on every batch
//! kernel this CPU runs, for mixed lengths and awkward batch sizes.

#![allow(clippy::unwrap_used, clippy::panic)] // tests may fail loudly

use pavelor::batch::{self, BatchError};
use pavelor::digest::Output;
use pavelor::{Algorithm, Available, P512, P768, P1024, Pavelor, Variant};
use proptest::prelude::*;

mod common;
use common::{Rng, backends};

const SIZES: [usize; 10] = [0, 1, 2, 3, 4, 5, 7, 8, 9, 17];

/// Lengths around every multiple of the rate up to 3 blocks, plus random
/// lengths up to a few KiB.
fn length(rng: &mut Rng, rate: usize) -> usize {
    match rng.below(3) {
        0 => {
            let k = rng.below(4);
            (k * rate + rng.below(5)).saturating_sub(2)
        }
        1 => rng.below(rate + 1),
        _ => rng.below(5000),
    }
}

fn single(alg: Algorithm, msg: &[u8]) -> Vec<u8> {
    let mut h = alg.hasher();
    h.update(msg);
    h.finalize().to_vec()
}

fn check_dyn(alg: Algorithm, backend: Available, msgs: &[Vec<u8>]) {
    let inputs: Vec<&[u8]> = msgs.iter().map(Vec::as_slice).collect();
    let mut out = vec![0u8; msgs.len() * alg.output_len()];
    batch::hash_many_dyn_with(alg, backend, &inputs, &mut out).unwrap();
    for (i, (msg, got)) in msgs.iter().zip(out.chunks(alg.output_len())).enumerate() {
        let lens: Vec<usize> = msgs.iter().map(Vec::len).collect();
        assert_eq!(
            got,
            &single(alg, msg)[..],
            "{alg} on {backend}: message {i} of lengths {lens:?}"
        );
    }
}

fn check_typed<V: Variant>(backend: Available, msgs: &[Vec<u8>]) {
    let inputs: Vec<&[u8]> = msgs.iter().map(Vec::as_slice).collect();
    let mut out = vec![Output::<Pavelor<V>>::default(); msgs.len()];
    batch::hash_many_with::<V>(backend, &inputs, &mut out).unwrap();
    for (msg, got) in msgs.iter().zip(&out) {
        assert_eq!(*got, Pavelor::<V>::digest(msg), "{} on {backend}", V::NAME);
    }
    let mut best = vec![Output::<Pavelor<V>>::default(); msgs.len()];
    batch::hash_many::<V>(&inputs, &mut best).unwrap();
    assert_eq!(best, out);
}

#[test]
fn mixed_lengths_every_kernel_every_size() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    for backend in backends() {
        for alg in Algorithm::ALL {
            for size in SIZES {
                for _ in 0..3 {
                    let msgs: Vec<Vec<u8>> = (0..size)
                        .map(|_| {
                            let len = length(&mut rng, alg.rate_len());
                            rng.bytes(len)
                        })
                        .collect();
                    check_dyn(alg, backend, &msgs);
                }
            }
        }
    }
}

#[test]
fn every_rate_boundary_in_one_batch() {
    for backend in backends() {
        for alg in Algorithm::ALL {
            let r = alg.rate_len();
            let lens: Vec<usize> = (0..=3 * r)
                .filter(|n| matches!(n % r, 0 | 1) || matches!(n % r, m if m >= r - 2))
                .collect();
            let msgs: Vec<Vec<u8>> = lens.iter().map(|&n| vec![0xA7u8; n]).collect();
            check_dyn(alg, backend, &msgs);
        }
    }
}

#[test]
fn equal_lengths_and_one_long_message() {
    let mut rng = Rng(7);
    for backend in backends() {
        let equal: Vec<Vec<u8>> = (0..9).map(|_| rng.bytes(4096)).collect();
        check_typed::<P512>(backend, &equal);
        let mut skewed: Vec<Vec<u8>> = (0..6).map(|_| rng.bytes(100)).collect();
        skewed.insert(2, rng.bytes(20_000));
        check_typed::<P768>(backend, &skewed);
        check_typed::<P1024>(backend, &skewed);
    }
}

#[test]
fn mismatched_lengths_are_errors() {
    let inputs: [&[u8]; 3] = [b"a", b"b", b"c"];
    let mut two = [Output::<Pavelor<P512>>::default(); 2];
    assert_eq!(
        batch::hash_many::<P512>(&inputs, &mut two),
        Err(BatchError::LengthMismatch {
            expected: 3,
            outputs: 2
        })
    );
    assert_eq!(
        two,
        [Output::<Pavelor<P512>>::default(); 2],
        "nothing written"
    );
    let mut bytes = vec![0u8; 3 * 96 + 1];
    assert_eq!(
        batch::hash_many_dyn(Algorithm::Pavelor768, &inputs, &mut bytes),
        Err(BatchError::LengthMismatch {
            expected: 288,
            outputs: 289
        })
    );
    assert!(bytes.iter().all(|&b| b == 0));
    // An empty batch with an empty output is fine.
    batch::hash_many::<P1024>(&[], &mut []).unwrap();
}

#[test]
fn every_available_backend_has_a_batch_width() {
    for backend in backends() {
        let mut out = [Output::<Pavelor<P512>>::default(); 1];
        batch::hash_many_with::<P512>(backend, &[b"x"], &mut out).unwrap();
        assert_eq!(out[0], Pavelor::<P512>::digest(b"x"));
        assert!([1, 2, 4].contains(&backend.lanes()), "{backend}");
    }
}

proptest! {
    // Cases: proptest's default (256) or PROPTEST_CASES (10^4 in CI's long checks).

    #[test]
    fn batch_matches_single(
        msgs in prop::collection::vec(prop::collection::vec(any::<u8>(), 0..700), 0..11),
        alg in prop::sample::select(Algorithm::ALL.to_vec()),
    ) {
        for backend in backends() {
            let inputs: Vec<&[u8]> = msgs.iter().map(Vec::as_slice).collect();
            let mut out = vec![0u8; msgs.len() * alg.output_len()];
            batch::hash_many_dyn_with(alg, backend, &inputs, &mut out).unwrap();
            for (msg, got) in msgs.iter().zip(out.chunks(alg.output_len())) {
                prop_assert_eq!(got, &single(alg, msg)[..]);
            }
        }
    }
}
