//! What the C tests of `pavelor-ffi`, `pavelor-capi` and `pavelor-openssl`
//! share: running a command that must succeed (its output in the panic
//! message otherwise), and valgrind memcheck with one rule for its absence.
//! A dev-dependency only; tests may panic.

#![forbid(unsafe_code)]
#![allow(clippy::panic)]

use std::io::Write as _;
use std::process::{Command, Output};

/// The variable that makes a missing valgrind a failure instead of a
/// printed `SKIPPED` (set by CI).
pub const REQUIRE_VALGRIND: &str = "PAVELOR_REQUIRE_VALGRIND";

/// The memcheck options of every C test: no invalid access, no use of
/// uninitialised values, no definite, indirect or possible leak.
pub const MEMCHECK: [&str; 4] = [
    "--tool=memcheck",
    "--leak-check=full",
    "--errors-for-leak-kinds=definite,indirect,possible",
    "--error-exitcode=1",
];

/// A line on the process's stderr, past libtest's capture: a skipped check
/// must be seen in `cargo test` output.
pub fn say(line: &str) {
    let _ = writeln!(std::io::stderr(), "{line}");
}

/// Runs `cmd`, which must exit 0; panics with its output otherwise.
pub fn run(cmd: &mut Command) -> Output {
    let shown = format!("{cmd:?}");
    let out = cmd
        .output()
        .unwrap_or_else(|e| panic!("cannot run {shown}: {e}"));
    assert!(
        out.status.success(),
        "{shown} failed ({})\n--- stdout\n{}\n--- stderr\n{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// Whether `valgrind` runs here. When it does not: panics if
/// [`REQUIRE_VALGRIND`]` = 1`, else prints `SKIPPED: what` and returns
/// false.
pub fn have_valgrind(what: &str) -> bool {
    if Command::new("valgrind")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
    {
        return true;
    }
    assert!(
        std::env::var_os(REQUIRE_VALGRIND).is_none_or(|v| v != "1"),
        "valgrind is required ({REQUIRE_VALGRIND}=1) but cannot be run"
    );
    say(&format!(
        "SKIPPED: valgrind is not installed; {what} not run under memcheck"
    ));
    false
}

/// `program args...` under memcheck ([`MEMCHECK`]); it must succeed with
/// no error. `None` (and a printed SKIPPED) without valgrind, see
/// [`have_valgrind`].
pub fn memcheck(program: &std::path::Path, args: &[&str]) -> Option<Output> {
    if !have_valgrind(&program.display().to_string()) {
        return None;
    }
    let out = run(Command::new("valgrind")
        .args(MEMCHECK)
        .arg(program)
        .args(args)
        .env_remove("LD_LIBRARY_PATH"));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("ERROR SUMMARY: 0 errors"), "{stderr}");
    Some(out)
}
