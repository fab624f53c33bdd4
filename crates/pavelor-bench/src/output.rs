//! Writing result files so that a reader never sees half of one.

use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// Temporary files being written right now, so that an interrupt handler
/// can remove them ([`remove_temp_files`]).
static IN_FLIGHT: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

fn in_flight() -> std::sync::MutexGuard<'static, Vec<PathBuf>> {
    IN_FLIGHT
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Writes `bytes` to `path` through a temporary file in the same directory,
/// `fsync`, a rename and an `fsync` of the directory: an interrupted run (or
/// a crash) leaves either the old file or the new one under `path`, never a
/// partial one.
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
    in_flight().push(tmp.clone());
    let result = (|| {
        let mut f = fs::File::create(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        fs::rename(&tmp, path)?;
        // Make the rename itself durable.
        fs::File::open(dir)?.sync_all()
    })();
    if result.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    in_flight().retain(|p| p != &tmp);
    result
}

/// Removes the temporary files of writes still in progress. For an
/// interrupt (SIGINT) handler: the final names are untouched either way; this
/// only tidies the hidden `.NAME.tmp-PID` files away.
pub fn remove_temp_files() {
    for tmp in in_flight().drain(..) {
        let _ = fs::remove_file(tmp);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replaces_whole_file_and_leaves_no_temp() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("out.txt");
        atomic_write(&path, b"first").expect("write");
        atomic_write(&path, b"second").expect("rewrite");
        assert_eq!(fs::read(&path).expect("read"), b"second");
        let names: Vec<_> = fs::read_dir(dir.path())
            .expect("list")
            .filter_map(|e| e.ok())
            .collect();
        assert_eq!(names.len(), 1);
        assert!(atomic_write(&dir.path().join("missing/x"), b"x").is_err());
    }
}
