//! What an official file of each kind holds: how many records
//! ([`record_count`]), the `Msg_Len` of each ([`official_msg_len`]), where
//! each long record's message comes from, and everything about a record
//! but its digest ([`check_shape`]).

use pavelor::Algorithm;

use crate::digests::MAX_LONG_BITS;
use crate::drng::Drng;
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
) -> Result<(), String> {
    let want_len = official_msg_len(kind, i);
    if matches!(record, Record::Long(_)) && record.msg_len() > MAX_LONG_BITS {
        return Err(format!(
            "Msg_Len {} exceeds the verifier's limit of {MAX_LONG_BITS} bits \
             (record {} of an official {} file has Msg_Len = {want_len})",
            record.msg_len(),
            i + 1,
            tag(kind)
        ));
    }
    if record.msg_len() != want_len {
        return Err(format!(
            "Msg_Len is {}, but record {} of an official {} file has Msg_Len = {want_len}",
            record.msg_len(),
            i + 1,
            tag(kind)
        ));
    }
    if record.dst_len() != alg.output_bits() {
        return Err(format!(
            "Dst_Len is {}, but {alg} digests have {} bits",
            record.dst_len(),
            alg.output_bits()
        ));
    }
    match (kind, record) {
        (KatKind::Kat2_12, Record::Full(r)) => {
            if drng.generate(r.msg_len) != r.msg {
                return Err("Msg is not the DRNG output for this record".into());
            }
        }
        (KatKind::Loop, Record::Full(r)) => {
            if Drng::new(&kind.seed()).generate(LOOP_MSG_BITS) != r.msg {
                return Err("Msg is not the 8192-bit DRNG message of KAT_Loop".into());
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
                return Err(format!(
                    "Msg_Seed is {}, but record {} is {what} (Msg_Seed {})",
                    describe(&r.seed),
                    i + 1,
                    describe(&want_seed)
                ));
            }
            if r.exp_head != head || tail.is_some_and(|t| t != r.exp_tail) {
                return Err(format!(
                    "Msg_Exp {} .... {} is not {what} expected as record {}",
                    encode_hex_upper(&r.exp_head),
                    encode_hex_upper(&r.exp_tail),
                    i + 1
                ));
            }
        }
        _ => {
            return Err(format!(
                "record layout does not belong in a {} file",
                tag(kind)
            ));
        }
    }
    Ok(())
}
