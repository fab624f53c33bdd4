//! What the NICCS dataset tests share: where the harness's own published
//! data is, when it is (the directory `PAVELOR_NICCS_DIR` names, holding
//! `arm_1/` and `pages/`; a user's clone has none, and the tests say
//! SKIPPED).

use std::io::Write;
use std::path::PathBuf;

/// The harness's data in `PAVELOR_NICCS_DIR`, if it holds the arm_1
/// dataset and its page. Otherwise says `SKIPPED` on the real standard
/// error (past libtest's capture, so plain `cargo test` output shows it)
/// and returns `None`.
pub(crate) fn harness_data(test: &str) -> Option<PathBuf> {
    let dir = std::env::var_os("PAVELOR_NICCS_DIR").map(PathBuf::from);
    if let Some(dir) = dir.filter(|d| {
        d.join("arm_1/campaign.json").is_file() && d.join("pages/hash-22_perf_arm_1.md").is_file()
    }) {
        return Some(dir);
    }
    let _ = writeln!(
        std::io::stderr().lock(),
        "SKIPPED {test}: no NICCS harness data (set PAVELOR_NICCS_DIR to a directory with arm_1/ and pages/)"
    );
    None
}
