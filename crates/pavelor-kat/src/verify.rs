//! Checking KAT records against the implementation.

use pavelor::{Algorithm, Backend, DynHasher, Error as HashError};

use crate::drng::Drng;
use crate::format::{Located, LongRecord, Record, encode_hex_upper};
use crate::suite::{KatKind, LOOP_ITERATIONS, LOOP_MSG_BITS, LongSource};

/// Longest message this verifier will generate for a long record, in bits
/// (2^34, twice the largest official file), so that a corrupt `Msg_Len`
/// is refused at once instead of hashing for years.
pub const MAX_LONG_BITS: u64 = 1 << 34;

/// Why a record did not verify.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Failure {
    /// 1-based index of the record in its file.
    pub index: usize,
    /// Line of the record's `Msg_Len`.
    pub line: usize,
    /// The record's `Msg_Len`.
    pub msg_len: u64,
    /// What differed.
    pub reason: String,
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "record {} (line {}, Msg_Len = {}): {}",
            self.index, self.line, self.msg_len, self.reason
        )
    }
}

/// Checks one record of file `kind`.
///
/// `drng` is the file-wide generator for `KAT_2_12` (seeded once for the
/// whole file, advanced by each record in order); other kinds ignore it.
/// `progress` receives the number of message bytes hashed so far for long
/// records.
pub fn check_record(
    kind: KatKind,
    alg: Algorithm,
    backend: Backend,
    record: &Record,
    drng: &mut Drng,
    progress: &mut dyn FnMut(u64),
) -> Result<(), String> {
    if record.dst_len() != alg.output_bits() {
        return Err(format!(
            "Dst_Len is {}, but {alg} digests have {} bits",
            record.dst_len(),
            alg.output_bits()
        ));
    }
    let hasher = alg.hasher_with(backend).map_err(|e| e.to_string())?;
    let got = match (kind, record) {
        (KatKind::Kat2_12, Record::Full(r)) => {
            let expected_msg = drng.generate(r.msg_len);
            if expected_msg != r.msg {
                return Err("Msg is not the DRNG output for this record".into());
            }
            hash_bits(hasher, &r.msg, r.msg_len)?
        }
        (KatKind::Loop, Record::Full(r)) => {
            if r.msg_len != LOOP_MSG_BITS
                || r.msg != Drng::new(&kind.seed()).generate(LOOP_MSG_BITS)
            {
                return Err("Msg is not the 8192-bit DRNG message of KAT_Loop".into());
            }
            loop_digest(alg, backend, &r.msg, LOOP_ITERATIONS, progress)
                .map_err(|e| e.to_string())?
        }
        (KatKind::Kat2_23 | KatKind::Kat2_33, Record::Long(r)) => long_digest(hasher, r, progress)?,
        _ => {
            return Err(format!(
                "record layout does not belong in a {} file",
                String::from_utf8_lossy(kind.tag())
            ));
        }
    };
    if got.as_slice() == record.dst() {
        Ok(())
    } else {
        Err(format!(
            "Dst mismatch: expected {}, computed {}",
            encode_hex_upper(record.dst()),
            encode_hex_upper(&got)
        ))
    }
}

fn hash_bits(mut h: DynHasher, msg: &[u8], nbits: u64) -> Result<Vec<u8>, String> {
    h.update_bits(msg, nbits).map_err(|e| e.to_string())?;
    Ok(h.finalize().to_vec())
}

/// Hashes a long record's message as a stream and checks its excerpt.
fn long_digest(
    h: DynHasher,
    r: &LongRecord,
    progress: &mut dyn FnMut(u64),
) -> Result<Vec<u8>, String> {
    if r.msg_len > MAX_LONG_BITS {
        return Err(format!(
            "Msg_Len {} exceeds the verifier's limit of {MAX_LONG_BITS} bits",
            r.msg_len
        ));
    }
    let source =
        LongSource::of(r).ok_or("empty Msg_Seed but Msg_Exp is neither all 00 nor all FF")?;
    let long = hash_long(h, &source, r.msg_len, progress).map_err(|e| e.to_string())?;
    if long.head != r.exp_head || long.tail != r.exp_tail {
        return Err(format!(
            "Msg_Exp mismatch: the message starts {} and ends {}",
            encode_hex_upper(&long.head),
            encode_hex_upper(&long.tail)
        ));
    }
    Ok(long.digest)
}

/// A long message's digest and its first and last 8 bytes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LongDigest {
    /// The digest.
    pub digest: Vec<u8>,
    /// The first 8 message bytes.
    pub head: [u8; 8],
    /// The last 8 message bytes.
    pub tail: [u8; 8],
}

/// Streams the `nbits`-bit message of `source` (at least 8 bytes) through
/// `h`, without holding it in memory; `progress` gets the bytes hashed so far.
pub fn hash_long(
    mut h: DynHasher,
    source: &LongSource,
    nbits: u64,
    progress: &mut dyn FnMut(u64),
) -> Result<LongDigest, HashError> {
    let mut head = [0u8; 8];
    let mut tail = [0u8; 8];
    let mut done = 0u64;
    let mut bits_left = nbits;
    let mut result: Result<(), HashError> = Ok(());
    source.stream(nbits, |chunk| {
        if done < 8 {
            for (slot, &b) in head[done as usize..].iter_mut().zip(chunk) {
                *slot = b;
            }
        }
        // Keep the last 8 bytes seen (chunks may be shorter than 8).
        for &b in chunk.iter().rev().take(8).rev() {
            tail.rotate_left(1);
            tail[7] = b;
        }
        let bits = bits_left.min(8 * chunk.len() as u64);
        if result.is_ok() {
            result = h.update_bits(chunk, bits);
        }
        bits_left -= bits;
        done += chunk.len() as u64;
        progress(done);
    });
    result?;
    Ok(LongDigest {
        digest: h.finalize().to_vec(),
        head,
        tail,
    })
}

/// The chained `KAT_Loop` digest: `h_0 = H(m)`, then `iterations` times
/// rotate `m` left by `h` bits, XOR `h_i` into its first `h/8` bytes and
/// hash again. Returns `h_iterations`.
pub fn loop_digest(
    alg: Algorithm,
    backend: Backend,
    msg: &[u8],
    iterations: u32,
    progress: &mut dyn FnMut(u64),
) -> Result<Vec<u8>, HashError> {
    let hlen = alg.output_len();
    let mut m = msg.to_vec();
    let mut digest = {
        let mut h = alg.hasher_with(backend)?;
        h.update(&m);
        h.finalize()
    };
    for i in 0..iterations {
        m.rotate_left(hlen);
        for (b, d) in m.iter_mut().zip(digest.iter()) {
            *b ^= d;
        }
        let mut h = alg.hasher_with(backend)?;
        h.update(&m);
        digest = h.finalize();
        if i.is_multiple_of(4096) {
            progress(u64::from(i));
        }
    }
    Ok(digest.to_vec())
}

/// The result of checking one file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileReport {
    /// Records that verified.
    pub passed: usize,
    /// Records in the file.
    pub total: usize,
    /// The first record that did not verify, if any.
    pub failure: Option<Failure>,
}

/// Checks every record of a parsed file, stopping at the first failure.
pub fn check_file(
    kind: KatKind,
    alg: Algorithm,
    backend: Backend,
    records: &[Located],
    progress: &mut dyn FnMut(usize, u64),
) -> FileReport {
    let mut drng = Drng::new(&kind.seed());
    let mut passed = 0;
    for (i, located) in records.iter().enumerate() {
        let mut inner = |done: u64| progress(i, done);
        if let Err(reason) =
            check_record(kind, alg, backend, &located.record, &mut drng, &mut inner)
        {
            let failure = Failure {
                index: i + 1,
                line: located.line,
                msg_len: located.record.msg_len(),
                reason,
            };
            return FileReport {
                passed,
                total: records.len(),
                failure: Some(failure),
            };
        }
        passed += 1;
    }
    FileReport {
        passed,
        total: records.len(),
        failure: None,
    }
}

/// Whether a `KAT_2_12` record list has the expected shape (4097 records of
/// lengths 0..=4096); other files are checked record by record.
pub fn expected_count(kind: KatKind) -> usize {
    match kind {
        KatKind::Kat2_12 => 4097,
        KatKind::Kat2_23 | KatKind::Kat2_33 => 3,
        KatKind::Loop => 1,
    }
}
