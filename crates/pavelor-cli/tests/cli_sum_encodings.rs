//! `pavelor sum --base64` and `--raw`, run as the real binary, against the
//! official digests of the empty message (spelled in base64 here by
//! coreutils' `base64`, once) and against the hex output.

use std::fs;
use std::path::Path;

use assert_cmd::Command;

/// Pavelor-512 and Pavelor-768 of the empty message (the official KATs),
/// in hex and in padded base64.
const EMPTY_512: &str = "c53578fa7956aad60eeca53d46a2bd1719d8059ad1725f2aa9437b1f40b519f9203437cec8dda146f290ee27d58c6ff214cb7be6aa1d85a94f750f235883fcea";
const EMPTY_512_B64: &str =
    "xTV4+nlWqtYO7KU9RqK9FxnYBZrRcl8qqUN7H0C1GfkgNDfOyN2hRvKQ7ifVjG/yFMt75qodhalPdQ8jWIP86g==";
const EMPTY_768_B64: &str = "Zbr3/8nTF2bHLJCl+NQuqn82EGA+uVAnXx2mKxZ4w6y2T/6/QzECki0m7XnhY5jouk5GKu2QzjOUrFles4++C3upcNmL9dh6XLFLqSkWMgbu1zkIIg8f9E80lS6L58RK";

struct Run {
    code: Option<i32>,
    stdout: Vec<u8>,
    stderr: String,
}

impl Run {
    fn text(&self) -> String {
        String::from_utf8_lossy(&self.stdout).into_owned()
    }
}

/// `pavelor sum ARGS`, in `dir`, with `stdin` as standard input.
fn sum(dir: &Path, args: &[&str], stdin: &[u8]) -> Run {
    let out = Command::cargo_bin("pavelor")
        .expect("binary is built")
        .current_dir(dir)
        .env_remove("PAVELOR_BACKEND")
        .arg("sum")
        .args(args)
        .write_stdin(stdin)
        .output()
        .expect("command runs");
    Run {
        code: out.status.code(),
        stdout: out.stdout,
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

fn fixture() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    fs::write(dir.path().join("empty"), b"").expect("write");
    fs::write(dir.path().join("data"), b"some data\n".repeat(1000)).expect("write");
    fs::write(dir.path().join("a b"), b"x").expect("write");
    dir
}

#[test]
fn base64_lines_untagged_and_tagged() {
    let dir = fixture();
    let r = sum(dir.path(), &["--base64", "empty"], b"");
    assert_eq!(
        (r.code, r.text()),
        (Some(0), format!("{EMPTY_512_B64}  empty\n"))
    );
    let r = sum(
        dir.path(),
        &["--base64", "--tag", "-a", "768", "empty"],
        b"",
    );
    let want = format!("Pavelor-768 (empty) = {EMPTY_768_B64}\n");
    assert_eq!((r.code, r.text()), (Some(0), want));
    // Binary mode and --zero shape the line as they do with hex.
    let r = sum(dir.path(), &["--base64", "-b", "-z", "empty"], b"");
    assert_eq!(r.text(), format!("{EMPTY_512_B64} *empty\0"));
    // --hex: the digest alone, in base64.
    let r = sum(dir.path(), &["--base64", "--hex", ""], b"");
    assert_eq!(r.text(), format!("{EMPTY_512_B64}\n"));
}

#[test]
fn base64_lines_pass_check_beside_hex_lines() {
    let dir = fixture();
    let mut sums = Vec::new();
    for args in [
        &["--base64", "empty", "data", "a b"][..],
        &["--base64", "--tag", "-a", "1024", "data"],
        &["--base64", "--tag", "-a", "768", "a b"],
        &["--tag", "-a", "768", "data"],
        &["empty"],
    ] {
        let r = sum(dir.path(), args, b"");
        assert_eq!(r.code, Some(0), "{args:?}: {}", r.stderr);
        sums.extend_from_slice(&r.stdout);
    }
    fs::write(dir.path().join("SUMS"), &sums).expect("write");
    let r = sum(dir.path(), &["-c", "--strict", "SUMS"], b"");
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    assert_eq!(
        r.text(),
        "empty: OK\ndata: OK\na b: OK\ndata: OK\na b: OK\ndata: OK\nempty: OK\n"
    );

    // A changed file fails its base64 line like its hex line.
    fs::write(dir.path().join("data"), b"other").expect("write");
    let r = sum(dir.path(), &["-c", "SUMS"], b"");
    assert_eq!(r.code, Some(1));
    assert_eq!(r.text().matches("data: FAILED").count(), 3, "{}", r.text());
}

#[test]
fn malformed_base64_lines_are_improperly_formatted() {
    let dir = fixture();
    // A character short; a stray bit in the last character before "=="
    // ('g' holds 2 bits and 4 zeros; 'h' sets one); the padding dropped; a
    // character outside the alphabet; a Pavelor-768 digest on a 512 line.
    let short = &EMPTY_512_B64[1..];
    let stray = EMPTY_512_B64.replace("6g==", "6h==");
    assert_ne!(stray, EMPTY_512_B64);
    let unpadded = EMPTY_512_B64.trim_end_matches('=');
    let bad_char = EMPTY_512_B64.replacen('+', ".", 1);
    let lines = [
        format!("{short}  empty"),
        format!("{stray}  empty"),
        format!("{unpadded}  empty"),
        format!("{bad_char}  empty"),
        format!("Pavelor-512 (empty) = {EMPTY_768_B64}"),
    ];
    for (i, line) in lines.iter().enumerate() {
        fs::write(
            dir.path().join("bad"),
            format!("{line}\n{EMPTY_512_B64}  empty\n"),
        )
        .expect("write");
        let r = sum(dir.path(), &["-c", "--warn", "bad"], b"");
        assert_eq!(r.code, Some(0), "line {i}: {line}: {}", r.stderr);
        assert_eq!(r.text(), "empty: OK\n");
        assert_eq!(
            r.stderr,
            "pavelor: bad: 1: improperly formatted Pavelor checksum line\n\
             pavelor: WARNING: 1 line is improperly formatted\n",
            "line {i}: {line}"
        );
        let r = sum(dir.path(), &["-c", "--strict", "bad"], b"");
        assert_eq!(r.code, Some(1), "line {i}: {line}");
    }
}

#[test]
fn raw_writes_the_digest_bytes_alone() {
    let dir = fixture();
    let want = hex::decode(EMPTY_512).expect("hex");
    assert_eq!(sum(dir.path(), &["--raw", "empty"], b"").stdout, want);
    assert_eq!(sum(dir.path(), &["--raw"], b"").stdout, want);
    assert_eq!(sum(dir.path(), &["--raw", "-"], b"").stdout, want);
    assert_eq!(sum(dir.path(), &["--raw", "--hex", ""], b"").stdout, want);
    // The same bytes as the hex line, for every instance and a longer file.
    for alg in ["512", "768", "1024"] {
        let raw = sum(dir.path(), &["--raw", "-a", alg, "data"], b"");
        let line = sum(dir.path(), &["-a", alg, "data"], b"");
        assert_eq!(raw.code, Some(0));
        assert_eq!(
            hex::encode(&raw.stdout),
            line.text().split(' ').next().unwrap_or("")
        );
    }
    // An unreadable input: an error and no bytes.
    let r = sum(dir.path(), &["--raw", "missing"], b"");
    assert_eq!(r.code, Some(1));
    assert!(r.stdout.is_empty());
    assert_eq!(r.stderr, "pavelor: missing: No such file or directory\n");
}

#[test]
fn raw_is_refused_beside_options_it_cannot_honour() {
    let dir = fixture();
    let r = sum(dir.path(), &["--raw", "empty", "data"], b"");
    assert_eq!(r.code, Some(2));
    assert!(r.stdout.is_empty());
    assert_eq!(
        r.stderr,
        "pavelor: --raw writes the digest of one input, but 2 FILEs were given\n"
    );
    for (other, with) in [
        ("--check", "'--raw' cannot be used with '--check'"),
        ("--tag", "'--raw' cannot be used with '--tag'"),
        ("--base64", "'--raw' cannot be used with '--base64'"),
    ] {
        let r = sum(dir.path(), &["--raw", other, "empty"], b"");
        assert_eq!(r.code, Some(2), "{other}");
        assert!(r.stdout.is_empty());
        assert!(r.stderr.contains(with), "{other}: {}", r.stderr);
        assert_eq!(
            r.stderr.lines().next().map(|l| l.starts_with("error: ")),
            Some(true)
        );
    }
    // --base64 has nothing to do with --check, which reads both spellings.
    let r = sum(dir.path(), &["--base64", "--check", "empty"], b"");
    assert_eq!(r.code, Some(2));
}
