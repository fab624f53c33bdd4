//! What a check returns: a [`Report`] per file, naming the first
//! [`Failure`].

use std::fmt;

use pavelor::Algorithm;

use super::schedule::record_count;
use crate::suite::KatKind;

/// Why a check failed, and where.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Failure {
    /// 1-based record number, when the failure belongs to one record.
    pub record: Option<usize>,
    /// 1-based line of that record's `Msg_Len` (or of a format error) in
    /// the file checked; `None` for the embedded answers or a missing record.
    pub line: Option<usize>,
    /// The record's (official) `Msg_Len`.
    pub msg_len: Option<u64>,
    /// What differed, one line.
    pub reason: String,
}

impl Failure {
    /// The failure of record `index` (0-based), at `line` of the file if
    /// there is one.
    pub(super) fn of_record(
        index: usize,
        line: Option<usize>,
        msg_len: u64,
        reason: String,
    ) -> Self {
        Failure {
            record: Some(index + 1),
            line,
            msg_len: Some(msg_len),
            reason,
        }
    }

    /// A failure of the file as a whole (unreadable, too large, a manifest
    /// mismatch), not of one record.
    pub(super) fn of_file(reason: String) -> Self {
        Failure {
            record: None,
            line: None,
            msg_len: None,
            reason,
        }
    }
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut place = Vec::new();
        if let Some(l) = self.line {
            place.push(format!("line {l}"));
        }
        if let Some(m) = self.msg_len {
            place.push(format!("Msg_Len = {m}"));
        }
        match (self.record, place.is_empty()) {
            (Some(r), true) => write!(f, "record {r}: ")?,
            (Some(r), false) => write!(f, "record {r} ({}): ", place.join(", "))?,
            (None, false) => write!(f, "{}: ", place.join(", "))?,
            (None, true) => {}
        }
        f.write_str(&self.reason)
    }
}

/// The result of checking one file (embedded or on disk).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Report {
    /// The instance.
    pub alg: Algorithm,
    /// The file.
    pub kind: KatKind,
    /// Records whose digest the implementation reproduced (0 when only
    /// the whole-file manifest check failed: some record is wrong, but the
    /// stored digest prefixes cannot say which).
    pub passed: usize,
    /// Records of the official file.
    pub total: usize,
    /// The first failure; `None` means PASS.
    pub failure: Option<Failure>,
}

impl Report {
    /// The official file name, e.g. `KAT_2_12_Pavelor-512.txt`.
    pub fn file_name(&self) -> String {
        self.kind.file_name(self.alg)
    }

    /// Whether every record verified.
    pub fn is_pass(&self) -> bool {
        self.failure.is_none() && self.passed == self.total
    }

    /// A report with nothing checked yet.
    pub(super) fn new(alg: Algorithm, kind: KatKind) -> Self {
        Report {
            alg,
            kind,
            passed: 0,
            total: record_count(kind),
            failure: None,
        }
    }

    /// This report, ended by `failure`.
    pub(super) fn fail(mut self, failure: Failure) -> Self {
        self.failure = Some(failure);
        self
    }
}

/// `KAT_2_12_Pavelor-512.txt: PASS 4097/4097` or
/// `KAT_2_12_Pavelor-512.txt: FAIL 10/4097: record 11 (Msg_Len = 10): ...`.
impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let verdict = if self.is_pass() { "PASS" } else { "FAIL" };
        write!(
            f,
            "{}: {verdict} {}/{}",
            self.file_name(),
            self.passed,
            self.total
        )?;
        match &self.failure {
            Some(e) => write!(f, ": {e}"),
            None => Ok(()),
        }
    }
}
