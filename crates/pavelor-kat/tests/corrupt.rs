//! Corrupted official files must FAIL, naming the record: the
//! official text is regenerated from the DRNG and the best backend (and
//! checked against the embedded SHA-256 of the official file first), then
//! cut, reordered, faked or changed. Also: an implementation that is wrong
//! only beyond the stored digest prefix is caught by the manifest, and
//! oversized or unbounded inputs are refused with bounded memory.

#![allow(clippy::unwrap_used, clippy::panic)] // tests may fail loudly

use pavelor::{Algorithm, Available};
use pavelor_kat::Implementation;
use pavelor_kat::embedded::Answers;
use pavelor_kat::format::{self, Record};
use pavelor_kat::implementation::DigestError;
use pavelor_kat::official::{
    MAX_FILE_BYTES_2_12, Report, check_embedded, check_file, check_file_bytes, read_limited,
};
use pavelor_kat::suite::KatKind;
use sha2::{Digest, Sha256};

const ALG: Algorithm = Algorithm::Pavelor512;

/// The official file `kind` of Pavelor-512, as records (regenerated; its
/// SHA-256 equals the embedded one of the official file).
fn official_records(kind: KatKind) -> Vec<Record> {
    let records =
        pavelor_kat::generate::records(kind, ALG, Available::best(), &mut |_, _| {}).unwrap();
    let text = write(&records);
    assert_eq!(
        <[u8; 32]>::from(Sha256::digest(&text)),
        Answers::of(ALG).file_sha256(kind),
        "the regenerated {} is not the official file",
        kind.file_name(ALG)
    );
    records
}

fn write(records: &[Record]) -> Vec<u8> {
    let mut s = String::new();
    for r in records {
        format::write_record(&mut s, r);
    }
    s.into_bytes()
}

fn check(kind: KatKind, text: &[u8]) -> Report {
    let mut imp = Available::best();
    check_file_bytes(&mut imp, ALG, kind, text, &mut |_, _| {})
}

/// Asserts a FAIL at `record` whose message contains `needle`.
fn assert_fails(report: &Report, record: Option<usize>, needle: &str) {
    let f = report
        .failure
        .as_ref()
        .unwrap_or_else(|| panic!("expected a failure: {report}"));
    assert!(!report.is_pass());
    assert_eq!(f.record, record, "{report}");
    let shown = report.to_string();
    assert!(shown.contains(needle), "expected `{needle}` in {shown}");
    assert!(!shown.contains('\n'), "not one line: {shown}");
    eprintln!("{shown}");
}

#[test]
fn kat_2_12_truncated_to_ten_records_fails_at_record_11() {
    let records = official_records(KatKind::Kat2_12);
    let r = check(KatKind::Kat2_12, &write(&records[..10]));
    assert_fails(&r, Some(11), "missing: the file ends after 10 records");
    assert_eq!((r.passed, r.total), (10, 4097));
    assert!(r.to_string().contains("record 11 (Msg_Len = 10)"), "{r}");
}

#[test]
fn kat_2_12_without_its_last_record_fails() {
    let records = official_records(KatKind::Kat2_12);
    let r = check(KatKind::Kat2_12, &write(&records[..4096]));
    assert_fails(&r, Some(4097), "missing");
}

#[test]
fn kat_2_12_with_an_extra_record_fails() {
    let mut records = official_records(KatKind::Kat2_12);
    records.push(records[4096].clone());
    let r = check(KatKind::Kat2_12, &write(&records));
    assert_fails(&r, Some(4098), "extra record");
}

#[test]
fn kat_2_12_changed_digest_fails_naming_the_record() {
    let records = official_records(KatKind::Kat2_12);
    // In the stored prefix: caught against the embedded answer.
    let mut early = records.clone();
    if let Record::Full(r) = &mut early[2999] {
        r.dst[0] ^= 0x01;
    }
    let r = check(KatKind::Kat2_12, &write(&early));
    assert_fails(&r, Some(3000), "Dst differs from the official answer");
    // Beyond the prefix: the implementation disagrees with the file.
    let mut late = records;
    if let Record::Full(r) = &mut late[2999] {
        r.dst[63] ^= 0x80;
    }
    let r = check(KatKind::Kat2_12, &write(&late));
    assert_fails(&r, Some(3000), "Dst mismatch");
    assert!(r.to_string().contains("Msg_Len = 2999"), "{r}");
}

#[test]
fn kat_2_12_message_not_from_the_drng_fails() {
    let mut records = official_records(KatKind::Kat2_12);
    if let Record::Full(r) = &mut records[100] {
        r.msg[0] ^= 0x80;
    }
    let r = check(KatKind::Kat2_12, &write(&records));
    assert_fails(&r, Some(101), "Msg is not the DRNG output");
}

#[test]
fn kat_2_23_duplicated_removed_swapped_records_fail() {
    let records = official_records(KatKind::Kat2_23);
    let mut dup = records.clone();
    dup.insert(1, records[0].clone());
    assert_fails(&check(KatKind::Kat2_23, &write(&dup)), Some(2), "all-0xFF");

    let mut dup_last = records.clone();
    dup_last.push(records[2].clone());
    assert_fails(
        &check(KatKind::Kat2_23, &write(&dup_last)),
        Some(4),
        "extra record",
    );

    for removed in 0..3 {
        let mut less = records.clone();
        less.remove(removed);
        let r = check(KatKind::Kat2_23, &write(&less));
        assert_fails(&r, Some(removed + 1), "");
        assert!(!r.is_pass());
    }

    let mut swapped = records.clone();
    swapped.swap(1, 2);
    assert_fails(
        &check(KatKind::Kat2_23, &write(&swapped)),
        Some(2),
        "Msg_Seed",
    );
    let mut swapped = records;
    swapped.swap(0, 1);
    assert_fails(
        &check(KatKind::Kat2_23, &write(&swapped)),
        Some(1),
        "all-0x00",
    );
}

/// One record of 64 bits with the seed of KAT_2_33 and that message's true
/// digest: self-consistent, but not the official file.
#[test]
fn faked_one_record_kat_2_33_fails_without_hashing_1_gib() {
    let seed = KatKind::Kat2_33.seed();
    let msg = pavelor_kat::Drng::new(&seed).generate(64);
    let dst = Available::best().digest(ALG, &msg, 64).unwrap();
    let mut head = [0u8; 8];
    head.copy_from_slice(&msg);
    let fake = Record::Long(format::LongRecord {
        msg_len: 64,
        seed: seed.to_vec(),
        exp_head: head,
        exp_tail: head,
        dst_len: 512,
        dst,
    });
    let start = std::time::Instant::now();
    let r = check(KatKind::Kat2_33, &write(&[fake]));
    assert_fails(&r, Some(1), "Msg_Len is 64");
    assert!(start.elapsed().as_secs() < 5, "took {:?}", start.elapsed());
}

#[test]
fn kat_loop_with_a_changed_digest_fails_before_looping() {
    let msg = pavelor_kat::Drng::new(&KatKind::Loop.seed()).generate(8192);
    let mut dst = Answers::of(ALG)
        .full_dst(KatKind::Loop, 0)
        .unwrap()
        .to_vec();
    dst[10] ^= 1;
    let rec = Record::Full(format::FullRecord {
        msg_len: 8192,
        msg,
        dst_len: 512,
        dst,
    });
    let r = check(KatKind::Loop, &write(&[rec]));
    assert_fails(&r, Some(1), "Dst differs from the official answer");
}

#[test]
fn non_canonical_layout_fails_with_its_line() {
    let records = official_records(KatKind::Kat2_23);
    let text = String::from_utf8(write(&records)).unwrap();
    // Lower-case hex in the first Dst: it parses, but is not the official layout.
    let (before, after) = text.split_at(text.find("Dst = ").unwrap() + 6);
    let end = after.find('\n').unwrap();
    let lower = format!("{before}{}{}", after[..end].to_lowercase(), &after[end..]);
    assert_ne!(lower, text);
    let r = check(KatKind::Kat2_23, lower.as_bytes());
    assert_fails(&r, Some(1), "record 1 (line 5): not in the official layout");
    // Two empty lines between records.
    let doubled = text.replacen("\n\n", "\n\n\n", 1);
    let r = check(KatKind::Kat2_23, doubled.as_bytes());
    assert!(!r.is_pass(), "{r}");
    assert!(r.to_string().contains("line 7"), "{r}");
}

/// Right in the first 8 bytes of every digest, wrong in the last byte of
/// one: only the strict-form manifest can see it.
struct WrongBeyondPrefix {
    at: u64,
}

impl Implementation for WrongBeyondPrefix {
    fn digest(&mut self, alg: Algorithm, msg: &[u8], nbits: u64) -> Result<Vec<u8>, DigestError> {
        let mut d = Available::best().digest(alg, msg, nbits)?;
        if nbits == self.at
            && let Some(last) = d.last_mut()
        {
            *last ^= 1;
        }
        Ok(d)
    }
}

#[test]
fn implementation_wrong_beyond_the_prefix_fails_the_manifest() {
    let mut imp = WrongBeyondPrefix { at: 1234 };
    let r = check_embedded(&mut imp, ALG, KatKind::Kat2_12, &mut |_, _| {});
    assert_fails(&r, None, "NICCS manifest");
}

/// Wrong in the first byte of one digest: the failure names its record.
struct WrongAt {
    at: u64,
}

impl Implementation for WrongAt {
    fn digest(&mut self, alg: Algorithm, msg: &[u8], nbits: u64) -> Result<Vec<u8>, DigestError> {
        let mut d = Available::best().digest(alg, msg, nbits)?;
        if nbits == self.at {
            d[0] ^= 1;
        }
        Ok(d)
    }
}

#[test]
fn wrong_implementation_fails_naming_the_record() {
    let mut imp = WrongAt { at: 777 };
    let r = check_embedded(&mut imp, ALG, KatKind::Kat2_12, &mut |_, _| {});
    assert_fails(&r, Some(778), "Msg_Len = 777");
    assert_eq!(r.passed, 777);
    // Long messages through the default (collecting) `digest_stream`.
    let mut imp = WrongAt { at: 1 << 23 };
    let r = check_embedded(&mut imp, ALG, KatKind::Kat2_23, &mut |_, _| {});
    assert_fails(&r, Some(1), "Dst differs from the official answer");
    let mut imp = WrongAt { at: 0 };
    let r = check_embedded(&mut imp, ALG, KatKind::Kat2_23, &mut |_, _| {});
    assert!(r.is_pass(), "{r}");
}

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

#[test]
fn oversized_and_unbounded_files_are_refused_with_bounded_memory() {
    let dir = tempfile::tempdir().unwrap();
    let sparse = dir.path().join(KatKind::Kat2_12.file_name(ALG));
    std::fs::File::create(&sparse)
        .unwrap()
        .set_len(1 << 30)
        .unwrap();
    let zero = dir.path().join(KatKind::Kat2_23.file_name(ALG));
    std::os::unix::fs::symlink("/dev/zero", &zero).unwrap();
    let before = peak_rss_kib();
    let mut imp = Available::best();
    let r = check_file(&mut imp, ALG, KatKind::Kat2_12, &sparse, &mut |_, _| {});
    assert_fails(&r, None, "larger than 4194304 bytes");
    // /dev/zero behind a KAT name: refused as not a regular file, unread.
    let r = check_file(&mut imp, ALG, KatKind::Kat2_23, &zero, &mut |_, _| {});
    assert_fails(&r, None, "a character device, not a regular file");
    let e = read_limited(&zero, MAX_FILE_BYTES_2_12)
        .unwrap_err()
        .to_string();
    assert!(e.contains("not a regular file; refused"), "{e}");
    let growth = peak_rss_kib().saturating_sub(before);
    assert!(growth < 64 * 1024, "peak RSS grew by {growth} KiB");
}

#[test]
fn symlink_to_a_regular_file_is_followed() {
    let dir = tempfile::tempdir().unwrap();
    let real = dir.path().join("real.txt");
    std::fs::write(&real, b"abc").unwrap();
    let link = dir.path().join(KatKind::Kat2_23.file_name(ALG));
    std::os::unix::fs::symlink(&real, &link).unwrap();
    assert_eq!(read_limited(&link, 3).unwrap(), b"abc");
    let e = read_limited(&link, 2).unwrap_err().to_string();
    assert!(e.contains("larger than 2 bytes"), "{e}");
    let e = read_limited(dir.path(), 2).unwrap_err().to_string();
    assert!(e.contains("it is a directory, not a regular file"), "{e}");
}

/// A FIFO with no writer under a KAT name fails at once (opening it would
/// block forever). The check runs on a thread with a deadline, so a
/// regression fails the test instead of hanging it.
#[test]
fn fifo_under_a_kat_name_is_refused_without_blocking() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join(KatKind::Kat2_12.file_name(ALG));
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(made.success());
    let link = dir.path().join(KatKind::Kat2_23.file_name(ALG));
    std::os::unix::fs::symlink(&fifo, &link).unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut imp = Available::best();
        let direct = check_file(&mut imp, ALG, KatKind::Kat2_12, &fifo, &mut |_, _| {});
        let linked = check_file(&mut imp, ALG, KatKind::Kat2_23, &link, &mut |_, _| {});
        let _ = tx.send((direct, linked, dir));
    });
    let (direct, linked, _dir) = rx
        .recv_timeout(std::time::Duration::from_secs(20))
        .unwrap_or_else(|_| panic!("check_file blocked on a FIFO"));
    assert_fails(&direct, None, "it is a FIFO, not a regular file; refused");
    assert_fails(&linked, None, "it is a FIFO, not a regular file; refused");
    assert!(
        direct.to_string().contains("KAT_2_12_Pavelor-512.txt"),
        "{direct}"
    );
}
