//! Writing result files so that a reader never sees half of one.

use std::fs;
use std::io::{self, Write};
use std::path::Path;

use indicatif::{ProgressBar, ProgressStyle};

/// Writes `bytes` to `path` through a temporary file in the same directory
/// and a rename: an interrupted run leaves either the old file or the new
/// one under `path`, never a partial one.
pub fn atomic_write(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let name = path
        .file_name()
        .ok_or_else(|| io::Error::other("not a file path"))?;
    let tmp = dir.join(format!(
        ".{}.tmp-{}",
        name.to_string_lossy(),
        std::process::id()
    ));
    let result = (|| {
        let mut f = fs::File::create(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    result
}

/// A progress bar on stderr (hidden when stderr is not a terminal).
pub fn progress_bar(total: u64, prefix: &str) -> ProgressBar {
    let bar = ProgressBar::new(total);
    let style = ProgressStyle::with_template(
        "{prefix:>28} [{bar:30}] {percent:>3}% {elapsed_precise} eta {eta}",
    )
    .map(|s| s.progress_chars("=> "))
    .unwrap_or_else(|_| ProgressStyle::default_bar());
    bar.set_style(style);
    bar.set_prefix(prefix.to_string());
    bar
}
