//! Shared by the integration tests and benchmarks of this crate.
//!
//! How a backend this CPU lacks stays visible (issue 9): libtest captures
//! what tests print with `println!`/`eprintln!` and shows it only for a
//! failing test, so a CI machine without, say, AVX-512 would silently stop
//! testing the VAES kernels. Two things prevent that:
//!
//! * [`notice`] writes straight to the process's stderr (`io::stderr()`,
//!   not the `eprintln!` macro that libtest redirects), so
//!   `skipped backend avx512-vaes: not supported by this CPU` appears in
//!   plain `cargo test` output, without `--nocapture`.
//! * `tests/backend_selection.rs::tested_backends_follow_std_detection`
//!   fails if a backend the CPU supports (by the standard library's own
//!   feature detection, independent of this crate's `cpufeatures` checks)
//!   is missing from [`backends`], the list every per-backend test uses.

#![allow(dead_code)] // not every test binary uses every helper

use std::io::Write;
use std::sync::OnceLock;

use pavelor::Backend;

/// Writes a line to the real stderr, past libtest's output capture.
pub fn notice(msg: std::fmt::Arguments<'_>) {
    let _ = writeln!(std::io::stderr().lock(), "{msg}");
}

/// The backends this CPU runs. Each one it lacks is named on stderr (once
/// per test binary, visible without `--nocapture`), so a skipped backend is
/// never silent.
pub fn backends() -> Vec<Backend> {
    static AVAILABLE: OnceLock<Vec<Backend>> = OnceLock::new();
    AVAILABLE
        .get_or_init(|| {
            let (ok, missing): (Vec<Backend>, Vec<Backend>) =
                Backend::ALL.iter().partition(|b| b.is_available());
            for b in missing {
                notice(format_args!(
                    "skipped backend {b}: not supported by this CPU"
                ));
            }
            ok
        })
        .clone()
}
