//! `tests/c/stream.c` compiled with the system `cc` against `pavelor.h` and
//! this crate's static library as `cargo test` built it, then run, and run
//! again under valgrind memcheck. (CI also builds it against the installed
//! library with only `pkg-config --cflags --libs pavelor`: scripts/ci-capi.sh.)
//! Fails, not skips, without `cc`; without valgrind it says SKIPPED unless
//! `PAVELOR_REQUIRE_VALGRIND=1`.

#![allow(clippy::unwrap_used, clippy::panic)] // tests may fail loudly

use std::path::{Path, PathBuf};
use std::process::Command;

use pavelor_test_c::{memcheck, run};

/// The profile directory of this build (`target/debug`): the test binary is
/// in its `deps/`.
fn profile_dir() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    exe.parent().unwrap().parent().unwrap().to_path_buf()
}

fn compile(dir: &Path) -> PathBuf {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    // Built beside the test (in deps/) for `cargo test`; uplifted to the
    // profile directory by `cargo build`.
    let lib = ["deps/libpavelor_capi.a", "libpavelor_capi.a"]
        .iter()
        .map(|p| profile_dir().join(p))
        .find(|p| p.exists())
        .unwrap_or_else(|| panic!("no libpavelor_capi.a under {}", profile_dir().display()));
    let exe = dir.join("stream");
    run(Command::new("cc")
        .args(["-std=c11", "-Wall", "-Wextra", "-Werror", "-O1", "-g"])
        .arg("-I")
        .arg(manifest.join("assets"))
        .arg("-I")
        .arg(manifest.join("tests/c"))
        .arg(manifest.join("tests/c/stream.c"))
        .arg(&lib)
        .args(["-lpthread", "-ldl", "-lm"])
        .arg("-o")
        .arg(&exe));
    exe
}

#[test]
fn the_c_program_passes_natively_and_under_memcheck() {
    let dir = tempfile::tempdir().unwrap();
    let exe = compile(dir.path());
    let out = run(&mut Command::new(&exe));
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(stdout.starts_with("ok "), "{stdout}");

    let Some(out) = memcheck(&exe, &[]) else {
        return;
    };
    // Valgrind's CPU lacks AVX-512, so another backend may run there.
    let checks = |s: &str| s.split(" (backend").next().unwrap_or_default().to_string();
    assert_eq!(
        checks(&String::from_utf8_lossy(&out.stdout)),
        checks(&stdout)
    );
}
