//! The line format of `pavelor sum --check` files: parsing one line, GNU
//! name escaping, and a line reader with bounded memory.
//!
//! Self-contained on purpose (only `std`, `hex` and `pavelor::Algorithm`): the fuzz
//! target `fuzz/fuzz_targets/sums_line.rs` includes this very file with
//! `#[path]`, so what is fuzzed is what the binary runs.

use std::io::{self, BufRead, Write};

use pavelor::Algorithm;

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

/// Parses one line of a sums file (without its line ending): `HEX  NAME`,
/// `HEX *NAME` or `Pavelor-NNN (NAME) = HEX`, optionally escaped with a
/// leading `\`. Plain lines are of instance `default`.
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
    let (alg, hex, name) = match s.strip_prefix(b"Pavelor-") {
        Some(tagged) => parse_tagged(tagged)?,
        None => parse_plain(s, default)?,
    };
    let digest = hex::decode(hex).ok()?;
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

/// `NNN (NAME) = HEX` (the part after `Pavelor-`). The name is everything up
/// to the last `)`, so names holding `)` work.
fn parse_tagged(s: &[u8]) -> Option<(Algorithm, &[u8], &[u8])> {
    let ndigits = s.iter().take_while(|b| b.is_ascii_digit()).count();
    let bits: u32 = std::str::from_utf8(&s[..ndigits]).ok()?.parse().ok()?;
    let alg = Algorithm::from_output_bits(bits)?;
    let s = &s[ndigits..];
    let s = s.strip_prefix(b" ").unwrap_or(s).strip_prefix(b"(")?;
    let close = s.iter().rposition(|&b| b == b')')?;
    let (name, rest) = (&s[..close], &s[close + 1..]);
    let rest = rest.strip_prefix(b" ").unwrap_or(rest).strip_prefix(b"=")?;
    let hex = rest.strip_prefix(b" ").unwrap_or(rest);
    (hex.len() == 2 * alg.output_len()).then_some((alg, hex, name))
}

/// `HEX  NAME` or `HEX *NAME`, with exactly the hex digits of `alg`.
fn parse_plain(s: &[u8], alg: Algorithm) -> Option<(Algorithm, &[u8], &[u8])> {
    let ndigits = s.iter().take_while(|b| b.is_ascii_hexdigit()).count();
    if ndigits != 2 * alg.output_len() {
        return None;
    }
    let (hex, rest) = s.split_at(ndigits);
    match rest {
        [b' ' | b'\t', b' ' | b'*', name @ ..] => Some((alg, hex, name)),
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
        assert!(parse_line(format!("{hex}  f").as_bytes(), Algorithm::Pavelor768).is_none());

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
