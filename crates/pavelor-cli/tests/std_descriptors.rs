//! Standard descriptors as callers hand them over: an open descriptor is
//! used as it is, whatever file it is (`/dev/null` opened read-write by
//! Python's `subprocess.DEVNULL`, by `<>/dev/null`, by a daemon()-style
//! launcher), and only a descriptor that was closed when the process
//! started is an error.

#![cfg(unix)]
#![allow(clippy::unwrap_used, clippy::panic)] // tests may fail loudly

use std::fs::{self, File};
use std::path::Path;
use std::process::{Command, Stdio};

const BIN: &str = env!("CARGO_BIN_EXE_pavelor");
const EMPTY_512: &str = "c53578fa7956aad60eeca53d46a2bd1719d8059ad1725f2aa9437b1f40b519f9203437cec8dda146f290ee27d58c6ff214cb7be6aa1d85a94f750f235883fcea";

#[derive(Debug)]
struct Run {
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

/// A scratch directory with the files the commands below read: `f`
/// ("abc") and `SUMS` (its correct line).
fn workdir() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("f"), b"abc").unwrap();
    let digest = Command::new(BIN)
        .current_dir(dir.path())
        .args(["sum", "f"])
        .output()
        .unwrap();
    fs::write(dir.path().join("SUMS"), &digest.stdout).unwrap();
    dir
}

/// Every subcommand, in a form that finishes in seconds and whose outputs
/// go under `out/` (each its own).
fn subcommands() -> Vec<Vec<&'static str>> {
    vec![
        vec!["sum", "f"],
        vec!["sum", "--tag", "f", "f"],
        vec!["sum", "-c", "SUMS"],
        vec!["sum", "--hex", "616263"],
        vec!["kat", "verify", "-a", "512"],
        vec!["kat", "gen", "-a", "512", "--skip-2-33", "--out", "out/gen"],
        vec!["bench", "--sizes", "32", "--seconds", "0.001"],
    ]
}

/// The report, reduced to one trial of one size (KATs still checked).
const REPORT: &[&str] = &[
    "report",
    "--no-ct-audit",
    "--quick",
    "--trials",
    "1",
    "--sizes",
    "32",
    "--no-compare",
    "--no-baselines",
    "--out",
];

/// `/dev/null` opened read-write, as `subprocess.DEVNULL` opens it.
fn devnull_rw() -> File {
    File::options()
        .read(true)
        .write(true)
        .open("/dev/null")
        .unwrap()
}

/// Which standard stream a run puts on `/dev/null` (read-write).
#[derive(Clone, Copy, Debug)]
enum OnNull {
    Stdin,
    Stdout,
    Stderr,
}

/// Runs `pavelor ARGS` with the chosen stream on `/dev/null` opened
/// read-write, the others on pipes (stdin empty).
fn run_with_null(dir: &Path, args: &[&str], on_null: Option<OnNull>) -> Run {
    let mut cmd = Command::new(BIN);
    cmd.current_dir(dir)
        .env_remove("PAVELOR_BACKEND")
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    match on_null {
        Some(OnNull::Stdin) => cmd.stdin(devnull_rw()),
        Some(OnNull::Stdout) => cmd.stdout(devnull_rw()),
        Some(OnNull::Stderr) => cmd.stderr(devnull_rw()),
        None => &mut cmd,
    };
    let mut child = cmd.spawn().unwrap();
    drop(child.stdin.take()); // an empty stdin where it is a pipe
    let out = child.wait_with_output().unwrap();
    Run {
        code: out.status.code(),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// `sh -c 'exec pavelor ARGS REDIR'`: the shell closes or reopens
/// descriptors for us (no `pre_exec`, which would need unsafe code).
fn run_with_redirect(dir: &Path, args: &str, redirect: &str) -> Run {
    let out = Command::new("sh")
        .current_dir(dir)
        .env_remove("PAVELOR_BACKEND")
        .arg("-c")
        .arg(format!("exec \"$0\" {args} {redirect}"))
        .arg(BIN)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    Run {
        code: out.status.code(),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

#[test]
fn dev_null_read_write_on_each_stream_changes_nothing() {
    let dir = workdir();
    for args in subcommands() {
        let reference = run_with_null(dir.path(), &args, None);
        assert_eq!(reference.code, Some(0), "{args:?}: {reference:?}");
        for on_null in [OnNull::Stdin, OnNull::Stdout, OnNull::Stderr] {
            let r = run_with_null(dir.path(), &args, Some(on_null));
            assert_eq!(r.code, reference.code, "{args:?} with {on_null:?}: {r:?}");
            match on_null {
                OnNull::Stdout => assert_eq!(r.stderr, reference.stderr, "{args:?}"),
                OnNull::Stdin | OnNull::Stderr if args[0] != "bench" => {
                    assert_eq!(r.stdout, reference.stdout, "{args:?} with {on_null:?}")
                }
                // bench prints timings, which differ between runs.
                _ => assert!(!r.stdout.is_empty(), "{args:?}"),
            }
        }
    }
}

#[test]
fn stdin_on_dev_null_is_the_empty_message() {
    let dir = workdir();
    for args in [&["sum"][..], &["sum", "-"]] {
        let r = run_with_null(dir.path(), args, Some(OnNull::Stdin));
        assert_eq!(r.code, Some(0), "{r:?}");
        assert_eq!(r.stdout, format!("{EMPTY_512}  -\n"));
        assert_eq!(r.stderr, "");
    }
    // A sums file read from /dev/null has no lines: GNU's message.
    let r = run_with_null(dir.path(), &["sum", "-c"], Some(OnNull::Stdin));
    assert_eq!(r.code, Some(1), "{r:?}");
    assert_eq!(
        r.stderr,
        "pavelor: standard input: no properly formatted checksum lines found\n"
    );
}

#[test]
fn report_with_stdout_on_dev_null_writes_its_report() {
    let dir = workdir();
    let mut args = REPORT.to_vec();
    args.push("out/report");
    let r = run_with_null(dir.path(), &args, Some(OnNull::Stdout));
    assert_eq!(r.code, Some(0), "{r:?}");
    let page = fs::read_to_string(dir.path().join("out/report/report.md")).unwrap();
    assert!(page.contains("**RESULT: PASS**"), "{page}");
}

/// The shell's `<>/dev/null` (read-write on fd 0), and a daemon()-style
/// start: fds 0, 1 and 2 all on one read-write `/dev/null`.
#[test]
fn shell_read_write_redirections() {
    let dir = workdir();
    let r = run_with_redirect(dir.path(), "sum", "<>/dev/null");
    assert_eq!(r.code, Some(0), "{r:?}");
    assert_eq!(r.stdout, format!("{EMPTY_512}  -\n"));
    let r = run_with_redirect(dir.path(), "sum f", "1<>/dev/null");
    assert_eq!((r.code, r.stdout.as_str()), (Some(0), ""), "{r:?}");
    assert_eq!(r.stderr, "");
    let daemon = "<>/dev/null >&0 2>&0";
    for args in subcommands() {
        let r = run_with_redirect(dir.path(), &args.join(" "), daemon);
        assert_eq!(r.code, Some(0), "{args:?}: {r:?}");
    }
    let r = run_with_redirect(
        dir.path(),
        &format!("{} out/daemon", REPORT.join(" ")),
        daemon,
    );
    assert_eq!(r.code, Some(0), "{r:?}");
    assert!(dir.path().join("out/daemon/report.md").is_file());
    // Failures keep their status with everything on /dev/null.
    let r = run_with_redirect(dir.path(), "sum missing", daemon);
    assert_eq!(r.code, Some(1), "{r:?}");
}

/// The same as Python scripts write it: `subprocess.run(...,
/// stdout=subprocess.DEVNULL)` and friends, on each stream alone and on
/// all three. Needs `python3`; says SKIPPED without it.
#[test]
#[ignore = "soak: dev_null_read_write_on_each_stream_changes_nothing again through Python (36 runs, 4 reports); run by .ci/run (cargo test -- --ignored)"]
fn python_subprocess_devnull() {
    if Command::new("python3").arg("-c").arg("").status().is_err() {
        println!("SKIPPED: python3 is not installed");
        return;
    }
    let dir = workdir();
    let script = r#"
import json, subprocess, sys
exe, cases = sys.argv[1], json.loads(sys.argv[2])
D, P = subprocess.DEVNULL, subprocess.PIPE
for args in cases:
    for streams in (("stdin",), ("stdout",), ("stderr",), ("stdin", "stdout", "stderr")):
        kw = {s: (D if s in streams else P) for s in ("stdin", "stdout", "stderr")}
        if "stdin" not in streams:
            kw["input"] = b""
            del kw["stdin"]
        r = subprocess.run([exe] + args, **kw)
        print(json.dumps({"args": args, "streams": streams, "code": r.returncode,
                          "stdout": (r.stdout or b"").decode()}))
"#;
    let mut cases: Vec<Vec<String>> = subcommands()
        .into_iter()
        .map(|a| a.into_iter().map(String::from).collect())
        .collect();
    let mut report: Vec<String> = REPORT.iter().map(|s| s.to_string()).collect();
    report.push("out/py-report".into());
    cases.push(report);
    cases.push(vec!["sum".into()]);
    let out = Command::new("python3")
        .current_dir(dir.path())
        .env_remove("PAVELOR_BACKEND")
        .args(["-c", script, BIN, &serde_json::to_string(&cases).unwrap()])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let lines = String::from_utf8(out.stdout).unwrap();
    let hex_reference = run_with_null(dir.path(), &["sum", "--hex", "616263"], None);
    let mut seen = 0;
    for line in lines.lines() {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        assert_eq!(v["code"], 0, "{line}");
        if v["args"] == serde_json::json!(["sum"]) && v["streams"] == serde_json::json!(["stdin"]) {
            assert_eq!(
                v["stdout"].as_str(),
                Some(format!("{EMPTY_512}  -\n").as_str())
            );
        }
        if v["args"] == serde_json::json!(["sum", "--hex", "616263"])
            && v["streams"]
                .as_array()
                .is_some_and(|s| s.len() == 1 && s[0] != "stdout")
        {
            assert_eq!(v["stdout"].as_str(), Some(hex_reference.stdout.as_str()));
        }
        seen += 1;
    }
    assert_eq!(seen, cases.len() * 4);
    assert!(dir.path().join("out/py-report/report.md").is_file());
}

#[test]
fn closed_stdout_is_an_error() {
    let dir = workdir();
    fs::write(dir.path().join("e"), b"").unwrap();
    for args in [
        "sum e",
        "sum --hex ''",
        "kat verify -a 512 --dir /nonexistent",
        "kat verify -a 512",
        "bench --sizes 32 --seconds 0.001",
        "report --quick --out out/closed",
    ] {
        let r = run_with_redirect(dir.path(), args, ">&-");
        assert_eq!(r.code, Some(1), "{args}: {}", r.stderr);
        assert_eq!(
            r.stderr, "pavelor: write error: Bad file descriptor\n",
            "{args}"
        );
    }
    // The report refuses before it measures or writes anything.
    assert!(!dir.path().join("out/closed").exists());
    // Controls: /dev/null, opened by the shell, is a fine stdout.
    let r = run_with_redirect(dir.path(), "sum e", ">/dev/null");
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    assert_eq!(r.stderr, "");
    // As GNU: a run that prints nothing does not need a stdout
    // (`sha512sum -c --status SUMS >&-` exits 0); a failed check still
    // says so with its exit status.
    fs::write(dir.path().join("SUMS"), format!("{EMPTY_512}  e\n")).unwrap();
    for args in ["sum -c --status SUMS", "sum -c --quiet SUMS"] {
        let r = run_with_redirect(dir.path(), args, ">&-");
        assert_eq!(r.code, Some(0), "{args}: {}", r.stderr);
        assert_eq!(r.stderr, "", "{args}");
    }
    fs::write(dir.path().join("e"), b"changed").unwrap();
    let r = run_with_redirect(dir.path(), "sum -c --status SUMS", ">&-");
    assert_eq!(r.code, Some(1), "{}", r.stderr);
    // --quiet prints the FAILED line: the closed stdout is reported.
    let r = run_with_redirect(dir.path(), "sum -c --quiet SUMS", ">&-");
    assert_eq!(r.code, Some(1), "{}", r.stderr);
    assert!(
        r.stderr
            .ends_with("pavelor: write error: Bad file descriptor\n"),
        "{}",
        r.stderr
    );
}

#[test]
fn closed_stdin_is_an_error() {
    let dir = workdir();
    fs::write(dir.path().join("e"), b"").unwrap();
    let r = run_with_redirect(dir.path(), "sum", "<&-");
    assert_eq!(r.code, Some(1), "{}", r.stderr);
    assert_eq!(r.stdout, "");
    assert_eq!(r.stderr, "pavelor: -: Bad file descriptor\n");

    // Files are still hashed; only the `-` fails.
    let r = run_with_redirect(dir.path(), "sum e - e", "<&-");
    assert_eq!(r.code, Some(1), "{}", r.stderr);
    assert_eq!(r.stdout, format!("{EMPTY_512}  e\n{EMPTY_512}  e\n"));
    assert_eq!(r.stderr, "pavelor: -: Bad file descriptor\n");

    let r = run_with_redirect(dir.path(), "sum -c", "<&-");
    assert_eq!(r.code, Some(1), "{}", r.stderr);
    assert_eq!(r.stdout, "");
    assert_eq!(r.stderr, "pavelor: standard input: Bad file descriptor\n");

    // Closed stdin and stdout together: both errors, exit 1.
    let r = run_with_redirect(dir.path(), "sum", "<&- >&-");
    assert_eq!(r.code, Some(1), "{}", r.stderr);
    assert_eq!(r.stderr, "pavelor: -: Bad file descriptor\n");

    // Controls: an empty stdin opened by the shell is the empty message.
    let r = run_with_redirect(dir.path(), "sum", "</dev/null");
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    assert_eq!(r.stdout, format!("{EMPTY_512}  -\n"));
}

/// A closed stderr loses the messages, never the exit status.
#[test]
fn closed_stderr_keeps_the_exit_status() {
    let dir = workdir();
    let reference = run_with_null(dir.path(), &["sum", "f"], None);
    let r = run_with_redirect(dir.path(), "sum f", "2>&-");
    assert_eq!(r.code, Some(0));
    assert_eq!(r.stdout, reference.stdout);
    let r = run_with_redirect(dir.path(), "sum missing", "2>&-");
    assert_eq!(r.code, Some(1));
}
