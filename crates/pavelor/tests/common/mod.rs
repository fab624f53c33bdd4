//! Shared by the integration tests and benchmarks of this crate.
//!
//! How a backend this CPU lacks stays visible: libtest captures
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

use pavelor::{Available, Backend};

/// Writes a line to the real stderr, past libtest's output capture.
pub(crate) fn notice(msg: std::fmt::Arguments<'_>) {
    let _ = writeln!(std::io::stderr().lock(), "{msg}");
}

/// The backends this CPU runs. Each one it lacks is named on stderr (once
/// per test binary, visible without `--nocapture`), so a skipped backend is
/// never silent.
pub(crate) fn backends() -> Vec<Available> {
    static AVAILABLE: OnceLock<Vec<Available>> = OnceLock::new();
    AVAILABLE
        .get_or_init(|| {
            let mut ok = Vec::new();
            for &b in Backend::ALL {
                match Available::detect(b) {
                    Ok(a) => ok.push(a),
                    Err(_) => notice(format_args!(
                        "skipped backend {b}: not supported by this CPU"
                    )),
                }
            }
            ok
        })
        .clone()
}

/// xorshift64: deterministic pseudo-random bytes.
pub(crate) struct Rng(pub u64);

impl Rng {
    /// The next 64-bit output.
    pub(crate) fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// A value below `n`.
    pub(crate) fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    /// `len` pseudo-random bytes.
    pub(crate) fn bytes(&mut self, len: usize) -> Vec<u8> {
        (0..len).map(|_| (self.next() >> 32) as u8).collect()
    }
}
