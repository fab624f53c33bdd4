//! What the harness runs on each backend, with secret inputs.
//!
//! Every scenario computes its expected digests first (with the portable
//! backend, on public data), then marks the inputs secret, runs the code
//! under test on the chosen backend, declassifies the outputs and compares.
//! Lengths, bit counts, chunkings and batch sizes are public by design
//! (they may steer control flow); message bytes and state bytes are secret.
//!
//! | scenario         | covers |
//! |------------------|--------|
//! | `permute`        | Paff on a fully secret state (`hazmat::permute_with`) |
//! | `one-shot`       | `digest_with`: whole blocks absorbed straight from the input, final block padding |
//! | `stream-blocks`  | `update` in awkward chunks: buffered and direct full-block absorption |
//! | `update-bits`    | a final partial byte: every rate-boundary case of the 10*1 padding, incl. the extra block when the first padding bit fills the rate |
//! | `bits-then-bytes`| bytes after a partial byte (the realignment path of `update`) |
//! | `squeeze`        | the three ways out: `finalize`, `finalize_reset` (then reuse), `Digest::finalize_into`; and `DynHasher::finalize` |
//! | `batch`          | `batch::hash_many_with` and `hash_many_dyn_with`, 1..=6 messages of mixed lengths |
//!
//! Each runs for all three instances: Pavelor-512 and -768 squeeze one block,
//! Pavelor-1024 squeezes two (a Paff between them).

use pavelor::batch::{hash_many_dyn_with, hash_many_with};
use pavelor::digest::{Digest, Output};
use pavelor::hazmat::{State, permute_with};
use pavelor::{Algorithm, Available, InstanceFn, Pavelor, Variant};

use crate::Error;
use crate::vg::{classify, declassify, fully_undefined};

/// A named scenario, run once per backend.
pub struct Scenario {
    /// Short name (as in the table above).
    pub name: &'static str,
    /// Runs it on a backend; `Err` describes a functional mismatch.
    pub run: fn(Available) -> Result<(), Error>,
}

/// `$scenario::<V>` for every instance `V` (the first failure names it).
macro_rules! every_instance {
    ($scenario:ident) => {
        |b| {
            struct Run(Available);
            impl InstanceFn for Run {
                type Output = Result<(), Error>;
                fn call<V: Variant>(self) -> Result<(), Error> {
                    $scenario::<V>(self.0).map_err(|e| Error::Instance {
                        instance: V::NAME,
                        source: Box::new(e),
                    })
                }
            }
            Algorithm::ALL
                .into_iter()
                .try_for_each(|a| a.dispatch(Run(b)))
        }
    };
}

/// All scenarios, in the order they run.
pub const ALL: &[Scenario] = &[
    Scenario {
        name: "permute",
        run: permute,
    },
    Scenario {
        name: "one-shot",
        run: every_instance!(one_shot),
    },
    Scenario {
        name: "stream-blocks",
        run: every_instance!(stream_blocks),
    },
    Scenario {
        name: "update-bits",
        run: every_instance!(update_bits),
    },
    Scenario {
        name: "bits-then-bytes",
        run: every_instance!(bits_then_bytes),
    },
    Scenario {
        name: "squeeze",
        run: every_instance!(squeeze),
    },
    Scenario {
        name: "batch",
        run: every_instance!(batch),
    },
];

/// Deterministic, public-looking test bytes (xorshift), `seed` picks the
/// stream. Their values do not matter to memcheck: once classified they
/// are "unknown".
pub fn pattern(len: usize, seed: u64) -> Vec<u8> {
    let mut x = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 24) as u8
        })
        .collect()
}

fn reference<V: Variant>(msg: &[u8]) -> Output<Pavelor<V>> {
    Pavelor::<V>::digest_with(Available::portable(), msg)
}

fn reference_bits<V: Variant>(msg: &[u8], nbits: u64) -> Result<Output<Pavelor<V>>, Error> {
    let mut h = Pavelor::<V>::with_backend(Available::portable());
    h.update_bits(msg, nbits)?;
    Ok(h.finalize())
}

/// The [`Algorithm`] of the instance `V`.
fn algorithm<V: Variant>() -> Result<Algorithm, Error> {
    let output_bits = 8 * V::DIGEST as u32;
    Algorithm::from_output_bits(output_bits).ok_or(Error::NoAlgorithm { output_bits })
}

fn hasher<V: Variant>(b: Available) -> Pavelor<V> {
    Pavelor::<V>::with_backend(b)
}

/// Checks that `got` is secret-derived (under valgrind), then copies it
/// out, declassifies the copy and compares it with `want`.
fn check(what: &str, got: &[u8], want: &[u8]) -> Result<(), Error> {
    check_public(what, got, want, true)
}

/// As [`check`]; `secret_input` is false for the empty message, whose
/// digest is public (no secret went in).
fn check_public(what: &str, got: &[u8], want: &[u8], secret_input: bool) -> Result<(), Error> {
    if secret_input && fully_undefined(got) == Some(false) {
        return Err(Error::NotSecretDerived {
            what: what.to_owned(),
        });
    }
    let mut public = got.to_vec();
    declassify(&mut public);
    if public == want {
        Ok(())
    } else {
        Err(Error::DigestMismatch {
            what: what.to_owned(),
        })
    }
}

fn permute(b: Available) -> Result<(), Error> {
    for seed in 0..3 {
        let bytes = pattern(320, 100 + seed);
        let mut state: State = [[0; 16]; 20];
        for (sub, chunk) in state.iter_mut().zip(bytes.chunks_exact(16)) {
            sub.copy_from_slice(chunk);
        }
        let mut want = state;
        permute_with(Available::portable(), &mut want);
        classify(state.as_flattened_mut());
        permute_with(b, &mut state);
        check("permute", state.as_flattened(), want.as_flattened())?;
    }
    Ok(())
}

/// Message lengths around the rate boundaries of `V`.
fn lengths<V: Variant>() -> [usize; 7] {
    let r = V::RATE;
    [0, 1, r - 1, r, r + 1, 2 * r + 5, 3 * r]
}

fn one_shot<V: Variant>(b: Available) -> Result<(), Error> {
    for len in lengths::<V>() {
        let mut msg = pattern(len, len as u64);
        let want = reference::<V>(&msg);
        classify(&mut msg);
        let got = Pavelor::<V>::digest_with(b, &msg);
        check_public(&format!("one-shot {len} bytes"), &got, &want, len > 0)?;
    }
    Ok(())
}

fn stream_blocks<V: Variant>(b: Available) -> Result<(), Error> {
    let r = V::RATE;
    let mut msg = pattern(4 * r + 17, 7);
    let want = reference::<V>(&msg);
    classify(&mut msg);
    // Chunks that leave the buffer part-full, fill it exactly, then pass
    // several whole blocks straight through, then a tail.
    let mut h = hasher::<V>(b);
    let mut rest = &msg[..];
    for n in [1, r - 1, 2 * r + 3, r - 3] {
        let (chunk, tail) = rest.split_at(n);
        h.update(chunk);
        rest = tail;
    }
    h.update(rest);
    check("stream", &h.finalize(), &want)
}

fn update_bits<V: Variant>(b: Available) -> Result<(), Error> {
    let r = 8 * V::RATE as u64;
    // Bit lengths at every padding case: short partial bytes, |M| mod r =
    // r-2 (block ends `M 1 1`), r-1 (the first padding bit fills the block
    // and one more block follows), 0, 1, and a partial byte after blocks.
    let cases = [1, 7, 9, r - 9, r - 2, r - 1, r, r + 1, 2 * r + 3];
    for nbits in cases {
        // Junk in the ignored low bits of the last byte: they must not leak
        // either (they are secret too).
        let mut msg = pattern(nbits.div_ceil(8) as usize, 1000 + nbits);
        let want = reference_bits::<V>(&msg, nbits)?;
        classify(&mut msg);
        let mut h = hasher::<V>(b);
        h.update_bits(&msg, nbits)?;
        check(&format!("update_bits {nbits} bits"), &h.finalize(), &want)?;
    }
    Ok(())
}

fn bits_then_bytes<V: Variant>(b: Available) -> Result<(), Error> {
    let r = V::RATE;
    for shift in [1u64, 3, 7] {
        let mut head = pattern(1, 50 + shift);
        let mut body = pattern(2 * r + 9, 60 + shift);
        // Model: the bit string head[..shift] || body, built bit by bit.
        let total = shift + 8 * body.len() as u64;
        let mut joined = vec![0u8; total.div_ceil(8) as usize];
        let bit = |bytes: &[u8], k: u64| (bytes[(k / 8) as usize] >> (7 - k % 8)) & 1;
        for k in 0..total {
            let v = if k < shift {
                bit(&head, k)
            } else {
                bit(&body, k - shift)
            };
            joined[(k / 8) as usize] |= v << (7 - k % 8);
        }
        let want = reference_bits::<V>(&joined, total)?;
        classify(&mut head);
        classify(&mut body);
        let mut h = hasher::<V>(b);
        h.update_bits(&head, shift)?;
        h.update(&body[..5]);
        h.update(&body[5..]);
        check(&format!("{shift} bits then bytes"), &h.finalize(), &want)?;
    }
    Ok(())
}

fn squeeze<V: Variant>(b: Available) -> Result<(), Error> {
    let mut m1 = pattern(V::RATE + 3, 71);
    let mut m2 = pattern(V::RATE / 2, 72);
    let (w1, w2) = (reference::<V>(&m1), reference::<V>(&m2));
    classify(&mut m1);
    classify(&mut m2);

    let mut h = hasher::<V>(b);
    h.update(&m1);
    check("finalize_reset", &h.finalize_reset(), &w1)?;
    h.update(&m2);
    check("finalize_reset, reused", &h.finalize_reset(), &w2)?;

    let mut h = hasher::<V>(b);
    Digest::update(&mut h, &m1);
    let mut out = Output::<Pavelor<V>>::default();
    Digest::finalize_into(h, &mut out);
    check("Digest::finalize_into", &out, &w1)?;

    let alg = algorithm::<V>()?;
    let mut h = alg.hasher_with(b);
    h.update(&m2);
    check("DynHasher::finalize", h.finalize().as_bytes(), &w2)
}

fn batch<V: Variant>(b: Available) -> Result<(), Error> {
    let r = V::RATE;
    let lens = [3 * r + 5, 0, r, r - 1, 2 * r + 1, 17];
    for count in 1..=lens.len() {
        let mut msgs: Vec<Vec<u8>> = lens[..count]
            .iter()
            .enumerate()
            .map(|(i, &len)| pattern(len, 300 + i as u64))
            .collect();
        let want: Vec<_> = msgs.iter().map(|m| reference::<V>(m)).collect();
        for m in &mut msgs {
            classify(m);
        }
        let inputs: Vec<&[u8]> = msgs.iter().map(Vec::as_slice).collect();

        let mut out = vec![Output::<Pavelor<V>>::default(); count];
        hash_many_with::<V>(b, &inputs, &mut out)?;
        for (i, (got, want)) in out.iter().zip(&want).enumerate() {
            let secret = !inputs[i].is_empty();
            check_public(&format!("hash_many {i}/{count}"), got, want, secret)?;
        }

        let alg = algorithm::<V>()?;
        let mut flat = vec![0u8; count * V::DIGEST];
        hash_many_dyn_with(alg, b, &inputs, &mut flat)?;
        for (i, (got, want)) in flat.chunks_exact(V::DIGEST).zip(&want).enumerate() {
            let secret = !inputs[i].is_empty();
            check_public(&format!("hash_many_dyn {i}/{count}"), got, want, secret)?;
        }
    }
    Ok(())
}
