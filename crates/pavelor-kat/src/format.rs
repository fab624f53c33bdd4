//! The text format of the ICCS KAT files: strict parsing (with line numbers
//! in every error) and writing that reproduces the official files byte for
//! byte.
//!
//! ```text
//! Msg_Len = <bits>            Msg_Len = <bits>
//! Msg = <HEX>                 Msg_Seed = <HEX or nothing>
//! Dst_Len = <bits>            Msg_Exp = <8 bytes HEX> .... <8 bytes HEX>
//! Dst = <HEX>                 Dst_Len = <bits>
//! <empty line>                Dst = <HEX>
//!                             <empty line>
//! ```

use std::fmt::{self, Write as _};

/// A record that carries its whole message (`KAT_2_12`, `KAT_Loop`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FullRecord {
    /// Message length in bits.
    pub msg_len: u64,
    /// `ceil(msg_len / 8)` message bytes.
    pub msg: Vec<u8>,
    /// Digest length in bits.
    pub dst_len: u32,
    /// The expected digest.
    pub dst: Vec<u8>,
}

/// A record whose message is described, not stored (`KAT_2_23`, `KAT_2_33`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LongRecord {
    /// Message length in bits.
    pub msg_len: u64,
    /// The DRNG seed, empty for the all-zero and all-0xFF messages.
    pub seed: Vec<u8>,
    /// The first 8 message bytes.
    pub exp_head: [u8; 8],
    /// The last 8 message bytes.
    pub exp_tail: [u8; 8],
    /// Digest length in bits.
    pub dst_len: u32,
    /// The expected digest.
    pub dst: Vec<u8>,
}

/// One KAT record.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Record {
    /// Full message in the file.
    Full(FullRecord),
    /// Long message described by seed and excerpt.
    Long(LongRecord),
}

impl Record {
    /// Message length in bits.
    pub fn msg_len(&self) -> u64 {
        match self {
            Record::Full(r) => r.msg_len,
            Record::Long(r) => r.msg_len,
        }
    }

    /// Digest length in bits.
    pub fn dst_len(&self) -> u32 {
        match self {
            Record::Full(r) => r.dst_len,
            Record::Long(r) => r.dst_len,
        }
    }

    /// Expected digest.
    pub fn dst(&self) -> &[u8] {
        match self {
            Record::Full(r) => &r.dst,
            Record::Long(r) => &r.dst,
        }
    }
}

/// A record together with the line its `Msg_Len` stands on (1-based).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Located {
    /// Line number of the record's first line.
    pub line: usize,
    /// The record.
    pub record: Record,
}

/// What is wrong with a KAT file, and where.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseError {
    /// 1-based line number.
    pub line: usize,
    /// What was expected or found.
    pub message: String,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}: {}", self.line, self.message)
    }
}

impl std::error::Error for ParseError {}

/// Longest digest of the three instances, in bits.
const MAX_DST_BITS: u32 = 1024;

struct Lines<'a> {
    rest: &'a [u8],
    number: usize,
}

impl<'a> Lines<'a> {
    fn err(&self, message: impl Into<String>) -> ParseError {
        ParseError {
            line: self.number,
            message: message.into(),
        }
    }

    /// The next line without its `\n`; every line must end in `\n`.
    fn next_line(&mut self) -> Result<&'a str, ParseError> {
        self.number += 1;
        let end =
            self.rest.iter().position(|&b| b == b'\n').ok_or_else(|| {
                self.err("unexpected end of file (every line must end in a newline)")
            })?;
        let (line, rest) = self.rest.split_at(end);
        self.rest = &rest[1..];
        if line.last() == Some(&b'\r') {
            return Err(self.err("CR LF line ending (the KAT format uses LF only)"));
        }
        std::str::from_utf8(line)
            .ok()
            .filter(|s| s.is_ascii())
            .ok_or_else(|| self.err("line is not ASCII text"))
    }

    /// The value of the line `<key> = <value>` (value possibly empty).
    fn field(&mut self, key: &str) -> Result<&'a str, ParseError> {
        let line = self.next_line()?;
        let value = line
            .strip_prefix(key)
            .and_then(|r| r.strip_prefix(" ="))
            .ok_or_else(|| {
                self.err(format!("expected `{key} = ...`, found `{}`", excerpt(line)))
            })?;
        match value.strip_prefix(' ') {
            Some(v) => Ok(v),
            None if value.is_empty() => Err(self.err(format!("expected a space after `{key} =`"))),
            None => Err(self.err(format!("expected a space after `{key} =`"))),
        }
    }

    fn number<T: std::str::FromStr>(&mut self, key: &str) -> Result<T, ParseError> {
        let v = self.field(key)?;
        if v.is_empty()
            || !v.bytes().all(|b| b.is_ascii_digit())
            || (v.len() > 1 && v.starts_with('0'))
        {
            return Err(self.err(format!("{key} is not a decimal number: `{}`", excerpt(v))));
        }
        v.parse()
            .map_err(|_| self.err(format!("{key} is out of range: `{}`", excerpt(v))))
    }

    fn hex(&mut self, key: &str, want_bytes: Option<u64>) -> Result<Vec<u8>, ParseError> {
        let v = self.field(key)?;
        if let Some(n) = want_bytes.filter(|&n| v.len() as u64 != 2 * n) {
            return Err(self.err(format!(
                "{key} has {} hex digits, expected {} for the stated length",
                v.len(),
                2 * n
            )));
        }
        decode_hex(v).ok_or_else(|| self.err(format!("{key} is not valid hex: `{}`", excerpt(v))))
    }

    fn dst(&mut self) -> Result<(u32, Vec<u8>), ParseError> {
        let dst_len: u32 = self.number("Dst_Len")?;
        if dst_len == 0 || !dst_len.is_multiple_of(8) || dst_len > MAX_DST_BITS {
            return Err(self.err(format!(
                "Dst_Len {dst_len} is not a digest length of this family"
            )));
        }
        let dst = self.hex("Dst", Some(u64::from(dst_len / 8)))?;
        let end = self.next_line()?;
        if !end.is_empty() {
            return Err(self.err(format!(
                "expected an empty line after Dst, found `{}`",
                excerpt(end)
            )));
        }
        Ok((dst_len, dst))
    }
}

fn excerpt(s: &str) -> &str {
    match s.char_indices().nth(40) {
        Some((i, _)) => &s[..i],
        None => s,
    }
}

/// Decodes hex digits (either case); `None` for odd length or a non-hex digit.
pub fn decode_hex(s: &str) -> Option<Vec<u8>> {
    hex::decode(s).ok()
}

/// Encodes bytes as upper-case hex, as the KAT files do.
pub fn encode_hex_upper(bytes: &[u8]) -> String {
    hex::encode_upper(bytes)
}

/// Parses a whole KAT file.
pub fn parse(text: &[u8]) -> Result<Vec<Located>, ParseError> {
    let mut lines = Lines {
        rest: text,
        number: 0,
    };
    let mut records = Vec::new();
    while !lines.rest.is_empty() {
        let line = lines.number + 1;
        let msg_len: u64 = lines.number("Msg_Len")?;
        let msg_bytes = msg_len.div_ceil(8);
        // Peek at the key of the second line to tell the two layouts apart.
        let record = if lines.rest.starts_with(b"Msg_Seed =") {
            let seed = lines.hex("Msg_Seed", None)?;
            if !seed.is_empty() && seed.len() != 64 {
                return Err(lines.err(format!(
                    "Msg_Seed has {} bytes, expected 64 or none",
                    seed.len()
                )));
            }
            let exp = lines.field("Msg_Exp")?;
            let (head, tail) = exp
                .split_once(" .... ")
                .and_then(|(h, t)| Some((decode_hex(h)?, decode_hex(t)?)))
                .filter(|(h, t)| h.len() == 8 && t.len() == 8)
                .ok_or_else(|| {
                    lines.err("Msg_Exp is not `<16 hex digits> .... <16 hex digits>`")
                })?;
            if msg_bytes < 8 {
                return Err(lines.err("a Msg_Exp record needs a message of at least 8 bytes"));
            }
            let (dst_len, dst) = lines.dst()?;
            let mut exp_head = [0u8; 8];
            let mut exp_tail = [0u8; 8];
            exp_head.copy_from_slice(&head);
            exp_tail.copy_from_slice(&tail);
            Record::Long(LongRecord {
                msg_len,
                seed,
                exp_head,
                exp_tail,
                dst_len,
                dst,
            })
        } else {
            // The hex length is checked against Msg_Len before decoding, so a
            // huge Msg_Len cannot make the parser allocate.
            let msg = lines.hex("Msg", Some(msg_bytes))?;
            let (dst_len, dst) = lines.dst()?;
            Record::Full(FullRecord {
                msg_len,
                msg,
                dst_len,
                dst,
            })
        };
        records.push(Located { line, record });
    }
    Ok(records)
}

/// Writes one record exactly as the official files do.
pub fn write_record(out: &mut String, record: &Record) {
    // `fmt::Write` for `String` cannot fail.
    let _ = match record {
        Record::Full(r) => write!(
            out,
            "Msg_Len = {}\nMsg = {}\nDst_Len = {}\nDst = {}\n\n",
            r.msg_len,
            encode_hex_upper(&r.msg),
            r.dst_len,
            encode_hex_upper(&r.dst)
        ),
        Record::Long(r) => write!(
            out,
            "Msg_Len = {}\nMsg_Seed = {}\nMsg_Exp = {} .... {}\nDst_Len = {}\nDst = {}\n\n",
            r.msg_len,
            encode_hex_upper(&r.seed),
            encode_hex_upper(&r.exp_head),
            encode_hex_upper(&r.exp_tail),
            r.dst_len,
            encode_hex_upper(&r.dst)
        ),
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    const FULL: &str = "Msg_Len = 3\nMsg = A0\nDst_Len = 512\nDst = 00000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000\n\n";

    #[test]
    fn round_trip() {
        let recs = parse(FULL.as_bytes()).expect("valid");
        assert_eq!(recs.len(), 1);
        let mut out = String::new();
        write_record(&mut out, &recs[0].record);
        assert_eq!(out, FULL);
    }

    #[test]
    fn errors_name_the_line() {
        let cases: &[(&str, usize, &str)] = &[
            ("Msg_Len = 3\nMsg = A\n", 2, "hex digits"),
            ("Msg_Len = x\n", 1, "not a decimal"),
            ("Msg_Len = 3\r\n", 1, "CR LF"),
            ("Msg_Len = 8\nMsg = ZZ\nDst_Len = 512\n", 2, "not valid hex"),
            (
                "Msg_Len = 8\nMsg = 00\nDst_Len = 500\n",
                3,
                "not a digest length",
            ),
            (
                "Msg_Len = 8\nMsg = 00\nDst_Len = 512\nDst = 00\n",
                4,
                "hex digits",
            ),
            (
                "Msg_Len = 1152921504606846976\nMsg = 00\n",
                2,
                "expected 288230376151711744",
            ),
            ("Msg_Len = 99999999999999999999999\n", 1, "out of range"),
            ("Msg_Len = 8", 1, "end of file"),
            ("\u{0}\u{ff}\n", 1, "not ASCII"),
        ];
        for (text, line, needle) in cases {
            let e = parse(text.as_bytes()).expect_err(text);
            assert_eq!(e.line, *line, "{text:?}: {e}");
            assert!(e.message.contains(needle), "{text:?}: {e}");
        }
    }
}
