//! The evidence of a sweep: one JSON record per swept implementation
//! (`records/sweep/<subject>.json`: the raw samples, the checks of the
//! calls and the figures derived from them), and the sweeps that gave no
//! curve (`records/sweep/failures.json`). A record read back is checked:
//! its schema, its instance against its subject, its samples against its
//! plan, its calls' checks, and its derived figures against the ones its
//! samples give.

use serde::{Deserialize, Serialize};

use pavelor::Algorithm;
use pavelor_measure::ops::Subject;

use crate::task::{SweepAnswer, SweepChecks, SweepFault};
use crate::{Curve, Summary};

/// The `schema` of a sweep record.
pub const SCHEMA: &str = "pavelor-sweep-record/1";

/// The directory of the sweep's records, relative to a report directory.
pub const DIR: &str = "records/sweep";

/// The file of the sweeps that gave no curve (only when there are some).
pub const FAILURES: &str = "records/sweep/failures.json";

/// The settings of a report's sweep.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Settings {
    /// The sparse plan (`report --sweep --quick`) instead of every length.
    pub quick: bool,
    /// The seed of the random messages.
    pub seed: u64,
}

/// One implementation of one instance, swept.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SweepRecord {
    /// [`SCHEMA`].
    pub schema: String,
    /// What was swept.
    pub subject: Subject,
    /// Its name in a table of one instance (`Rust aesni`, `C ref`).
    pub implementation: String,
    /// The instance's name.
    pub instance: String,
    /// The counter's unit (`cycles`, `TSC ticks`).
    pub counter_unit: String,
    /// Wall time of the worker, seconds.
    pub wall_s: f64,
    /// What the worker's checks of its calls found.
    pub checks: SweepChecks,
    /// The plan and the raw samples.
    pub curve: Curve,
    /// The figures the samples give, stored so that a reader needs no
    /// code; recomputed when the record is read.
    pub summary: Summary,
}

/// A sweep that gave no curve.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SweepFailure {
    /// What was to be swept.
    pub subject: Subject,
    /// Why there is no curve.
    pub fault: SweepFault,
}

/// Why a record cannot be read as a sweep's.
#[derive(Debug, thiserror::Error)]
pub enum RecordError {
    /// Not JSON of a sweep record.
    #[error("not a sweep record: {0}")]
    Json(#[from] serde_json::Error),
    /// Another schema.
    #[error("schema '{0}', expected '{SCHEMA}'")]
    Schema(String),
    /// The record contradicts itself.
    #[error("{0}")]
    Inconsistent(String),
}

impl SweepRecord {
    /// The record of `subject`'s sweep, which its worker answered with
    /// `answer` in `wall_s` seconds.
    ///
    /// Returns `None` for a subject that is not a Pavelor instance.
    pub fn new(subject: Subject, answer: SweepAnswer, wall_s: f64) -> Option<SweepRecord> {
        let alg = subject.algorithm()?;
        Some(SweepRecord {
            schema: SCHEMA.into(),
            implementation: subject.short_name(),
            instance: alg.name().into(),
            counter_unit: answer.curve.counter.unit().into(),
            wall_s,
            checks: answer.checks,
            summary: answer.curve.summary(alg),
            curve: answer.curve,
            subject,
        })
    }

    /// The instance.
    pub fn algorithm(&self) -> Algorithm {
        // `read` and `new` make sure the subject is a Pavelor instance.
        self.subject.algorithm().unwrap_or(Algorithm::Pavelor512)
    }

    /// The record's file, relative to the report directory.
    pub fn file_name(&self) -> String {
        file_name(&self.subject)
    }

    /// Reads a record and checks it (see the module's description).
    pub fn read(bytes: &[u8]) -> Result<SweepRecord, RecordError> {
        let r: SweepRecord = serde_json::from_slice(bytes)?;
        if r.schema != SCHEMA {
            return Err(RecordError::Schema(r.schema));
        }
        let bad = |why: String| Err(RecordError::Inconsistent(why));
        let Some(alg) = r.subject.algorithm() else {
            return bad(format!("{} is not a Pavelor instance", r.subject.id()));
        };
        if r.instance != alg.name() || r.implementation != r.subject.short_name() {
            return bad(format!(
                "names '{}' and '{}' are not those of {}",
                r.instance,
                r.implementation,
                r.subject.id()
            ));
        }
        if r.counter_unit != r.curve.counter.unit() {
            return bad(format!(
                "unit '{}' is not the counter's ({})",
                r.counter_unit,
                r.curve.counter.unit()
            ));
        }
        if let Some(why) = r.curve.shape_problem(&r.curve.plan) {
            return bad(why);
        }
        if r.curve.plan.lengths.windows(2).any(|w| w[0] >= w[1]) {
            return bad("the lengths are not ascending".into());
        }
        if let Some(why) = r.checks.problem() {
            return bad(format!("its calls were wrong ({why})"));
        }
        let derived = r.curve.summary(alg);
        let mut stored = r.summary.clone();
        stored.quartiles.clone_from(&derived.quartiles);
        if stored != derived {
            return bad("its summary is not the one its samples give".into());
        }
        let mut r = r;
        r.summary = derived;
        Ok(r)
    }

    /// The record as JSON, compact (a full sweep holds 62 370 samples).
    pub fn to_json(&self) -> String {
        // A record of plain numbers and strings always serializes.
        serde_json::to_string(self).unwrap_or_default()
    }
}

/// The record file of `subject`'s sweep, relative to the report directory.
pub fn file_name(subject: &Subject) -> String {
    format!("{DIR}/{}.json", subject.id())
}

/// Reads the failures file.
pub fn read_failures(bytes: &[u8]) -> Result<Vec<SweepFailure>, RecordError> {
    Ok(serde_json::from_slice(bytes)?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::SweepPlan;
    use pavelor::Backend;
    use pavelor_measure::clock::CounterKind;
    use pavelor_measure::ops::Operation;

    fn record() -> SweepRecord {
        let plan = SweepPlan {
            lengths: vec![0, 1, 2, 3, 4, 5, 6, 7, 8, 65536],
            passes: 1,
            per_pass: 3,
            seed: 5,
        };
        let curve = Curve {
            samples: plan
                .lengths
                .iter()
                .map(|&n| vec![100 + n as u64; 3])
                .collect(),
            plan,
            counter: CounterKind::Ticks,
            read_overhead: 30,
        };
        let answer = SweepAnswer {
            curve,
            checks: SweepChecks {
                digests_checked: 10,
                ..SweepChecks::default()
            },
            nonce: 1,
            pid: 2,
        };
        let subject = Subject::Op(Operation::Pavelor(Algorithm::Pavelor768, Backend::Portable));
        SweepRecord::new(subject, answer, 0.5).expect("a Pavelor subject")
    }

    #[test]
    fn a_record_reads_back() {
        let r = record();
        assert_eq!(r.file_name(), "records/sweep/pavelor-768.portable.json");
        let back = SweepRecord::read(r.to_json().as_bytes()).expect("its own record");
        assert_eq!(back, r);
        assert_eq!(back.algorithm(), Algorithm::Pavelor768);
    }

    #[test]
    fn an_edited_record_is_refused() {
        let r = record();
        let mut edited = r.clone();
        edited.curve.samples[8] = vec![1, 1, 1];
        let e = SweepRecord::read(edited.to_json().as_bytes()).expect_err("edited samples");
        assert!(e.to_string().contains("summary"), "{e}");
        let mut short = r.clone();
        short.curve.samples[2].pop();
        short.summary = short.curve.summary(Algorithm::Pavelor768);
        let e = SweepRecord::read(short.to_json().as_bytes()).expect_err("a sample missing");
        assert!(e.to_string().contains("2 samples at 2 B"), "{e}");
        let mut wrong = r.clone();
        wrong.checks.wrong_digests = 1;
        wrong.checks.first_wrong_length = Some(7);
        let e = SweepRecord::read(wrong.to_json().as_bytes()).expect_err("a wrong digest");
        assert!(e.to_string().contains("at 7 B"), "{e}");
        let mut renamed = r.clone();
        renamed.instance = "Pavelor-512".into();
        assert!(SweepRecord::read(renamed.to_json().as_bytes()).is_err());
        let mut schema = r;
        schema.schema = "pavelor-sweep-record/0".into();
        assert!(matches!(
            SweepRecord::read(schema.to_json().as_bytes()),
            Err(RecordError::Schema(_))
        ));
    }
}
