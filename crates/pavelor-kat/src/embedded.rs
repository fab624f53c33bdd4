//! The official answers of all twelve ICCS KAT files, compiled into the
//! crate (`data/official-answers.bin`, 101 152 bytes), so that verification
//! needs no KAT files at run time.
//!
//! The file is derived from the official KAT files by `cargo xtask
//! kat-data` (see `docs/kat-data.md`). Its layout, all numbers fixed:
//!
//! ```text
//! "PAVKAT01"                                   8 bytes, magic and version
//! for each instance (Pavelor-512, -768, -1024), L = digest bytes (64, 96, 128):
//!     4 x 32 bytes  strict-form SHA-256 of KAT_2_12, KAT_2_23, KAT_2_33, KAT_Loop
//!     4 x 32 bytes  SHA-256 of the same four files, byte for byte
//!     4097 x 8      first 8 bytes of the Dst of KAT_2_12 record Msg_Len = 0..=4096
//!     3 x L         full Dst of the three KAT_2_23 records (zeros, 0xFF, DRNG)
//!     3 x L         full Dst of the three KAT_2_33 records
//!     1 x L         full Dst of the KAT_Loop record
//! 32 bytes                                     SHA-256 of everything before
//! ```
//!
//! The strict-form SHA-256 (see [`strict_sha256`]) is the NICCS harness's
//! manifest value: regenerating a file from the DRNG and an implementation's
//! digests and comparing that hash covers every bit of every `Dst`; the
//! per-record prefixes and full digests name the record that differs.

use pavelor::Algorithm;
use sha2::{Digest, Sha256};

use crate::suite::KatKind;

/// The magic and version at the start of the data file.
pub const MAGIC: &[u8; 8] = b"PAVKAT01";
/// Records of `KAT_2_12`.
pub const RECORDS_2_12: usize = 4097;
/// Bytes of each `KAT_2_12` digest prefix stored.
pub const PREFIX_LEN: usize = 8;
/// Bytes of a SHA-256 value.
const SHA_LEN: usize = 32;

/// The data file, relative to this crate (works after `cargo install`).
static DATA: &[u8] = include_bytes!("../data/official-answers.bin");

/// Size of one instance's section for digests of `len` bytes.
const fn section_len(len: usize) -> usize {
    HEADER_LEN + RECORDS_2_12 * PREFIX_LEN + 7 * len
}

/// The two SHA-256 tables at the start of each instance's section.
const HEADER_LEN: usize = 8 * SHA_LEN;

/// Total size of the data file: the magic, one section per instance, and
/// the closing SHA-256.
pub const DATA_LEN: usize = {
    let mut len = MAGIC.len() + SHA_LEN;
    let mut i = 0;
    while i < Algorithm::ALL.len() {
        len += section_len(Algorithm::ALL[i].output_len());
        i += 1;
    }
    len
};

// A data file of the wrong size does not compile, so every slice below is in range.
const _: () = assert!(
    DATA.len() == DATA_LEN,
    "data/official-answers.bin has the wrong size"
);

/// The official answers of one instance, borrowed from the embedded data.
#[derive(Clone, Copy, Debug)]
pub struct Answers {
    alg: Algorithm,
    section: &'static [u8],
}

fn kind_index(kind: KatKind) -> usize {
    KatKind::ALL.iter().position(|&k| k == kind).unwrap_or(0)
}

fn section_offset(alg: Algorithm) -> usize {
    let mut off = MAGIC.len();
    for a in Algorithm::ALL {
        if a == alg {
            break;
        }
        off += section_len(a.output_len());
    }
    off
}

impl Answers {
    /// The embedded official answers of `alg`.
    pub fn of(alg: Algorithm) -> Self {
        let start = section_offset(alg);
        Answers {
            alg,
            section: &DATA[start..start + section_len(alg.output_len())],
        }
    }

    /// The instance.
    pub fn algorithm(&self) -> Algorithm {
        self.alg
    }

    /// The NICCS manifest value of file `kind`: SHA-256 of its strict form.
    pub fn strict_sha256(&self, kind: KatKind) -> [u8; 32] {
        self.sha(kind_index(kind))
    }

    /// SHA-256 of the official file `kind`, byte for byte (as in the
    /// `SHA256SUMS` beside the official files).
    pub fn file_sha256(&self, kind: KatKind) -> [u8; 32] {
        self.sha(4 + kind_index(kind))
    }

    fn sha(&self, i: usize) -> [u8; 32] {
        let mut out = [0u8; 32];
        out.copy_from_slice(&self.section[i * SHA_LEN..(i + 1) * SHA_LEN]);
        out
    }

    /// The first [`PREFIX_LEN`] bytes of the `Dst` of the `KAT_2_12` record
    /// with `Msg_Len = msg_len`; `None` beyond 4096.
    pub fn prefix_2_12(&self, msg_len: u64) -> Option<&'static [u8]> {
        let i = usize::try_from(msg_len)
            .ok()
            .filter(|&i| i < RECORDS_2_12)?;
        let start = HEADER_LEN + i * PREFIX_LEN;
        Some(&self.section[start..start + PREFIX_LEN])
    }

    /// The full `Dst` of record `index` (0-based) of `KAT_2_23` (0..3),
    /// `KAT_2_33` (0..3) or `KAT_Loop` (0); `None` for `KAT_2_12` or an index
    /// out of range.
    pub fn full_dst(&self, kind: KatKind, index: usize) -> Option<&'static [u8]> {
        let (first, count) = match kind {
            KatKind::Kat2_12 => return None,
            KatKind::Kat2_23 => (0, 3),
            KatKind::Kat2_33 => (3, 3),
            KatKind::Loop => (6, 1),
        };
        if index >= count {
            return None;
        }
        let len = self.alg.output_len();
        let start = HEADER_LEN + RECORDS_2_12 * PREFIX_LEN + (first + index) * len;
        Some(&self.section[start..start + len])
    }

    /// What the embedded data says about the `Dst` of record `index`
    /// (0-based) of `kind`: the whole digest or its first bytes.
    pub fn expected(&self, kind: KatKind, index: usize) -> Option<Expected> {
        match kind {
            KatKind::Kat2_12 => self.prefix_2_12(index as u64).map(Expected::Prefix),
            _ => self.full_dst(kind, index).map(Expected::Full),
        }
    }
}

/// The embedded knowledge of one record's digest.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Expected {
    /// The whole official `Dst`.
    Full(&'static [u8]),
    /// The official `Dst`'s first [`PREFIX_LEN`] bytes.
    Prefix(&'static [u8]),
}

impl Expected {
    /// Whether `dst` agrees with the official answer (as far as it is stored).
    pub fn matches(&self, dst: &[u8]) -> bool {
        match self {
            Expected::Full(d) => dst == *d,
            Expected::Prefix(p) => dst.starts_with(p),
        }
    }

    /// The stored bytes.
    pub fn bytes(&self) -> &'static [u8] {
        match self {
            Expected::Full(d) | Expected::Prefix(d) => d,
        }
    }
}

/// The whole embedded data file (for the consistency test and the xtask).
pub fn data() -> &'static [u8] {
    DATA
}

/// Whether the embedded data's trailing SHA-256 and magic are right.
pub fn data_is_intact() -> bool {
    let (body, sum) = DATA.split_at(DATA.len() - SHA_LEN);
    DATA.starts_with(MAGIC) && Sha256::digest(body).as_slice() == sum
}

/// What the data file holds for one instance, in the order it is written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InstanceAnswers {
    /// Strict-form SHA-256 of the four files, in [`KatKind::ALL`] order.
    pub strict_sha256: [[u8; 32]; 4],
    /// SHA-256 of the four files byte for byte, same order.
    pub file_sha256: [[u8; 32]; 4],
    /// The 4097 `KAT_2_12` digests (only their first 8 bytes are stored).
    pub dst_2_12: Vec<Vec<u8>>,
    /// The three `KAT_2_23` digests.
    pub dst_2_23: Vec<Vec<u8>>,
    /// The three `KAT_2_33` digests.
    pub dst_2_33: Vec<Vec<u8>>,
    /// The `KAT_Loop` digest.
    pub dst_loop: Vec<u8>,
}

/// Encodes the data file from the answers of the three instances (in
/// [`Algorithm::ALL`] order). Errors name what has the wrong shape.
pub fn encode(instances: &[(Algorithm, InstanceAnswers)]) -> Result<Vec<u8>, EncodeError> {
    let mut out = MAGIC.to_vec();
    if instances.len() != Algorithm::ALL.len()
        || instances
            .iter()
            .zip(Algorithm::ALL)
            .any(|((a, _), b)| *a != b)
    {
        return Err(EncodeError::Instances);
    }
    for (alg, a) in instances {
        let len = alg.output_len();
        let bad_len = |what: &'static str| EncodeError::Length {
            algorithm: *alg,
            what,
        };
        for sha in a.strict_sha256.iter().chain(&a.file_sha256) {
            out.extend_from_slice(sha);
        }
        if a.dst_2_12.len() != RECORDS_2_12 {
            return Err(bad_len("KAT_2_12"));
        }
        for d in &a.dst_2_12 {
            let prefix = d
                .get(..PREFIX_LEN)
                .ok_or_else(|| bad_len("a KAT_2_12 Dst"))?;
            out.extend_from_slice(prefix);
        }
        for (what, list) in [("KAT_2_23", &a.dst_2_23), ("KAT_2_33", &a.dst_2_33)] {
            if list.len() != 3 || list.iter().any(|d| d.len() != len) {
                return Err(bad_len(what));
            }
            for d in list {
                out.extend_from_slice(d);
            }
        }
        if a.dst_loop.len() != len {
            return Err(bad_len("KAT_Loop"));
        }
        out.extend_from_slice(&a.dst_loop);
    }
    let sum = Sha256::digest(&out);
    out.extend_from_slice(&sum);
    if out.len() != DATA_LEN {
        return Err(EncodeError::Size { bytes: out.len() });
    }
    Ok(out)
}

/// What [`encode`] found in the wrong shape.
#[derive(Debug, thiserror::Error)]
pub enum EncodeError {
    /// Not the three instances in [`Algorithm::ALL`] order.
    #[error("need the answers of Pavelor-512, -768 and -1024, in that order")]
    Instances,
    /// A list of answers, or an answer, has the wrong length.
    #[error("{algorithm}: {what} has the wrong length")]
    Length {
        /// The instance.
        algorithm: Algorithm,
        /// The file (`KAT_2_12`, ...) or `a KAT_2_12 Dst`.
        what: &'static str,
    },
    /// The encoded data is not [`DATA_LEN`] bytes.
    #[error("encoded {bytes} bytes, expected {}", DATA_LEN)]
    Size {
        /// The bytes encoded.
        bytes: usize,
    },
}

/// Python's `str.strip()` whitespace, restricted to ASCII.
fn is_py_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t'..=b'\r' | 0x1c..=0x1f)
}

/// The NICCS harness's canonical strict form of a KAT file (docs/kat-data.md):
/// split on `\n`, strip trailing whitespace from every line, drop the lines
/// that are then empty, join with `\n`, strip the whole, append one `\n`.
/// (Whitespace is Python's ASCII whitespace; KAT files are ASCII.)
pub fn strict_form(text: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(text.len());
    for line in text.split(|&b| b == b'\n') {
        let end = line
            .iter()
            .rposition(|&b| !is_py_space(b))
            .map_or(0, |p| p + 1);
        let line = &line[..end];
        if line.is_empty() {
            continue;
        }
        if !out.is_empty() {
            out.push(b'\n');
        }
        out.extend_from_slice(line);
    }
    let start = out
        .iter()
        .position(|&b| !is_py_space(b))
        .unwrap_or(out.len());
    out.drain(..start);
    out.push(b'\n');
    out
}

/// SHA-256 of [`strict_form`]`(text)`: the NICCS manifest value of a file.
pub fn strict_sha256(text: &[u8]) -> [u8; 32] {
    Sha256::digest(strict_form(text)).into()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strict_form_follows_the_four_rules() {
        assert_eq!(strict_form(b"a \nb\t\n\n \n c\n\n"), b"a\nb\n c\n");
        assert_eq!(strict_form(b"  x"), b"x\n");
        assert_eq!(strict_form(b""), b"\n");
        assert_eq!(strict_form(b"Msg = \nDst = AB  \n\n"), b"Msg =\nDst = AB\n");
    }

    #[test]
    fn embedded_data_is_intact() {
        assert!(data_is_intact());
        assert_eq!(data().len(), DATA_LEN);
    }

    #[test]
    fn accessors_stay_in_their_instance() {
        for alg in Algorithm::ALL {
            let a = Answers::of(alg);
            assert_eq!(a.prefix_2_12(4096).map(<[u8]>::len), Some(PREFIX_LEN));
            assert_eq!(a.prefix_2_12(4097), None);
            assert_eq!(a.full_dst(KatKind::Kat2_23, 3), None);
            assert_eq!(a.full_dst(KatKind::Loop, 1), None);
            assert_eq!(
                a.full_dst(KatKind::Loop, 0).map(<[u8]>::len),
                Some(alg.output_len())
            );
        }
    }
}
