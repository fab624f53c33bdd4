//! `pavelor sum` over many files at once (worker threads and multi-lane
//! hashing): the digests are those of the `pavelor` crate hashing each file
//! alone, errors are reported per file as for one file, and the output is in
//! argument (or line) order whatever order the files end in.

#![allow(clippy::unwrap_used, clippy::panic)] // tests may fail loudly

mod common;

use std::fs;
use std::path::Path;
use std::process::Command;

use common::{run_measuring_memory, xorshift_bytes};
use pavelor::{Algorithm, Available};

fn pavelor(dir: &Path, args: &[&str]) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_pavelor"));
    cmd.current_dir(dir)
        .env_remove("PAVELOR_BACKEND")
        .arg("sum")
        .args(args);
    cmd
}

struct Run {
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

fn run(dir: &Path, args: &[&str]) -> Run {
    let out = pavelor(dir, args).output().unwrap();
    Run {
        code: out.status.code(),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// Varied bytes (xorshift).
fn bytes(len: usize, seed: u64) -> Vec<u8> {
    xorshift_bytes(len, seed.wrapping_mul(0x9e37_79b9_7f4a_7c15))
}

fn digest(alg: Algorithm, data: &[u8]) -> String {
    format!("{:x}", alg.digest_with(Available::portable(), data))
}

fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .map(|o| o.stdout.starts_with(b"0\n"))
        .unwrap_or(true)
}

/// What one name of the argument list is.
enum Kind {
    Data(Vec<u8>),
    Missing,
    Dir,
    Unreadable,
    /// Opens, then fails to read (EIO).
    ReadError,
}

impl Kind {
    /// The error `pavelor` reports for a name of this kind (none for data).
    fn error(&self) -> Option<&'static str> {
        match self {
            Kind::Data(_) => None,
            Kind::Missing => Some("No such file or directory"),
            Kind::Dir => Some("Is a directory"),
            Kind::Unreadable => Some("Permission denied"),
            Kind::ReadError => Some("Input/output error"),
        }
    }
}

/// A directory of files of many sizes (0 to 3 rate blocks of every
/// instance, around the lane buffer size, a few MiB), with a missing name,
/// a directory and (unless root) an unreadable file mixed in. The first
/// file is the biggest: it ends last, yet is printed first.
fn fixture() -> (tempfile::TempDir, Vec<(String, Kind)>) {
    let dir = tempfile::tempdir().unwrap();
    let mut sizes: Vec<usize> = vec![5 << 20 | 77, 0];
    for rate in [192, 128, 64] {
        for blocks in 0..=3 {
            for delta in [-1i64, 0, 1] {
                let n = (blocks * rate) as i64 + delta;
                if n >= 0 {
                    sizes.push(n as usize);
                }
            }
        }
    }
    sizes.extend([
        1 << 20,
        (1 << 20) + 1,
        (1 << 20) - 1,
        3 << 20 | 5,
        2 << 20,
        65536 * 3 + 7,
    ]);
    // Seeded "random" sizes too.
    let noise = bytes(64, 7);
    sizes.extend(noise.iter().take(24).map(|&b| usize::from(b) * 9 + 3));
    sizes.push(0);
    let mut names = Vec::new();
    for (i, &n) in sizes.iter().enumerate() {
        let name = format!("f{i:03}");
        let data = bytes(n, i as u64 + 1);
        fs::write(dir.path().join(&name), &data).unwrap();
        names.push((name, Kind::Data(data)));
        match i {
            3 => names.push(("no-such-file".into(), Kind::Missing)),
            9 => {
                fs::create_dir(dir.path().join("a-dir")).unwrap();
                names.push(("a-dir".into(), Kind::Dir));
            }
            14 if !is_root() => {
                let p = dir.path().join("locked");
                fs::write(&p, b"secret").unwrap();
                use std::os::unix::fs::PermissionsExt;
                fs::set_permissions(&p, fs::Permissions::from_mode(0o000)).unwrap();
                names.push(("locked".into(), Kind::Unreadable));
            }
            20 if Path::new("/proc/self/mem").exists() => {
                names.push(("/proc/self/mem".into(), Kind::ReadError));
            }
            _ => {}
        }
    }
    (dir, names)
}

fn expected(alg: Algorithm, names: &[(String, Kind)]) -> (String, String) {
    let (mut out, mut err) = (String::new(), String::new());
    for (name, kind) in names {
        match (kind, kind.error()) {
            (Kind::Data(d), _) => out += &format!("{}  {name}\n", digest(alg, d)),
            (_, e) => err += &format!("pavelor: {name}: {}\n", e.unwrap_or_default()),
        }
    }
    (out, err)
}

#[test]
fn many_files_give_single_file_digests_in_order() {
    let (dir, names) = fixture();
    let args: Vec<&str> = names.iter().map(|(n, _)| n.as_str()).collect();
    for alg in Algorithm::ALL {
        let (want_out, want_err) = expected(alg, &names);
        let bits = alg.name().trim_start_matches("Pavelor-");
        for backend in [None, Some("portable")] {
            for jobs in [None, Some("1"), Some("2"), Some("7")] {
                let mut a = vec!["-a", bits];
                if let Some(b) = backend {
                    a.extend(["--backend", b]);
                }
                if let Some(j) = jobs {
                    a.extend(["-j", j]);
                }
                a.extend(&args);
                let r = run(dir.path(), &a);
                assert_eq!(r.code, Some(1), "{a:?}: {}", r.stderr);
                assert_eq!(r.stdout, want_out, "{a:?}");
                assert_eq!(r.stderr, want_err, "{a:?}");
            }
        }
    }
    // Only good files: success; `--jobs` is the long form.
    let good: Vec<&str> = names
        .iter()
        .filter(|(_, k)| matches!(k, Kind::Data(_)))
        .map(|(n, _)| n.as_str())
        .collect();
    let mut a = vec!["--jobs", "3", "--tag"];
    a.extend(&good);
    let r = run(dir.path(), &a);
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    assert_eq!(r.stdout.lines().count(), good.len());
    for ((line, name), (_, kind)) in r
        .stdout
        .lines()
        .zip(&good)
        .zip(names.iter().filter(|(_, k)| matches!(k, Kind::Data(_))))
    {
        let Kind::Data(d) = kind else { unreachable!() };
        assert_eq!(
            line,
            format!(
                "Pavelor-512 ({name}) = {}",
                digest(Algorithm::Pavelor512, d)
            )
        );
    }
}

#[test]
fn the_same_file_many_times() {
    let dir = tempfile::tempdir().unwrap();
    let data = bytes((2 << 20) + 100, 3);
    fs::write(dir.path().join("x"), &data).unwrap();
    let args = vec!["x"; 9];
    let r = run(dir.path(), &args);
    assert_eq!(r.code, Some(0));
    let line = format!("{}  x\n", digest(Algorithm::Pavelor512, &data));
    assert_eq!(r.stdout, line.repeat(9));
}

#[test]
fn check_many_lines_in_order() {
    let (dir, names) = fixture();
    // Lines of every instance, interleaved; some files changed afterwards.
    let mut sums = String::new();
    let mut want = String::new();
    let mut want_err = String::new();
    let (mut failed, mut unreadable, mut bad) = (0, 0, 0);
    for (i, (name, kind)) in names.iter().enumerate() {
        let alg = Algorithm::ALL[i % 3];
        let d = match kind {
            Kind::Data(d) => digest(alg, d),
            _ => "00".repeat(alg.output_len()),
        };
        if i % 3 == 0 {
            sums += &format!("{d}  {name}\n");
        } else {
            sums += &format!("{} ({name}) = {d}\n", alg.name());
        }
        if i % 5 == 4 {
            sums += "not a checksum line\n";
            bad += 1;
        }
        match kind {
            Kind::Data(data) if i % 4 == 1 => {
                let mut changed = data.clone();
                changed.push(b'!');
                fs::write(dir.path().join(name), changed).unwrap();
                want += &format!("{name}: FAILED\n");
                failed += 1;
            }
            Kind::Data(_) => want += &format!("{name}: OK\n"),
            _ => {
                want += &format!("{name}: FAILED open or read\n");
                want_err += &format!("pavelor: {name}: {}\n", kind.error().unwrap_or_default());
                unreadable += 1;
            }
        }
    }
    // Plain lines are Pavelor-512 only with -a 512 (the default).
    fs::write(dir.path().join("SUMS"), &sums).unwrap();
    want_err += &format!("pavelor: WARNING: {bad} lines are improperly formatted\n");
    want_err += &format!("pavelor: WARNING: {unreadable} listed files could not be read\n");
    want_err += &format!("pavelor: WARNING: {failed} computed checksums did NOT match\n");
    for backend in [None, Some("portable")] {
        for jobs in [None, Some("1"), Some("2"), Some("7")] {
            let mut a = vec!["-c", "SUMS"];
            if let Some(b) = backend {
                a.extend(["--backend", b]);
            }
            if let Some(j) = jobs {
                a.extend(["-j", j]);
            }
            let r = run(dir.path(), &a);
            assert_eq!(r.code, Some(1), "{a:?}");
            assert_eq!(r.stdout, want, "{a:?}");
            assert_eq!(r.stderr, want_err, "{a:?}");
        }
    }
}

#[test]
fn bad_jobs_is_a_usage_error() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("a"), b"a").unwrap();
    for bad in [
        &["-j", "0"][..],
        &["-j", "x"],
        &["--jobs", "-1"],
        &["--jobs", ""],
        &["-j"],
    ] {
        let mut a = bad.to_vec();
        a.push("a");
        let r = run(dir.path(), &a);
        assert_eq!(r.code, Some(2), "{a:?}");
        assert_eq!(r.stdout, "", "{a:?}");
    }
    let r = run(dir.path(), &["-j", "1", "a", "a"]);
    assert_eq!(r.code, Some(0));
}

#[test]
fn many_large_files_in_bounded_memory() {
    let dir = tempfile::tempdir().unwrap();
    const LEN: u64 = 64 << 20;
    let names: Vec<String> = (0..16).map(|i| format!("sparse{i:02}")).collect();
    for n in &names {
        fs::File::create(dir.path().join(n))
            .unwrap()
            .set_len(LEN)
            .unwrap();
    }
    let mut h = pavelor::Pavelor512::new();
    let zeros = vec![0u8; 1 << 20];
    for _ in 0..LEN >> 20 {
        h.update(&zeros);
    }
    let want_digest = hex::encode(h.finalize());
    for jobs in ["2", "7"] {
        let mut args = vec!["-j", jobs];
        args.extend(names.iter().map(String::as_str));
        let (out, peak_kib) = run_measuring_memory(pavelor(dir.path(), &args));
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let want: String = names
            .iter()
            .map(|n| format!("{want_digest}  {n}\n"))
            .collect();
        assert_eq!(String::from_utf8_lossy(&out.stdout), want);
        eprintln!("16 x 64 MiB, -j {jobs}: peak RSS {peak_kib} KiB");
        assert!(
            peak_kib > 0 && peak_kib < 64 * 1024,
            "peak RSS {peak_kib} KiB with -j {jobs}"
        );
    }
}
