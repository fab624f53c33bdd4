//! `pavelor sum`, run as the real binary.

mod common;

use std::fs;
use std::path::Path;

use assert_cmd::Command;
use tempfile::TempDir;

const EMPTY_512: &str = "c53578fa7956aad60eeca53d46a2bd1719d8059ad1725f2aa9437b1f40b519f9203437cec8dda146f290ee27d58c6ff214cb7be6aa1d85a94f750f235883fcea";
const ONE_BIT_512: &str = "883fe98de4bd1d52bb74bb3c817e2d2d451668945316d529ac38ad642afd0e70b2c4180f33fa457ba475761311b646f3a060135f0e1e9e6cb2bca01948e6f40f";
const EMPTY_768: &str = "65baf7ffc9d31766c72c90a5f8d42eaa7f3610603eb950275f1da62b1678c3acb64ffebf433102922d26ed79e16398e8ba4e462aed90ce3394ac595eb38fbe0b7ba970d98bf5d87a5cb14ba929163206eed73908220f1ff44f34952e8be7c44a";

/// The command, run in `dir`, with no backend forced by the environment.
fn pavelor(dir: &Path) -> Command {
    let mut cmd = Command::cargo_bin("pavelor").expect("binary is built");
    cmd.current_dir(dir)
        .env_remove("PAVELOR_BACKEND")
        .arg("sum");
    cmd
}

struct Run {
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

fn run(cmd: &mut Command) -> Run {
    let out = cmd.output().expect("command runs");
    Run {
        code: out.status.code(),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

fn run_args(dir: &Path, args: &[&str]) -> Run {
    run(pavelor(dir).args(args))
}

/// A few hundred KiB of varied bytes (xorshift).
fn varied_bytes(len: usize, seed: u64) -> Vec<u8> {
    common::xorshift_bytes(len, seed)
}

/// A temp directory with `empty` (0 bytes), `big` (300 KiB + 7 bytes),
/// `small` ("hello\n").
fn fixture() -> TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    fs::write(dir.path().join("empty"), b"").expect("write");
    fs::write(dir.path().join("big"), varied_bytes(300 * 1024 + 7, 42)).expect("write");
    fs::write(dir.path().join("small"), b"hello\n").expect("write");
    dir
}

/// Writes a line to the real stderr, past libtest's capture of
/// `eprintln!`: a check that did not run shows in plain `cargo test` output.
fn notice(msg: &str) {
    use std::io::Write;
    let _ = writeln!(std::io::stderr().lock(), "{msg}");
}

fn hex_of(line: &str) -> &str {
    line.split_whitespace().next().unwrap_or("")
}

#[test]
fn empty_file_and_empty_hex_give_known_digest() {
    let dir = fixture();
    let r = run_args(dir.path(), &["empty"]);
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    assert_eq!(r.stdout, format!("{EMPTY_512}  empty\n"));
    assert_eq!(r.stderr, "");

    let r = run_args(dir.path(), &["--hex", ""]);
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    assert_eq!(r.stdout, format!("{EMPTY_512}\n"));

    let r = run_args(dir.path(), &["-a", "768", "--hex", ""]);
    assert_eq!(r.stdout, format!("{EMPTY_768}\n"));
    let r = run_args(dir.path(), &["-a", "Pavelor-768", "empty"]);
    assert_eq!(r.stdout, format!("{EMPTY_768}  empty\n"));
}

#[test]
fn stdin_without_file_or_dash() {
    let dir = fixture();
    let r = run(pavelor(dir.path()).write_stdin(""));
    assert_eq!(r.code, Some(0));
    assert_eq!(r.stdout, format!("{EMPTY_512}  -\n"));
    let r = run(pavelor(dir.path()).arg("-").write_stdin(""));
    assert_eq!(r.stdout, format!("{EMPTY_512}  -\n"));
}

#[test]
fn file_and_stdin_agree_for_every_instance() {
    let dir = fixture();
    let data = fs::read(dir.path().join("big")).expect("read");
    let mut seen = Vec::new();
    for (a, hexlen) in [("512", 128), ("768", 192), ("1024", 256)] {
        let f = run_args(dir.path(), &["-a", a, "big"]);
        assert_eq!(f.code, Some(0), "{}", f.stderr);
        let s = run(pavelor(dir.path())
            .args(["-a", a])
            .write_stdin(data.clone()));
        assert_eq!(s.code, Some(0), "{}", s.stderr);
        let digest = hex_of(&f.stdout).to_owned();
        assert_eq!(digest.len(), hexlen);
        assert!(
            digest
                .bytes()
                .all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase())
        );
        assert_eq!(f.stdout, format!("{digest}  big\n"));
        assert_eq!(s.stdout, format!("{digest}  -\n"));
        // The same as the library computes.
        let alg: pavelor::Algorithm = a.parse().expect("instance");
        assert_eq!(digest, format!("{:x}", alg.digest(&data)));
        seen.push(digest);
    }
    assert_ne!(seen[0], seen[1][..128]);
}

/// A single input longer than the part hashed on the main thread (1 MiB)
/// is read on a second thread while the first hashes: file, standard
/// input (a pipe) and `--check` give the library's digest at lengths
/// around the handover and the reader's buffer boundaries.
#[test]
fn single_large_input_read_beside_the_hasher() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mib = 1 << 20;
    for (len, a) in [
        (mib - 1, "512"),
        (mib, "768"),
        (mib + 1, "1024"),
        (mib + 256 * 1024, "512"),
        (7 * mib + 12_345, "768"),
    ] {
        let data = varied_bytes(len, len as u64);
        fs::write(dir.path().join("f"), &data).expect("write");
        let alg: pavelor::Algorithm = a.parse().expect("instance");
        let want = format!("{:x}", alg.digest(&data));
        let f = run_args(dir.path(), &["-a", a, "f"]);
        assert_eq!(
            (f.code, f.stdout.as_str()),
            (Some(0), format!("{want}  f\n").as_str())
        );
        let s = run(pavelor(dir.path()).args(["-a", a]).write_stdin(data));
        assert_eq!(
            (s.code, s.stdout.as_str()),
            (Some(0), format!("{want}  -\n").as_str())
        );
        fs::write(dir.path().join("SUMS"), &f.stdout).expect("write");
        let c = run_args(dir.path(), &["-a", a, "-c", "SUMS"]);
        assert_eq!(
            (c.code, c.stdout.as_str()),
            (Some(0), "f: OK\n"),
            "{}",
            c.stderr
        );
    }
}

#[test]
fn several_files_in_one_call() {
    let dir = fixture();
    let r = run_args(dir.path(), &["empty", "small", "big"]);
    assert_eq!(r.code, Some(0));
    let lines: Vec<&str> = r.stdout.lines().collect();
    assert_eq!(lines.len(), 3);
    assert_eq!(lines[0], format!("{EMPTY_512}  empty"));
    assert!(lines[1].ends_with("  small"));
    assert!(lines[2].ends_with("  big"));
    let one = run_args(dir.path(), &["small"]);
    assert_eq!(format!("{}\n", lines[1]), one.stdout);
}

#[test]
fn tag_format() {
    let dir = fixture();
    let r = run_args(dir.path(), &["--tag", "empty"]);
    assert_eq!(r.code, Some(0));
    assert_eq!(r.stdout, format!("Pavelor-512 (empty) = {EMPTY_512}\n"));
    let r = run_args(dir.path(), &["--tag", "-a", "768", "empty"]);
    assert_eq!(r.stdout, format!("Pavelor-768 (empty) = {EMPTY_768}\n"));
}

#[cfg(unix)]
#[test]
fn names_with_backslash_or_newline_are_escaped_and_checked() {
    let dir = fixture();
    fs::write(dir.path().join("a\\b"), b"").expect("write");
    fs::write(dir.path().join("n\nl"), b"").expect("write");
    let r = run_args(dir.path(), &["a\\b", "n\nl"]);
    assert_eq!(
        r.stdout,
        format!("\\{EMPTY_512}  a\\\\b\n\\{EMPTY_512}  n\\nl\n")
    );
    fs::write(dir.path().join("sums"), &r.stdout).expect("write");
    let t = run_args(dir.path(), &["--tag", "a\\b"]);
    assert_eq!(t.stdout, format!("\\Pavelor-512 (a\\\\b) = {EMPTY_512}\n"));
    fs::write(dir.path().join("tags"), &t.stdout).expect("write");

    let c = run_args(dir.path(), &["-c", "sums", "tags"]);
    assert_eq!(c.code, Some(0), "{}", c.stderr);
    assert_eq!(c.stdout, "\\a\\\\b: OK\n\\n\\nl: OK\n\\a\\\\b: OK\n");
}

#[test]
fn check_passes_on_own_output() {
    let dir = fixture();
    let plain = run_args(dir.path(), &["empty", "small", "big"]);
    fs::write(dir.path().join("sums.txt"), &plain.stdout).expect("write");
    let r = run_args(dir.path(), &["-c", "sums.txt"]);
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    assert_eq!(r.stdout, "empty: OK\nsmall: OK\nbig: OK\n");
    assert_eq!(r.stderr, "");

    // Sums file on stdin, binary marker, upper-case hex.
    let marked: String = plain
        .stdout
        .lines()
        .map(|l| {
            let (hex, name) = l.split_once("  ").expect("two spaces");
            let mark = if name == "small" { " *" } else { "  " };
            format!("{}{mark}{name}\n", hex.to_uppercase())
        })
        .collect();
    assert!(marked.contains(" *small\n"));
    let r = run(pavelor(dir.path()).arg("--check").write_stdin(marked));
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    assert_eq!(r.stdout, "empty: OK\nsmall: OK\nbig: OK\n");

    // Tag lines of mixed instances, whatever -a says.
    let mut tags = String::new();
    for (a, f) in [("512", "empty"), ("768", "small"), ("1024", "big")] {
        tags += &run_args(dir.path(), &["--tag", "-a", a, f]).stdout;
    }
    fs::write(dir.path().join("tags.txt"), &tags).expect("write");
    for a in ["512", "1024"] {
        let r = run_args(dir.path(), &["-a", a, "-c", "tags.txt"]);
        assert_eq!(r.code, Some(0), "{}", r.stderr);
        assert_eq!(r.stdout, "empty: OK\nsmall: OK\nbig: OK\n");
    }

    // Plain lines use -a.
    let p768 = run_args(dir.path(), &["-a", "768", "small"]);
    fs::write(dir.path().join("s768"), &p768.stdout).expect("write");
    let r = run_args(dir.path(), &["-a", "768", "-c", "s768"]);
    assert_eq!((r.code, r.stdout.as_str()), (Some(0), "small: OK\n"));
    let r = run_args(dir.path(), &["-c", "s768"]);
    assert_eq!(r.code, Some(1));
    assert_eq!(
        r.stderr,
        "pavelor: s768: no properly formatted checksum lines found\n"
    );
}

#[test]
fn check_fails_after_modification() {
    let dir = fixture();
    let sums = run_args(dir.path(), &["small", "empty"]).stdout;
    fs::write(dir.path().join("sums"), &sums).expect("write");
    fs::write(dir.path().join("small"), b"hellO\n").expect("write");
    let r = run_args(dir.path(), &["-c", "sums"]);
    assert_eq!(r.code, Some(1));
    assert_eq!(r.stdout, "small: FAILED\nempty: OK\n");
    assert_eq!(
        r.stderr,
        "pavelor: WARNING: 1 computed checksum did NOT match\n"
    );

    let r = run_args(dir.path(), &["-c", "--quiet", "sums"]);
    assert_eq!(r.code, Some(1));
    assert_eq!(r.stdout, "small: FAILED\n");

    let r = run_args(dir.path(), &["-c", "--status", "sums"]);
    assert_eq!(
        (r.code, r.stdout.as_str(), r.stderr.as_str()),
        (Some(1), "", "")
    );

    let two = run_args(dir.path(), &["big", "small"]).stdout;
    fs::write(dir.path().join("big"), b"").expect("write");
    fs::write(dir.path().join("small"), b"").expect("write");
    fs::write(dir.path().join("two"), two).expect("write");
    let r = run_args(dir.path(), &["-c", "two"]);
    assert_eq!(r.stdout, "big: FAILED\nsmall: FAILED\n");
    assert_eq!(
        r.stderr,
        "pavelor: WARNING: 2 computed checksums did NOT match\n"
    );
}

#[test]
fn quiet_and_status_on_success() {
    let dir = fixture();
    let sums = run_args(dir.path(), &["small", "empty"]).stdout;
    fs::write(dir.path().join("sums"), &sums).expect("write");
    let r = run_args(dir.path(), &["-c", "--quiet", "sums"]);
    assert_eq!(
        (r.code, r.stdout.as_str(), r.stderr.as_str()),
        (Some(0), "", "")
    );
    let r = run_args(dir.path(), &["-c", "--status", "sums"]);
    assert_eq!(
        (r.code, r.stdout.as_str(), r.stderr.as_str()),
        (Some(0), "", "")
    );
}

#[test]
fn check_with_missing_file() {
    let dir = fixture();
    let sums = format!("{EMPTY_512}  nosuch\n{EMPTY_512}  empty\n");
    fs::write(dir.path().join("sums"), sums).expect("write");
    let r = run_args(dir.path(), &["-c", "sums"]);
    assert_eq!(r.code, Some(1));
    assert_eq!(r.stdout, "nosuch: FAILED open or read\nempty: OK\n");
    assert_eq!(
        r.stderr,
        "pavelor: nosuch: No such file or directory\npavelor: WARNING: 1 listed file could not be read\n"
    );

    // The sums file itself is missing.
    let r = run_args(dir.path(), &["-c", "nosums", "sums"]);
    assert_eq!(r.code, Some(1));
    assert!(
        r.stderr
            .starts_with("pavelor: nosums: No such file or directory\n"),
        "{}",
        r.stderr
    );
    assert_eq!(r.stdout, "nosuch: FAILED open or read\nempty: OK\n");
}

#[test]
fn check_improperly_formatted_lines() {
    let dir = fixture();
    fs::write(dir.path().join("bad"), "not a checksum\nabc  empty\n").expect("write");
    let r = run_args(dir.path(), &["-c", "bad"]);
    assert_eq!(r.code, Some(1));
    assert_eq!(r.stdout, "");
    assert_eq!(
        r.stderr,
        "pavelor: bad: no properly formatted checksum lines found\n"
    );

    let mixed = format!("{EMPTY_512}  empty\nnot a checksum\n{EMPTY_512}\n");
    fs::write(dir.path().join("mixed"), mixed).expect("write");
    let r = run_args(dir.path(), &["-c", "mixed"]);
    assert_eq!(r.code, Some(0));
    assert_eq!(r.stdout, "empty: OK\n");
    assert_eq!(
        r.stderr,
        "pavelor: WARNING: 2 lines are improperly formatted\n"
    );

    let r = run_args(dir.path(), &["-c", "--strict", "mixed"]);
    assert_eq!(r.code, Some(1));
    assert_eq!(r.stdout, "empty: OK\n");

    let r = run_args(dir.path(), &["-c", "--warn", "mixed"]);
    assert_eq!(r.code, Some(0));
    assert_eq!(
        r.stderr,
        "pavelor: mixed: 2: improperly formatted Pavelor checksum line\n\
         pavelor: mixed: 3: improperly formatted Pavelor checksum line\n\
         pavelor: WARNING: 2 lines are improperly formatted\n"
    );
    let r = run(pavelor(dir.path())
        .args(["-c", "-w"])
        .write_stdin(fs::read(dir.path().join("mixed")).expect("read")));
    assert!(
        r.stderr
            .starts_with("pavelor: standard input: 2: improperly"),
        "{}",
        r.stderr
    );
}

#[test]
fn check_crlf_lines() {
    let dir = fixture();
    let sums = run_args(dir.path(), &["empty", "small"])
        .stdout
        .replace('\n', "\r\n");
    let tags = run_args(dir.path(), &["--tag", "big"])
        .stdout
        .replace('\n', "\r\n");
    fs::write(dir.path().join("crlf"), sums + &tags).expect("write");
    let r = run_args(dir.path(), &["-c", "--strict", "crlf"]);
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    assert_eq!(r.stdout, "empty: OK\nsmall: OK\nbig: OK\n");
    assert_eq!(r.stderr, "");
}

#[test]
fn check_binary_garbage_and_long_lines() {
    let dir = fixture();
    fs::write(dir.path().join("garbage"), varied_bytes(200_000, 7)).expect("write");
    let r = run_args(dir.path(), &["-c", "garbage"]);
    assert_eq!(r.code, Some(1));
    assert_eq!(
        r.stderr,
        "pavelor: garbage: no properly formatted checksum lines found\n"
    );

    // A 3 MiB line, then a good one.
    let mut long = vec![b'a'; 3 << 20];
    long.extend_from_slice(format!("\n{EMPTY_512}  empty\n").as_bytes());
    fs::write(dir.path().join("long"), long).expect("write");
    let r = run_args(dir.path(), &["-c", "long"]);
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    assert_eq!(r.stdout, "empty: OK\n");
    assert_eq!(
        r.stderr,
        "pavelor: WARNING: 1 line is improperly formatted\n"
    );
}

#[test]
fn check_only_flags_need_check() {
    let dir = fixture();
    for flag in ["--quiet", "--status", "--strict", "--warn", "-w"] {
        let r = run_args(dir.path(), &[flag, "empty"]);
        assert_eq!(r.code, Some(2), "{flag}");
        assert_eq!(r.stdout, "");
    }
    let r = run_args(dir.path(), &["--tag", "-c", "empty"]);
    assert_eq!(r.code, Some(2));
}

#[test]
fn hex_and_bits() {
    let dir = fixture();
    let one = run_args(dir.path(), &["--hex", "80", "--bits", "1"]);
    assert_eq!(one.code, Some(0));
    assert_eq!(one.stdout, format!("{ONE_BIT_512}\n"));
    assert_eq!(one.stderr, "");
    // Only the top bit counts; odd-length hex ends in a half byte.
    for hex in ["ff", "8", "F", "c0"] {
        let r = run_args(dir.path(), &["--hex", hex, "--bits", "1"]);
        assert_eq!(r.stdout, one.stdout, "{hex}");
    }
    // "abc" is 12 bits: the same as "abc0" cut to 12 bits.
    let odd = run_args(dir.path(), &["--hex", "abc"]);
    let cut = run_args(dir.path(), &["--hex", "abc0", "--bits", "12"]);
    assert_eq!(odd.code, Some(0));
    assert_eq!(odd.stdout, cut.stdout);
    assert_ne!(odd.stdout, run_args(dir.path(), &["--hex", "abc0"]).stdout);
    // Whole bytes: the same as the file.
    let file = run_args(dir.path(), &["small"]);
    let hex = run_args(dir.path(), &["--hex", "68656C6C6F0a"]);
    assert_eq!(hex.stdout.trim_end(), hex_of(&file.stdout));
    // --bits 0 is the empty message.
    let r = run_args(dir.path(), &["--hex", "ff", "--bits", "0"]);
    assert_eq!(r.stdout, format!("{EMPTY_512}\n"));
}

#[test]
fn hex_errors() {
    let dir = fixture();
    let r = run_args(dir.path(), &["--hex", "80", "--bits", "9"]);
    assert_eq!(r.code, Some(1));
    assert_eq!(r.stdout, "");
    assert_eq!(
        r.stderr,
        "pavelor: --bits 9: more than the 8 bits that --hex gives\n"
    );
    let r = run_args(dir.path(), &["--hex", "", "--bits", "1"]);
    assert_eq!(r.code, Some(1));
    assert_eq!(r.stdout, "");

    let r = run_args(dir.path(), &["--hex", "12zz"]);
    assert_eq!(r.code, Some(1));
    assert_eq!(r.stdout, "");
    assert_eq!(
        r.stderr,
        "pavelor: --hex: invalid hex digit 'z' at position 3\n"
    );

    // Usage errors.
    for args in [
        &["--bits", "3"][..],
        &["--hex", "00", "empty"],
        &["--hex", "00", "-c"],
        &["--hex", "00", "--tag"],
        &["--hex", "00", "--bits", "x"],
    ] {
        let r = run_args(dir.path(), args);
        assert_eq!(r.code, Some(2), "{args:?}");
        assert_eq!(r.stdout, "");
    }
}

#[test]
fn bad_inputs_among_good_ones() {
    let dir = fixture();
    fs::create_dir(dir.path().join("somedir")).expect("mkdir");
    let r = run_args(dir.path(), &["empty", "nosuch.txt", "somedir", "small"]);
    assert_eq!(r.code, Some(1));
    let good = run_args(dir.path(), &["empty", "small"]);
    assert_eq!(r.stdout, good.stdout);
    assert_eq!(
        r.stderr,
        "pavelor: nosuch.txt: No such file or directory\npavelor: somedir: Is a directory\n"
    );
}

#[cfg(unix)]
#[test]
fn unreadable_stdin() {
    let dir = fixture();
    let d = fs::File::open(dir.path()).expect("open dir");
    let out = std::process::Command::new(assert_cmd::cargo::cargo_bin("pavelor"))
        .env_remove("PAVELOR_BACKEND")
        .args(["sum", "-", "-"])
        .stdin(d)
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(out.stdout, b"");
    assert_eq!(
        out.stderr,
        b"pavelor: -: Is a directory\npavelor: -: Is a directory\n"
    );
}

#[test]
fn bad_algorithm_is_a_usage_error() {
    let dir = fixture();
    let r = run_args(dir.path(), &["-a", "256", "empty"]);
    assert_eq!(r.code, Some(2));
    assert_eq!(r.stdout, "");
    let r = run_args(dir.path(), &["-a", "x", "-c", "sums"]);
    assert_ne!(r.code, Some(0));
}

#[test]
fn backends_agree() {
    let dir = fixture();
    let args = ["empty", "small", "big"];
    let portable = run(pavelor(dir.path())
        .args(["--backend", "portable"])
        .args(args));
    assert_eq!(portable.code, Some(0), "{}", portable.stderr);
    let default = run_args(dir.path(), &args);
    assert_eq!(portable.stdout, default.stdout);
    let env = run(pavelor(dir.path())
        .env("PAVELOR_BACKEND", "portable")
        .args(args));
    assert_eq!(env.stdout, default.stdout);

    let aesni = run(pavelor(dir.path()).args(["--backend", "aesni"]).args(args));
    if pavelor::Available::detect(pavelor::Backend::AesNi).is_ok() {
        assert_eq!(aesni.code, Some(0), "{}", aesni.stderr);
        assert_eq!(aesni.stdout, portable.stdout);
        let bits =
            run(pavelor(dir.path()).args(["--backend", "aesni", "--hex", "80", "--bits", "1"]));
        assert_eq!(bits.stdout, format!("{ONE_BIT_512}\n"));
    } else {
        notice("skipping the aesni comparison: this CPU has no AES-NI");
        assert_eq!(aesni.code, Some(1));
        assert_eq!(aesni.stdout, "");
        assert_eq!(
            aesni.stderr,
            "pavelor: backend 'aesni' is not supported by this CPU\n"
        );
    }
}

#[test]
fn unknown_backend_is_an_error() {
    let dir = fixture();
    let r = run_args(dir.path(), &["--backend", "nope", "empty"]);
    assert_eq!(r.code, Some(2));
    assert_eq!(r.stdout, "");
    assert!(r.stderr.contains("invalid value 'nope'"), "{}", r.stderr);
    // The usage error lists every backend name this build knows.
    for b in pavelor::Backend::ALL {
        assert!(r.stderr.contains(b.name()), "{}: {}", b.name(), r.stderr);
    }
    let r = run(pavelor(dir.path())
        .env("PAVELOR_BACKEND", "nope")
        .arg("empty"));
    assert_eq!(r.code, Some(2));
    assert_eq!(r.stdout, "");
    // The core's one message for an unknown name, after the variable and
    // its value; it lists every backend name too.
    assert!(
        r.stderr
            .starts_with("pavelor: PAVELOR_BACKEND='nope': unknown backend (expected one of: "),
        "{}",
        r.stderr
    );
    for b in pavelor::Backend::ALL {
        assert!(r.stderr.contains(b.name()), "{}: {}", b.name(), r.stderr);
    }
}

/// One rule for `PAVELOR_BACKEND` in every subcommand: empty means unset;
/// a bad name is a usage error everywhere.
#[test]
fn empty_backend_env_is_unset_everywhere() {
    let dir = fixture();
    let r = run(pavelor(dir.path()).env("PAVELOR_BACKEND", "").arg("empty"));
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    assert_eq!(r.stdout, format!("{EMPTY_512}  empty\n"));

    let bin = assert_cmd::cargo::cargo_bin("pavelor");
    let run_env = |value: &str, args: &[&str]| {
        let out = std::process::Command::new(&bin)
            .current_dir(dir.path())
            .env("PAVELOR_BACKEND", value)
            .args(args)
            .output()
            .expect("run");
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    // `kat verify` on a directory without files: FAIL lines, but the
    // backend line shows what was chosen.
    let best = pavelor::Available::best();
    let (code, stdout, stderr) = run_env("", &["kat", "verify", "-a", "512", "--dir", "nowhere"]);
    assert_eq!(code, Some(1), "{stderr}");
    assert!(stdout.contains(&format!("backend {best})")), "{stdout}");
    assert!(!stderr.contains("PAVELOR_BACKEND"), "{stderr}");
    let (_, stdout, _) = run_env(
        "portable",
        &["kat", "verify", "-a", "512", "--dir", "nowhere"],
    );
    assert!(stdout.contains("backend portable)"), "{stdout}");

    let bench = ["bench", "--json", "--sizes", "32", "--seconds", "0.001"];
    let mut commands: Vec<&[&str]> = vec![&["kat", "verify", "-a", "512"], &["sum", "empty"]];
    if cfg!(feature = "measure") {
        let (code, stdout, stderr) = run_env("", &bench);
        assert_eq!(code, Some(0), "{stderr}");
        assert!(stdout.trim_start().starts_with('{'), "{stdout}");
        commands.push(&bench);
    }
    for args in commands {
        let (code, stdout, stderr) = run_env("nope", args);
        assert_eq!(code, Some(2), "{args:?}: {stderr}");
        assert_eq!(stdout, "", "{args:?}");
        assert!(
            stderr.contains("PAVELOR_BACKEND='nope': unknown backend"),
            "{args:?}: {stderr}"
        );
    }
}

#[test]
fn backend_help_lists_every_backend() {
    let dir = fixture();
    let r = run_args(dir.path(), &["--help"]);
    assert_eq!(r.code, Some(0));
    let line = r
        .stdout
        .lines()
        .skip_while(|l| !l.contains("--backend"))
        .take_while(|l| !l.trim_start().starts_with("--tag"))
        .collect::<String>();
    for b in pavelor::Backend::ALL {
        assert!(line.contains(b.name()), "{}: {line}", b.name());
    }
    let kat = run(Command::cargo_bin("pavelor")
        .expect("binary")
        .args(["kat", "verify", "--help"]));
    for b in pavelor::Backend::ALL {
        assert!(
            kat.stdout.contains(b.name()),
            "{}: {}",
            b.name(),
            kat.stdout
        );
    }
}

#[cfg(unix)]
#[test]
fn broken_pipe_does_not_panic() {
    use std::io::Read;
    use std::process::{Command as StdCommand, Stdio};

    let dir = fixture();
    let bin = assert_cmd::cargo::cargo_bin("pavelor");
    // Many lines, and the reader goes away after the first bytes.
    let mut child = StdCommand::new(bin)
        .current_dir(dir.path())
        .env_remove("PAVELOR_BACKEND")
        .arg("sum")
        .args(std::iter::repeat_n("empty", 20_000))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    let mut stdout = child.stdout.take().expect("stdout");
    let mut first = [0u8; 16];
    stdout.read_exact(&mut first).expect("read");
    drop(stdout);
    let out = child.wait_with_output().expect("wait");
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
}

// ---- GNU coreutils compatibility: CR in names, --zero, --ignore-missing,
// --binary/--text. Expected bytes are written out here; where GNU
// `sha512sum` is installed, the same scenario is also run through it and
// the outputs compared (digests and tool names normalised).

/// `sha512sum` or `pavelor sum`.
#[derive(Clone, Copy, Debug)]
enum Tool {
    Gnu,
    Pavelor,
}

fn gnu_available() -> bool {
    std::process::Command::new("sha512sum")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// Runs the tool in `dir`; returns (exit code, stdout bytes, stderr).
fn tool_run(tool: Tool, dir: &Path, args: &[&str]) -> (Option<i32>, Vec<u8>, String) {
    let mut cmd = match tool {
        Tool::Gnu => std::process::Command::new("sha512sum"),
        Tool::Pavelor => {
            let mut c = std::process::Command::new(assert_cmd::cargo::cargo_bin("pavelor"));
            c.env_remove("PAVELOR_BACKEND").arg("sum");
            c
        }
    };
    let out = cmd
        .current_dir(dir)
        .env("LC_ALL", "C")
        .args(args)
        .stdin(std::process::Stdio::null())
        .output()
        .expect("run");
    (
        out.status.code(),
        out.stdout,
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Replaces every run of exactly 128 hex digits by `<D>`, GNU's tag and
/// program name by ours.
fn normalise(bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let run = bytes[i..]
            .iter()
            .take_while(|b| b.is_ascii_hexdigit())
            .count();
        if run == 128 {
            out.extend_from_slice(b"<D>");
            i += run;
        } else if run > 0 {
            out.extend_from_slice(&bytes[i..i + run]);
            i += run;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8_lossy(&out)
        .replace("SHA512 (", "Pavelor-512 (")
        .replace("sha512sum: ", "pavelor: ")
        .into_bytes()
}

/// Runs `args` with both tools (when GNU is installed) and checks they
/// agree after normalisation; returns pavelor's result.
fn like_gnu(dir: &Path, args: &[&str]) -> (Option<i32>, Vec<u8>, String) {
    let ours = tool_run(Tool::Pavelor, dir, args);
    if gnu_available() {
        let gnu = tool_run(Tool::Gnu, dir, args);
        assert_eq!(
            ours.0, gnu.0,
            "{args:?}: exit code; ours: {}\ngnu: {}",
            ours.2, gnu.2
        );
        assert_eq!(
            String::from_utf8_lossy(&normalise(&ours.1)),
            String::from_utf8_lossy(&normalise(&gnu.1)),
            "{args:?}: stdout"
        );
        assert_eq!(
            String::from_utf8_lossy(&normalise(ours.2.as_bytes())),
            String::from_utf8_lossy(&normalise(gnu.2.as_bytes())),
            "{args:?}: stderr"
        );
    } else {
        notice(&format!(
            "NOTE: sha512sum not installed: {args:?} checked against the literal expectations only"
        ));
    }
    ours
}

/// Writes `TOOL-ARGS`'s stdout to `dir/name`, for each tool (`name.gnu`,
/// `name.pavelor`): sums files in each tool's own digests.
fn sums_file(tool: Tool, dir: &Path, name: &str, args: &[&str], extra: &[u8]) {
    let (code, mut out, err) = tool_run(tool, dir, args);
    assert_eq!(code, Some(0), "{tool:?} {args:?}: {err}");
    out.extend_from_slice(extra);
    fs::write(dir.join(name), out).expect("write sums");
}

#[cfg(unix)]
#[test]
fn carriage_return_in_a_name_is_escaped_and_checked() {
    let dir = fixture();
    let p = dir.path();
    // `f\r` and `f` hold different bytes: checking the wrong one fails.
    fs::write(p.join("f\r"), b"with CR").expect("write");
    fs::write(p.join("f"), b"").expect("write");
    let want_cr = format!("{:x}", pavelor::Algorithm::Pavelor512.digest(b"with CR"));

    let (code, out, _) = like_gnu(p, &["f\r"]);
    assert_eq!(code, Some(0));
    assert_eq!(out, format!("\\{want_cr}  f\\r\n").into_bytes());
    let (_, out, _) = like_gnu(p, &["--tag", "f\r"]);
    assert_eq!(
        out,
        format!("\\Pavelor-512 (f\\r) = {want_cr}\n").into_bytes()
    );

    // --check reads the escape back and checks `f\r`, not `f`.
    let r = run(pavelor(p).args(["f\r"]));
    fs::write(p.join("SUMS"), &r.stdout).expect("write");
    let r = run_args(p, &["--check", "SUMS"]);
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    assert_eq!(r.stdout, "\\f\\r: OK\n");
    let r = run(pavelor(p).args(["--tag", "f\r"]));
    fs::write(p.join("SUMS"), &r.stdout).expect("write");
    let r = run_args(p, &["--check", "SUMS"]);
    assert_eq!(r.code, Some(0), "{}", r.stderr);

    // A genuine CR LF line still names `f` (its CR is a line end).
    fs::write(p.join("SUMS"), format!("{EMPTY_512}  f\r\n")).expect("write");
    let r = run_args(p, &["--check", "SUMS"]);
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    assert_eq!(r.stdout, "f: OK\n");
    // ... and the digest of `f\r` on a CR LF line is a mismatch for `f`.
    fs::write(p.join("SUMS"), format!("{want_cr}  f\r\n")).expect("write");
    let r = run_args(p, &["--check", "SUMS"]);
    assert_eq!(r.code, Some(1));
    assert_eq!(r.stdout, "f: FAILED\n");
}

#[cfg(unix)]
#[test]
fn zero_terminated_output_and_check() {
    let dir = fixture();
    let p = dir.path();
    fs::write(p.join("a\nb"), b"").expect("write");
    fs::write(p.join("c\\d"), b"").expect("write");
    let (code, out, _) = like_gnu(p, &["-z", "a\nb", "c\\d", "empty"]);
    assert_eq!(code, Some(0));
    assert_eq!(
        out,
        format!("{EMPTY_512}  a\nb\0{EMPTY_512}  c\\d\0{EMPTY_512}  empty\0").into_bytes()
    );
    let (_, out, _) = like_gnu(p, &["-z", "--tag", "a\nb"]);
    assert_eq!(
        out,
        format!("Pavelor-512 (a\nb) = {EMPTY_512}\0").into_bytes()
    );
    let r = run_args(p, &["-z", "--hex", ""]);
    assert_eq!(r.stdout, format!("{EMPTY_512}\0"));

    // --check --zero reads NUL-terminated lines, newlines in names and all.
    // (An extension: GNU refuses --zero with --check, "the --zero option is
    // not supported when verifying checksums", so there is nothing to
    // compare with here.)
    let r = run(pavelor(p).args(["-z", "a\nb", "c\\d", "small"]));
    fs::write(p.join("SUMS"), &r.stdout).expect("write");
    let r = run_args(p, &["--check", "--zero", "SUMS"]);
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    assert_eq!(r.stdout, "\\a\\nb: OK\n\\c\\\\d: OK\nsmall: OK\n");
    // The same file read as newline-terminated lines is one broken line.
    let r = run_args(p, &["--check", "SUMS"]);
    assert_eq!(r.code, Some(1));
    // A mismatch is still found.
    fs::write(p.join("small"), b"changed").expect("write");
    let r = run_args(p, &["--check", "-z", "SUMS"]);
    assert_eq!(r.code, Some(1));
    assert_eq!(r.stdout, "\\a\\nb: OK\n\\c\\\\d: OK\nsmall: FAILED\n");
}

#[test]
fn ignore_missing() {
    let top = tempfile::tempdir().expect("tempdir");
    let tools: &[Tool] = if gnu_available() {
        &[Tool::Pavelor, Tool::Gnu]
    } else {
        notice(
            "NOTE: sha512sum not installed: --ignore-missing checked against the literal expectations only",
        );
        &[Tool::Pavelor]
    };
    let cases: &[(&[&str], i32, &str, &str)] = &[
        (
            &["-c", "--ignore-missing", "OK_AND_MISSING"],
            0,
            "empty: OK\n",
            "",
        ),
        (
            &["-c", "OK_AND_MISSING"],
            1,
            "empty: OK\nnosuch: FAILED open or read\n",
            "pavelor: nosuch: No such file or directory\npavelor: WARNING: 1 listed file could not be read\n",
        ),
        (
            &["-c", "--ignore-missing", "ONLY_MISSING"],
            1,
            "",
            "pavelor: ONLY_MISSING: no file was verified\n",
        ),
        (
            &["-c", "--ignore-missing", "--status", "ONLY_MISSING"],
            1,
            "",
            "",
        ),
        (
            &["-c", "--ignore-missing", "--quiet", "OK_AND_MISSING"],
            0,
            "",
            "",
        ),
        (
            &["-c", "--ignore-missing", "WRONG_AND_MISSING"],
            1,
            "empty: FAILED\n",
            "pavelor: WARNING: 1 computed checksum did NOT match\npavelor: WRONG_AND_MISSING: no file was verified\n",
        ),
        (
            &["-c", "--ignore-missing", "OK_AND_MISSING", "ONLY_MISSING"],
            1,
            "empty: OK\n",
            "pavelor: ONLY_MISSING: no file was verified\n",
        ),
    ];
    for &tool in tools {
        // Each tool in its own directory, with sums files of its own digests.
        let p = top.path().join(format!("{tool:?}"));
        fs::create_dir(&p).expect("mkdir");
        fs::write(p.join("empty"), b"").expect("write");
        let (_, e, _) = tool_run(tool, &p, &["empty"]);
        let digest = String::from_utf8_lossy(&e[..128]).into_owned();
        let missing = format!("{digest}  nosuch\n");
        let wrong = format!("{}  empty\n", "0".repeat(128));
        sums_file(tool, &p, "OK_AND_MISSING", &["empty"], missing.as_bytes());
        fs::write(p.join("ONLY_MISSING"), &missing).expect("write");
        fs::write(p.join("WRONG_AND_MISSING"), format!("{wrong}{missing}")).expect("write");
        for &(args, code, stdout, stderr) in cases {
            let (c, out, err) = tool_run(tool, &p, args);
            let what = format!("{tool:?} {args:?}");
            assert_eq!(c, Some(code), "{what}: {err}");
            assert_eq!(String::from_utf8_lossy(&normalise(&out)), stdout, "{what}");
            assert_eq!(
                String::from_utf8_lossy(&normalise(err.as_bytes())),
                stderr,
                "{what}"
            );
        }
    }
}

#[test]
fn binary_and_text_flags() {
    let dir = fixture();
    let p = dir.path();
    let (code, out, _) = like_gnu(p, &["-b", "empty"]);
    assert_eq!(code, Some(0));
    assert_eq!(out, format!("{EMPTY_512} *empty\n").into_bytes());
    let (_, out, _) = like_gnu(p, &["--binary", "--text", "empty"]);
    assert_eq!(out, format!("{EMPTY_512}  empty\n").into_bytes());
    let (_, out, _) = like_gnu(p, &["-t", "-b", "empty"]);
    assert_eq!(out, format!("{EMPTY_512} *empty\n").into_bytes());
    let (_, out, _) = like_gnu(p, &["-t", "empty"]);
    assert_eq!(out, format!("{EMPTY_512}  empty\n").into_bytes());
    let (_, out, _) = like_gnu(p, &["-b", "--tag", "empty"]);
    assert_eq!(
        out,
        format!("Pavelor-512 (empty) = {EMPTY_512}\n").into_bytes()
    );
    // `HEX *NAME` lines check like `HEX  NAME` lines.
    let r = run_args(p, &["-b", "small", "big"]);
    fs::write(p.join("SUMS"), &r.stdout).expect("write");
    let r = run_args(p, &["-c", "SUMS"]);
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    assert_eq!(r.stdout, "small: OK\nbig: OK\n");
    // Meaningless with --check (GNU: exit 1; ours: a usage error, 2).
    let r = run_args(p, &["-c", "-b", "SUMS"]);
    assert_eq!(r.code, Some(2));
    let r = run_args(p, &["--ignore-missing", "empty"]);
    assert_eq!(r.code, Some(2));
}
