//! A dataset in the harness's published layout, `performance/data/<system>/`
//! of `ngcc-dev/ngcc-harness`:
//!
//! ```text
//! campaign.json
//! build.json
//! records/<candidate>/<label>__<op_key>.json     schema-2 timing records
//! kat/<candidate>/<label>.log                    KAT gate logs
//! ```
//!
//! Other files a harness dataset may hold (`profile/`, `katcheck/`) are not
//! part of [`Dataset`]; [`Dataset::write`] leaves files it does not own alone.

use std::collections::BTreeMap;
use std::fs;
use std::io::Read;
use std::path::{Component, Path, PathBuf};

use pavelor_kat::atomic_file::atomic_write;
use serde::Serialize;
use sha2::Digest;

use crate::error::Error;
use crate::json;
use crate::schema::{Build, Campaign, Record};

/// Largest file read (16 MiB): a harness record is about 9 KB, a KAT log
/// about 1 KB; anything far larger is not one.
pub const MAX_FILE_BYTES: u64 = 16 << 20;

/// One system's dataset, in memory.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Dataset {
    /// `campaign.json`.
    pub campaign: Campaign,
    /// `build.json`.
    pub build: Build,
    /// Timing records by dataset-relative path
    /// (`records/hash-22/Pavelor-512__hash_32.json`).
    pub records: BTreeMap<String, Record>,
    /// KAT logs by dataset-relative path (`kat/hash-22/Pavelor-512.log`),
    /// byte for byte.
    pub kat_logs: BTreeMap<String, Vec<u8>>,
}

impl Dataset {
    /// Reads a dataset directory: `campaign.json`, `build.json`, every
    /// `records/**/*.json` and every `kat/**/*.log` (symlinked directories
    /// are not entered; a missing `records/` or `kat/` is empty). Files over
    /// [`MAX_FILE_BYTES`] are refused.
    pub fn load(dir: &Path) -> Result<Dataset, Error> {
        let campaign = parse(&dir.join("campaign.json"))?;
        let build = parse(&dir.join("build.json"))?;
        let mut records = BTreeMap::new();
        for (rel, path) in walk(dir, "records")? {
            if rel.ends_with(".json") {
                records.insert(rel, parse(&path)?);
            }
        }
        let mut kat_logs = BTreeMap::new();
        for (rel, path) in walk(dir, "kat")? {
            if rel.ends_with(".log") {
                kat_logs.insert(rel, read_bounded(&path)?);
            }
        }
        Ok(Dataset {
            campaign,
            build,
            records,
            kat_logs,
        })
    }

    /// Writes the dataset under `dir` (created if needed) in the harness's
    /// layout and JSON form (`json.dumps(indent=1)` and a newline), each
    /// file through a temporary file and a rename, so no reader sees half a
    /// file. Record paths must be `records/…/*.json` and KAT log paths
    /// `kat/…/*.log`, relative, without `.` or `..`: what [`Dataset::load`]
    /// reads back.
    pub fn write(&self, dir: &Path) -> Result<(), Error> {
        // Check every path before writing anything.
        for rel in self.records.keys() {
            layout_path(rel, "records/", ".json")?;
        }
        for rel in self.kat_logs.keys() {
            layout_path(rel, "kat/", ".log")?;
        }
        write_file(
            dir,
            "campaign.json",
            &to_json(&dir.join("campaign.json"), &self.campaign)?,
        )?;
        write_file(
            dir,
            "build.json",
            &to_json(&dir.join("build.json"), &self.build)?,
        )?;
        for (rel, record) in &self.records {
            write_file(dir, rel, &to_json(&dir.join(rel), record)?)?;
        }
        for (rel, bytes) in &self.kat_logs {
            write_file(dir, rel, bytes)?;
        }
        Ok(())
    }

    /// The harness's path for a record:
    /// `records/<candidate>/<label>__<op_key>.json`.
    pub fn record_path(record: &Record) -> String {
        format!(
            "records/{}/{}__{}.json",
            record.candidate,
            record.label,
            record.op_key()
        )
    }

    /// The harness's path for a KAT log: `kat/<candidate>/<label>.log`.
    pub fn kat_log_path(candidate: &str, label: &str) -> String {
        format!("kat/{candidate}/{label}.log")
    }

    /// Adds (or replaces) a record under [`Dataset::record_path`]; returns
    /// the path.
    pub fn insert_record(&mut self, record: Record) -> String {
        let path = Self::record_path(&record);
        self.records.insert(path.clone(), record);
        path
    }

    /// Adds (or replaces) a KAT log under [`Dataset::kat_log_path`];
    /// returns its path and SHA-256 (what `build.json` and the records
    /// cite).
    pub fn insert_kat_log(
        &mut self,
        candidate: &str,
        label: &str,
        log: Vec<u8>,
    ) -> (String, String) {
        let path = Self::kat_log_path(candidate, label);
        let digest = sha256_hex(&log);
        self.kat_logs.insert(path.clone(), log);
        (path, digest)
    }
}

/// Lower-case hex SHA-256, as Python's `hashlib.sha256(…).hexdigest()`.
pub fn sha256_hex(bytes: &[u8]) -> String {
    let digest = sha2::Sha256::digest(bytes);
    digest.iter().map(|b| format!("{b:02x}")).collect()
}

fn to_json<T: Serialize>(path: &Path, value: &T) -> Result<Vec<u8>, Error> {
    json::to_harness_json(value).map_err(|source| Error::Json {
        path: path.to_path_buf(),
        source,
    })
}

/// Parses one JSON file of the schema.
fn parse<T: serde::de::DeserializeOwned>(path: &Path) -> Result<T, Error> {
    let bytes = read_bounded(path)?;
    serde_json::from_slice(&bytes).map_err(|source| Error::Json {
        path: path.to_path_buf(),
        source,
    })
}

/// Reads a regular file of at most [`MAX_FILE_BYTES`].
pub(crate) fn read_bounded(path: &Path) -> Result<Vec<u8>, Error> {
    let io_err = |source| Error::Io {
        path: path.to_path_buf(),
        source,
    };
    let meta = fs::metadata(path).map_err(io_err)?;
    if !meta.is_file() {
        return Err(Error::NotAFile {
            path: path.to_path_buf(),
        });
    }
    if meta.len() > MAX_FILE_BYTES {
        return Err(Error::TooLarge {
            path: path.to_path_buf(),
            limit: MAX_FILE_BYTES,
        });
    }
    let file = fs::File::open(path).map_err(io_err)?;
    let mut bytes = Vec::new();
    file.take(MAX_FILE_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(io_err)?;
    if bytes.len() as u64 > MAX_FILE_BYTES {
        return Err(Error::TooLarge {
            path: path.to_path_buf(),
            limit: MAX_FILE_BYTES,
        });
    }
    Ok(bytes)
}

/// Every file under `root/sub` (recursively; symlinked directories are not
/// entered), as (`sub/…` with `/` separators, full path), sorted by path
/// components as Python sorts `Path` objects. A missing `root/sub` gives
/// nothing; `sub` may be empty for the whole tree.
pub(crate) fn walk(root: &Path, sub: &str) -> Result<Vec<(String, PathBuf)>, Error> {
    let start = if sub.is_empty() {
        root.to_path_buf()
    } else {
        root.join(sub)
    };
    let mut out = Vec::new();
    match fs::symlink_metadata(&start) {
        Ok(meta) if meta.is_dir() => walk_dir(&start, sub, &mut out)?,
        Ok(_) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(source) => {
            return Err(Error::Io {
                path: start,
                source,
            });
        }
    }
    out.sort_by(|a, b| a.0.split('/').cmp(b.0.split('/')));
    Ok(out)
}

fn walk_dir(dir: &Path, rel: &str, out: &mut Vec<(String, PathBuf)>) -> Result<(), Error> {
    let io_err = |source| Error::Io {
        path: dir.to_path_buf(),
        source,
    };
    for entry in fs::read_dir(dir).map_err(io_err)? {
        let entry = entry.map_err(io_err)?;
        let path = entry.path();
        let name = entry.file_name();
        let name = name.to_str().ok_or_else(|| Error::BadPath {
            path: path.display().to_string(),
            problem: "file name is not UTF-8",
        })?;
        let child = if rel.is_empty() {
            name.to_string()
        } else {
            format!("{rel}/{name}")
        };
        let kind = entry.file_type().map_err(|source| Error::Io {
            path: path.clone(),
            source,
        })?;
        if kind.is_dir() {
            walk_dir(&path, &child, out)?;
        } else if kind.is_symlink() {
            // Followed for files (Python's is_file()), never for directories.
            if fs::metadata(&path).is_ok_and(|m| m.is_file()) {
                out.push((child, path));
            }
        } else if kind.is_file() {
            out.push((child, path));
        }
    }
    Ok(())
}

/// Checks a dataset-relative path: under `prefix`, ending in `suffix`, made
/// of plain components only.
fn layout_path(rel: &str, prefix: &str, suffix: &str) -> Result<(), Error> {
    let bad = |problem| Error::BadPath {
        path: rel.to_string(),
        problem,
    };
    if !rel.starts_with(prefix)
        || !rel.ends_with(suffix)
        || rel.len() <= prefix.len() + suffix.len()
    {
        return Err(bad(if prefix == "records/" {
            "a record's path must be records/…/*.json"
        } else {
            "a KAT log's path must be kat/…/*.log"
        }));
    }
    relative_components(rel).map(|_| ())
}

/// The components of a relative `/`-separated path; refuses absolute paths,
/// empty, `.` and `..` components and backslashes.
pub(crate) fn relative_components(rel: &str) -> Result<Vec<&str>, Error> {
    let bad = |problem| Error::BadPath {
        path: rel.to_string(),
        problem,
    };
    if rel.starts_with('/') {
        return Err(bad("an absolute path; dataset paths are relative"));
    }
    if rel.contains('\\') || rel.contains('\0') {
        return Err(bad("a backslash or NUL in a dataset path"));
    }
    let parts: Vec<&str> = rel.split('/').collect();
    if parts
        .iter()
        .any(|p| p.is_empty() || *p == "." || *p == "..")
    {
        return Err(bad("an empty, '.' or '..' component in a dataset path"));
    }
    // A component like "C:" would be a prefix on Windows.
    let joined: PathBuf = parts.iter().collect();
    if !joined
        .components()
        .all(|c| matches!(c, Component::Normal(_)))
    {
        return Err(bad("not a plain relative path"));
    }
    Ok(parts)
}

fn write_file(dir: &Path, rel: &str, bytes: &[u8]) -> Result<(), Error> {
    let parts = relative_components(rel)?;
    let path: PathBuf = std::iter::once(dir.as_os_str())
        .chain(parts.iter().map(|p| std::ffi::OsStr::new(*p)))
        .collect();
    if let Some(parent) = path.parent() {
        fs::create_dir_all(parent).map_err(|source| Error::Io {
            path: parent.to_path_buf(),
            source,
        })?;
    }
    atomic_write(&path, bytes).map_err(|source| Error::Io { path, source })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layout_paths() {
        assert!(layout_path("records/hash-22/a__hash_32.json", "records/", ".json").is_ok());
        for bad in [
            "records/../x.json",
            "/records/x.json",
            "records//x.json",
            "kat/x.json",
            "records/.json",
            "records/a\\b.json",
        ] {
            assert!(layout_path(bad, "records/", ".json").is_err(), "{bad}");
        }
    }

    #[test]
    fn sha256_is_lower_hex() {
        assert_eq!(
            sha256_hex(b"abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }
}
