//! Shared by the integration tests and benchmarks of this crate.

use std::sync::OnceLock;

use pavelor::Backend;

/// The backends this CPU runs. Each one it lacks is named on stderr (once
/// per test binary), so a skipped backend is never silent.
pub fn backends() -> Vec<Backend> {
    static AVAILABLE: OnceLock<Vec<Backend>> = OnceLock::new();
    AVAILABLE
        .get_or_init(|| {
            let (ok, missing): (Vec<Backend>, Vec<Backend>) =
                Backend::ALL.iter().partition(|b| b.is_available());
            for b in missing {
                eprintln!("skipped backend {b}: not supported by this CPU");
            }
            ok
        })
        .clone()
}
