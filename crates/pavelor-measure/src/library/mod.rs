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
//! * [`gate`] — the parent side: which instances a library computes
//!   correctly, whether they pass the KATs, how it treats bad input.

#![forbid(unsafe_code)]

pub mod gate;
pub mod identity;
pub mod tasks;

use std::path::PathBuf;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// A library to measure, as given on the command line.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LibSpec {
    /// Short name used in tables, file names and `--baseline`.
    pub name: String,
    /// The shared library file.
    pub path: PathBuf,
}

impl FromStr for LibSpec {
    type Err = String;

    /// `NAME=PATH`; NAME is 1..=32 of `A-Z a-z 0-9 _ -`.
    fn from_str(s: &str) -> Result<Self, String> {
        let (name, path) = s
            .split_once('=')
            .ok_or_else(|| format!("'{s}' is not NAME=PATH"))?;
        let ok_name = !name.is_empty()
            && name.len() <= 32
            && name
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
        if !ok_name {
            return Err(format!(
                "library name '{name}' must be 1 to 32 letters, digits, '_' or '-'"
            ));
        }
        if path.is_empty() {
            return Err(format!("no path given for library '{name}'"));
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
pub fn validate(libs: &[LibSpec]) -> Result<(), String> {
    for (i, l) in libs.iter().enumerate() {
        if libs[..i].iter().any(|o| o.name == l.name) {
            return Err(format!("--lib name '{}' given twice", l.name));
        }
        let meta = std::fs::metadata(&l.path)
            .map_err(|e| format!("--lib {}: {}: {e}", l.name, l.path.display()))?;
        if !meta.is_file() {
            return Err(format!(
                "--lib {}: {} is not a file",
                l.name,
                l.path.display()
            ));
        }
        match identity::check_header(&l.path) {
            Ok(()) | Err(identity::HeaderError::NotLoadable(_)) => {}
            Err(identity::HeaderError::Unreadable(e)) => {
                return Err(format!("--lib {}: {e}", l.name));
            }
        }
    }
    Ok(())
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
            validate(&[missing]),
            Err("--lib m: /nonexistent/lib.so: No such file or directory (os error 2)".into())
        );
        let dir = LibSpec {
            name: "d".into(),
            path: "/".into(),
        };
        assert_eq!(validate(&[dir]), Err("--lib d: / is not a file".into()));
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
        assert_eq!(validate(&[text]), Ok(()));
        // A regular file that opens but cannot be read at offset 0.
        let mem = std::path::Path::new("/proc/self/mem");
        if mem.is_file() {
            let unreadable = LibSpec {
                name: "u".into(),
                path: mem.into(),
            };
            let err = validate(&[unreadable]).expect_err("unreadable");
            assert!(err.starts_with("--lib u: /proc/self/mem: "), "{err}");
        }
    }
}
