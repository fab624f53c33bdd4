//! Checking an [`Implementation`] against the official KAT answers: either
//! the answers embedded in this crate ([`check_embedded`]) or a KAT file on
//! disk ([`check_file`], [`check_file_bytes`]), strictly.
//!
//! Both return a [`Report`] whose [`Failure`] names the first record that
//! did not verify. A file passes only if it is the official file: exactly
//! the official record count and `Msg_Len` schedule, every `Msg` equal to
//! the DRNG output, `Msg_Seed`/`Msg_Exp` as in the official file, the
//! canonical layout byte for byte, every `Dst` equal to the embedded answer
//! (and to the implementation's digest), and the file's strict-form SHA-256
//! equal to the NICCS manifest value.
//!
//! ```no_run
//! use pavelor::{Algorithm, Backend};
//! use pavelor_kat::KatKind;
//! use pavelor_kat::official::check_embedded;
//!
//! let mut backend = Backend::best();
//! let report = check_embedded(&mut backend, Algorithm::Pavelor512, KatKind::Kat2_12, &mut |_, _| {});
//! println!("{report}"); // KAT_2_12_Pavelor-512.txt: PASS 4097/4097
//! assert!(report.is_pass());
//! ```

use std::fmt;
use std::io::Read;
use std::path::Path;

use pavelor::Algorithm;

use crate::drng::Drng;
use crate::embedded::{Answers, Expected};
use crate::format::{self, FullRecord, Located, LongRecord, Record, encode_hex_upper};
use crate::implementation::Implementation;
use crate::suite::{KatKind, LOOP_ITERATIONS, LOOP_MSG_BITS, LongSource};
use crate::verify::MAX_LONG_BITS;

/// Size limit for reading a `KAT_2_12` file: the largest official one
/// (`Pavelor-1024`, 3 333 335 bytes) plus about 25 % slack.
pub const MAX_FILE_BYTES_2_12: u64 = 4 << 20;
/// Size limit for reading any other KAT file (the official ones are under
/// 2.4 KB).
pub const MAX_FILE_BYTES_OTHER: u64 = 64 << 10;

/// The largest file of `kind` the verifier reads; anything longer is
/// refused before it is held in memory.
pub fn max_file_bytes(kind: KatKind) -> u64 {
    match kind {
        KatKind::Kat2_12 => MAX_FILE_BYTES_2_12,
        _ => MAX_FILE_BYTES_OTHER,
    }
}

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
fn long_source(kind: KatKind, index: usize) -> LongSource {
    match index {
        0 => LongSource::Zeros,
        1 => LongSource::Ones,
        _ => LongSource::Drng(kind.seed().to_vec()),
    }
}

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

    fn new(alg: Algorithm, kind: KatKind) -> Self {
        Report {
            alg,
            kind,
            passed: 0,
            total: record_count(kind),
            failure: None,
        }
    }

    fn fail(mut self, failure: Failure) -> Self {
        self.failure = Some(failure);
        self
    }
}

/// `KAT_2_12_Pavelor-512.txt: PASS 4097/4097` or
/// `KAT_2_12_Pavelor-512.txt: FAIL 10/4097: record 11 (Msg_Len = 10): ...`.
impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.failure {
            None if self.is_pass() => {
                write!(
                    f,
                    "{}: PASS {}/{}",
                    self.file_name(),
                    self.passed,
                    self.total
                )
            }
            None => write!(
                f,
                "{}: FAIL {}/{}",
                self.file_name(),
                self.passed,
                self.total
            ),
            Some(e) => write!(
                f,
                "{}: FAIL {}/{}: {e}",
                self.file_name(),
                self.passed,
                self.total
            ),
        }
    }
}

fn record_failure(index: usize, line: Option<usize>, msg_len: u64, reason: String) -> Failure {
    Failure {
        record: Some(index + 1),
        line,
        msg_len: Some(msg_len),
        reason,
    }
}

/// The implementation's digest must have the instance's length and agree
/// with the official answer.
fn compare_official(alg: Algorithm, got: &[u8], expected: Expected) -> Result<(), String> {
    if got.len() != alg.output_len() {
        return Err(format!(
            "the implementation returned {} digest bytes, {alg} has {}",
            got.len(),
            alg.output_len()
        ));
    }
    if expected.matches(got) {
        return Ok(());
    }
    let (what, n) = match expected {
        Expected::Full(_) => ("official Dst", got.len()),
        Expected::Prefix(p) => ("official Dst starts", p.len()),
    };
    Err(format!(
        "Dst differs from the official answer: {what} {}, computed {}",
        encode_hex_upper(expected.bytes()),
        encode_hex_upper(&got[..n.min(got.len())])
    ))
}

/// A long message's digest (from the implementation) and its first and
/// last 8 bytes.
struct LongResult {
    digest: Vec<u8>,
    head: [u8; 8],
    tail: [u8; 8],
}

fn long_digest(
    imp: &mut dyn Implementation,
    alg: Algorithm,
    source: &LongSource,
    nbits: u64,
    progress: &mut dyn FnMut(u64),
) -> Result<LongResult, String> {
    let mut head = [0u8; 8];
    let mut tail = [0u8; 8];
    let mut done = 0u64;
    let digest = imp.digest_stream(alg, nbits, &mut |sink| {
        source.stream(nbits, |chunk| {
            if done < 8 {
                for (slot, &b) in head[done as usize..].iter_mut().zip(chunk) {
                    *slot = b;
                }
            }
            for &b in chunk.iter().rev().take(8).rev() {
                tail.rotate_left(1);
                tail[7] = b;
            }
            done += chunk.len() as u64;
            progress(done);
            sink(chunk);
        })
    })?;
    Ok(LongResult { digest, head, tail })
}

/// The chained `KAT_Loop` digest computed with `imp`: hash the message,
/// then `iterations` times rotate the message left by one digest length,
/// XOR the digest into its first bytes and hash it again.
pub fn loop_digest(
    imp: &mut dyn Implementation,
    alg: Algorithm,
    msg: &[u8],
    iterations: u32,
    progress: &mut dyn FnMut(u64),
) -> Result<Vec<u8>, String> {
    let hlen = alg.output_len();
    let nbits = 8 * msg.len() as u64;
    let mut m = msg.to_vec();
    let mut digest = imp.digest(alg, &m, nbits)?;
    for i in 0..iterations {
        if digest.len() != hlen {
            return Err(format!(
                "the implementation returned {} digest bytes, {alg} has {hlen}",
                digest.len()
            ));
        }
        m.rotate_left(hlen);
        for (b, d) in m.iter_mut().zip(&digest) {
            *b ^= d;
        }
        digest = imp.digest(alg, &m, nbits)?;
        if i.is_multiple_of(4096) {
            progress(u64::from(i));
        }
    }
    Ok(digest)
}

/// The manifest check of a whole file text (regenerated or read).
fn manifest_check(alg: Algorithm, kind: KatKind, text: &[u8], what: &str) -> Result<(), Failure> {
    let want = Answers::of(alg).strict_sha256(kind);
    let got = crate::embedded::strict_sha256(text);
    if got == want {
        return Ok(());
    }
    Err(Failure {
        record: None,
        line: None,
        msg_len: None,
        reason: format!(
            "{what} strict-form SHA-256 is {}, the NICCS manifest says {} \
             (a Dst differs from the official answer beyond the bytes stored per record)",
            encode_hex_upper(&got),
            encode_hex_upper(&want)
        ),
    })
}

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
                let checked = imp.digest(alg, &msg, msg_len).and_then(|dst| {
                    let expected = answers.expected(kind, i).ok_or("no embedded answer")?;
                    compare_official(alg, &dst, expected).map(|()| dst)
                });
                match checked {
                    Ok(dst) => records.push(Record::Full(FullRecord {
                        msg_len,
                        msg,
                        dst_len,
                        dst,
                    })),
                    Err(e) => return report.fail(record_failure(i, None, msg_len, e)),
                }
                report.passed += 1;
                progress(msg_len + 1, report.total as u64);
            }
        }
        KatKind::Loop => {
            let msg = Drng::new(&kind.seed()).generate(LOOP_MSG_BITS);
            let total = u64::from(LOOP_ITERATIONS);
            let checked = loop_digest(imp, alg, &msg, LOOP_ITERATIONS, &mut |i| progress(i, total))
                .and_then(|dst| {
                    let expected = answers.expected(kind, 0).ok_or("no embedded answer")?;
                    compare_official(alg, &dst, expected).map(|()| dst)
                });
            match checked {
                Ok(dst) => records.push(Record::Full(FullRecord {
                    msg_len: LOOP_MSG_BITS,
                    msg,
                    dst_len,
                    dst,
                })),
                Err(e) => return report.fail(record_failure(0, None, LOOP_MSG_BITS, e)),
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
                .and_then(|long| {
                    let expected = answers.expected(kind, i).ok_or("no embedded answer")?;
                    compare_official(alg, &long.digest, expected).map(|()| long)
                });
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
                    Err(e) => return report.fail(record_failure(i, None, nbits, e)),
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

/// Reads at most `limit` bytes of `path`, which must be a regular file
/// (a symbolic link is followed: one to a regular file is fine).
///
/// Anything else — a directory, a FIFO, a socket, a character or block
/// device such as `/dev/zero` — is refused from its metadata, before it is
/// opened: opening a FIFO with no writer would block forever. A regular
/// file larger than `limit` is refused unread; since it may grow between
/// the check and the read, the read is still bounded (`Read::take`), so no
/// more than `limit + 1` bytes are ever held.
pub fn read_limited(path: &Path, limit: u64) -> Result<Vec<u8>, String> {
    let shown = path.display();
    // `metadata` follows symbolic links, so this is the target's type.
    let meta = std::fs::metadata(path).map_err(|e| format!("cannot read {shown}: {e}"))?;
    if !meta.is_file() {
        return Err(format!(
            "cannot read {shown}: it is {}, not a regular file; refused",
            file_type_name(&meta.file_type())
        ));
    }
    let too_big = || {
        format!(
            "{shown} is larger than {limit} bytes, more than any official KAT file of its kind; refused"
        )
    };
    if meta.len() > limit {
        return Err(too_big());
    }
    let file = std::fs::File::open(path).map_err(|e| format!("cannot read {shown}: {e}"))?;
    // What was opened must still be a regular file (it may have been
    // replaced since the check above).
    let opened = file
        .metadata()
        .map_err(|e| format!("cannot read {shown}: {e}"))?;
    if !opened.is_file() {
        return Err(format!(
            "cannot read {shown}: it is {}, not a regular file; refused",
            file_type_name(&opened.file_type())
        ));
    }
    let mut text = Vec::new();
    file.take(limit + 1)
        .read_to_end(&mut text)
        .map_err(|e| format!("cannot read {shown}: {e}"))?;
    if text.len() as u64 > limit {
        return Err(too_big());
    }
    Ok(text)
}

/// "a directory", "a FIFO", ... for [`read_limited`]'s refusal.
fn file_type_name(t: &std::fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_fifo() {
            return "a FIFO";
        }
        if t.is_char_device() {
            return "a character device";
        }
        if t.is_block_device() {
            return "a block device";
        }
        if t.is_socket() {
            return "a socket";
        }
    }
    if t.is_dir() {
        "a directory"
    } else {
        "of another type"
    }
}

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
        Err(reason) => Report::new(alg, kind).fail(Failure {
            record: None,
            line: None,
            msg_len: None,
            reason,
        }),
    }
}

/// Checks the text of a KAT file of `kind` for `alg`, strictly (see the
/// module documentation), computing every digest with `imp`. Stops at the
/// first failure, which names its record (and line).
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
    if text.len() as u64 > max_file_bytes(kind) {
        return report.fail(Failure {
            record: None,
            line: None,
            msg_len: None,
            reason: format!(
                "{} bytes, more than any official KAT file of its kind ({} bytes); refused",
                text.len(),
                max_file_bytes(kind)
            ),
        });
    }
    let records = match format::parse(text) {
        Ok(r) => r,
        Err(e) => {
            return report.fail(Failure {
                record: None,
                line: Some(e.line),
                msg_len: None,
                reason: e.message,
            });
        }
    };
    if let Err(f) = canonical_layout(text, &records) {
        return report.fail(f);
    }
    let answers = Answers::of(alg);
    let mut drng = Drng::new(&kind.seed());
    let n = report.total;
    let bytes = official_msg_len(kind, 0).div_ceil(8);
    for i in 0..n.max(records.len()) {
        let want_len = official_msg_len(kind, i);
        let Some(located) = records.get(i) else {
            return report.fail(record_failure(
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
            return report.fail(record_failure(
                i,
                line,
                record.msg_len(),
                format!(
                    "extra record: an official {} file has exactly {n} records",
                    tag(kind)
                ),
            ));
        }
        let fail = |reason: String| record_failure(i, line, record.msg_len(), reason);
        if let Err(reason) = check_shape(alg, kind, i, record, &mut drng) {
            return report.fail(fail(reason));
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
        let computed = match record {
            Record::Full(r) if kind == KatKind::Loop => {
                let total = u64::from(LOOP_ITERATIONS);
                loop_digest(imp, alg, &r.msg, LOOP_ITERATIONS, &mut |k| {
                    progress(k, total)
                })
            }
            Record::Full(r) => imp.digest(alg, &r.msg, r.msg_len),
            Record::Long(r) => {
                let base = i as u64 * bytes;
                long_digest(imp, alg, &long_source(kind, i), r.msg_len, &mut |done| {
                    progress(base + done, 3 * bytes)
                })
                .and_then(|long| {
                    if long.head != r.exp_head || long.tail != r.exp_tail {
                        Err(format!(
                            "Msg_Exp differs from the message: it starts {} and ends {}",
                            encode_hex_upper(&long.head),
                            encode_hex_upper(&long.tail)
                        ))
                    } else {
                        Ok(long.digest)
                    }
                })
            }
        };
        match computed {
            Ok(d) if d.as_slice() == record.dst() => {}
            Ok(d) => {
                return report.fail(fail(format!(
                    "Dst mismatch: the file has {}, the implementation computed {}",
                    encode_hex_upper(record.dst()),
                    encode_hex_upper(&d)
                )));
            }
            Err(e) => return report.fail(fail(e)),
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

fn tag(kind: KatKind) -> String {
    String::from_utf8_lossy(kind.tag()).into_owned()
}

/// Everything about record `i` except the digest value: layout, `Msg_Len`,
/// `Dst_Len`, the message (DRNG output) or its seed and excerpt.
fn check_shape(
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
