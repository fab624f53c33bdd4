//! What can refuse or fail a site: its output location, a run it was
//! given, a page's path, and the files it writes. Each message is one line
//! naming the path, run or system it is about.

use std::io;
use std::path::PathBuf;

use pavelor_niccs::evidence::SYSTEM_ID_RULE;

use crate::harness_run::{HarnessRefusal, PageError};
use crate::reload;

/// Why [`super::build`] made no site.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// No run directory was given.
    #[error("no run directory given")]
    NoRuns,
    /// A path (the site's parent, or a run) could not be resolved.
    #[error("{}: {source}", path.display())]
    Resolve {
        /// The path as given.
        path: PathBuf,
        /// Why it could not be resolved.
        #[source]
        source: io::Error,
    },
    /// The site's location does not end in a directory name.
    #[error("{}: not a directory name", out.display())]
    NotADirectoryName {
        /// The site's location.
        out: PathBuf,
    },
    /// The site's location exists and is not a directory.
    #[error("{}: exists and is not a directory", out.display())]
    NotADirectory {
        /// The site's location.
        out: PathBuf,
    },
    /// The site's location could not be listed.
    #[error("{}: {source}", out.display())]
    ReadOutput {
        /// The site's location.
        out: PathBuf,
        /// Why it could not be listed.
        #[source]
        source: io::Error,
    },
    /// The site's location holds files and no site made by this command.
    #[error(
        "{}: exists, is not empty and is not a site made by pavelor site; refusing to replace it",
        out.display()
    )]
    NotASite {
        /// The site's location.
        out: PathBuf,
    },
    /// The site would be inside a run, or a run inside the site.
    #[error(
        "{}: the site may not be inside a run, nor a run inside the site",
        out.display()
    )]
    Nested {
        /// The site's location.
        out: PathBuf,
    },
    /// A page's path is not a plain relative path.
    #[error("{rel}: not a plain relative path; nothing is written outside the site")]
    NotPlainPath {
        /// The path, relative to the site.
        rel: String,
    },
    /// A directory of the site could not be created.
    #[error("{}: {source}", dir.display())]
    CreateDir {
        /// The directory.
        dir: PathBuf,
        /// Why it could not be created.
        #[source]
        source: io::Error,
    },
    /// A file of the site could not be written.
    #[error("{}: {source}", path.display())]
    WriteFile {
        /// The file.
        path: PathBuf,
        /// Why it could not be written.
        #[source]
        source: io::Error,
    },
    /// The new site could not be moved into place, or the old one aside.
    #[error("{}: {source}", target.display())]
    Rename {
        /// The site's location.
        target: PathBuf,
        /// Why the rename failed.
        #[source]
        source: io::Error,
    },
    /// A run's system id is not one the site can use as a directory name.
    #[error("{}: the system id {id:?} is not {SYSTEM_ID_RULE}", root.display())]
    SystemId {
        /// The run's directory.
        root: PathBuf,
        /// The system id it gives.
        id: String,
    },
    /// A harness dataset was refused.
    #[error("refusing the harness dataset: {0}")]
    HarnessRefused(#[source] HarnessRefusal),
    /// A report directory was refused by `pavelor report --check`'s checks:
    /// what the check found, naming the run.
    #[error("refusing the run: {0}")]
    RunRefused(#[source] reload::Error),
    /// A report directory has no `report.html` to link to.
    #[error("{}: no report.html", dir.display())]
    NoReportHtml {
        /// The run's directory.
        dir: PathBuf,
    },
    /// Two runs give the same system id.
    #[error(
        "{}: system id '{id}' is already another run's; give each machine its own (pavelor report --system-id)",
        dir.display()
    )]
    DuplicateSystemId {
        /// The second run's directory.
        dir: PathBuf,
        /// The system id both give.
        id: String,
    },
    /// A harness dataset's `hash-22` page could not be rendered: what the
    /// renderer found, naming the dataset.
    #[error(transparent)]
    HarnessPage(#[from] PageError),
}
