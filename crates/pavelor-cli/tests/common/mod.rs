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
pub(crate) fn serial() -> MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|e| e.into_inner())
}

/// `len` varied bytes from a xorshift generator started at `state | 1`.
pub(crate) fn xorshift_bytes(len: usize, state: u64) -> Vec<u8> {
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
pub(crate) fn run_measuring_memory(mut cmd: Command) -> (Output, u64) {
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
/// with `cc -O2 -g` (the debug information gives the constant-time audit
/// its file and line) and returns its path. Each `(MACRO, path)` of `defines` is
/// given as `-DMACRO="path"` (a C string literal): the fixtures that
/// forward to ours take its path as `REAL_SO`, and those that write a file
/// the test reads take that file's path.
pub(crate) fn cc_fixture(
    dir: &Path,
    name: &str,
    fixture: &str,
    defines: &[(&str, &Path)],
) -> PathBuf {
    let c = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(format!("{fixture}.c"));
    let so = dir.join(format!("lib{name}.so"));
    let mut cc = Command::new("cc");
    cc.args(["-O2", "-g", "-fPIC", "-shared"]);
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
pub(crate) fn cc_shim(dir: &Path, name: &str, fixture: &str, real: &Path) -> PathBuf {
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
pub(crate) fn our_crypthash() -> PathBuf {
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
pub(crate) fn gone_within(pid: i32, limit: Duration) -> bool {
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

/// Every `href="..."` and `src="..."` of an HTML text.
fn links(html: &str) -> Vec<String> {
    let mut v = Vec::new();
    for attr in ["href=\"", "src=\""] {
        let mut rest = html;
        while let Some(i) = rest.find(attr) {
            rest = &rest[i + attr.len()..];
            let end = rest.find('"').unwrap();
            v.push(rest[..end].replace("&amp;", "&"));
            rest = &rest[end..];
        }
    }
    v
}

fn html_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            html_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "html") {
            out.push(p);
        }
    }
}

/// The HTML pages of the site `site` (relative paths), after checking that
/// every relative link of every page resolves (a fragment to an id of its
/// page) and that no page loads anything from anywhere.
pub(crate) fn site_pages_and_links_resolve(site: &Path) -> std::collections::BTreeSet<String> {
    let mut pages = Vec::new();
    html_files(site, &mut pages);
    for page in &pages {
        let html = fs::read_to_string(page).unwrap();
        assert!(!html.contains("<script"), "{}", page.display());
        for link in links(&html) {
            if link.starts_with("https://") || link.starts_with("http://") {
                assert!(
                    !html.contains(&format!("src=\"{link}\"")),
                    "{} loads {link}",
                    page.display()
                );
                continue;
            }
            let (path, fragment) = link.split_once('#').unwrap_or((&link, ""));
            let target = if path.is_empty() {
                page.clone()
            } else {
                page.parent().unwrap().join(path)
            };
            assert!(target.exists(), "{}: broken link {link}", page.display());
            if !fragment.is_empty() {
                let text = fs::read_to_string(&target).unwrap();
                assert!(
                    text.contains(&format!("id=\"{fragment}\"")),
                    "{}: no #{fragment}",
                    page.display()
                );
            }
        }
    }
    pages
        .iter()
        .map(|p| p.strip_prefix(site).unwrap().display().to_string())
        .collect()
}

/// The NICCS harness's published arm_1 dataset, in the directory
/// `PAVELOR_NICCS_DIR` names (docs/contributing.md says where it comes
/// from; a user's clone has none). Without it, says `SKIPPED` on the real
/// standard error (past libtest's capture) and returns `None`.
pub(crate) fn harness_arm_1(test: &str) -> Option<PathBuf> {
    use std::io::Write as _;
    let dir = std::env::var_os("PAVELOR_NICCS_DIR").map(|d| PathBuf::from(d).join("arm_1"));
    if let Some(d) = dir.filter(|d| d.join("campaign.json").is_file()) {
        return Some(d);
    }
    let _ = writeln!(
        std::io::stderr().lock(),
        "SKIPPED {test}: no NICCS harness data (set PAVELOR_NICCS_DIR to a directory with arm_1/)"
    );
    None
}

/// A copy of the directory tree `from` at `to` (regular files only).
pub(crate) fn copy_dir(from: &Path, to: &Path) {
    fs::create_dir_all(to).unwrap();
    for e in fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let dest = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_dir(&e.path(), &dest);
        } else {
            fs::copy(e.path(), &dest).unwrap();
        }
    }
}

/// A quick `pavelor report` into `out` (`--quick`, no `KAT_2_33`, no
/// comparison hashes), with `trials` trials a figure at the lengths
/// `sizes` and any `extra` options (`--no-ct-audit`, `--lib`, ...); panics
/// with its standard error if it fails.
pub(crate) fn quick_report(out: &Path, trials: &str, sizes: &str, extra: &[&str]) {
    let o = Command::new(assert_cmd::cargo::cargo_bin("pavelor"))
        .stdin(Stdio::null())
        .args([
            "report",
            "--quick",
            "--trials",
            trials,
            "--sizes",
            sizes,
            "--skip-2-33",
            "--no-compare",
        ])
        .args(extra)
        .arg("--out")
        .arg(out)
        .output()
        .unwrap();
    assert!(
        o.status.success(),
        "report: {}",
        String::from_utf8_lossy(&o.stderr)
    );
}
