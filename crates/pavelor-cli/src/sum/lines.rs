//! The line format of `pavelor sum --check` files: the digest's two
//! spellings (hex and base64), parsing one line, GNU name escaping, and a
//! line reader with bounded memory.
//!
//! Self-contained on purpose (only `std`, `hex`, `base64` and
//! `pavelor::Algorithm`): the fuzz
//! target `fuzz/fuzz_targets/sums_line.rs` includes this very file with
//! `#[path]`, so what is fuzzed is what the binary runs.

use std::io::{self, BufRead, Write};

use base64::Engine;
use base64::engine::general_purpose::STANDARD as BASE64;
use pavelor::Algorithm;

/// How a digest is spelled in a line: lowercase hex digits (the default),
/// or base64 with padding (`--base64`, as GNU `cksum --base64`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum DigestText {
    Hex,
    Base64,
}

impl DigestText {
    /// `digest` spelled this way.
    pub(crate) fn encode(self, digest: &[u8]) -> String {
        match self {
            DigestText::Hex => hex::encode(digest),
            DigestText::Base64 => BASE64.encode(digest),
        }
    }

    /// The length of a spelled digest of `len` bytes.
    fn encoded_len(self, len: usize) -> usize {
        match self {
            DigestText::Hex => 2 * len,
            // `None` only on overflow, which a digest length never reaches.
            DigestText::Base64 => base64::encoded_len(len, true).unwrap_or(usize::MAX),
        }
    }
}

/// The digest of `alg` that `text` spells, told apart by its length (an
/// instance's hex and base64 lengths differ): hex in either case, or
/// canonical padded base64 (any stray bit in the last character is
/// refused). `None` for any other text.
pub(crate) fn decode_digest(text: &[u8], alg: Algorithm) -> Option<Vec<u8>> {
    let len = alg.output_len();
    let digest = if text.len() == DigestText::Hex.encoded_len(len) {
        hex::decode(text).ok()?
    } else if text.len() == DigestText::Base64.encoded_len(len) {
        BASE64.decode(text).ok()?
    } else {
        return None;
    };
    (digest.len() == len).then_some(digest)
}

/// A byte that can be part of a spelled digest (hex digits are base64
/// characters too).
fn is_digest_char(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'+' | b'/' | b'=')
}

/// Longest line of a sums file that is looked at; longer lines are
/// skipped (and count as improperly formatted) without being kept in memory.
pub(crate) const MAX_LINE: usize = 1 << 20;

/// The escape of a byte that GNU coreutils 9.x escapes in file names, or
/// `None`. A raw CR would be taken for the CR of a CR LF line end by
/// `--check`, so it is escaped like a newline.
fn escape_of(b: u8) -> Option<&'static [u8]> {
    match b {
        b'\\' => Some(b"\\\\"),
        b'\n' => Some(b"\\n"),
        b'\r' => Some(b"\\r"),
        _ => None,
    }
}

/// Whether a name must be written escaped (GNU style).
pub(crate) fn needs_escape(name: &[u8]) -> bool {
    name.iter().any(|&b| escape_of(b).is_some())
}

/// Writes `name` with `\` as `\\`, newline as `\n` and CR as `\r`.
pub(crate) fn write_escaped(w: &mut impl Write, name: &[u8]) -> io::Result<()> {
    let mut rest = name;
    while let Some((pos, escape)) = rest
        .iter()
        .enumerate()
        .find_map(|(i, &b)| Some((i, escape_of(b)?)))
    {
        w.write_all(&rest[..pos])?;
        w.write_all(escape)?;
        rest = &rest[pos + 1..];
    }
    w.write_all(rest)
}

/// Undoes [`write_escaped`]; `None` for an unknown escape or a lone `\` at
/// the end.
pub(crate) fn unescape(name: &[u8]) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(name.len());
    let mut it = name.iter();
    while let Some(&b) = it.next() {
        if b == b'\\' {
            match it.next()? {
                b'\\' => out.push(b'\\'),
                b'n' => out.push(b'\n'),
                b'r' => out.push(b'\r'),
                _ => return None,
            }
        } else {
            out.push(b);
        }
    }
    Some(out)
}

/// One properly formatted line of a sums file.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Entry {
    pub(crate) alg: Algorithm,
    pub(crate) digest: Vec<u8>,
    pub(crate) name: Vec<u8>,
}

/// Parses one line of a sums file (without its line ending): `DIGEST  NAME`,
/// `DIGEST *NAME` or `Pavelor-NNN (NAME) = DIGEST`, optionally escaped with
/// a leading `\`, the digest in hex or base64 ([`decode_digest`]). Plain
/// lines are of instance `default`.
pub(crate) fn parse_line(line: &[u8], default: Algorithm) -> Option<Entry> {
    let mut s = line;
    while let [b' ' | b'\t', rest @ ..] = s {
        s = rest;
    }
    let escaped = match s {
        [b'\\', rest @ ..] => {
            s = rest;
            true
        }
        _ => false,
    };
    let (alg, text, name) = match s.strip_prefix(b"Pavelor-") {
        Some(tagged) => parse_tagged(tagged)?,
        None => parse_plain(s, default)?,
    };
    let digest = decode_digest(text, alg)?;
    let name = if escaped {
        unescape(name)?
    } else {
        name.to_vec()
    };
    if name.is_empty() {
        return None;
    }
    Some(Entry { alg, digest, name })
}

/// `NNN (NAME) = DIGEST` (the part after `Pavelor-`). The name is
/// everything up to the last `)`, so names holding `)` work.
fn parse_tagged(s: &[u8]) -> Option<(Algorithm, &[u8], &[u8])> {
    let ndigits = s.iter().take_while(|b| b.is_ascii_digit()).count();
    let bits: u32 = std::str::from_utf8(&s[..ndigits]).ok()?.parse().ok()?;
    let alg = Algorithm::from_output_bits(bits)?;
    let s = &s[ndigits..];
    let s = s.strip_prefix(b" ").unwrap_or(s).strip_prefix(b"(")?;
    let close = s.iter().rposition(|&b| b == b')')?;
    let (name, rest) = (&s[..close], &s[close + 1..]);
    let rest = rest.strip_prefix(b" ").unwrap_or(rest).strip_prefix(b"=")?;
    let text = rest.strip_prefix(b" ").unwrap_or(rest);
    Some((alg, text, name))
}

/// `DIGEST  NAME` or `DIGEST *NAME`: the digest is the characters up to
/// the first that cannot be in one.
fn parse_plain(s: &[u8], alg: Algorithm) -> Option<(Algorithm, &[u8], &[u8])> {
    let len = s.iter().take_while(|&&b| is_digest_char(b)).count();
    let (text, rest) = s.split_at(len);
    match rest {
        [b' ' | b'\t', b' ' | b'*', name @ ..] => Some((alg, text, name)),
        _ => None,
    }
}

/// What [`next_line`] read.
pub(crate) enum LineRead {
    /// End of input.
    Eof,
    /// A line (in the buffer, without its terminator).
    Full,
    /// A line longer than [`MAX_LINE`]: skipped, the buffer is empty.
    TooLong,
}

/// Reads the next line into `line` (without its terminator `delim`: `\n`,
/// or NUL for `--zero`), keeping at most [`MAX_LINE`] bytes in memory.
pub(crate) fn next_line(
    r: &mut impl BufRead,
    line: &mut Vec<u8>,
    delim: u8,
) -> io::Result<LineRead> {
    line.clear();
    let mut any = false;
    let mut too_long = false;
    loop {
        let buf = match r.fill_buf() {
            Ok(buf) => buf,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if buf.is_empty() {
            break;
        }
        any = true;
        let (chunk, used, done) = match buf.iter().position(|&b| b == delim) {
            Some(pos) => (&buf[..pos], pos + 1, true),
            None => (buf, buf.len(), false),
        };
        if !too_long {
            if line.len() + chunk.len() > MAX_LINE {
                too_long = true;
                line.clear();
            } else {
                line.extend_from_slice(chunk);
            }
        }
        r.consume(used);
        if done {
            break;
        }
    }
    Ok(match (any, too_long) {
        (false, _) => LineRead::Eof,
        (true, false) => LineRead::Full,
        (true, true) => LineRead::TooLong,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const A: Algorithm = Algorithm::Pavelor512;

    #[test]
    fn escape_roundtrip() {
        let name = b"a\\b\nc\r";
        let mut out = Vec::new();
        write_escaped(&mut out, name).ok();
        assert_eq!(out, b"a\\\\b\\nc\\r");
        assert!(needs_escape(b"f\r"));
        assert!(!needs_escape(b"f\t "));
        assert_eq!(unescape(&out).as_deref(), Some(&name[..]));
        assert_eq!(unescape(b"a\\x"), None);
        assert_eq!(unescape(b"a\\"), None);
    }

    #[test]
    fn parses_plain_and_tagged() {
        let hex = "ab".repeat(64);
        let e = parse_line(format!("{hex}  f i le").as_bytes(), A);
        assert_eq!(
            e,
            Some(Entry {
                alg: A,
                digest: vec![0xab; 64],
                name: b"f i le".to_vec()
            })
        );
        assert!(parse_line(format!("{hex} *f").as_bytes(), A).is_some());
        assert!(parse_line(format!("{}  f", hex.to_uppercase()).as_bytes(), A).is_some());
        assert!(parse_line(format!("{hex}  ").as_bytes(), A).is_none());
        assert!(parse_line(format!("{hex} f").as_bytes(), A).is_none());
        assert!(parse_line(format!("{hex}a  f").as_bytes(), A).is_none());
        // 128 hex digits are also 128 base64 characters, the length of a
        // Pavelor-768 digest: read with that instance, the line is one
        // (whose check then fails), as base64 says.
        let as_768 = parse_line(format!("{hex}  f").as_bytes(), Algorithm::Pavelor768);
        assert_eq!(as_768.map(|e| e.digest.len()), Some(96));
        assert!(parse_line(format!("{hex}  f").as_bytes(), Algorithm::Pavelor1024).is_none());

        let hex768 = "cd".repeat(96);
        let e = parse_line(format!("Pavelor-768 (a (b)) = {hex768}").as_bytes(), A);
        assert_eq!(
            e,
            Some(Entry {
                alg: Algorithm::Pavelor768,
                digest: vec![0xcd; 96],
                name: b"a (b)".to_vec()
            })
        );
        assert!(parse_line(format!("Pavelor-512 (x) = {hex768}").as_bytes(), A).is_none());
        assert!(parse_line(format!("Pavelor-256 (x) = {hex}").as_bytes(), A).is_none());
        let e = parse_line(format!("\\Pavelor-512 (a\\nb) = {hex}").as_bytes(), A);
        assert_eq!(e.map(|e| e.name), Some(b"a\nb".to_vec()));
        let e = parse_line(format!("\\{hex}  a\\\\b").as_bytes(), A);
        assert_eq!(e.map(|e| e.name), Some(b"a\\b".to_vec()));
        assert!(parse_line(b"\xff\xfe garbage", A).is_none());
    }

    #[test]
    fn parses_base64_digests() {
        // Pavelor-512: 64 bytes, 88 base64 characters ending in "==".
        let digest: Vec<u8> = (0..64u8).map(|i| i.wrapping_mul(37) ^ 0xfb).collect();
        let b64 = DigestText::Base64.encode(&digest);
        assert_eq!(b64.len(), 88);
        assert!(b64.ends_with("=="));
        for line in [format!("{b64}  f"), format!("Pavelor-512 (f) = {b64}")] {
            let e = parse_line(line.as_bytes(), A).map(|e| e.digest);
            assert_eq!(e.as_deref(), Some(&digest[..]), "{line}");
        }
        // Pavelor-768 (96 bytes: 128 characters, no padding) and -1024
        // (128 bytes: 172 characters, one '=').
        for (alg, n, chars) in [
            (Algorithm::Pavelor768, 96, 128),
            (Algorithm::Pavelor1024, 128, 172),
        ] {
            let digest = vec![0xfe; n];
            let b64 = DigestText::Base64.encode(&digest);
            assert_eq!(b64.len(), chars);
            let tagged = format!("{} (f) = {b64}", alg.name());
            assert_eq!(parse_line(tagged.as_bytes(), A).map(|e| e.alg), Some(alg));
            assert!(parse_line(format!("{b64}  f").as_bytes(), alg).is_some());
            // A plain line is of --algorithm's instance only.
            assert!(parse_line(format!("{b64}  f").as_bytes(), A).is_none());
        }
        // Malformed: a character short; a stray bit in the last character
        // (it holds the byte's last 2 bits and 4 zero bits, so it is one of
        // A, Q, g, w, and the next letter sets a zero bit); no padding; a
        // bad character.
        assert!(parse_line(format!("{}  f", &b64[1..]).as_bytes(), A).is_none());
        let mut stray = b64.clone().into_bytes();
        assert!(matches!(stray[85], b'A' | b'Q' | b'g' | b'w'));
        stray[85] += 1;
        stray.extend_from_slice(b"  f");
        assert!(parse_line(&stray, A).is_none());
        let unpadded = format!("{}xx  f", &b64[..86]);
        assert!(parse_line(unpadded.as_bytes(), A).is_none());
        let bad = format!("{}.==  f", &b64[..85]);
        assert!(parse_line(bad.as_bytes(), A).is_none());
        // Hex still works beside it, in either case.
        let hex = DigestText::Hex.encode(&digest);
        assert!(parse_line(format!("{}  f", hex.to_uppercase()).as_bytes(), A).is_some());
    }

    #[test]
    fn long_lines_are_skipped() {
        let mut data = vec![b'x'; MAX_LINE + 10];
        data.extend_from_slice(b"\nshort\nlast");
        let mut r = io::Cursor::new(data);
        let mut line = Vec::new();
        assert!(matches!(
            next_line(&mut r, &mut line, b'\n'),
            Ok(LineRead::TooLong)
        ));
        assert!(matches!(
            next_line(&mut r, &mut line, b'\n'),
            Ok(LineRead::Full)
        ));
        assert_eq!(line, b"short");
        assert!(matches!(
            next_line(&mut r, &mut line, b'\n'),
            Ok(LineRead::Full)
        ));
        assert_eq!(line, b"last");
        assert!(matches!(
            next_line(&mut r, &mut line, b'\n'),
            Ok(LineRead::Eof)
        ));

        // NUL-terminated (--zero): newlines are part of the line.
        let mut r = io::Cursor::new(b"a\nb\0c\r\0".to_vec());
        assert!(matches!(
            next_line(&mut r, &mut line, 0),
            Ok(LineRead::Full)
        ));
        assert_eq!(line, b"a\nb");
        assert!(matches!(
            next_line(&mut r, &mut line, 0),
            Ok(LineRead::Full)
        ));
        assert_eq!(line, b"c\r");
        assert!(matches!(next_line(&mut r, &mut line, 0), Ok(LineRead::Eof)));
    }
}
