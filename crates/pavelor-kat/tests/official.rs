//! The official ICCS KAT files in `../shared/kat` (relative to the repository
//! root; `PAVELOR_KAT_DIR` overrides), on every backend this CPU runs.
//!
//! `KAT_Loop` and `KAT_2_33` are `#[ignore]`d: run them with
//! `cargo test --release -p pavelor-kat -- --ignored`.

#![allow(clippy::unwrap_used, clippy::panic)] // tests may fail loudly

use std::io::Write;
use std::path::PathBuf;

use pavelor::{Algorithm, Backend};
use pavelor_kat::format::{self, Located};
use pavelor_kat::suite::KatKind;
use pavelor_kat::verify::{check_file, expected_count};

fn kat_dir() -> PathBuf {
    std::env::var_os("PAVELOR_KAT_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/kat"))
}

fn load(kind: KatKind, alg: Algorithm) -> (Vec<u8>, Vec<Located>) {
    let path = kat_dir().join(kind.file_name(alg));
    let text =
        std::fs::read(&path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    let records = format::parse(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    assert_eq!(records.len(), expected_count(kind), "{}", path.display());
    (text, records)
}

fn backends() -> Vec<Backend> {
    Backend::ALL
        .iter()
        .copied()
        .filter(|b| {
            let ok = b.is_available();
            if !ok {
                // Straight to stderr, past libtest's capture of `eprintln!`:
                // a skipped backend shows in plain `cargo test` output.
                let _ = writeln!(
                    std::io::stderr(),
                    "skipped backend {b}: not supported by this CPU"
                );
            }
            ok
        })
        .collect()
}

fn check(kind: KatKind, backends: &[Backend]) {
    for alg in Algorithm::ALL {
        let (_, records) = load(kind, alg);
        for &backend in backends {
            let report = check_file(kind, alg, backend, &records, &mut |_, _| {});
            assert_eq!(report.failure, None, "{} on {backend}", kind.file_name(alg));
            assert_eq!(report.passed, report.total);
            eprintln!(
                "{} on {backend}: PASS {}/{}",
                kind.file_name(alg),
                report.passed,
                report.total
            );
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
fn writer_reproduces_every_official_file_layout() {
    for kind in KatKind::ALL {
        for alg in Algorithm::ALL {
            let (text, records) = load(kind, alg);
            let mut out = String::new();
            for r in &records {
                format::write_record(&mut out, &r.record);
            }
            assert!(
                out.as_bytes() == text,
                "{} does not round-trip",
                kind.file_name(alg)
            );
        }
    }
}

#[test]
#[ignore = "10^6 hashes per instance: run in release mode"]
fn kat_loop_best_backend() {
    check(KatKind::Loop, &[Backend::best()]);
}

#[test]
#[ignore = "hashes 3 x 1 GiB per instance: run in release mode"]
fn kat_2_33_best_backend() {
    check(KatKind::Kat2_33, &[Backend::best()]);
}

fn generate_matches(kind: KatKind) {
    for alg in Algorithm::ALL {
        let (text, _) = load(kind, alg);
        let generated =
            pavelor_kat::generate::file_text(kind, alg, Backend::best(), &mut |_, _| {})
                .expect("best backend runs");
        assert!(
            generated.as_bytes() == text,
            "generated {} differs from the official file",
            kind.file_name(alg)
        );
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
#[ignore = "10^6 hashes per instance: run in release mode"]
fn generate_kat_loop_byte_identical() {
    generate_matches(KatKind::Loop);
}

#[test]
#[ignore = "hashes 3 x 1 GiB per instance: run in release mode"]
fn generate_kat_2_33_byte_identical() {
    generate_matches(KatKind::Kat2_33);
}
