//! What a failing check says: the [`Rule`] it comes from and the
//! [`Problem`] found.

use std::fmt;

use crate::error::one_line;

/// Which check a problem comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Rule {
    /// A file could not be read (missing, too large, not a file).
    Read,
    /// A JSON file does not parse.
    Json,
    /// pavelor: the system id (the directory's name) is not one that may
    /// name a directory: 1 to 64 letters, digits, `_`, `-` or `.`, not
    /// starting with `.`.
    SystemForm,
    /// The system is not in the caller's list of known systems
    /// (`check_dataset`: registered in `performance/systems.csv`).
    SystemRegistered,
    /// `campaign.json`'s `system_id` is not the directory's name (`check_dataset`).
    SystemId,
    /// A file contains a local absolute path, `/home/`, `/tmp/`, `/root/`
    /// or `/Users/` not preceded by a word character or `.` (`check_dataset`).
    AbsolutePath,
    /// pavelor: a JSON string value starts with `/`.
    AbsoluteJsonString,
    /// pavelor: a `kat_log` in build.json is not a plain relative path.
    KatLogPath,
    /// A KAT log named in build.json is missing (`check_dataset`).
    KatLogMissing,
    /// A KAT log's SHA-256 is not build.json's `kat_log_sha256` (`check_dataset`).
    KatLogDigest,
    /// A KAT log's last `RESULT` line is not build.json's `kat` (`check_dataset`).
    KatLogResult,
    /// A record's candidate/label is not in build.json (`check_record`).
    NotInBuild,
    /// A record's `library` or `kat_log` differs from build.json (`check_record`).
    LibraryOrKatLog,
    /// pavelor: a record's `library_sha256` or `kat_log_sha256` differs from
    /// build.json (campaign.py copies them from there).
    RecordDigests,
    /// pavelor: a record's `instance`, `variant` or `flags` differs from
    /// build.json's.
    RecordIdentity,
    /// pavelor: a record does not lie at
    /// `records/<candidate>/<label>__<op_key>.json`.
    RecordPath,
    /// pavelor: a record is not schema 2, or a file does not have the
    /// schema [`Dataset::load`](crate::Dataset::load) reads.
    Schema,
    /// The number of trials is not the plan's (`check_record`).
    TrialCount,
    /// A trial is malformed (validate.py would raise).
    TrialValues,
    /// `measurements` is not Σ trial measurements (`check_record`).
    Measurements,
    /// A derived figure does not follow from the trials: `mean_seconds`,
    /// `median_trial_seconds`, `mean_cycles`, `operations_per_second`
    /// (`check_record`); pavelor adds `min_trial_seconds`,
    /// `max_trial_seconds` and `median_trial_cycles` (campaign.py).
    Statistic,
    /// `guide_100_measurements_met` is not `measurements >= 100` (`check_record`).
    Guide100,
    /// `throughput_MB_per_second` does not follow from the trials (`check_record`).
    Throughput,
    /// A complete record has no environment (`check_record`).
    Environment,
    /// pavelor: the record's `trials` are not its processes' trials in order.
    ProcessTrials,
    /// A hash profile's shares do not follow from its calls (`check_profile`).
    Profile,
    /// A page differs from the one rendered (`report.py --check`).
    Page,
}

impl Rule {
    /// A short name for messages.
    pub fn name(self) -> &'static str {
        match self {
            Rule::Read => "read",
            Rule::Json => "json",
            Rule::SystemForm => "system-form",
            Rule::SystemRegistered => "system-registered",
            Rule::SystemId => "system-id",
            Rule::AbsolutePath => "absolute-path",
            Rule::AbsoluteJsonString => "absolute-json-string",
            Rule::KatLogPath => "kat-log-path",
            Rule::KatLogMissing => "kat-log-missing",
            Rule::KatLogDigest => "kat-log-digest",
            Rule::KatLogResult => "kat-log-result",
            Rule::NotInBuild => "not-in-build",
            Rule::LibraryOrKatLog => "library-or-kat-log",
            Rule::RecordDigests => "record-digests",
            Rule::RecordIdentity => "record-identity",
            Rule::RecordPath => "record-path",
            Rule::Schema => "schema",
            Rule::TrialCount => "trial-count",
            Rule::TrialValues => "trial-values",
            Rule::Measurements => "measurements",
            Rule::Statistic => "statistic",
            Rule::Guide100 => "guide-100",
            Rule::Throughput => "throughput",
            Rule::Environment => "environment",
            Rule::ProcessTrials => "process-trials",
            Rule::Profile => "profile",
            Rule::Page => "page",
        }
    }
}

impl fmt::Display for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The first problem found: the file (relative to the dataset), the rule,
/// and what is wrong. Displayed as one line, `file: detail [rule]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Problem {
    /// The file, relative to the dataset directory (or the system id for
    /// the dataset as a whole).
    pub file: String,
    /// The check.
    pub rule: Rule,
    /// What is wrong.
    pub detail: String,
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}: {} [{}]",
            self.file,
            one_line(&self.detail),
            self.rule
        )
    }
}

impl std::error::Error for Problem {}

/// The problem `detail` of `file` under `rule`.
pub(super) fn problem(file: &str, rule: Rule, detail: impl Into<String>) -> Problem {
    Problem {
        file: file.to_string(),
        rule,
        detail: detail.into(),
    }
}
