//! Why `pavelor compare` refuses a directory: one line naming it and its
//! first problem.

use std::path::PathBuf;

use crate::harness_run::{FigureRefusal, HarnessRefusal, RulesRefusal};
use crate::reload;

/// Why a side of a comparison cannot be compared.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A harness dataset the validator's rules refuse (or that cannot be
    /// read).
    #[error("{} is not a harness dataset that passes the harness validator's rules: {problem}", dir.display())]
    HarnessRules {
        /// The directory.
        dir: PathBuf,
        /// The file and the rule's problem.
        #[source]
        problem: RulesRefusal,
    },
    /// A harness dataset that passes the rules but that pavelor cannot
    /// show (an unknown instance, no cycles, no `hash-22` figure).
    #[error("{} passes the harness validator's rules, but pavelor cannot compare it: {file}: {problem}", dir.display())]
    HarnessUnusable {
        /// The directory.
        dir: PathBuf,
        /// The record (dataset-relative), or the directory.
        file: String,
        /// What is wrong.
        #[source]
        problem: FigureRefusal,
    },
    /// A report directory that does not pass `report --check`.
    #[error("{} is not a report directory that passes report --check: {problem}", dir.display())]
    NotAReport {
        /// The directory.
        dir: PathBuf,
        /// The check's first problem.
        #[source]
        problem: reload::Error,
    },
}

impl Error {
    /// The refusal of the harness dataset `dir`.
    pub(super) fn harness(dir: PathBuf, refusal: HarnessRefusal) -> Error {
        match refusal {
            HarnessRefusal::Rules(problem) => Error::HarnessRules { dir, problem },
            HarnessRefusal::Pavelor { file, problem } => {
                Error::HarnessUnusable { dir, file, problem }
            }
        }
    }
}
