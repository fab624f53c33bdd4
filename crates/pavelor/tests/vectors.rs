//! The workspace's test vectors (`test-vectors/pavelor.json`: selected
//! official ICCS answers and edge cases built from them, made by
//! `cargo xtask vectors`) on every backend and through every API: the
//! one-shot and streaming hashers, bit lengths, the dynamic API, the
//! RustCrypto `digest` checks (`digest::dev::fixed_reset_test`: whole,
//! chunked and after reset), the batch API and the 1 MiB fill records of
//! `KAT_2_23`.

#![allow(clippy::unwrap_used, clippy::panic)] // tests may fail loudly

use std::sync::OnceLock;

use pavelor::digest::dev::{TestVector, fixed_reset_test};
use pavelor::{Algorithm, batch};
use serde_json::Value;

mod common;
use common::backends;

/// One official `KAT_2_12` record of one instance.
struct Record {
    alg: Algorithm,
    bits: u64,
    msg: Vec<u8>,
    digest: Vec<u8>,
}

fn file() -> &'static Value {
    static DATA: OnceLock<Value> = OnceLock::new();
    DATA.get_or_init(|| {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../test-vectors/pavelor.json"
        );
        let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
        serde_json::from_str(&text).unwrap()
    })
}

fn key(alg: Algorithm) -> String {
    alg.name().to_ascii_lowercase()
}

fn unhex(v: &Value) -> Vec<u8> {
    hex::decode(v.as_str().unwrap()).unwrap()
}

fn records() -> Vec<Record> {
    let mut out = Vec::new();
    for r in file()["kat_2_12"]["records"].as_array().unwrap() {
        for alg in Algorithm::ALL {
            out.push(Record {
                alg,
                bits: r["bits"].as_u64().unwrap(),
                msg: unhex(&r["msg"]),
                digest: unhex(&r[key(alg)]),
            });
        }
    }
    out
}

/// The fused bit-length one-shot (`Pavelor::<V>::digest_bits_with`).
fn fused_bits(alg: Algorithm, b: pavelor::Available, msg: &[u8], bits: u64) -> Vec<u8> {
    struct Fused<'a>(pavelor::Available, &'a [u8], u64);
    impl pavelor::InstanceFn for Fused<'_> {
        type Output = Vec<u8>;
        fn call<V: pavelor::Variant>(self) -> Vec<u8> {
            pavelor::Pavelor::<V>::digest_bits_with(self.0, self.1, self.2)
                .unwrap()
                .to_vec()
        }
    }
    alg.dispatch(Fused(b, msg, bits))
}

#[test]
fn the_file_covers_every_padding_case() {
    let recs = records();
    assert!(recs.len() >= 3 * 200, "{} records", recs.len());
    for alg in Algorithm::ALL {
        let r = 8 * alg.rate_len() as u64;
        for bits in [
            0,
            1,
            7,
            8,
            r - 2,
            r - 1,
            r,
            r + 1,
            2 * r - 1,
            2 * r,
            4095,
            4096,
        ] {
            assert!(
                recs.iter().any(|x| x.alg == alg && x.bits == bits),
                "{alg}: no record of {bits} bits"
            );
        }
    }
    assert!(!file()["edge_cases"].as_array().unwrap().is_empty());
}

#[test]
fn every_record_on_every_backend() {
    for rec in records() {
        let what = format!("{} {} bits", rec.alg, rec.bits);
        assert_eq!(
            rec.alg.digest_bits(&rec.msg, rec.bits).unwrap().to_vec(),
            rec.digest,
            "digest_bits {what}"
        );
        for b in backends() {
            let mut h = rec.alg.hasher_with(b);
            h.update_bits(&rec.msg, rec.bits).unwrap();
            assert_eq!(h.finalize().to_vec(), rec.digest, "{what} on {b}");
            assert_eq!(
                fused_bits(rec.alg, b, &rec.msg, rec.bits),
                rec.digest,
                "fused one-shot {what} on {b}"
            );
            if rec.bits % 8 == 0 {
                assert_eq!(
                    rec.alg.digest_with(b, &rec.msg).to_vec(),
                    rec.digest,
                    "one-shot {what} on {b}"
                );
            }
        }
    }
}

#[test]
fn edge_cases_on_every_backend() {
    for e in file()["edge_cases"].as_array().unwrap() {
        let alg: Algorithm = e["instance"].as_str().unwrap().parse().unwrap();
        let bits = e["bits"].as_u64().unwrap();
        let (msg, want) = (unhex(&e["msg"]), unhex(&e["digest"]));
        for b in backends() {
            let mut h = alg.hasher_with(b);
            h.update_bits(&msg, bits).unwrap();
            assert_eq!(
                h.finalize().to_vec(),
                want,
                "{alg} {bits} bits on {b}: {}",
                e["case"]
            );
        }
    }
}

#[test]
fn digest_dev_checks_on_byte_records() {
    for rec in records().into_iter().filter(|r| r.bits % 8 == 0) {
        let tv = TestVector {
            input: Box::leak(rec.msg.into_boxed_slice()),
            output: Box::leak(rec.digest.into_boxed_slice()),
        };
        struct DevTest<'a>(&'a TestVector);
        impl pavelor::InstanceFn for DevTest<'_> {
            type Output = Result<(), &'static str>;
            fn call<V: pavelor::Variant>(self) -> Self::Output {
                fixed_reset_test::<pavelor::Pavelor<V>>(self.0)
            }
        }
        let result = rec.alg.dispatch(DevTest(&tv));
        assert_eq!(result, Ok(()), "{} {} bits", rec.alg, rec.bits);
    }
}

#[test]
fn byte_records_through_the_batch_api() {
    let recs: Vec<Record> = records().into_iter().filter(|r| r.bits % 8 == 0).collect();
    for alg in Algorithm::ALL {
        let mine: Vec<&Record> = recs.iter().filter(|r| r.alg == alg).collect();
        let inputs: Vec<&[u8]> = mine.iter().map(|r| r.msg.as_slice()).collect();
        for b in backends() {
            let mut out = vec![0u8; inputs.len() * alg.output_len()];
            batch::hash_many_dyn_with(alg, b, &inputs, &mut out).unwrap();
            for (r, got) in mine.iter().zip(out.chunks(alg.output_len())) {
                assert_eq!(got, r.digest, "{alg} {} bits on {b}", r.bits);
            }
        }
    }
}

#[test]
fn kat_2_23_fills_on_every_backend() {
    for alg in Algorithm::ALL {
        let rec = &file()["kat_2_23"][key(alg)];
        let bytes = (rec["bits"].as_u64().unwrap() / 8) as usize;
        for (fill, byte) in [("zero", 0u8), ("ff", 0xFF)] {
            let msg = vec![byte; bytes];
            let want = unhex(&rec[fill]);
            for b in backends() {
                assert_eq!(
                    alg.digest_with(b, &msg).to_vec(),
                    want,
                    "{alg} {fill} on {b}"
                );
            }
        }
    }
}
