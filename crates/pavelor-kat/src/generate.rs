//! Writing the four KAT files of an instance from scratch: DRNG messages,
//! digests from a backend, the official layout byte for byte.

use pavelor::{Algorithm, Available};

use crate::digests::{long_digest, loop_digest};
use crate::drng::Drng;
use crate::error::Error;
use crate::format::{FullRecord, LongRecord, Record, write_record};
use crate::implementation::Implementation;
use crate::suite::{KatKind, LOOP_ITERATIONS, LOOP_MSG_BITS, LongSource};

/// The records of file `kind` for `alg`, computed with `backend`.
///
/// `progress(done, total)` reports work in file-specific units (records for
/// `KAT_2_12`, message bytes for the long files, iterations for
/// `KAT_Loop`). Long messages are streamed: memory stays bounded even for
/// the 1 GiB messages of `KAT_2_33`. An error says what failed
/// ([`Error`]); its `Display` is one line.
pub fn records(
    kind: KatKind,
    alg: Algorithm,
    backend: Available,
    progress: &mut dyn FnMut(u64, u64),
) -> Result<Vec<Record>, Error> {
    let mut imp = backend;
    let dst_len = alg.output_bits();
    let mut out = Vec::new();
    match kind {
        KatKind::Kat2_12 => {
            let mut drng = Drng::new(&kind.seed());
            for msg_len in 0..=4096u64 {
                let msg = drng.generate(msg_len);
                let dst = imp
                    .digest(alg, &msg, msg_len)
                    .map_err(Error::Implementation)?;
                out.push(Record::Full(FullRecord {
                    msg_len,
                    msg,
                    dst_len,
                    dst,
                }));
                progress(msg_len + 1, 4097);
            }
        }
        KatKind::Kat2_23 | KatKind::Kat2_33 => {
            let nbits = kind.long_msg_bits().unwrap_or(0);
            let total = 3 * nbits.div_ceil(8);
            let sources = [
                LongSource::Zeros,
                LongSource::Ones,
                LongSource::Drng(kind.seed().to_vec()),
            ];
            for (i, source) in (0u64..).zip(sources) {
                let base = i * nbits.div_ceil(8);
                let long = long_digest(&mut imp, alg, &source, nbits, &mut |done| {
                    progress(base + done, total)
                })?;
                let seed = match source {
                    LongSource::Drng(seed) => seed,
                    _ => Vec::new(),
                };
                out.push(Record::Long(LongRecord {
                    msg_len: nbits,
                    seed,
                    exp_head: long.head,
                    exp_tail: long.tail,
                    dst_len,
                    dst: long.digest,
                }));
            }
        }
        KatKind::Loop => {
            let msg = Drng::new(&kind.seed()).generate(LOOP_MSG_BITS);
            let total = u64::from(LOOP_ITERATIONS);
            let dst = loop_digest(&mut imp, alg, &msg, LOOP_ITERATIONS, &mut |i| {
                progress(i, total)
            })?;
            progress(total, total);
            out.push(Record::Full(FullRecord {
                msg_len: LOOP_MSG_BITS,
                msg,
                dst_len,
                dst,
            }));
        }
    }
    Ok(out)
}

/// The whole text of file `kind` for `alg` (see [`records`]).
pub fn file_text(
    kind: KatKind,
    alg: Algorithm,
    backend: Available,
    progress: &mut dyn FnMut(u64, u64),
) -> Result<String, Error> {
    let mut text = String::new();
    for r in records(kind, alg, backend, progress)? {
        write_record(&mut text, &r);
    }
    Ok(text)
}
