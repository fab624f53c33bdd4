//! Every backend against the official answers embedded in the crate (no
//! KAT files needed), the generator against the official files'
//! SHA-256, and the NICCS manifest values, written out here, as a witness
//! of the embedded data independent of both.
//!
//! One test, `embedded_data_equals_shared_kat_requires_shared`, compares the
//! embedded data with the twelve official files in the directory
//! `PAVELOR_KAT_DIR` names, when it is set, and otherwise passes after
//! printing `SKIPPED` to stderr (CI sets it where the files are, and runs
//! `cargo xtask kat-data --check --from` them).
//!
//! `KAT_Loop` and `KAT_2_33` are `#[ignore]`d (`.ci/run` runs them, in
//! the optimised test profile: `cargo test -- --ignored`). What each
//! proves, once:
//!
//! * `kat_loop_best_backend`, `kat_2_33_best_backend`: the checker, with
//!   the fastest backend, passes every record against the embedded answers;
//! * `generate_kat_loop_byte_identical`, `generate_kat_2_33_byte_identical`:
//!   the generator writes the official files byte for byte (their SHA-256
//!   is embedded), and the records read back from what it wrote;
//! * `long_messages_every_backend_agrees`: every other backend gives the
//!   best one's digest on `KAT_2_33`'s three kinds of message, cut to
//!   2^27 + 3 bits (16 MiB: long enough for every buffering path, short
//!   enough for the software backend).

#![allow(clippy::unwrap_used, clippy::panic)] // tests may fail loudly

/// Writes to the process's stderr directly: libtest captures `eprintln!`
/// of passing tests, and a skipped check must be seen in `cargo test` output.
macro_rules! visible {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stderr(), $($arg)*);
    }};
}

use std::io::Write;
use std::path::PathBuf;

use pavelor::{Algorithm, Available, Backend};
use pavelor_kat::embedded::{Answers, Expected, strict_sha256};
use pavelor_kat::format;
use pavelor_kat::official::{check_embedded, check_file, check_file_bytes, record_count};
use pavelor_kat::suite::KatKind;
use sha2::{Digest, Sha256};

/// Every backend this CPU runs; each one it does not is named on stderr.
fn backends() -> Vec<Available> {
    Backend::ALL
        .iter()
        .filter_map(|&b| {
            Available::detect(b)
                .inspect_err(|e| {
                    // Straight to stderr, past libtest's capture of `eprintln!`:
                    // a skipped backend shows in plain `cargo test` output.
                    let _ = writeln!(std::io::stderr(), "skipped backend {b}: {e}");
                })
                .ok()
        })
        .collect()
}

fn check(kind: KatKind, backends: &[Available]) {
    for alg in Algorithm::ALL {
        for &backend in backends {
            let mut imp = backend;
            let report = check_embedded(&mut imp, alg, kind, &mut |_, _| {});
            assert!(report.is_pass(), "{report} on {backend}");
            assert_eq!(report.passed, record_count(kind));
            eprintln!("{report} on {backend} (embedded answers)");
        }
    }
}

#[test]
fn kat_2_12_every_record_every_backend() {
    check(KatKind::Kat2_12, &backends());
}

#[test]
fn kat_2_23_every_record_every_backend() {
    check(KatKind::Kat2_23, &backends());
}

#[test]
#[ignore = "10^6 hashes per instance: run by .ci/run (cargo test -- --ignored)"]
fn kat_loop_best_backend() {
    check(KatKind::Loop, &[Available::best()]);
}

#[test]
#[ignore = "hashes 3 x 1 GiB per instance: run by .ci/run (cargo test -- --ignored)"]
fn kat_2_33_best_backend() {
    check(KatKind::Kat2_33, &[Available::best()]);
}

#[test]
#[ignore = "hashes 3 x 16 MiB per instance and backend: run by .ci/run (cargo test -- --ignored)"]
fn long_messages_every_backend_agrees() {
    use pavelor_kat::digests::long_digest;
    use pavelor_kat::suite::LongSource;

    let nbits = (1u64 << 27) + 3;
    let sources = [
        LongSource::Zeros,
        LongSource::Ones,
        LongSource::Drng(b"long_messages_every_backend_agrees".to_vec()),
    ];
    let best = Available::best();
    let others: Vec<Available> = backends().into_iter().filter(|&b| b != best).collect();
    assert!(
        others.contains(&Available::portable()) || best == Available::portable(),
        "the portable backend is always available"
    );
    for alg in Algorithm::ALL {
        for source in &sources {
            let mut reference = best;
            let want = long_digest(&mut reference, alg, source, nbits, &mut |_| {}).unwrap();
            for &backend in &others {
                let mut imp = backend;
                let got = long_digest(&mut imp, alg, source, nbits, &mut |_| {}).unwrap();
                assert_eq!(
                    got, want,
                    "{alg:?} {source:?}: {backend} differs from {best}"
                );
            }
        }
        eprintln!(
            "{}: {} agree with {best} on 3 messages of {nbits} bits",
            alg.name(),
            others
                .iter()
                .map(|b| b.name())
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
}

/// The NICCS manifest (the strict-form SHA-256 of each official file),
/// written out: the embedded values must be these (a second witness,
/// independent of the KAT files).
#[test]
fn embedded_manifest_equals_published_manifest() {
    let manifest = [
        (
            Algorithm::Pavelor512,
            KatKind::Kat2_12,
            "00c5cde36b8854639b7c47dce75c33e632cadfe85fcc5bbdfdaa91c20e876093",
        ),
        (
            Algorithm::Pavelor512,
            KatKind::Kat2_23,
            "2d0f6d3358ecd518238e58137dbcf87780a0e1882f555d81c049657d9f2ae0f0",
        ),
        (
            Algorithm::Pavelor512,
            KatKind::Kat2_33,
            "1f1728eff610a4660dca109decfddc820f830d3049f19560b385ffe17f745933",
        ),
        (
            Algorithm::Pavelor512,
            KatKind::Loop,
            "741cf1fc5ff4a273db38695a8ad7d5722c0e3610caebd0e6f229391aa0806047",
        ),
        (
            Algorithm::Pavelor768,
            KatKind::Kat2_12,
            "ca0e03125634d25ddd6ab8cbe4a745cc582d6a188577319b53ec58e9145fc350",
        ),
        (
            Algorithm::Pavelor768,
            KatKind::Kat2_23,
            "82c4fc79ba7a174deb564a242f4974884cf57a5cc01329e976b40ef94408d6bd",
        ),
        (
            Algorithm::Pavelor768,
            KatKind::Kat2_33,
            "f8e9645a4707006d2cdf16faa8df5c9dba49a1a628f73e6d20ed289d069dea2e",
        ),
        (
            Algorithm::Pavelor768,
            KatKind::Loop,
            "71aef5f99a940453b1608b11426cc25e9de95af9ca244f535d056e973dd084f0",
        ),
        (
            Algorithm::Pavelor1024,
            KatKind::Kat2_12,
            "3a03f9c49ea59f60db44bbc1c0ec267a3eee07f6f5ea8f2272d1ddc479462f03",
        ),
        (
            Algorithm::Pavelor1024,
            KatKind::Kat2_23,
            "6a58cb1806e4596e035f1d517ce95786234441904bf39b1f48244d5934eedef8",
        ),
        (
            Algorithm::Pavelor1024,
            KatKind::Kat2_33,
            "b31e40e554adba3e3d874e6d58d13aef3cbdec98d6c9ea001c760c582464f836",
        ),
        (
            Algorithm::Pavelor1024,
            KatKind::Loop,
            "7944668e0d60d2643b66302e98c29e9e298495a3ff3b40e5cf9a82a768e50643",
        ),
    ];
    for (alg, kind, hex) in manifest {
        let got = Answers::of(alg).strict_sha256(kind);
        assert_eq!(
            format::encode_hex_upper(&got).to_lowercase(),
            hex,
            "{}",
            kind.file_name(alg)
        );
    }
}

/// `generate` writes each file byte-identical to the official one (its
/// SHA-256 is embedded), and the strict file check accepts the result.
fn generate_matches(kind: KatKind) {
    for alg in Algorithm::ALL {
        let text = pavelor_kat::generate::file_text(kind, alg, Available::best(), &mut |_, _| {})
            .expect("best backend runs");
        let answers = Answers::of(alg);
        assert_eq!(
            <[u8; 32]>::from(Sha256::digest(text.as_bytes())),
            answers.file_sha256(kind),
            "generated {} differs from the official file",
            kind.file_name(alg)
        );
        assert_eq!(strict_sha256(text.as_bytes()), answers.strict_sha256(kind));
        if matches!(kind, KatKind::Kat2_12 | KatKind::Kat2_23) {
            let mut imp = Available::best();
            let report = check_file_bytes(&mut imp, alg, kind, text.as_bytes(), &mut |_, _| {});
            assert!(report.is_pass(), "{report}");
        } else {
            // The long kinds: hashing them again would repeat
            // kat_loop_best_backend / kat_2_33_best_backend, so the records
            // are only read back and compared with the answers.
            let records = format::parse(text.as_bytes()).unwrap();
            assert_eq!(records.len(), record_count(kind));
            for (i, r) in records.iter().enumerate() {
                let dst = r.record.dst();
                match answers.expected(kind, i).unwrap() {
                    Expected::Full(d) => assert_eq!(d, dst, "record {}", i + 1),
                    Expected::Prefix(p) => assert_eq!(p, &dst[..p.len()], "record {}", i + 1),
                }
            }
        }
    }
}

#[test]
fn generate_kat_2_12_byte_identical() {
    generate_matches(KatKind::Kat2_12);
}

#[test]
fn generate_kat_2_23_byte_identical() {
    generate_matches(KatKind::Kat2_23);
}

#[test]
#[ignore = "10^6 hashes per instance: run by .ci/run (cargo test -- --ignored)"]
fn generate_kat_loop_byte_identical() {
    generate_matches(KatKind::Loop);
}

#[test]
#[ignore = "hashes 3 x 1 GiB per instance: run by .ci/run (cargo test -- --ignored)"]
fn generate_kat_2_33_byte_identical() {
    generate_matches(KatKind::Kat2_33);
}

/// The one test that reads the official files (`PAVELOR_KAT_DIR`): every stored byte of the
/// embedded data (both SHA-256 tables, every `KAT_2_12` prefix, every full
/// `Dst`) equals what the official files hold, and each official file passes
/// the strict file check with the portable backend for `KAT_2_12`/`KAT_2_23`
/// (the long ones are covered by the ignored tests above).
#[test]
fn embedded_data_equals_shared_kat_requires_shared() {
    let Some(dir) = std::env::var_os("PAVELOR_KAT_DIR")
        .map(PathBuf::from)
        .filter(|d| d.is_dir())
    else {
        visible!(
            "SKIPPED embedded_data_equals_shared_kat_requires_shared: PAVELOR_KAT_DIR names no \
             directory (the embedded answers were not compared with the official files)"
        );
        return;
    };
    for alg in Algorithm::ALL {
        let answers = Answers::of(alg);
        for kind in KatKind::ALL {
            let path = dir.join(kind.file_name(alg));
            let text = std::fs::read(&path).unwrap();
            assert_eq!(
                <[u8; 32]>::from(Sha256::digest(&text)),
                answers.file_sha256(kind)
            );
            assert_eq!(strict_sha256(&text), answers.strict_sha256(kind));
            let records = format::parse(&text).unwrap();
            assert_eq!(records.len(), record_count(kind), "{}", path.display());
            for (i, r) in records.iter().enumerate() {
                let dst = r.record.dst();
                match answers.expected(kind, i).unwrap() {
                    Expected::Full(d) => assert_eq!(d, dst, "{} record {}", path.display(), i + 1),
                    Expected::Prefix(p) => {
                        assert_eq!(p, &dst[..p.len()], "{} record {}", path.display(), i + 1)
                    }
                }
            }
            if matches!(kind, KatKind::Kat2_12 | KatKind::Kat2_23) {
                let mut imp = Available::portable();
                let report = check_file(&mut imp, alg, kind, &path, &mut |_, _| {});
                assert!(report.is_pass(), "{report}");
            }
        }
    }
    eprintln!(
        "embedded answers equal the 12 official files in {}",
        dir.display()
    );
}
