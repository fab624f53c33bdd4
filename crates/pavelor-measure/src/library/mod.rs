//! Foreign ICCS `CryptHash` libraries (`--lib NAME=PATH`): identity, the
//! functional gate and behaviour checks, each call in a disposable worker.
//!
//! The campaign's process never loads a library: it reads the file as ELF
//! (identity, static size, exported symbols) and starts workers
//! (`pavelor __trial <request JSON>`) that load it and call it. A worker
//! that crashes, aborts, hangs (killed at a time limit) or writes past the
//! digest (guard bytes, [`crate::cabi::GuardedDigest`]) is recorded as such
//! and the campaign goes on.
//!
//! * [`identity`] — path, size, SHA-256, build-id, exported symbols, PT_LOAD bytes.
//! * [`tasks`] — the worker side: probe, KAT files, behaviour checks.
//! * [`audit`] — the parent side of the constant-time audit: the worker
//!   under valgrind memcheck, and one verdict per instance.
//! * [`ct_audit`] — the constant-time audit's calls on secret messages
//!   (under valgrind memcheck) and the reading of memcheck's findings.
//! * [`api`] — the worker side of the API checks (random lengths,
//!   misalignment, guard bytes around the message, determinism, overlap).
//! * [`gate`] — the parent side: which instances a library computes
//!   correctly, whether they pass the KATs, how it treats bad input.

#![forbid(unsafe_code)]

pub mod api;
pub mod audit;
pub mod ct_audit;
pub mod gate;
pub mod identity;
pub mod tasks;

use std::path::PathBuf;
use std::str::FromStr;

use pavelor::Algorithm;
use serde::{Deserialize, Serialize};

/// Why a `--lib` argument is not a [`LibSpec`].
#[derive(Debug, thiserror::Error)]
pub enum SpecError {
    /// The argument has no `=`.
    #[error("'{spec}' is not NAME=PATH")]
    NotNameEqualsPath {
        /// The argument as given.
        spec: String,
    },
    /// The name is empty, too long, or holds other characters.
    #[error("library name '{name}' must be 1 to 32 letters, digits, '_' or '-'")]
    BadName {
        /// The name as given.
        name: String,
    },
    /// Nothing follows the `=`.
    #[error("no path given for library '{name}'")]
    NoPath {
        /// The library's name.
        name: String,
    },
}

/// Why [`validate`] refused a list of libraries. Each message starts with
/// `--lib` and names the library.
#[derive(Debug, thiserror::Error)]
pub enum CheckError {
    /// Two libraries have the same name.
    #[error("--lib name '{name}' given twice")]
    DuplicateName {
        /// The name.
        name: String,
    },
    /// The library's file cannot be looked up (missing, no permission...).
    #[error("--lib {name}: {}: {source}", path.display())]
    Metadata {
        /// The library's name.
        name: String,
        /// Its file.
        path: PathBuf,
        /// What `stat` said.
        #[source]
        source: std::io::Error,
    },
    /// The path is a directory or another non-regular file.
    #[error("--lib {name}: {} is not a file", path.display())]
    NotAFile {
        /// The library's name.
        name: String,
        /// Its path.
        path: PathBuf,
    },
    /// The file's first bytes cannot be read.
    #[error("--lib {name}: {}: {source}", path.display())]
    Unreadable {
        /// The library's name.
        name: String,
        /// Its file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
}

/// A library to measure, as given on the command line.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LibSpec {
    /// Short name used in tables, file names and `--baseline`.
    pub name: String,
    /// The shared library file.
    pub path: PathBuf,
}

impl FromStr for LibSpec {
    type Err = SpecError;

    /// `NAME=PATH`; NAME is 1..=32 of `A-Z a-z 0-9 _ -`.
    fn from_str(s: &str) -> Result<Self, SpecError> {
        let (name, path) = s
            .split_once('=')
            .ok_or_else(|| SpecError::NotNameEqualsPath {
                spec: s.to_string(),
            })?;
        let ok_name = !name.is_empty()
            && name.len() <= 32
            && name
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
        if !ok_name {
            return Err(SpecError::BadName {
                name: name.to_string(),
            });
        }
        if path.is_empty() {
            return Err(SpecError::NoPath {
                name: name.to_string(),
            });
        }
        Ok(LibSpec {
            name: name.to_string(),
            path: PathBuf::from(path),
        })
    }
}

/// Checks a list of libraries before any work: unique names, regular
/// files whose first bytes can be read.
///
/// A file that is read but is not an ELF shared object for this machine
/// (not ELF, another machine, class or byte order, not `ET_DYN`) is not
/// refused here: the gate gives it the status LOAD ERROR with the same
/// one-line reason, the report and its records are written, and the other
/// libraries are measured.
pub fn validate(libs: &[LibSpec]) -> Result<(), CheckError> {
    for (i, l) in libs.iter().enumerate() {
        if libs[..i].iter().any(|o| o.name == l.name) {
            return Err(CheckError::DuplicateName {
                name: l.name.clone(),
            });
        }
        let meta = std::fs::metadata(&l.path).map_err(|source| CheckError::Metadata {
            name: l.name.clone(),
            path: l.path.clone(),
            source,
        })?;
        if !meta.is_file() {
            return Err(CheckError::NotAFile {
                name: l.name.clone(),
                path: l.path.clone(),
            });
        }
        match identity::check_header(&l.path) {
            Ok(()) | Err(identity::HeaderError::NotLoadable { .. }) => {}
            Err(identity::HeaderError::Unreadable { path, source }) => {
                return Err(CheckError::Unreadable {
                    name: l.name.clone(),
                    path,
                    source,
                });
            }
        }
    }
    Ok(())
}

/// The reference answer every library call is checked against: pavelor's
/// own (the best backend).
pub fn reference(alg: Algorithm, msg: &[u8], nbits: u64) -> Vec<u8> {
    let mut h = alg.hasher();
    h.update_bits(msg, nbits)
        .map(|()| h.finalize().to_vec())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_name_equals_path() {
        let l: LibSpec = "subref=/tmp/x.so".parse().expect("valid");
        assert_eq!(l.name, "subref");
        assert_eq!(l.path, PathBuf::from("/tmp/x.so"));
        let l: LibSpec = "a=b=c".parse().expect("path may hold '='");
        assert_eq!(l.path, PathBuf::from("b=c"));
        for bad in ["noequals", "=x.so", "bad name=x.so", "a/b=x.so", "x="] {
            assert!(bad.parse::<LibSpec>().is_err(), "{bad}");
        }
    }

    #[test]
    fn validate_refuses_duplicates_and_missing_files() {
        let exe = std::env::current_exe().expect("test binary");
        let a = LibSpec {
            name: "a".into(),
            path: exe.clone(),
        };
        assert!(validate(std::slice::from_ref(&a)).is_ok());
        assert!(validate(&[a.clone(), a.clone()]).is_err());
        let missing = LibSpec {
            name: "m".into(),
            path: "/nonexistent/lib.so".into(),
        };
        assert_eq!(
            validate(&[missing]).map_err(|e| e.to_string()),
            Err("--lib m: /nonexistent/lib.so: No such file or directory (os error 2)".into())
        );
        let dir = LibSpec {
            name: "d".into(),
            path: "/".into(),
        };
        assert_eq!(
            validate(&[dir]).map_err(|e| e.to_string()),
            Err("--lib d: / is not a file".into())
        );
    }

    /// A file that is not a library for this machine passes: the gate
    /// reports it (LOAD ERROR). A regular file whose first bytes cannot be
    /// read is refused.
    #[test]
    fn validate_leaves_wrong_files_to_the_gate_and_refuses_unreadable_ones() {
        let dir = tempfile::tempdir().expect("tempdir");
        let txt = dir.path().join("x.so");
        std::fs::write(&txt, "not elf").expect("write");
        let text = LibSpec {
            name: "t".into(),
            path: txt,
        };
        assert!(validate(&[text]).is_ok());
        // A regular file that opens but cannot be read at offset 0.
        let mem = std::path::Path::new("/proc/self/mem");
        if mem.is_file() {
            let unreadable = LibSpec {
                name: "u".into(),
                path: mem.into(),
            };
            let err = validate(&[unreadable]).expect_err("unreadable").to_string();
            assert!(err.starts_with("--lib u: /proc/self/mem: "), "{err}");
        }
    }
}
