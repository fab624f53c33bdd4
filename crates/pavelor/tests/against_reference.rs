//! Every backend, every API (one-shot and the fused bit-length one-shot,
//! streaming, bit lengths, the bare
//! permutation, the batch API and `LaneHasher`) against the independent
//! reference of `tests/reference/`, on pseudo-random messages of every
//! length class: around each multiple of the rate up to four blocks, at
//! every bit length of a partial final byte, and random lengths up to a few
//! KiB.

#![allow(clippy::unwrap_used, clippy::panic)] // tests may fail loudly

use pavelor::digest::Output;
use pavelor::{Algorithm, Available, InstanceFn, LaneHasher, Pavelor, Variant, batch, hazmat};

mod common;
mod reference;
use common::{Rng, backends};

/// Byte lengths of every class for rate `rate`: 0, around `k * rate` for
/// `k = 1..=4`, and a few random lengths up to 3000.
fn byte_lengths(rng: &mut Rng, rate: usize) -> Vec<usize> {
    let mut lens = vec![0, 1, 15, 16, 17];
    for k in 1..=4 {
        for d in [-2i64, -1, 0, 1, 2] {
            lens.push((k * rate as i64 + d) as usize);
        }
    }
    for _ in 0..4 {
        lens.push(rng.below(3000));
    }
    lens
}

#[test]
fn the_reference_aes_round_is_fips_197() {
    // FIPS 197, Appendix B, round 1: the state after SubBytes, ShiftRows
    // and MixColumns of "19 3d e3 be a0 f4 e2 2b 9a c6 8d 2a e9 f8 48 08".
    let x = hex::decode("193de3bea0f4e22b9ac68d2ae9f84808").unwrap();
    let want = hex::decode("046681e5e0cb199a48f8d37a2806264c").unwrap();
    assert_eq!(reference::aes_round(&x.try_into().unwrap()).to_vec(), want);
}

#[test]
fn the_reference_gives_the_specifications_empty_digests() {
    // The spot checks the specification prints (empty message).
    let want = [
        "c53578fa7956aad60eeca53d46a2bd1719d8059ad1725f2aa9437b1f40b519f9",
        "65baf7ffc9d31766c72c90a5f8d42eaa7f3610603eb950275f1da62b1678c3ac",
        "7011cc8c8bd11ac971bb394cbdb5269362facf05b740d0a4cb1f14c0a91ae7f0",
    ];
    for (alg, w) in Algorithm::ALL.into_iter().zip(want) {
        assert_eq!(hex::encode(&reference::hash(alg, b"")[..32]), w, "{alg}");
    }
}

#[test]
fn permutation_matches_the_reference_on_every_backend() {
    let mut rng = Rng(0x243f_6a88_85a3_08d3);
    for _ in 0..8 {
        let input = rng.bytes(320);
        let mut want: reference::State = input.clone().try_into().unwrap();
        reference::paff(&mut want);
        for b in backends() {
            let mut state: hazmat::State =
                core::array::from_fn(|j| input[16 * j..16 * j + 16].try_into().unwrap());
            hazmat::permute_with(b, &mut state);
            assert_eq!(state.as_flattened(), &want[..], "permute on {b}");
        }
    }
}

/// One-shot, streaming in random chunks, and the dynamic API, for one
/// instance on every backend.
struct Bytes<'a>(&'a mut Rng);

impl InstanceFn for Bytes<'_> {
    type Output = ();
    fn call<V: Variant>(self) {
        let rng = self.0;
        let alg = Algorithm::from_output_bits(8 * V::DIGEST as u32).unwrap();
        for len in byte_lengths(rng, V::RATE) {
            let msg = rng.bytes(len);
            let want = reference::hash(alg, &msg);
            for b in backends() {
                let what = format!("{} on {b}, {len} bytes", V::NAME);
                assert_eq!(
                    Pavelor::<V>::digest_with(b, &msg).to_vec(),
                    want,
                    "one-shot {what}"
                );
                assert_eq!(alg.digest_with(b, &msg).to_vec(), want, "dynamic {what}");
                let mut h = Pavelor::<V>::with_backend(b);
                let mut rest = &msg[..];
                while !rest.is_empty() {
                    let n = rng.below(rest.len().min(3 * V::RATE) + 1);
                    h.update(&rest[..n]);
                    rest = &rest[n..];
                }
                assert_eq!(h.finalize().to_vec(), want, "streaming {what}");
            }
        }
    }
}

#[test]
fn byte_messages_match_the_reference_on_every_backend() {
    let mut rng = Rng(0x1319_8a2e_0370_7344);
    for alg in Algorithm::ALL {
        alg.dispatch(Bytes(&mut rng));
    }
}

/// Bit lengths: every partial-byte length at each padding case, with junk
/// in the unused low bits of the last byte.
struct Bits<'a>(&'a mut Rng);

impl InstanceFn for Bits<'_> {
    type Output = ();
    fn call<V: Variant>(self) {
        let rng = self.0;
        let alg = Algorithm::from_output_bits(8 * V::DIGEST as u32).unwrap();
        let r = 8 * V::RATE;
        for base in [0, r - 8, r, 2 * r - 8] {
            for extra in 1..8 {
                let nbits = base + extra;
                let msg = rng.bytes(nbits.div_ceil(8));
                let want = reference::hash_bits(alg, &msg, nbits);
                let n = nbits as u64;
                assert_eq!(
                    Pavelor::<V>::digest_bits(&msg, n).unwrap().to_vec(),
                    want,
                    "digest_bits {} {nbits} bits",
                    V::NAME
                );
                for b in backends() {
                    assert_eq!(
                        Pavelor::<V>::digest_bits_with(b, &msg, n).unwrap().to_vec(),
                        want,
                        "fused one-shot {} on {b}, {nbits} bits",
                        V::NAME
                    );
                    let mut h = Pavelor::<V>::with_backend(b);
                    let split = rng.below(nbits / 8 + 1);
                    h.update(&msg[..split]);
                    h.update_bits(&msg[split..], n - 8 * split as u64).unwrap();
                    assert_eq!(
                        h.finalize().to_vec(),
                        want,
                        "{} on {b}, {nbits} bits",
                        V::NAME
                    );
                }
            }
        }
    }
}

#[test]
fn bit_messages_match_the_reference_on_every_backend() {
    let mut rng = Rng(0xa409_3822_299f_31d0);
    for alg in Algorithm::ALL {
        alg.dispatch(Bits(&mut rng));
    }
}

/// `hash_many` with 1 to 9 messages of mixed lengths, and `LaneHasher`
/// with every lane busy, on every backend.
struct Batches<'a>(&'a mut Rng);

impl InstanceFn for Batches<'_> {
    type Output = ();
    fn call<V: Variant>(self) {
        let rng = self.0;
        let alg = Algorithm::from_output_bits(8 * V::DIGEST as u32).unwrap();
        for count in 1..=9 {
            let msgs: Vec<Vec<u8>> = (0..count)
                .map(|_| {
                    let lens = byte_lengths(rng, V::RATE);
                    let len = lens[rng.below(lens.len())];
                    rng.bytes(len)
                })
                .collect();
            let want: Vec<Vec<u8>> = msgs.iter().map(|m| reference::hash(alg, m)).collect();
            let inputs: Vec<&[u8]> = msgs.iter().map(Vec::as_slice).collect();
            for b in backends() {
                let mut out = vec![Output::<Pavelor<V>>::default(); count];
                batch::hash_many_with::<V>(b, &inputs, &mut out).unwrap();
                for (i, (got, w)) in out.iter().zip(&want).enumerate() {
                    assert_eq!(
                        &got.to_vec(),
                        w,
                        "hash_many {} on {b}: {i} of {count}",
                        V::NAME
                    );
                }
            }
        }
        for b in backends() {
            lanes::<V>(rng, alg, b);
        }
    }
}

/// Every lane of a `LaneHasher` busy: chunks of one block absorbed
/// together while every message has one left, then each lane finished with
/// its rest.
fn lanes<V: Variant>(rng: &mut Rng, alg: Algorithm, b: Available) {
    let mut h = LaneHasher::<V>::with_backend(b);
    let n = h.lanes();
    let msgs: Vec<Vec<u8>> = (0..n)
        .map(|_| {
            let len = rng.below(5 * V::RATE);
            rng.bytes(len)
        })
        .collect();
    let mut rest: Vec<&[u8]> = msgs.iter().map(Vec::as_slice).collect();
    for lane in 0..n {
        h.start(lane).unwrap();
    }
    while rest.iter().all(|m| m.len() >= V::RATE) {
        let chunks: Vec<&[u8]> = rest.iter().map(|m| &m[..V::RATE]).collect();
        h.absorb(&chunks).unwrap();
        for m in &mut rest {
            *m = &m[V::RATE..];
        }
    }
    for (lane, (m, full)) in rest.iter().zip(&msgs).enumerate() {
        let got = h.finish(lane, m).unwrap();
        assert_eq!(
            got.to_vec(),
            reference::hash(alg, full),
            "LaneHasher {} on {b} lane {lane}",
            V::NAME
        );
    }
}

#[test]
fn batches_and_lanes_match_the_reference_on_every_backend() {
    let mut rng = Rng(0x4528_21e6_38d0_1377);
    for alg in Algorithm::ALL {
        alg.dispatch(Batches(&mut rng));
    }
}
