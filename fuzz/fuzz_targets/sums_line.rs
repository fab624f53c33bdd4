//! The `pavelor sum --check` line format, from the CLI's own source file.
//!
//! Input: `[instance, sums-file bytes...]`. The line reader (run with a
//! tiny buffer so lines straddle refills) must return exactly the input's
//! lines, or `TooLong` for lines over its limit; every line must parse or be
//! refused without panicking; an accepted line must have a digest of its
//! instance's length and a non-empty name, and must come back unchanged
//! from the writer's formats (plain and `--tag`, with GNU escaping; the
//! digest in hex and in base64).

#![no_main]

use std::io::{BufReader, Cursor, Write};

use libfuzzer_sys::fuzz_target;
use pavelor::Algorithm;

#[allow(dead_code)]
#[path = "../../crates/pavelor-cli/src/sum/lines.rs"]
mod lines;

use lines::{DigestText, LineRead, MAX_LINE, needs_escape, next_line, parse_line, write_escaped};

fuzz_target!(|data: &[u8]| {
    let [sel, body @ ..] = data else {
        return;
    };
    let default = Algorithm::ALL[usize::from(*sel) % Algorithm::ALL.len()];

    let mut reader = BufReader::with_capacity(7, Cursor::new(body));
    let mut line = Vec::new();
    let mut got: Vec<Option<Vec<u8>>> = Vec::new();
    loop {
        match next_line(&mut reader, &mut line, b'\n').expect("a Cursor does not fail") {
            LineRead::Eof => break,
            LineRead::Full => got.push(Some(line.clone())),
            LineRead::TooLong => got.push(None),
        }
    }
    let mut want: Vec<&[u8]> = body.split(|&b| b == b'\n').collect();
    if body.is_empty() || body.ends_with(b"\n") {
        want.pop();
    }
    assert_eq!(got.len(), want.len());
    for (g, w) in got.iter().zip(&want) {
        match g {
            Some(g) => assert_eq!(g.as_slice(), *w),
            None => assert!(w.len() > MAX_LINE),
        }
    }

    for l in got.into_iter().flatten() {
        let Some(entry) = parse_line(&l, default) else {
            continue;
        };
        assert_eq!(entry.digest.len(), entry.alg.output_len());
        assert!(!entry.name.is_empty());
        let spellings = [DigestText::Hex, DigestText::Base64];
        for (tagged, text) in [false, true]
            .into_iter()
            .flat_map(|t| spellings.map(|s| (t, s)))
        {
            let digest = text.encode(&entry.digest);
            let mut out = Vec::new();
            if needs_escape(&entry.name) {
                out.push(b'\\');
            }
            if tagged {
                write!(out, "{} (", entry.alg.name()).unwrap();
                write_escaped(&mut out, &entry.name).unwrap();
                write!(out, ") = {digest}").unwrap();
            } else {
                write!(out, "{digest}  ").unwrap();
                write_escaped(&mut out, &entry.name).unwrap();
            }
            let back = parse_line(&out, entry.alg);
            assert_eq!(
                back.as_ref(),
                Some(&entry),
                "{:?}",
                String::from_utf8_lossy(&out)
            );
        }
    }
});
