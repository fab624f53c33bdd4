//! What an official file of each kind holds: how many records
//! ([`record_count`]), the `Msg_Len` of each ([`official_msg_len`]), where
//! each long record's message comes from, and everything about a record
//! but its digest ([`check_shape`]).

use pavelor::Algorithm;

use crate::digests::MAX_LONG_BITS;
use crate::drng::Drng;
use crate::error::Error;
use crate::format::{Record, encode_hex_upper};
use crate::suite::{KatKind, LOOP_MSG_BITS, LongSource};

/// Number of records of an official file of `kind`.
pub fn record_count(kind: KatKind) -> usize {
    match kind {
        KatKind::Kat2_12 => 4097,
        KatKind::Kat2_23 | KatKind::Kat2_33 => 3,
        KatKind::Loop => 1,
    }
}

/// `Msg_Len` of record `index` (0-based) of an official file of `kind`.
pub fn official_msg_len(kind: KatKind, index: usize) -> u64 {
    match kind {
        KatKind::Kat2_12 => index as u64,
        KatKind::Kat2_23 | KatKind::Kat2_33 => kind.long_msg_bits().unwrap_or(0),
        KatKind::Loop => LOOP_MSG_BITS,
    }
}

/// The message source of long record `index` (0..3): zeros, 0xFF, DRNG.
pub(super) fn long_source(kind: KatKind, index: usize) -> LongSource {
    match index {
        0 => LongSource::Zeros,
        1 => LongSource::Ones,
        _ => LongSource::Drng(kind.seed().to_vec()),
    }
}

/// The file tag as text, e.g. `KAT_2_12`.
pub(super) fn tag(kind: KatKind) -> String {
    String::from_utf8_lossy(kind.tag()).into_owned()
}

/// Everything about record `i` except the digest value: layout, `Msg_Len`,
/// `Dst_Len`, the message (DRNG output, `drng` being the file's generator
/// at record `i`) or its seed and excerpt.
pub(super) fn check_shape(
    alg: Algorithm,
    kind: KatKind,
    i: usize,
    record: &Record,
    drng: &mut Drng,
) -> Result<(), Error> {
    let want_len = official_msg_len(kind, i);
    if matches!(record, Record::Long(_)) && record.msg_len() > MAX_LONG_BITS {
        return Err(Error::MsgLenOverLimit {
            msg_len: record.msg_len(),
            limit: MAX_LONG_BITS,
            record: i + 1,
            tag: tag(kind),
            official: want_len,
        });
    }
    if record.msg_len() != want_len {
        return Err(Error::MsgLenMismatch {
            msg_len: record.msg_len(),
            record: i + 1,
            tag: tag(kind),
            official: want_len,
        });
    }
    if record.dst_len() != alg.output_bits() {
        return Err(Error::DstLenMismatch {
            dst_len: record.dst_len(),
            algorithm: alg,
            want: alg.output_bits(),
        });
    }
    match (kind, record) {
        (KatKind::Kat2_12, Record::Full(r)) => {
            if drng.generate(r.msg_len) != r.msg {
                return Err(Error::MsgNotDrng);
            }
        }
        (KatKind::Loop, Record::Full(r)) => {
            if Drng::new(&kind.seed()).generate(LOOP_MSG_BITS) != r.msg {
                return Err(Error::LoopMsgNotDrng);
            }
        }
        (KatKind::Kat2_23 | KatKind::Kat2_33, Record::Long(r)) => {
            let (want_seed, head, tail, what) = match i {
                0 => (Vec::new(), [0; 8], Some([0; 8]), "the all-0x00 message"),
                1 => (
                    Vec::new(),
                    [0xFF; 8],
                    Some([0xFF; 8]),
                    "the all-0xFF message",
                ),
                _ => {
                    // Every DRNG output starts with the same first SM3 block.
                    let mut head = [0u8; 8];
                    head.copy_from_slice(&Drng::new(&kind.seed()).generate(64));
                    (kind.seed().to_vec(), head, None, "the DRNG message")
                }
            };
            if r.seed != want_seed {
                let describe = |seed: &[u8]| {
                    if seed.is_empty() {
                        "empty".to_string()
                    } else if seed == kind.seed() {
                        format!("{} x 8", tag(kind))
                    } else {
                        "not an official seed".to_string()
                    }
                };
                return Err(Error::SeedMismatch {
                    found: describe(&r.seed),
                    record: i + 1,
                    message: what,
                    official: describe(&want_seed),
                });
            }
            if r.exp_head != head || tail.is_some_and(|t| t != r.exp_tail) {
                return Err(Error::ExpMismatch {
                    head: encode_hex_upper(&r.exp_head),
                    tail: encode_hex_upper(&r.exp_tail),
                    message: what,
                    record: i + 1,
                });
            }
        }
        _ => {
            return Err(Error::LayoutMismatch { tag: tag(kind) });
        }
    }
    Ok(())
}
