//! Hostile KAT files at the library level (issue #5): truncated records,
//! wrong `Dst_Len`, non-hex digits, huge `Msg_Len`. Each must be an error
//! naming its line, never a panic, and must not allocate more than the
//! input justifies (checked on the process's peak RSS).

#![allow(clippy::unwrap_used, clippy::panic)] // tests may fail loudly

use pavelor::{Algorithm, Backend};
use pavelor_kat::Drng;
use pavelor_kat::format::{Record, parse};
use pavelor_kat::suite::KatKind;
use pavelor_kat::verify::{MAX_LONG_BITS, check_record};

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

/// A `Msg_Len = 2^60` long record parses (its message is described, not
/// stored) but the verifier refuses it at once, without allocating or
/// hashing.
#[test]
fn huge_long_record_is_refused_by_the_verifier() {
    let text = format!(
        "Msg_Len = 1152921504606846976\nMsg_Seed = {}\nMsg_Exp = 0000000000000000 .... 0000000000000000\nDst_Len = 512\nDst = {DST512}\n\n",
        "AB".repeat(64)
    );
    let recs = parse(text.as_bytes()).unwrap();
    let start = std::time::Instant::now();
    let (result, grown) = rss_growth(|| {
        let mut drng = Drng::new(&KatKind::Kat2_33.seed());
        check_record(
            KatKind::Kat2_33,
            Algorithm::Pavelor512,
            Backend::Portable,
            &recs[0].record,
            &mut drng,
            &mut |_| {},
        )
    });
    let err = result.unwrap_err();
    assert!(err.contains("exceeds the verifier's limit"), "{err}");
    assert!(grown < 64 * 1024, "peak RSS grew by {grown} KiB");
    assert!(start.elapsed().as_secs() < 2);
    const { assert!(MAX_LONG_BITS < 1 << 60) };
}

/// Records of the wrong layout for their file, or a `Dst_Len` of another
/// instance, are verification failures (not panics).
#[test]
fn wrong_layout_and_wrong_instance_fail_verification() {
    let full = format!("Msg_Len = 0\nMsg = \nDst_Len = 512\nDst = {DST512}\n\n");
    let rec: Record = parse(full.as_bytes()).unwrap().remove(0).record;
    let mut drng = Drng::new(&KatKind::Kat2_23.seed());
    let e = check_record(
        KatKind::Kat2_23,
        Algorithm::Pavelor512,
        Backend::Portable,
        &rec,
        &mut drng,
        &mut |_| {},
    )
    .unwrap_err();
    assert!(e.contains("does not belong"), "{e}");
    let e = check_record(
        KatKind::Kat2_12,
        Algorithm::Pavelor768,
        Backend::Portable,
        &rec,
        &mut drng,
        &mut |_| {},
    )
    .unwrap_err();
    assert!(e.contains("Dst_Len is 512"), "{e}");
    // KAT_Loop with a message that is not the DRNG one: refused before the
    // 10^6 iterations.
    let start = std::time::Instant::now();
    let e = check_record(
        KatKind::Loop,
        Algorithm::Pavelor512,
        Backend::Portable,
        &rec,
        &mut drng,
        &mut |_| {},
    )
    .unwrap_err();
    assert!(e.contains("KAT_Loop"), "{e}");
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
