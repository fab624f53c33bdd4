//! [`check_embedded`]: an implementation against the embedded answers, no
//! KAT file involved.

use pavelor::Algorithm;

use super::answers::{check_answer, manifest_check};
use super::report::{Failure, Report};
use super::schedule::{long_source, official_msg_len};
use crate::digests::{long_digest, loop_digest};
use crate::drng::Drng;
use crate::embedded::Answers;
use crate::error::Error;
use crate::format::{self, FullRecord, LongRecord, Record};
use crate::implementation::Implementation;
use crate::suite::{KatKind, LOOP_ITERATIONS, LOOP_MSG_BITS, LongSource};

/// Checks `imp` on file `kind` of `alg` against the embedded official
/// answers: computes every record's digest (messages from the DRNG), compares
/// each with the stored answer (so a failure names its record), then writes
/// the whole file in memory and compares its strict-form SHA-256 with the
/// NICCS manifest value, which covers every bit of every `Dst`.
///
/// `progress(done, total)` counts records (`KAT_2_12`), message bytes
/// (long files) or iterations (`KAT_Loop`). `KAT_2_33` hashes 3 x 1 GiB.
pub fn check_embedded(
    imp: &mut dyn Implementation,
    alg: Algorithm,
    kind: KatKind,
    progress: &mut dyn FnMut(u64, u64),
) -> Report {
    let answers = Answers::of(alg);
    let mut report = Report::new(alg, kind);
    let dst_len = alg.output_bits();
    let mut records = Vec::with_capacity(report.total);
    match kind {
        KatKind::Kat2_12 => {
            let mut drng = Drng::new(&kind.seed());
            for i in 0..report.total {
                let msg_len = i as u64;
                let msg = drng.generate(msg_len);
                let checked = imp
                    .digest(alg, &msg, msg_len)
                    .map_err(Error::Implementation)
                    .and_then(|dst| check_answer(answers, kind, i, &dst).map(|()| dst));
                match checked {
                    Ok(dst) => records.push(Record::Full(FullRecord {
                        msg_len,
                        msg,
                        dst_len,
                        dst,
                    })),
                    Err(e) => {
                        return report.fail(Failure::of_record(i, None, msg_len, e.to_string()));
                    }
                }
                report.passed += 1;
                progress(msg_len + 1, report.total as u64);
            }
        }
        KatKind::Loop => {
            let msg = Drng::new(&kind.seed()).generate(LOOP_MSG_BITS);
            let total = u64::from(LOOP_ITERATIONS);
            let checked = loop_digest(imp, alg, &msg, LOOP_ITERATIONS, &mut |i| progress(i, total))
                .and_then(|dst| check_answer(answers, kind, 0, &dst).map(|()| dst));
            match checked {
                Ok(dst) => records.push(Record::Full(FullRecord {
                    msg_len: LOOP_MSG_BITS,
                    msg,
                    dst_len,
                    dst,
                })),
                Err(e) => {
                    return report.fail(Failure::of_record(0, None, LOOP_MSG_BITS, e.to_string()));
                }
            }
            report.passed = 1;
            progress(total, total);
        }
        KatKind::Kat2_23 | KatKind::Kat2_33 => {
            let nbits = official_msg_len(kind, 0);
            let bytes = nbits.div_ceil(8);
            for i in 0..report.total {
                let source = long_source(kind, i);
                let base = i as u64 * bytes;
                let checked = long_digest(imp, alg, &source, nbits, &mut |done| {
                    progress(base + done, 3 * bytes)
                })
                .and_then(|long| check_answer(answers, kind, i, &long.digest).map(|()| long));
                match checked {
                    Ok(long) => records.push(Record::Long(LongRecord {
                        msg_len: nbits,
                        seed: match source {
                            LongSource::Drng(seed) => seed,
                            _ => Vec::new(),
                        },
                        exp_head: long.head,
                        exp_tail: long.tail,
                        dst_len,
                        dst: long.digest,
                    })),
                    Err(e) => {
                        return report.fail(Failure::of_record(i, None, nbits, e.to_string()));
                    }
                }
                report.passed += 1;
            }
        }
    }
    let mut text = String::new();
    for r in &records {
        format::write_record(&mut text, r);
    }
    if let Err(f) = manifest_check(alg, kind, text.as_bytes(), "the regenerated file's") {
        // Some record is wrong, but the stored prefixes cannot say which.
        report.passed = 0;
        return report.fail(f);
    }
    report
}
