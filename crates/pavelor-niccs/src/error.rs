//! The module's one error type.

use std::fmt;
use std::io;
use std::path::PathBuf;

/// What went wrong loading, writing or deriving a dataset. Every message is
/// one line naming the file (or record) and the problem.
#[derive(Debug)]
#[non_exhaustive]
pub enum Error {
    /// A file or directory could not be read or written.
    Io {
        /// The file.
        path: PathBuf,
        /// The cause.
        source: io::Error,
    },
    /// A file is larger than [`MAX_FILE_BYTES`](super::MAX_FILE_BYTES).
    TooLarge {
        /// The file.
        path: PathBuf,
        /// The limit it exceeds, in bytes.
        limit: u64,
    },
    /// A path that should be a regular file is something else (a directory,
    /// a FIFO, a device).
    NotAFile {
        /// The path.
        path: PathBuf,
    },
    /// A file that must be there is not.
    Missing {
        /// The file.
        path: PathBuf,
    },
    /// A path that should be a directory is something else.
    NotADirectory {
        /// The path.
        path: PathBuf,
    },
    /// A directory of evidence broke a reading rule or a limit
    /// ([`crate::evidence`]).
    Refused {
        /// The file (or directory) refused.
        path: PathBuf,
        /// The rule, with the option that raises a limit.
        problem: String,
    },
    /// A file is not JSON, or not JSON of the harness's schema.
    Json {
        /// The file.
        path: PathBuf,
        /// The cause (with line and column).
        source: serde_json::Error,
    },
    /// A dataset-relative path that the layout does not allow (absolute,
    /// `..`, outside `records/` or `kat/`, not UTF-8).
    BadPath {
        /// The path as given.
        path: String,
        /// Why it is refused.
        problem: &'static str,
    },
    /// A dataset lacks what is asked of it (the architecture of the page).
    Incomplete {
        /// The file that should hold it.
        file: &'static str,
        /// What is missing.
        problem: &'static str,
    },
    /// A record's trials do not allow its statistics to be derived.
    Trials {
        /// The record (`candidate/label op_key`).
        record: String,
        /// The problem.
        problem: String,
    },
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Io { path, source } => write!(f, "{}: {source}", path.display()),
            Error::TooLarge { path, limit } => {
                write!(f, "{}: larger than {limit} bytes; not read", path.display())
            }
            Error::NotAFile { path } => write!(f, "{}: not a regular file", path.display()),
            Error::Missing { path } => write!(f, "{}: missing", path.display()),
            Error::NotADirectory { path } => write!(f, "{}: not a directory", path.display()),
            Error::Refused { path, problem } => write!(f, "{}: {problem}", path.display()),
            Error::Json { path, source } => write!(
                f,
                "{}: not a valid harness JSON file: {}",
                path.display(),
                one_line(&source.to_string())
            ),
            Error::BadPath { path, problem } => write!(f, "{path}: {problem}"),
            Error::Incomplete { file, problem } => write!(f, "{file}: {problem}"),
            Error::Trials { record, problem } => write!(f, "{record}: {problem}"),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Io { source, .. } => Some(source),
            Error::Json { source, .. } => Some(source),
            _ => None,
        }
    }
}

/// `text` with line breaks replaced by spaces.
pub(crate) fn one_line(text: &str) -> String {
    text.split(['\n', '\r']).collect::<Vec<_>>().join(" ")
}
