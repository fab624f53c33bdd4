//! Everything the report can check before it measures, in seconds: the
//! options, the output directory (writable; stale records removed), the
//! KAT data, and the libraries' files.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use pavelor::{Algorithm, Available};
use pavelor_kat::suite::KatKind;
use pavelor_kat::{format, official};

use crate::config::Config;

/// A check before measuring that failed: which one, and on which input.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// `--sizes` is empty.
    #[error("--sizes: no message length given")]
    NoSizes,
    /// `--sizes` holds 0.
    #[error("--sizes: message lengths start at 1 byte")]
    ZeroSize,
    /// `--sizes` holds a length twice.
    #[error("--sizes: {0} is given twice")]
    DuplicateSize(usize),
    /// `--trials 0`.
    #[error("--trials must be at least 1")]
    NoTrials,
    /// The CPUs this process may run on could not be read.
    #[error(transparent)]
    Affinity(#[from] pavelor_measure::worker::Error),
    /// `--cpu` names a CPU this process may not run on.
    #[error("--cpu {cpu}: this process may run on CPUs {allowed} only (sched_getaffinity)")]
    CpuNotAllowed {
        /// The CPU asked for.
        cpu: usize,
        /// The CPUs allowed, as a list.
        allowed: String,
    },
    /// A `--lib` is refused by the library check.
    #[error(transparent)]
    Library(#[from] pavelor_measure::library::CheckError),
    /// `--baseline` is neither a `--lib` name nor a backend.
    #[error("--baseline {name}: not a --lib name, and as a backend: {source}")]
    Baseline {
        /// The name given.
        name: String,
        /// Why it is no backend.
        source: pavelor::Error,
    },
    /// The KAT directory does not exist.
    #[error("KAT directory {}: not found", .0.display())]
    KatDirMissing(PathBuf),
    /// A KAT file could not be read.
    #[error(transparent)]
    KatRead(#[from] pavelor_kat::official::ReadError),
    /// A KAT file does not parse.
    #[error("{}: {source}", path.display())]
    KatParse {
        /// The file.
        path: PathBuf,
        /// Why.
        source: format::ParseError,
    },
    /// A KAT file holds no record.
    #[error("{}: no records", .0.display())]
    KatEmpty(PathBuf),
    /// `--out` or an ancestor cannot be made a directory.
    #[error("{what} {problem}")]
    OutPath {
        /// `--out PATH`, with the ancestor at fault if it is not `PATH`.
        what: String,
        /// What the path is instead of a directory.
        problem: OutPathProblem,
    },
    /// The output directory could not be created.
    #[error("output directory {}: {source}", dir.display())]
    OutCreate {
        /// The directory.
        dir: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The output directory does not take a new file.
    #[error("output directory {} is not writable: {source}", dir.display())]
    OutNotWritable {
        /// The directory.
        dir: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// `records/` could not be listed.
    #[error("{}: {source}", dir.display())]
    RecordsUnreadable {
        /// The directory.
        dir: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// A stale record could not be removed.
    #[error("cannot remove stale record {}: {source}", path.display())]
    StaleRecord {
        /// The record.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
}

/// What an `--out` path (or its first existing ancestor) is instead of a
/// directory.
#[derive(Debug, thiserror::Error)]
pub enum OutPathProblem {
    /// A symbolic link to something that is not a directory.
    #[error("is a symbolic link to {target}, which is not a directory")]
    LinkToNonDirectory {
        /// The link's target, as read.
        target: String,
    },
    /// A symbolic link to nothing.
    #[error("is a dangling symbolic link (to {target})")]
    DanglingLink {
        /// The link's target, as read.
        target: String,
    },
    /// A symbolic link that cannot be followed (a loop, no permission).
    #[error("is a symbolic link (to {target}) that cannot be followed: {source}")]
    UnfollowableLink {
        /// The link's target, as read.
        target: String,
        /// Why.
        source: std::io::Error,
    },
    /// A regular file.
    #[error("is a file, not a directory")]
    File,
    /// Something else (a device, a socket).
    #[error("is not a directory")]
    NotDirectory,
}

/// Checks `config`; on success returns notes on what it changed (stale
/// records removed). Nothing is deleted unless every check passed.
pub fn validate(config: &Config) -> Result<Vec<String>, Error> {
    check_options(config)?;
    if let Some(dir) = &config.kat_dir {
        check_kat_data(dir, config.kat_2_33)?;
    }
    pavelor_measure::library::validate(&config.libs).map_err(Error::Library)?;
    if let Some(b) = &config.baseline
        && !config.libs.iter().any(|l| &l.name == b)
        && let Err(e) = Available::resolve(Some(b))
    {
        return Err(Error::Baseline {
            name: b.clone(),
            source: e,
        });
    }
    check_out_dir(&config.out_dir)?;
    remove_stale_records(&config.out_dir)
}

fn check_options(config: &Config) -> Result<(), Error> {
    if config.sizes.is_empty() {
        return Err(Error::NoSizes);
    }
    let mut seen = HashSet::new();
    for &s in &config.sizes {
        if s == 0 {
            return Err(Error::ZeroSize);
        }
        if !seen.insert(s) {
            return Err(Error::DuplicateSize(s));
        }
    }
    if config.method.trials == 0 {
        return Err(Error::NoTrials);
    }
    if let Some(cpu) = config.method.cpu {
        let allowed = pavelor_measure::worker::allowed_cpus().map_err(Error::Affinity)?;
        if !allowed.contains(&cpu) {
            return Err(Error::CpuNotAllowed {
                cpu,
                allowed: pavelor_measure::worker::cpu_list(&allowed),
            });
        }
    }
    Ok(())
}

/// Every KAT file the run needs exists and parses.
pub fn check_kat_data(dir: &Path, kat_2_33: bool) -> Result<(), Error> {
    if !dir.is_dir() {
        return Err(Error::KatDirMissing(dir.to_path_buf()));
    }
    for alg in Algorithm::ALL {
        for kind in KatKind::ALL {
            if kind == KatKind::Kat2_33 && !kat_2_33 {
                continue;
            }
            let path = dir.join(kind.file_name(alg));
            let text = official::read_limited(&path, official::max_file_bytes(kind))
                .map_err(Error::KatRead)?;
            let records = match format::parse(&text) {
                Ok(records) => records,
                Err(source) => return Err(Error::KatParse { path, source }),
            };
            if records.is_empty() {
                return Err(Error::KatEmpty(path));
            }
        }
    }
    Ok(())
}

/// The output directory and its `records/` exist (created if need be) and
/// take a new file. `out`, or the nearest of its ancestors that exists, must
/// be a directory or a symbolic link to one: a dangling link or a file is
/// refused in one line naming it.
pub fn check_out_dir(out: &Path) -> Result<(), Error> {
    check_out_path(out)?;
    let records = out.join("records");
    std::fs::create_dir_all(&records).map_err(|source| Error::OutCreate {
        dir: out.to_path_buf(),
        source,
    })?;
    for dir in [out, records.as_path()] {
        let probe = dir.join(format!(".pavelor-write-test-{}", std::process::id()));
        std::fs::write(&probe, b"").map_err(|source| Error::OutNotWritable {
            dir: dir.to_path_buf(),
            source,
        })?;
        let _ = std::fs::remove_file(&probe);
    }
    Ok(())
}

/// Refuses an `--out` that `create_dir_all` cannot make a directory of:
/// the first of `out` and its ancestors that exists (as a name) is a
/// dangling symbolic link, a link to a file, or a file.
fn check_out_path(out: &Path) -> Result<(), Error> {
    let Some((path, meta)) = out
        .ancestors()
        .filter(|p| !p.as_os_str().is_empty())
        .find_map(|p| std::fs::symlink_metadata(p).ok().map(|m| (p, m)))
    else {
        return Ok(());
    };
    let what = if path == out {
        format!("--out {}", out.display())
    } else {
        format!("--out {}: {}", out.display(), path.display())
    };
    if meta.file_type().is_symlink() {
        let target = std::fs::read_link(path)
            .map_or_else(|e| format!("unreadable: {e}"), |t| t.display().to_string());
        let problem = match std::fs::metadata(path) {
            Ok(m) if m.is_dir() => return Ok(()),
            Ok(_) => OutPathProblem::LinkToNonDirectory { target },
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                OutPathProblem::DanglingLink { target }
            }
            Err(source) => OutPathProblem::UnfollowableLink { target, source },
        };
        return Err(Error::OutPath { what, problem });
    }
    if meta.is_dir() {
        return Ok(());
    }
    let problem = if meta.is_file() {
        OutPathProblem::File
    } else {
        OutPathProblem::NotDirectory
    };
    Err(Error::OutPath { what, problem })
}

/// Removes the `*.json` records a previous run left in `out/records` and
/// `out/records/sweep`: the
/// report's evidence index must list only this run's records. Returns a
/// note saying how many were removed.
pub fn remove_stale_records(out: &Path) -> Result<Vec<String>, Error> {
    let records = out.join("records");
    let mut removed = 0;
    for dir in [records.clone(), out.join(pavelor_sweep::record::DIR)] {
        let entries = match std::fs::read_dir(&dir) {
            Ok(e) => e,
            // A run without a sweep left no directory of its records.
            Err(e) if dir != records && e.kind() == std::io::ErrorKind::NotFound => continue,
            Err(source) => return Err(Error::RecordsUnreadable { dir, source }),
        };
        for e in entries.flatten() {
            let path = e.path();
            if path.extension().is_some_and(|x| x == "json") && path.is_file() {
                std::fs::remove_file(&path).map_err(|source| Error::StaleRecord {
                    path: path.clone(),
                    source,
                })?;
                removed += 1;
            }
        }
    }
    Ok(if removed > 0 {
        vec![format!(
            "{removed} record files of an earlier run in {} were removed before this run",
            records.display()
        )]
    } else {
        Vec::new()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stale_records_are_removed_and_counted() {
        let dir = tempfile::tempdir().expect("tempdir");
        check_out_dir(dir.path()).expect("writable");
        let rec = dir.path().join("records");
        std::fs::write(rec.join("old.json"), "{}").expect("write");
        std::fs::write(rec.join("keep.txt"), "x").expect("write");
        let notes = remove_stale_records(dir.path()).expect("removes");
        assert_eq!(notes.len(), 1);
        assert!(notes[0].starts_with("1 record files"));
        assert!(!rec.join("old.json").exists() && rec.join("keep.txt").exists());
        assert!(remove_stale_records(dir.path()).expect("again").is_empty());
    }

    #[test]
    fn missing_kat_dir_is_refused() {
        assert!(check_kat_data(Path::new("/nonexistent/kat"), false).is_err());
    }

    #[cfg(unix)]
    #[test]
    fn out_dir_links_and_files_are_named_in_one_line() {
        use std::os::unix::fs::symlink;
        let dir = tempfile::tempdir().expect("tempdir");
        let d = dir.path();
        let dangling = d.join("dangling");
        symlink(d.join("nowhere"), &dangling).expect("symlink");
        assert_eq!(
            check_out_dir(&dangling).map_err(|e| e.to_string()),
            Err(format!(
                "--out {} is a dangling symbolic link (to {})",
                dangling.display(),
                d.join("nowhere").display()
            ))
        );
        // Below a dangling link: the link is named.
        let below = dangling.join("sub");
        assert_eq!(
            check_out_dir(&below).map_err(|e| e.to_string()),
            Err(format!(
                "--out {}: {} is a dangling symbolic link (to {})",
                below.display(),
                dangling.display(),
                d.join("nowhere").display()
            ))
        );
        assert!(!d.join("nowhere").exists(), "a refused --out was created");

        let file = d.join("file");
        std::fs::write(&file, "x").expect("write");
        assert_eq!(
            check_out_dir(&file).map_err(|e| e.to_string()),
            Err(format!(
                "--out {} is a file, not a directory",
                file.display()
            ))
        );
        assert_eq!(
            check_out_dir(&file.join("sub")).map_err(|e| e.to_string()),
            Err(format!(
                "--out {}: {} is a file, not a directory",
                file.join("sub").display(),
                file.display()
            ))
        );
        let to_file = d.join("to-file");
        symlink(&file, &to_file).expect("symlink");
        assert_eq!(
            check_out_dir(&to_file).map_err(|e| e.to_string()),
            Err(format!(
                "--out {} is a symbolic link to {}, which is not a directory",
                to_file.display(),
                file.display()
            ))
        );
        let looped = d.join("loop");
        symlink(&looped, &looped).expect("symlink");
        let err = check_out_dir(&looped).expect_err("a loop").to_string();
        assert!(err.contains("cannot be followed"), "{err}");

        // A link to a directory is fine, and so is a new directory below one.
        let real = d.join("real");
        std::fs::create_dir(&real).expect("mkdir");
        let to_dir = d.join("to-dir");
        symlink(&real, &to_dir).expect("symlink");
        assert!(check_out_dir(&to_dir).is_ok());
        assert!(real.join("records").is_dir());
        assert!(check_out_dir(&to_dir.join("new/deeper")).is_ok());
        assert!(real.join("new/deeper/records").is_dir());
    }
}
