//! What the NICCS dataset tests share: where the harness's own published
//! data is, when it is (a directory beside the workspace in the
//! project's own checkouts; a user's
//! clone has none).

use std::io::Write;
use std::path::{Path, PathBuf};

/// The harness's data beside the workspace root, if it holds the arm_1
/// dataset and its page. Otherwise says `SKIPPED:` on the real standard
/// error (past libtest's capture, so plain `cargo test` output shows it)
/// and returns `None`.
pub fn harness_data(test: &str) -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/niccs");
    let present = dir.join("arm_1/campaign.json").is_file()
        && dir.join("pages/hash-22_perf_arm_1.md").is_file();
    if present {
        return Some(dir);
    }
    let _ = writeln!(
        std::io::stderr().lock(),
        "SKIPPED {test}: the NICCS harness data ({}) is not present",
        dir.display()
    );
    None
}
