//! `pavelor kat verify`: with no `--dir` it checks against the
//! official answers built into the binary, from any directory; with
//! `--dir` it is strict, so every corrupted official file FAILs with one
//! line naming the file and the record, exit status 1, bounded memory.
//!
//! The official files are regenerated in a temp dir from the DRNG and the
//! best backend (each checked against the SHA-256 of the official file
//! embedded in pavelor-kat first), so no KAT file is needed.

#![allow(clippy::unwrap_used, clippy::panic)] // tests may fail loudly

use std::fs;
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::Duration;

use pavelor::{Algorithm, Available};
use pavelor_kat::KatKind;
use pavelor_kat::embedded::Answers;
use pavelor_kat::format::{self, Record};
use sha2::{Digest, Sha256};

const BIN: &str = env!("CARGO_BIN_EXE_pavelor");
const ALG: Algorithm = Algorithm::Pavelor512;

fn official_records(kind: KatKind) -> Vec<Record> {
    let records =
        pavelor_kat::generate::records(kind, ALG, Available::best(), &mut |_, _| {}).unwrap();
    assert_eq!(
        <[u8; 32]>::from(Sha256::digest(write(&records))),
        Answers::of(ALG).file_sha256(kind),
        "regenerated {} is not the official file",
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

/// Runs `pavelor` in `/`, polling its peak RSS (VmHWM, KiB) until it exits.
fn pavelor(args: &[&str]) -> (Output, u64) {
    pavelor_within(args, None)
}

/// [`pavelor`], but if `limit` is given and the process has not exited
/// within it, kills it and fails the test (a hang becomes a failure).
fn pavelor_within(args: &[&str], limit: Option<Duration>) -> (Output, u64) {
    let mut child = Command::new(BIN)
        .current_dir("/")
        .env_remove("PAVELOR_BACKEND")
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let status = format!("/proc/{}/status", child.id());
    let drain = |mut r: Box<dyn std::io::Read + Send>| {
        std::thread::spawn(move || {
            let mut v = Vec::new();
            r.read_to_end(&mut v).unwrap();
            v
        })
    };
    let stdout = drain(Box::new(child.stdout.take().unwrap()));
    let stderr = drain(Box::new(child.stderr.take().unwrap()));
    let start = std::time::Instant::now();
    let mut peak = 0u64;
    let exit = loop {
        let kib = fs::read_to_string(&status).ok().and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("VmHWM:"))
                .and_then(|v| v.split_whitespace().next()?.parse::<u64>().ok())
        });
        peak = peak.max(kib.unwrap_or(0));
        if let Some(exit) = child.try_wait().unwrap() {
            break exit;
        }
        if limit.is_some_and(|l| start.elapsed() > l) {
            child.kill().unwrap();
            child.wait().unwrap();
            panic!("pavelor {args:?} did not exit within {limit:?}; killed");
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    let out = Output {
        status: exit,
        stdout: stdout.join().unwrap(),
        stderr: stderr.join().unwrap(),
    };
    (out, peak)
}

/// `kat verify -a 512 --dir DIR` must exit 1 and print, for `kind`'s file,
/// one FAIL line containing every needle, with peak RSS under 64 MiB.
fn assert_dir_fails(dir: &Path, kind: KatKind, extra: &[&str], needles: &[&str]) {
    assert_dir_fails_within(dir, kind, extra, needles, None);
}

/// [`assert_dir_fails`], with `pavelor` killed (and the test failed) if it
/// has not exited within `limit`.
fn assert_dir_fails_within(
    dir: &Path,
    kind: KatKind,
    extra: &[&str],
    needles: &[&str],
    limit: Option<Duration>,
) {
    let mut args = vec!["kat", "verify", "-a", "512", "--dir", dir.to_str().unwrap()];
    args.extend_from_slice(extra);
    let (out, peak_kib) = pavelor_within(&args, limit);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stdout}{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    let name = kind.file_name(ALG);
    let line = stdout
        .lines()
        .find(|l| l.starts_with(&format!("{name}: ")))
        .unwrap_or_else(|| panic!("no line for {name} in\n{stdout}"));
    assert!(line.starts_with(&format!("{name}: FAIL")), "{line}");
    for n in needles {
        assert!(line.contains(n), "expected `{n}` in {line}");
    }
    assert!(peak_kib < 64 * 1024, "{name}: peak RSS {peak_kib} KiB");
    eprintln!("{line} (peak RSS {peak_kib} KiB)");
}

fn dir_with(kind: KatKind, text: &[u8]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join(kind.file_name(ALG)), text).unwrap();
    dir
}

#[test]
fn verify_without_dir_uses_the_embedded_answers_from_any_directory() {
    // KAT_Loop (10^6 hashes) is covered by the release-mode CI run and the
    // ignored library tests; here 2_12 and 2_23 of every instance.
    let (out, _) = pavelor(&["kat", "verify"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}");
    for alg in Algorithm::ALL {
        for (kind, n) in [
            (KatKind::Kat2_12, 4097),
            (KatKind::Kat2_23, 3),
            (KatKind::Loop, 1),
        ] {
            let want = format!("{}: PASS {n}/{n}", kind.file_name(alg));
            assert!(stdout.contains(&want), "expected `{want}` in\n{stdout}");
        }
        let skipped = format!("{}: skipped", KatKind::Kat2_33.file_name(alg));
        assert!(stdout.contains(&skipped), "{stdout}");
    }
    assert!(stdout.contains("embedded official answers"), "{stdout}");
}

#[test]
fn verify_dir_passes_the_official_files_and_fails_missing_ones() {
    let dir = tempfile::tempdir().unwrap();
    for kind in [KatKind::Kat2_12, KatKind::Kat2_23] {
        fs::write(
            dir.path().join(kind.file_name(ALG)),
            write(&official_records(kind)),
        )
        .unwrap();
    }
    let (out, _) = pavelor(&[
        "kat",
        "verify",
        "-a",
        "512",
        "--dir",
        dir.path().to_str().unwrap(),
    ]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(
        stdout.contains("KAT_2_12_Pavelor-512.txt: PASS 4097/4097"),
        "{stdout}"
    );
    assert!(
        stdout.contains("KAT_2_23_Pavelor-512.txt: PASS 3/3"),
        "{stdout}"
    );
    assert!(
        stdout.contains("KAT_Loop_Pavelor-512.txt: FAIL 0/1: cannot read"),
        "{stdout}"
    );
}

#[test]
fn truncated_kat_2_12_fails_naming_record_11() {
    let records = official_records(KatKind::Kat2_12);
    let dir = dir_with(KatKind::Kat2_12, &write(&records[..10]));
    assert_dir_fails(
        dir.path(),
        KatKind::Kat2_12,
        &[],
        &["FAIL 10/4097", "record 11", "missing"],
    );
}

#[test]
fn kat_2_12_without_last_record_fails() {
    let records = official_records(KatKind::Kat2_12);
    let dir = dir_with(KatKind::Kat2_12, &write(&records[..4096]));
    assert_dir_fails(
        dir.path(),
        KatKind::Kat2_12,
        &[],
        &["record 4097", "missing"],
    );
}

#[test]
fn kat_2_12_changed_digest_fails_naming_its_record() {
    let mut records = official_records(KatKind::Kat2_12);
    if let Record::Full(r) = &mut records[1999] {
        r.dst[40] ^= 0x10;
    }
    let dir = dir_with(KatKind::Kat2_12, &write(&records));
    assert_dir_fails(
        dir.path(),
        KatKind::Kat2_12,
        &[],
        &["record 2000", "Msg_Len = 1999", "Dst mismatch"],
    );
}

#[test]
fn kat_2_23_duplicated_removed_swapped_fail() {
    let records = official_records(KatKind::Kat2_23);
    let mut dup = records.clone();
    dup.insert(1, records[1].clone());
    let dir = dir_with(KatKind::Kat2_23, &write(&dup));
    assert_dir_fails(
        dir.path(),
        KatKind::Kat2_23,
        &[],
        &["record 3", "Msg_Seed is empty"],
    );

    let mut removed = records.clone();
    removed.remove(2);
    let dir = dir_with(KatKind::Kat2_23, &write(&removed));
    assert_dir_fails(dir.path(), KatKind::Kat2_23, &[], &["record 3", "missing"]);

    let mut swapped = records;
    swapped.swap(0, 2);
    let dir = dir_with(KatKind::Kat2_23, &write(&swapped));
    assert_dir_fails(dir.path(), KatKind::Kat2_23, &[], &["record 1", "Msg_Seed"]);
}

#[test]
fn faked_one_record_kat_2_33_fails() {
    let seed = KatKind::Kat2_33.seed();
    let msg = pavelor_kat::Drng::new(&seed).generate(64);
    let mut imp = Available::best();
    let dst = pavelor_kat::Implementation::digest(&mut imp, ALG, &msg, 64).unwrap();
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
    let dir = dir_with(KatKind::Kat2_33, &write(&[fake]));
    assert_dir_fails(
        dir.path(),
        KatKind::Kat2_33,
        &["--full"],
        &["FAIL 0/3", "record 1", "Msg_Len is 64"],
    );
}

#[test]
fn oversized_sparse_file_is_refused_unread() {
    let dir = tempfile::tempdir().unwrap();
    fs::File::create(dir.path().join(KatKind::Kat2_12.file_name(ALG)))
        .unwrap()
        .set_len(1 << 30)
        .unwrap();
    assert_dir_fails(
        dir.path(),
        KatKind::Kat2_12,
        &[],
        &["larger than", "refused"],
    );
}

#[test]
fn dev_zero_behind_a_kat_name_is_refused_in_bounded_memory() {
    let dir = tempfile::tempdir().unwrap();
    for kind in [KatKind::Kat2_12, KatKind::Kat2_23] {
        std::os::unix::fs::symlink("/dev/zero", dir.path().join(kind.file_name(ALG))).unwrap();
    }
    // Refused from its metadata, unread, as not a regular file.
    for kind in [KatKind::Kat2_12, KatKind::Kat2_23] {
        assert_dir_fails(
            dir.path(),
            kind,
            &[],
            &["a character device, not a regular file", "refused"],
        );
    }
}

#[test]
fn fifo_behind_a_kat_name_fails_promptly() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join(KatKind::Kat2_12.file_name(ALG));
    nix::unistd::mkfifo(&fifo, nix::sys::stat::Mode::S_IRWXU).unwrap();
    // Also a symbolic link to it under another KAT name.
    std::os::unix::fs::symlink(&fifo, dir.path().join(KatKind::Kat2_23.file_name(ALG))).unwrap();
    // Debug builds check the other (absent) files quickly; a blocked open
    // of the FIFO would never return, so 60 s means a hang.
    for kind in [KatKind::Kat2_12, KatKind::Kat2_23] {
        assert_dir_fails_within(
            dir.path(),
            kind,
            &[],
            &["it is a FIFO, not a regular file", "refused"],
            Some(Duration::from_secs(60)),
        );
    }
}
