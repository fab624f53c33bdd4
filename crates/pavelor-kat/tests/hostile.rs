//! Hostile KAT files at the library level: truncated records,
//! wrong `Dst_Len`, non-hex digits, huge `Msg_Len`. Each must be an error
//! naming its line, never a panic, and must not allocate more than the
//! input justifies (checked on the process's peak RSS).

#![allow(clippy::unwrap_used, clippy::panic)] // tests may fail loudly

use pavelor::{Algorithm, Available};
use pavelor_kat::Drng;
use pavelor_kat::digests::MAX_LONG_BITS;
use pavelor_kat::format::{FullRecord, LongRecord, Record, parse, write_record};
use pavelor_kat::official::{Report, check_file_bytes};
use pavelor_kat::suite::{KatKind, LOOP_MSG_BITS};

/// This process's peak resident set size (VmHWM), in KiB.
fn peak_rss_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|v| v.parse().ok())
        })
        .unwrap_or(0)
}

/// Runs `f`, returning its result and how much the peak RSS grew (KiB).
/// The crate forbids `unsafe`, so no counting allocator: an attempt to
/// allocate 2^57 bytes would abort the test process outright, and anything
/// large enough to matter that succeeds shows in the high-water mark
/// (parallel tests can only inflate it, never hide a growth).
fn rss_growth<T>(f: impl FnOnce() -> T) -> (T, u64) {
    let before = peak_rss_kib();
    let r = f();
    (r, peak_rss_kib().saturating_sub(before))
}

const DST512: &str = "00000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000";

#[test]
fn malformed_records_are_errors_with_line_numbers() {
    let cases: Vec<(String, usize, &str)> = vec![
        // Truncated at every line of a record.
        ("Msg_Len = 8\n".into(), 2, "unexpected end of file"),
        (
            "Msg_Len = 8\nMsg = 00\n".into(),
            3,
            "unexpected end of file",
        ),
        (
            "Msg_Len = 8\nMsg = 00\nDst_Len = 512\n".into(),
            4,
            "unexpected end of file",
        ),
        (
            format!("Msg_Len = 8\nMsg = 00\nDst_Len = 512\nDst = {DST512}\n"),
            5,
            "unexpected end of file",
        ),
        (
            format!(
                "Msg_Len = 8\nMsg = 00\nDst_Len = 512\nDst = {}",
                &DST512[..60]
            ),
            4,
            "unexpected end of file",
        ),
        // Wrong Dst_Len.
        (
            format!("Msg_Len = 8\nMsg = 00\nDst_Len = 0\nDst = {DST512}\n\n"),
            3,
            "not a digest length",
        ),
        (
            format!("Msg_Len = 8\nMsg = 00\nDst_Len = 2048\nDst = {DST512}\n\n"),
            3,
            "not a digest length",
        ),
        (
            format!("Msg_Len = 8\nMsg = 00\nDst_Len = 1024\nDst = {DST512}\n\n"),
            4,
            "expected 256 for the stated length",
        ),
        (
            format!("Msg_Len = 8\nMsg = 00\nDst_Len = -512\nDst = {DST512}\n\n"),
            3,
            "not a decimal number",
        ),
        // Non-hex.
        (
            format!("Msg_Len = 8\nMsg = 0x\nDst_Len = 512\nDst = {DST512}\n\n"),
            2,
            "not valid hex",
        ),
        (
            format!(
                "Msg_Len = 8\nMsg = 00\nDst_Len = 512\nDst = {}g\n\n",
                &DST512[1..]
            ),
            4,
            "not valid hex",
        ),
        // Huge Msg_Len: refused on the hex length, before decoding.
        (
            format!("Msg_Len = 1152921504606846976\nMsg = 00\nDst_Len = 512\nDst = {DST512}\n\n"),
            2,
            "expected 288230376151711744 for the stated length",
        ),
        (
            format!("Msg_Len = 18446744073709551615\nMsg = 00\nDst_Len = 512\nDst = {DST512}\n\n"),
            2,
            "hex digits",
        ),
        ("Msg_Len = 18446744073709551616\n".into(), 1, "out of range"),
        // Separators and line endings.
        ("Msg_Len=8\n".into(), 1, "expected `Msg_Len = ...`"),
        ("Msg_Len = 8\r\n".into(), 1, "CR LF"),
        (
            format!("Msg_Len = 8\nMsg = 00\nDst_Len = 512\nDst = {DST512}\nx\n"),
            5,
            "expected an empty line",
        ),
        // A long record with a bad excerpt.
        (
            format!(
                "Msg_Len = 64\nMsg_Seed = \nMsg_Exp = 00 .... 00\nDst_Len = 512\nDst = {DST512}\n\n"
            ),
            3,
            "Msg_Exp is not",
        ),
    ];
    for (text, line, needle) in cases {
        let (result, grown) = rss_growth(|| parse(text.as_bytes()));
        let e = result.expect_err(&text);
        assert_eq!(e.line, line, "{text:?}: {e}");
        assert!(e.message.contains(needle), "{text:?}: {e}");
        assert!(grown < 64 * 1024, "{text:?}: peak RSS grew by {grown} KiB");
    }
}

/// Runs the strict verifier (`official::check_file_bytes`, portable
/// backend) on `text` as file `kind` of `alg`.
fn strict(alg: Algorithm, kind: KatKind, text: &[u8]) -> Report {
    let mut imp = Available::portable();
    check_file_bytes(&mut imp, alg, kind, text, &mut |_, _| {})
}

/// Asserts that `report` is a FAIL naming record `record`, with `needle`
/// in its (one-line) text.
fn assert_refused(report: &Report, record: usize, needle: &str) {
    assert!(!report.is_pass(), "{report}");
    let f = report
        .failure
        .as_ref()
        .unwrap_or_else(|| panic!("expected a failure: {report}"));
    assert_eq!(f.record, Some(record), "{report}");
    let shown = report.to_string();
    assert!(shown.contains(&format!("record {record} (")), "{shown}");
    assert!(shown.contains(needle), "expected `{needle}` in {shown}");
}

/// A `Msg_Len = 2^60` long record parses (its message is described, not
/// stored) but the strict verifier refuses it at once, without allocating
/// or hashing.
#[test]
fn huge_long_record_is_refused_by_the_verifier() {
    let text = format!(
        "Msg_Len = 1152921504606846976\nMsg_Seed = {}\nMsg_Exp = 0000000000000000 .... 0000000000000000\nDst_Len = 512\nDst = {DST512}\n\n",
        "AB".repeat(64)
    );
    let recs = parse(text.as_bytes()).unwrap();
    assert_eq!(recs[0].record.msg_len(), 1 << 60);
    let start = std::time::Instant::now();
    let (report, grown) =
        rss_growth(|| strict(Algorithm::Pavelor512, KatKind::Kat2_33, text.as_bytes()));
    assert_refused(&report, 1, "exceeds the verifier's limit");
    assert!(
        report.to_string().contains("Msg_Len = 1152921504606846976"),
        "{report}"
    );
    assert_eq!(report.passed, 0);
    assert!(grown < 64 * 1024, "peak RSS grew by {grown} KiB");
    assert!(start.elapsed().as_secs() < 2);
    const { assert!(MAX_LONG_BITS < 1 << 60) };
}

fn write(records: &[Record]) -> Vec<u8> {
    let mut s = String::new();
    for r in records {
        write_record(&mut s, r);
    }
    s.into_bytes()
}

/// Records of the wrong layout for their file, or a `Dst_Len` of another
/// instance, are verification failures (not panics).
#[test]
fn wrong_layout_and_wrong_instance_fail_verification() {
    let full = format!("Msg_Len = 0\nMsg = \nDst_Len = 512\nDst = {DST512}\n\n");
    // A full record where a long one belongs: refused on its `Msg_Len`,
    // which no full record of a (size-limited) file can have.
    let r = strict(Algorithm::Pavelor512, KatKind::Kat2_23, full.as_bytes());
    assert_refused(
        &r,
        1,
        "Msg_Len is 0, but record 1 of an official KAT_2_23 file has Msg_Len = 8388608",
    );
    // A long record with the right `Msg_Len` where a full one belongs.
    let long = Record::Long(LongRecord {
        msg_len: LOOP_MSG_BITS,
        seed: Vec::new(),
        exp_head: [0; 8],
        exp_tail: [0; 8],
        dst_len: 512,
        dst: vec![0; 64],
    });
    let r = strict(Algorithm::Pavelor512, KatKind::Loop, &write(&[long]));
    assert_refused(&r, 1, "record layout does not belong in a KAT_Loop file");
    // A Pavelor-512 record in a Pavelor-768 file.
    let r = strict(Algorithm::Pavelor768, KatKind::Kat2_12, full.as_bytes());
    assert_refused(
        &r,
        1,
        "Dst_Len is 512, but Pavelor-768 digests have 768 bits",
    );
    // KAT_Loop with a message that is not the DRNG one, and with the DRNG
    // message but a wrong Dst: both refused before the 10^6 iterations.
    let start = std::time::Instant::now();
    let loop_record = |msg: Vec<u8>| {
        Record::Full(FullRecord {
            msg_len: LOOP_MSG_BITS,
            msg,
            dst_len: 512,
            dst: vec![0; 64],
        })
    };
    let zeros = loop_record(vec![0; LOOP_MSG_BITS as usize / 8]);
    let r = strict(Algorithm::Pavelor512, KatKind::Loop, &write(&[zeros]));
    assert_refused(&r, 1, "Msg is not the 8192-bit DRNG message of KAT_Loop");
    let drng_msg = Drng::new(&KatKind::Loop.seed()).generate(LOOP_MSG_BITS);
    let r = strict(
        Algorithm::Pavelor512,
        KatKind::Loop,
        &write(&[loop_record(drng_msg)]),
    );
    assert_refused(&r, 1, "Dst differs from the official answer");
    assert!(start.elapsed().as_secs() < 2);
}

/// Arbitrary bytes never panic the parser (a quick deterministic sweep; the
/// fuzz target `kat_parse` does this at scale).
#[test]
fn garbage_never_panics() {
    let base = format!(
        "Msg_Len = 12\nMsg = ABC0\nDst_Len = 512\nDst = {DST512}\n\nMsg_Len = 64\nMsg_Seed = \nMsg_Exp = FFFFFFFFFFFFFFFF .... FFFFFFFFFFFFFFFF\nDst_Len = 512\nDst = {DST512}\n\n"
    );
    let bytes = base.as_bytes();
    assert!(parse(bytes).is_ok());
    let mut x = 0x2545_f491_4f6c_dd1du64;
    for _ in 0..20_000 {
        let mut v = bytes.to_vec();
        for _ in 0..3 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let i = (x as usize) % v.len();
            match x >> 60 {
                0..=5 => v[i] = (x >> 32) as u8,
                6..=9 => {
                    v.truncate(i);
                }
                10..=12 => v.insert(i, b"0\n =.:"[(x >> 40) as usize % 6]),
                _ => {
                    v.remove(i);
                }
            }
            if v.is_empty() {
                v.push(b'\n');
            }
        }
        let _ = parse(&v);
    }
}
