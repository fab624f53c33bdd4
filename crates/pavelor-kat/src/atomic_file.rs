//! Writing result files so that a reader never sees half of one: the one
//! atomic-write helper of the workspace (`kat gen`, `report`, `xtask`).

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
///
/// The temporary file is created exclusively (`O_EXCL`) under an
/// unpredictable name (`.NAME.XXXXXX.tmp`), so a symlink or file planted in
/// the directory is never followed or overwritten. It gets the mode a plain
/// `File::create` would (0666 less the umask), not `tempfile`'s 0600.
pub fn atomic_write(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let name = path
        .file_name()
        .ok_or_else(|| io::Error::other("not a file path"))?;
    let prefix = format!(".{}.", name.to_string_lossy());
    let mut builder = tempfile::Builder::new();
    builder.prefix(&prefix).suffix(".tmp");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        builder.permissions(fs::Permissions::from_mode(0o666));
    }
    let mut tmp = {
        // Held across the creation, so that an interrupt handler running
        // now waits and then sees (and removes) the new file.
        let mut guard = in_flight();
        let tmp = builder.tempfile_in(dir)?;
        guard.push(tmp.path().to_path_buf());
        tmp
    };
    let tmp_path = tmp.path().to_path_buf();
    let result = (|| {
        tmp.write_all(bytes)?;
        tmp.as_file().sync_all()?;
        // On failure `persist` hands the file back; dropping it removes it.
        tmp.persist(path).map_err(|e| e.error)?;
        // Make the rename itself durable.
        fs::File::open(dir)?.sync_all()
    })();
    in_flight().retain(|p| p != &tmp_path);
    result
}

/// Removes the temporary files of writes still in progress. For an
/// interrupt (SIGINT) handler: the final names are untouched either way; this
/// only tidies the hidden `.NAME.XXXXXX.tmp` files away.
pub fn remove_temp_files() {
    for tmp in in_flight().drain(..) {
        let _ = fs::remove_file(tmp);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(dir: &Path) -> Vec<String> {
        let mut v: Vec<String> = fs::read_dir(dir)
            .expect("list")
            .filter_map(|e| e.ok())
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    }

    #[test]
    fn replaces_whole_file_and_leaves_no_temp() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("out.txt");
        atomic_write(&path, b"first").expect("write");
        atomic_write(&path, b"second").expect("rewrite");
        assert_eq!(fs::read(&path).expect("read"), b"second");
        assert_eq!(names(dir.path()), ["out.txt"]);
        assert!(atomic_write(&dir.path().join("missing/x"), b"x").is_err());
        // No temporary file of this test is still registered for cleanup
        // (other tests, running in parallel, may have theirs in flight).
        assert!(!in_flight().iter().any(|p| p.starts_with(dir.path())));
    }

    #[cfg(unix)]
    #[test]
    fn planted_symlinks_are_not_followed() {
        use std::os::unix::fs::{PermissionsExt, symlink};
        let dir = tempfile::tempdir().expect("temp dir");
        let victim = dir.path().join("victim");
        fs::write(&victim, b"precious").expect("victim");
        // The old predictable name, and a few guesses at others.
        let pid = std::process::id();
        let planted = [
            format!(".out.txt.tmp-{pid}"),
            ".out.txt.tmp".to_string(),
            ".out.txt.000000.tmp".to_string(),
            "out.txt.tmp".to_string(),
        ];
        for p in &planted {
            symlink(&victim, dir.path().join(p)).expect("symlink");
        }
        let path = dir.path().join("out.txt");
        atomic_write(&path, b"new").expect("write");
        assert_eq!(fs::read(&victim).expect("victim"), b"precious");
        assert_eq!(fs::read(&path).expect("out"), b"new");
        for p in &planted {
            let meta = fs::symlink_metadata(dir.path().join(p)).expect("planted");
            assert!(meta.file_type().is_symlink(), "{p} replaced");
        }
        // The mode `File::create` gives (0666 less the umask), not 0600.
        let plain = dir.path().join("plain");
        fs::File::create(&plain).expect("plain");
        let mode = |p: &Path| fs::metadata(p).expect("meta").permissions().mode();
        assert_eq!(mode(&path), mode(&plain));
        fs::remove_file(&plain).expect("rm plain");
        assert_eq!(names(dir.path()).len(), planted.len() + 2);
    }
}
