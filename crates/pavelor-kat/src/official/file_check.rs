//! The strict check of a KAT file: [`check_file`] reads it,
//! [`check_file_bytes`] checks its text record by record and as a whole.

use std::path::Path;

use pavelor::Algorithm;

use super::answers::manifest_check;
use super::bounded_read::{max_file_bytes, read_limited};
use super::report::{Failure, Report};
use super::schedule::{check_shape, long_source, official_msg_len, tag};
use crate::digests::{long_digest, loop_digest};
use crate::drng::Drng;
use crate::embedded::{Answers, Expected};
use crate::error::Error;
use crate::format::{self, Located, Record, encode_hex_upper};
use crate::implementation::Implementation;
use crate::suite::{KatKind, LOOP_ITERATIONS};

/// [`read_limited`] (limit [`max_file_bytes`]) and [`check_file_bytes`];
/// a file that cannot be read, or is too large, is a failure of the report.
pub fn check_file(
    imp: &mut dyn Implementation,
    alg: Algorithm,
    kind: KatKind,
    path: &Path,
    progress: &mut dyn FnMut(u64, u64),
) -> Report {
    match read_limited(path, max_file_bytes(kind)) {
        Ok(text) => check_file_bytes(imp, alg, kind, &text, progress),
        Err(e) => Report::new(alg, kind).fail(Failure::of_file(e.to_string())),
    }
}

/// Checks the text of a KAT file of `kind` for `alg`, strictly (see the
/// [module documentation](super)), computing every digest with `imp`. Stops
/// at the first failure, which names its record (and line).
///
/// `KAT_2_33` hashes 3 x 1 GiB; a record with a wrong `Msg_Len`, seed or
/// excerpt fails before anything is hashed.
pub fn check_file_bytes(
    imp: &mut dyn Implementation,
    alg: Algorithm,
    kind: KatKind,
    text: &[u8],
    progress: &mut dyn FnMut(u64, u64),
) -> Report {
    let mut report = Report::new(alg, kind);
    let records = match canonical_records(kind, text) {
        Ok(r) => r,
        Err(f) => return report.fail(f),
    };
    let answers = Answers::of(alg);
    let mut drng = Drng::new(&kind.seed());
    let n = report.total;
    for i in 0..n.max(records.len()) {
        let want_len = official_msg_len(kind, i);
        let Some(located) = records.get(i) else {
            return report.fail(Failure::of_record(
                i,
                None,
                want_len,
                format!(
                    "missing: the file ends after {} records, an official {} file has {n}",
                    records.len(),
                    tag(kind)
                ),
            ));
        };
        let line = Some(located.line);
        let record = &located.record;
        if i >= n {
            return report.fail(Failure::of_record(
                i,
                line,
                record.msg_len(),
                format!(
                    "extra record: an official {} file has exactly {n} records",
                    tag(kind)
                ),
            ));
        }
        let fail = |reason: String| Failure::of_record(i, line, record.msg_len(), reason);
        if let Err(reason) = check_shape(alg, kind, i, record, &mut drng) {
            return report.fail(fail(reason.to_string()));
        }
        let expected = match answers.expected(kind, i) {
            Some(e) => e,
            None => return report.fail(fail("no embedded answer".into())),
        };
        if !expected.matches(record.dst()) {
            return report.fail(fail(format!(
                "Dst differs from the official answer (official Dst {}{})",
                encode_hex_upper(expected.bytes()),
                if matches!(expected, Expected::Prefix(_)) {
                    "..."
                } else {
                    ""
                }
            )));
        }
        match compute_digest(imp, alg, kind, i, record, progress) {
            Ok(d) if d.as_slice() == record.dst() => {}
            Ok(d) => {
                return report.fail(fail(format!(
                    "Dst mismatch: the file has {}, the implementation computed {}",
                    encode_hex_upper(record.dst()),
                    encode_hex_upper(&d)
                )));
            }
            Err(e) => return report.fail(fail(e.to_string())),
        }
        report.passed += 1;
        if kind == KatKind::Kat2_12 {
            progress(i as u64 + 1, n as u64);
        }
    }
    if let Err(f) = manifest_check(alg, kind, text, "the file's") {
        report.passed = 0;
        return report.fail(f);
    }
    report
}

/// Parses `text` into its records, refusing a file larger than any
/// official one of `kind`, a format error and a non-canonical layout.
fn canonical_records(kind: KatKind, text: &[u8]) -> Result<Vec<Located>, Failure> {
    if text.len() as u64 > max_file_bytes(kind) {
        return Err(Failure::of_file(format!(
            "{} bytes, more than any official KAT file of its kind ({} bytes); refused",
            text.len(),
            max_file_bytes(kind)
        )));
    }
    let records = format::parse(text).map_err(|e| Failure {
        record: None,
        line: Some(e.line),
        msg_len: None,
        reason: e.message,
    })?;
    canonical_layout(text, &records)?;
    Ok(records)
}

/// Computes the digest of record `i` with `imp`: the Monte-Carlo loop for
/// [`KatKind::Loop`], the streamed message of a long record (whose first
/// and last 8 bytes must match the record's `Exp_Head`/`Exp_Tail`), the
/// record's own message otherwise. `progress` sees the loop iterations or
/// the bytes streamed over the file's three long records.
fn compute_digest(
    imp: &mut dyn Implementation,
    alg: Algorithm,
    kind: KatKind,
    i: usize,
    record: &Record,
    progress: &mut dyn FnMut(u64, u64),
) -> Result<Vec<u8>, Error> {
    match record {
        Record::Full(r) if kind == KatKind::Loop => {
            let total = u64::from(LOOP_ITERATIONS);
            loop_digest(imp, alg, &r.msg, LOOP_ITERATIONS, &mut |k| {
                progress(k, total)
            })
        }
        Record::Full(r) => imp
            .digest(alg, &r.msg, r.msg_len)
            .map_err(Error::Implementation),
        Record::Long(r) => {
            let bytes = official_msg_len(kind, 0).div_ceil(8);
            let base = i as u64 * bytes;
            let long = long_digest(imp, alg, &long_source(kind, i), r.msg_len, &mut |done| {
                progress(base + done, 3 * bytes)
            })?;
            if long.head != r.exp_head || long.tail != r.exp_tail {
                Err(Error::StreamedExpMismatch {
                    head: encode_hex_upper(&long.head),
                    tail: encode_hex_upper(&long.tail),
                })
            } else {
                Ok(long.digest)
            }
        }
    }
}

/// The file must be exactly what the official writer produces for its
/// records (upper-case hex, single spaces, one empty line per record).
fn canonical_layout(text: &[u8], records: &[Located]) -> Result<(), Failure> {
    let mut out = String::with_capacity(text.len());
    for r in records {
        format::write_record(&mut out, &r.record);
    }
    let out = out.as_bytes();
    if out == text {
        return Ok(());
    }
    let first = out
        .iter()
        .zip(text)
        .position(|(a, b)| a != b)
        .unwrap_or(out.len().min(text.len()));
    let line = 1 + text[..first].iter().filter(|&&b| b == b'\n').count();
    let record = records.iter().rposition(|r| r.line <= line).map(|i| i + 1);
    Err(Failure {
        record,
        line: Some(line),
        msg_len: None,
        reason: "not in the official layout (upper-case hex, `Key = value`, one empty line after each record)".into(),
    })
}
