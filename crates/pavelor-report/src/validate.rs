//! Everything the report can check before it measures, in seconds: the
//! options, the output directory (writable; stale records removed), the
//! KAT data, and the libraries' files.

use std::collections::HashSet;
use std::path::Path;

use pavelor::{Algorithm, Available};
use pavelor_kat::suite::KatKind;
use pavelor_kat::{format, official};

use crate::config::Config;

/// Checks `config`; on success returns notes on what it changed (stale
/// records removed). Nothing is deleted unless every check passed.
pub fn validate(config: &Config) -> Result<Vec<String>, String> {
    check_options(config)?;
    if let Some(dir) = &config.kat_dir {
        check_kat_data(dir, config.kat_2_33)?;
    }
    pavelor_measure::library::validate(&config.libs)?;
    if let Some(b) = &config.baseline
        && !config.libs.iter().any(|l| &l.name == b)
        && let Err(e) = Available::resolve(Some(b))
    {
        return Err(format!(
            "--baseline {b}: not a --lib name, and as a backend: {e}"
        ));
    }
    check_out_dir(&config.out_dir)?;
    remove_stale_records(&config.out_dir)
}

fn check_options(config: &Config) -> Result<(), String> {
    if config.sizes.is_empty() {
        return Err("--sizes: no message length given".into());
    }
    let mut seen = HashSet::new();
    for &s in &config.sizes {
        if s == 0 {
            return Err("--sizes: message lengths start at 1 byte".into());
        }
        if !seen.insert(s) {
            return Err(format!("--sizes: {s} is given twice"));
        }
    }
    if config.method.trials == 0 {
        return Err("--trials must be at least 1".into());
    }
    if let Some(cpu) = config.method.cpu {
        let allowed = pavelor_measure::worker::allowed_cpus()?;
        if !allowed.contains(&cpu) {
            return Err(format!(
                "--cpu {cpu}: this process may run on CPUs {} only (sched_getaffinity)",
                pavelor_measure::worker::cpu_list(&allowed)
            ));
        }
    }
    Ok(())
}

/// Every KAT file the run needs exists and parses.
pub fn check_kat_data(dir: &Path, kat_2_33: bool) -> Result<(), String> {
    if !dir.is_dir() {
        return Err(format!("KAT directory {}: not found", dir.display()));
    }
    for alg in Algorithm::ALL {
        for kind in KatKind::ALL {
            if kind == KatKind::Kat2_33 && !kat_2_33 {
                continue;
            }
            let path = dir.join(kind.file_name(alg));
            let text = official::read_limited(&path, official::max_file_bytes(kind))?;
            let records = format::parse(&text).map_err(|e| format!("{}: {e}", path.display()))?;
            if records.is_empty() {
                return Err(format!("{}: no records", path.display()));
            }
        }
    }
    Ok(())
}

/// The output directory and its `records/` exist (created if need be) and
/// take a new file. `out`, or the nearest of its ancestors that exists, must
/// be a directory or a symbolic link to one: a dangling link or a file is
/// refused in one line naming it.
pub fn check_out_dir(out: &Path) -> Result<(), String> {
    check_out_path(out)?;
    let records = out.join("records");
    std::fs::create_dir_all(&records)
        .map_err(|e| format!("output directory {}: {e}", out.display()))?;
    for dir in [out, records.as_path()] {
        let probe = dir.join(format!(".pavelor-write-test-{}", std::process::id()));
        std::fs::write(&probe, b"")
            .map_err(|e| format!("output directory {} is not writable: {e}", dir.display()))?;
        let _ = std::fs::remove_file(&probe);
    }
    Ok(())
}

/// Refuses an `--out` that `create_dir_all` cannot make a directory of:
/// the first of `out` and its ancestors that exists (as a name) is a
/// dangling symbolic link, a link to a file, or a file.
fn check_out_path(out: &Path) -> Result<(), String> {
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
        return match std::fs::metadata(path) {
            Ok(m) if m.is_dir() => Ok(()),
            Ok(_) => Err(format!(
                "{what} is a symbolic link to {target}, which is not a directory"
            )),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                Err(format!("{what} is a dangling symbolic link (to {target})"))
            }
            Err(e) => Err(format!(
                "{what} is a symbolic link (to {target}) that cannot be followed: {e}"
            )),
        };
    }
    if meta.is_dir() {
        Ok(())
    } else if meta.is_file() {
        Err(format!("{what} is a file, not a directory"))
    } else {
        Err(format!("{what} is not a directory"))
    }
}

/// Removes the `*.json` records a previous run left in `out/records`: the
/// report's evidence index must list only this run's records. Returns a
/// note saying how many were removed.
pub fn remove_stale_records(out: &Path) -> Result<Vec<String>, String> {
    let records = out.join("records");
    let entries = std::fs::read_dir(&records).map_err(|e| format!("{}: {e}", records.display()))?;
    let mut removed = 0;
    for e in entries.flatten() {
        let path = e.path();
        if path.extension().is_some_and(|x| x == "json") && path.is_file() {
            std::fs::remove_file(&path)
                .map_err(|err| format!("cannot remove stale record {}: {err}", path.display()))?;
            removed += 1;
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
            check_out_dir(&dangling),
            Err(format!(
                "--out {} is a dangling symbolic link (to {})",
                dangling.display(),
                d.join("nowhere").display()
            ))
        );
        // Below a dangling link: the link is named.
        let below = dangling.join("sub");
        assert_eq!(
            check_out_dir(&below),
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
            check_out_dir(&file),
            Err(format!(
                "--out {} is a file, not a directory",
                file.display()
            ))
        );
        assert_eq!(
            check_out_dir(&file.join("sub")),
            Err(format!(
                "--out {}: {} is a file, not a directory",
                file.join("sub").display(),
                file.display()
            ))
        );
        let to_file = d.join("to-file");
        symlink(&file, &to_file).expect("symlink");
        assert_eq!(
            check_out_dir(&to_file),
            Err(format!(
                "--out {} is a symbolic link to {}, which is not a directory",
                to_file.display(),
                file.display()
            ))
        );
        let looped = d.join("loop");
        symlink(&looped, &looped).expect("symlink");
        let err = check_out_dir(&looped).expect_err("a loop");
        assert!(err.contains("cannot be followed"), "{err}");

        // A link to a directory is fine, and so is a new directory below one.
        let real = d.join("real");
        std::fs::create_dir(&real).expect("mkdir");
        let to_dir = d.join("to-dir");
        symlink(&real, &to_dir).expect("symlink");
        assert_eq!(check_out_dir(&to_dir), Ok(()));
        assert!(real.join("records").is_dir());
        assert_eq!(check_out_dir(&to_dir.join("new/deeper")), Ok(()));
        assert!(real.join("new/deeper/records").is_dir());
    }
}
