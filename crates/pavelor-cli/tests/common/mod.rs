//! Helpers shared by the CLI integration tests (each test binary uses a
//! part of them).

#![allow(dead_code, clippy::unwrap_used)]

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::{Mutex, MutexGuard};
use std::time::Duration;

static SERIAL: Mutex<()> = Mutex::new(());

/// One measuring run at a time within a test binary: a campaign whose
/// figures a test asserts must not share its CPU with another test's, or
/// its trials wait for the CPU and its figures are disturbed.
pub fn serial() -> MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|e| e.into_inner())
}

/// `len` varied bytes from a xorshift generator started at `state | 1`.
pub fn xorshift_bytes(len: usize, state: u64) -> Vec<u8> {
    let mut x = state | 1;
    (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 24) as u8
        })
        .collect()
}

/// Runs the command, polling its peak resident set size (VmHWM) until it
/// exits. Returns the output and the peak in KiB.
pub fn run_measuring_memory(mut cmd: Command) -> (Output, u64) {
    let child: Child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let status_path = PathBuf::from(format!("/proc/{}/status", child.id()));
    let mut peak = 0u64;
    let reader = std::thread::spawn(move || child.wait_with_output().unwrap());
    while !reader.is_finished() {
        if let Ok(s) = fs::read_to_string(&status_path)
            && let Some(kb) = s
                .lines()
                .find(|l| l.starts_with("VmHWM:"))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|v| v.parse::<u64>().ok())
        {
            peak = peak.max(kb);
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    (reader.join().unwrap(), peak)
}

/// Builds the C library `tests/fixtures/{fixture}.c` into `dir/lib{name}.so`
/// with `cc` and returns its path. Each `(MACRO, path)` of `defines` is
/// given as `-DMACRO="path"` (a C string literal): the fixtures that
/// forward to ours take its path as `REAL_SO`, and those that write a file
/// the test reads take that file's path.
pub fn cc_fixture(dir: &Path, name: &str, fixture: &str, defines: &[(&str, &Path)]) -> PathBuf {
    let c = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(format!("{fixture}.c"));
    let so = dir.join(format!("lib{name}.so"));
    let mut cc = Command::new("cc");
    cc.args(["-O2", "-fPIC", "-shared"]);
    for (macro_name, path) in defines {
        cc.arg(format!("-D{macro_name}={}", c_string(path)));
    }
    let out = cc
        .arg("-o")
        .arg(&so)
        .arg(&c)
        .output()
        .expect("the library test needs a C compiler named cc");
    assert!(
        out.status.success(),
        "{}: {}",
        c.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    so
}

/// [`cc_fixture`] of a shim, a fixture forwarding to the library `real`
/// (ours): `REAL_SO` is `real`.
pub fn cc_shim(dir: &Path, name: &str, fixture: &str, real: &Path) -> PathBuf {
    cc_fixture(dir, name, fixture, &[("REAL_SO", real)])
}

/// `path` as a C string literal.
fn c_string(path: &Path) -> String {
    let text = path
        .to_str()
        .expect("a C fixture's path macro must be UTF-8");
    let mut literal = String::from('"');
    for ch in text.chars() {
        if ch == '"' || ch == '\\' {
            literal.push('\\');
        }
        literal.push(ch);
    }
    literal.push('"');
    literal
}

/// This project's own `libCryptHash.so` (Pavelor-512), built from
/// crates/pavelor-ffi in release mode with its own target directory (so it
/// never waits on the outer cargo's lock; cached between runs).
pub fn our_crypthash() -> PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let target = Path::new(env!("CARGO_TARGET_TMPDIR")).join("i10-ffi");
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = Command::new(cargo)
        .current_dir(&root)
        .args(["build", "--release", "-p", "pavelor-ffi", "--target-dir"])
        .arg(&target)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    target.join("release/libCryptHash.so")
}

/// Whether process `pid` is gone within `limit`: `kill(pid, 0)` fails, or
/// it is a zombie its new parent has not reaped yet.
#[cfg(unix)]
pub fn gone_within(pid: i32, limit: Duration) -> bool {
    let t = std::time::Instant::now();
    loop {
        let alive = nix::sys::signal::kill(nix::unistd::Pid::from_raw(pid), None).is_ok();
        let zombie = fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|s| {
            s.rsplit(')')
                .next()
                .is_some_and(|r| r.trim_start().starts_with('Z'))
        });
        if !alive || zombie {
            return true;
        }
        if t.elapsed() > limit {
            return false;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}
