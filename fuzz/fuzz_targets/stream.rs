//! Streaming API against one-shot and against the portable backend.
//!
//! Input: `[instance, backend, tail bits, chunk seed, message...]`. The
//! message is hashed (a) on the portable backend with one `update_bits`
//! call, (b) on the chosen backend in pseudo-random chunks through
//! `update`/`update_bits`, ending in a partial byte when `tail bits` says
//! so; both must agree. Byte-aligned messages also go through the one-shot
//! and the batch API. The error paths of `update_bits` must leave the hasher
//! unchanged, and bytes after a partial byte must hash as the concatenated
//! bit string (checked against a bit-by-bit model).

#![no_main]

use libfuzzer_sys::fuzz_target;
use pavelor::batch::hash_many_dyn_with;
use pavelor::{Algorithm, Available, DynHasher, Error};

fn portable_bits(alg: Algorithm, msg: &[u8], nbits: u64) -> Vec<u8> {
    let mut h = alg.hasher_with(Available::portable());
    h.update_bits(msg, nbits).expect("nbits fits");
    h.finalize().to_vec()
}

/// The first `a_bits` bits of `a` followed by all bits of `b`, bit by bit.
fn concat_bits(a: &[u8], a_bits: u64, b: &[u8]) -> (Vec<u8>, u64) {
    let total = a_bits + 8 * b.len() as u64;
    let mut out = vec![0u8; total.div_ceil(8) as usize];
    let bit = |x: &[u8], k: u64| (x[(k / 8) as usize] >> (7 - k % 8)) & 1;
    for k in 0..total {
        let v = if k < a_bits {
            bit(a, k)
        } else {
            bit(b, k - a_bits)
        };
        out[(k / 8) as usize] |= v << (7 - k % 8);
    }
    (out, total)
}

fuzz_target!(|data: &[u8]| {
    let [sel_alg, sel_backend, sel_tail, seed, msg @ ..] = data else {
        return;
    };
    let alg = Algorithm::ALL[usize::from(*sel_alg) % Algorithm::ALL.len()];
    let backends: Vec<Available> = Available::all().collect();
    let backend = backends[usize::from(*sel_backend) % backends.len()];
    let tail = u64::from(*sel_tail % 8);
    let (whole, nbits) = if tail == 0 || msg.is_empty() {
        (msg.len(), 8 * msg.len() as u64)
    } else {
        (msg.len() - 1, 8 * (msg.len() as u64 - 1) + tail)
    };
    let want = portable_bits(alg, msg, nbits);

    // Random chunking (sizes up to a bit over two blocks), alternating the
    // two byte entry points.
    let mut h: DynHasher = alg.hasher_with(backend);
    let mut x = u32::from(*seed) | 0x100;
    let mut rest = &msg[..whole];
    let mut use_bits = false;
    while !rest.is_empty() {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        let n = (x as usize % (2 * alg.rate_len() + 2)).min(rest.len());
        let (chunk, tail_rest) = rest.split_at(n);
        if use_bits {
            h.update_bits(chunk, 8 * n as u64).expect("whole bytes");
        } else {
            h.update(chunk);
        }
        use_bits = !use_bits;
        rest = tail_rest;
    }
    // Error paths change nothing.
    assert!(matches!(
        h.update_bits(&[0xff], 9),
        Err(Error::BitLength { .. })
    ));
    if nbits > 8 * whole as u64 {
        h.update_bits(&msg[whole..], tail).expect("partial byte");
        assert_eq!(h.update_bits(&[0xff], 1), Err(Error::AfterPartialByte));
        assert_eq!(h.update_bits(&[], 0), Ok(()));
    }

    // Bytes after a partial byte: the concatenated bit string.
    let mut joined = h.clone();
    let extra = &msg[..msg.len().min(usize::from(*seed % 40))];
    joined.update(extra);
    let (model, model_bits) = concat_bits(msg, nbits, extra);
    assert_eq!(
        joined.finalize().to_vec(),
        portable_bits(alg, &model, model_bits),
        "bytes after {nbits} bits, {alg} on {backend}"
    );

    assert_eq!(
        h.finalize().to_vec(),
        want,
        "{alg} on {backend}, {nbits} bits"
    );

    if nbits % 8 == 0 {
        let one = alg.digest_with(backend, msg);
        assert_eq!(one.to_vec(), want, "one-shot {alg} on {backend}");

        // Batch: the message, a prefix and a suffix.
        let inputs: [&[u8]; 3] = [msg, &msg[..msg.len() / 2], &msg[msg.len() / 3..]];
        let mut out = vec![0u8; 3 * alg.output_len()];
        hash_many_dyn_with(alg, backend, &inputs, &mut out).expect("sizes match");
        for (got, m) in out.chunks_exact(alg.output_len()).zip(inputs) {
            assert_eq!(
                got,
                portable_bits(alg, m, 8 * m.len() as u64),
                "batch {alg} on {backend}"
            );
        }
    }
});
