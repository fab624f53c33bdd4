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
use crate::evidence::{Evidence, Limits};
use crate::json;
use crate::schema::{Build, Campaign, Record};

/// Largest file read by default ([`Limits::file_bytes`]'s default), and
/// the largest page [`crate::check_page`] reads.
pub const MAX_FILE_BYTES: u64 = crate::evidence::DEFAULT_FILE_BYTES;

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
    /// Reads a dataset directory with the default [`Limits`]: see
    /// [`Dataset::from_evidence`].
    pub fn load(dir: &Path) -> Result<Dataset, Error> {
        Dataset::from_evidence(&Evidence::read(dir, &Limits::default())?)
    }

    /// The dataset of a directory already read: `campaign.json`,
    /// `build.json`, every `records/**/*.json` and every `kat/**/*.log`
    /// (a missing `records/` or `kat/` is empty). Each record's trials
    /// count towards the directory's trial limit.
    pub fn from_evidence(ev: &Evidence) -> Result<Dataset, Error> {
        let campaign = parse(ev, "campaign.json")?;
        let build = parse(ev, "build.json")?;
        let mut records = BTreeMap::new();
        for (rel, _) in ev.files_under("records") {
            if rel.ends_with(".json") {
                let record: Record = parse(ev, rel)?;
                ev.count_trials(rel, record.trial_count())?;
                records.insert(rel.to_string(), record);
            }
        }
        let mut kat_logs = BTreeMap::new();
        for (rel, bytes) in ev.files_under("kat") {
            if rel.ends_with(".log") {
                kat_logs.insert(rel.to_string(), bytes.to_vec());
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

/// Parses the JSON file `rel` of `ev`, which must be there.
fn parse<T: serde::de::DeserializeOwned>(ev: &Evidence, rel: &str) -> Result<T, Error> {
    ev.json(rel)?.ok_or_else(|| Error::Missing {
        path: ev.path_of(rel),
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
