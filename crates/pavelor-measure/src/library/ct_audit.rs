//! The constant-time audit of a library, as ctgrind and TIMECOP do it:
//! a worker runs under valgrind memcheck, marks each message's bytes
//! undefined (secret) before the call, and memcheck reports every branch
//! and every memory address the library computes from them.
//!
//! This module holds both sides that do not need a process:
//!
//! * the worker's calls ([`audit_calls`]): every path of an instance's
//!   padding and absorption is reached by [`audit_messages`] (0 bits,
//!   each tail of 1 to 7 bits, just below, at and above the first two
//!   block boundaries, several blocks); the length is public, the bits are
//!   secret; each digest is made public again and checked against
//!   pavelor's, so a library that behaves differently under valgrind
//!   shows;
//! * the reading of memcheck's XML ([`findings`]): one finding per
//!   distinct kind and place in the library, with how many times memcheck
//!   saw it.
//!
//! What the audit cannot see: paths no message takes, code valgrind cannot
//! run, and instructions whose time depends on their operands' values.

use std::path::Path;

use pavelor::{Algorithm, Available, Backend};
use pavelor_memcheck::{classify, declassify, running_on_valgrind};
use serde::{Deserialize, Serialize};

use super::reference;
use crate::cabi::{CLibrary, GuardedDigest};

/// One message of the audit: what it is, its bytes, its length in bits.
pub struct AuditMessage {
    /// For the report: "0 bits", "3-bit tail", "a block less 1 bit", ...
    pub what: String,
    /// The message's bytes (`ceil(bits / 8)`).
    pub bytes: Vec<u8>,
    /// Its length in bits.
    pub bits: u64,
}

/// The messages that reach every path of `alg`'s padding and absorption:
/// the empty message; each tail of 1 to 7 bits after a whole byte and
/// after a whole block; just below, at and above the first two block
/// boundaries (by a byte and by a bit); and several blocks with a tail.
pub fn audit_messages(alg: Algorithm) -> Vec<AuditMessage> {
    let rate_bits = 8 * alg.rate_len() as u64;
    let mut lengths: Vec<(String, u64)> = vec![("the empty message".into(), 0)];
    for tail in 1..=7u64 {
        lengths.push((format!("a {tail}-bit message"), tail));
        lengths.push((format!("a byte and a {tail}-bit tail"), 8 + tail));
        lengths.push((format!("a block and a {tail}-bit tail"), rate_bits + tail));
    }
    for blocks in 1..=2u64 {
        let edge = blocks * rate_bits;
        for (what, bits) in [
            ("less a byte", edge - 8),
            ("less a bit", edge - 1),
            ("exactly", edge),
            ("and a bit", edge + 1),
            ("and a byte", edge + 8),
        ] {
            lengths.push((format!("{blocks} block(s) {what}"), bits));
        }
    }
    lengths.push(("5 blocks and 3 bytes 5 bits".into(), 5 * rate_bits + 29));
    lengths
        .into_iter()
        .enumerate()
        .map(|(i, (what, bits))| {
            let len = bits.div_ceil(8) as usize;
            let mut bytes: Vec<u8> = (0..len)
                .map(|k| (k as u8).wrapping_mul(151).wrapping_add(i as u8 ^ 0x5A))
                .collect();
            // The unused low bits of a last partial byte are zero, as the
            // ICCS files give them.
            if let Some(last) = bytes.last_mut().filter(|_| bits % 8 != 0) {
                *last &= 0xFFu8 << (8 - bits % 8);
            }
            AuditMessage { what, bytes, bits }
        })
        .collect()
}

/// What the worker's audited calls came to (memcheck's findings are read
/// from its XML by the parent).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct AuditCalls {
    /// Calls made, each on a secret message.
    pub calls: u64,
    /// Whether the worker ran under valgrind (its client requests took).
    pub under_valgrind: bool,
    /// The first call whose digest was not pavelor's, or failed.
    pub wrong: Option<String>,
    /// Why nothing was called: the backend audited does not run on the
    /// CPU valgrind presents (absent in a library's audit).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unavailable: Option<String>,
}

/// Calls `hash` with every [`audit_messages`] message of each of `algs`,
/// each marked secret before the call; the digest `hash` returns is made
/// public again and checked against pavelor's. `hash` gets the instance,
/// the message and its length in bits and gives the digest, or what went
/// wrong.
fn audit_with(
    algs: &[Algorithm],
    mut hash: impl FnMut(Algorithm, &[u8], u64) -> Result<Vec<u8>, String>,
) -> AuditCalls {
    let mut result = AuditCalls {
        calls: 0,
        under_valgrind: running_on_valgrind() > 0,
        wrong: None,
        unavailable: None,
    };
    let messages = algs
        .iter()
        .flat_map(|&alg| audit_messages(alg).into_iter().map(move |m| (alg, m)));
    for (alg, m) in messages {
        let want = reference(alg, &m.bytes, m.bits);
        let mut secret = m.bytes.clone();
        classify(&mut secret);
        let answer = hash(alg, &secret, m.bits);
        declassify(&mut secret);
        result.calls += 1;
        let problem = match answer {
            Err(p) => Some(p),
            Ok(mut digest) => {
                declassify(&mut digest);
                (digest != want).then(|| "a wrong digest".to_string())
            }
        };
        if result.wrong.is_none() {
            result.wrong = problem.map(|p| format!("{alg}, {}: {p}", m.what));
        }
    }
    result
}

/// The audit's calls of `algs` on the C library `lib`: each digest lands
/// in a guarded buffer, whose guards are checked with the return code.
pub fn audit_calls(lib: &CLibrary, algs: &[Algorithm]) -> AuditCalls {
    audit_with(algs, |alg, msg, bits| {
        let mut out = GuardedDigest::new(alg.output_len());
        let rc = lib.hash(alg.output_bits() as i32, msg, bits, &mut out);
        let damage = out.damage();
        if damage.any() {
            Err(damage.describe())
        } else if rc != 0 {
            Err(format!("returns {rc}"))
        } else {
            Ok(out.digest().to_vec())
        }
    })
}

/// The audit's calls of `algs` on pavelor's own `backend`, through the
/// streaming hasher (whose padding is what the tail-bit messages reach).
/// A backend the CPU that valgrind presents cannot run (it shows no
/// AVX-512 and no VAES) is `unavailable`, with no call made.
pub fn audit_backend(backend: Backend, algs: &[Algorithm]) -> AuditCalls {
    let available = match Available::resolve(Some(backend.name())) {
        Ok(a) => a,
        Err(e) => {
            return AuditCalls {
                calls: 0,
                under_valgrind: running_on_valgrind() > 0,
                wrong: None,
                unavailable: Some(e.to_string()),
            };
        }
    };
    audit_with(algs, |alg, msg, bits| {
        let mut h = alg.hasher_with(available);
        h.update_bits(msg, bits).map_err(|e| e.to_string())?;
        Ok(h.finalize().to_vec())
    })
}

/// What memcheck reported.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum FindingKind {
    /// "Conditional jump or move depends on uninitialised value(s)": a
    /// branch on secret data.
    Branch,
    /// "Use of uninitialised value of size N": a memory address (a table
    /// index) computed from secret data.
    Address,
    /// Another memcheck error (an invalid read or write, ...).
    Memory,
}

impl FindingKind {
    /// As the report names it.
    pub fn label(self) -> &'static str {
        match self {
            FindingKind::Branch => "secret-dependent branch",
            FindingKind::Address => "secret-dependent memory address",
            FindingKind::Memory => "memory error",
        }
    }
}

/// One distinct finding: a kind at one place.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Finding {
    /// What kind.
    pub kind: FindingKind,
    /// The function (the library's frame nearest the error; `?` when
    /// memcheck names none).
    pub function: String,
    /// `file:line` where the library has debug information, otherwise
    /// the object and the instruction's address.
    pub place: String,
    /// How many times memcheck saw it.
    pub count: u64,
}

/// Why memcheck's XML could not be read.
#[derive(Debug, thiserror::Error)]
pub enum XmlError {
    /// Not well-formed XML.
    #[error("memcheck's XML does not parse: {0}")]
    Parse(#[from] roxmltree::Error),
    /// Not memcheck's output.
    #[error("memcheck's XML has no <valgrindoutput> root")]
    NotValgrind,
}

/// The distinct findings in memcheck's XML output `xml`, attributed to the
/// first frame in `library` (the file the worker loaded; any frame when
/// none is), in the order memcheck first reported them.
pub fn findings(xml: &str, library: &Path) -> Result<Vec<Finding>, XmlError> {
    let doc = roxmltree::Document::parse(xml)?;
    let root = doc.root_element();
    if !root.has_tag_name("valgrindoutput") {
        return Err(XmlError::NotValgrind);
    }
    let text = child_text;
    let counts: Vec<(String, u64)> = root
        .descendants()
        .filter(|n| n.has_tag_name("pair"))
        .filter_map(|p| Some((text(p, "unique")?, text(p, "count")?.parse().ok()?)))
        .collect();
    let mut out: Vec<Finding> = Vec::new();
    for e in root.children().filter(|n| n.has_tag_name("error")) {
        let kind = match text(e, "kind").as_deref() {
            Some("UninitCondition") => FindingKind::Branch,
            Some("UninitValue") => FindingKind::Address,
            // Memory the worker still holds at its exit: not the audit's
            // concern (memcheck's XML lists it even without a leak check).
            Some(k) if k.starts_with("Leak_") => continue,
            _ => FindingKind::Memory,
        };
        let frames: Vec<_> = e
            .children()
            .filter(|n| n.has_tag_name("stack"))
            .flat_map(|s| s.children().filter(|f| f.has_tag_name("frame")))
            .collect();
        let frame = frames
            .iter()
            .find(|f| in_object(**f, library))
            .or(frames.first());
        let (function, place) = match frame {
            Some(f) => frame_place(*f),
            None => ("?".into(), "?".into()),
        };
        let unique = text(e, "unique").unwrap_or_default();
        let count = counts
            .iter()
            .find(|(u, _)| *u == unique)
            .map_or(1, |(_, c)| *c);
        match out
            .iter_mut()
            .find(|f| f.kind == kind && f.function == function && f.place == place)
        {
            Some(f) => f.count += count,
            None => out.push(Finding {
                kind,
                function,
                place,
                count,
            }),
        }
    }
    Ok(out)
}

/// Where the fatal signal of memcheck's XML `xml` struck: the function
/// and `file:line` (or object and address) of its first frame in
/// `library`, and of the one that called it there (an intrinsic inlined
/// into the library's function is a frame of its own), else its first
/// frame.
pub fn fatal_place(xml: &str, library: &Path) -> Option<String> {
    let doc = roxmltree::Document::parse(xml).ok()?;
    let signal = doc
        .root_element()
        .children()
        .find(|n| n.has_tag_name("fatal_signal"))?;
    let frames: Vec<_> = signal
        .children()
        .filter(|n| n.has_tag_name("stack"))
        .flat_map(|s| s.children().filter(|f| f.has_tag_name("frame")))
        .collect();
    let mut ours = frames.iter().filter(|f| in_object(**f, library)).take(2);
    let named = |f: &roxmltree::Node<'_, '_>| {
        let (function, place) = frame_place(*f);
        format!("{function} at {place}")
    };
    match (ours.next(), ours.next()) {
        (Some(first), Some(caller)) => Some(format!("{} by {}", named(first), named(caller))),
        (Some(first), None) => Some(named(first)),
        _ => frames.first().map(named),
    }
}

/// The text of `n`'s child `tag`, trimmed.
fn child_text(n: roxmltree::Node<'_, '_>, tag: &str) -> Option<String> {
    n.children()
        .find(|c| c.has_tag_name(tag))
        .and_then(|c| c.text())
        .map(|t| t.trim().to_string())
}

/// Whether the frame `f` is in `library` (by path, or by file name).
fn in_object(f: roxmltree::Node<'_, '_>, library: &Path) -> bool {
    child_text(f, "obj").is_some_and(|o| {
        let o = Path::new(&o);
        o == library || (library.file_name().is_some() && o.file_name() == library.file_name())
    })
}

/// A frame's function (`?` when memcheck names none) and its place:
/// `file:line` with debug information, else the object and the address.
fn frame_place(f: roxmltree::Node<'_, '_>) -> (String, String) {
    let function = child_text(f, "fn").unwrap_or_else(|| "?".into());
    let place = match (child_text(f, "file"), child_text(f, "line")) {
        (Some(file), Some(line)) => format!("{file}:{line}"),
        _ => format!(
            "{} at {}",
            child_text(f, "obj").unwrap_or_else(|| "?".into()),
            child_text(f, "ip").unwrap_or_else(|| "?".into())
        ),
    };
    (function, place)
}

/// The instruction valgrind could not execute, from its standard error
/// ("vex amd64->IR: unhandled instruction bytes: 0x62 0xF1 ..."), if it
/// reported one.
pub fn unhandled_instruction(stderr: &str) -> Option<String> {
    stderr
        .lines()
        .find_map(|l| l.split_once("unhandled instruction bytes:"))
        .map(|(_, bytes)| {
            bytes
                .split_whitespace()
                .take(8)
                .collect::<Vec<_>>()
                .join(" ")
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    const XML: &str = r#"<?xml version="1.0"?>
<valgrindoutput>
<protocolversion>4</protocolversion>
<error>
  <unique>0x0</unique>
  <tid>1</tid>
  <kind>UninitValue</kind>
  <what>Use of uninitialised value of size 8</what>
  <stack>
    <frame><ip>0x4849A3C</ip><obj>/lib/libref.so</obj><fn>aes_round_no_key</fn>
      <dir>/src</dir><file>CryptHash_AlgorithmInstance.c</file><line>77</line></frame>
    <frame><ip>0x4849B00</ip><obj>/lib/libref.so</obj><fn>paff</fn></frame>
  </stack>
</error>
<error>
  <unique>0x1</unique>
  <tid>1</tid>
  <kind>UninitValue</kind>
  <what>Use of uninitialised value of size 8</what>
  <stack>
    <frame><ip>0x4849A40</ip><obj>/lib/libref.so</obj><fn>aes_round_no_key</fn>
      <dir>/src</dir><file>CryptHash_AlgorithmInstance.c</file><line>77</line></frame>
  </stack>
</error>
<error>
  <unique>0x2</unique>
  <tid>1</tid>
  <kind>UninitCondition</kind>
  <what>Conditional jump or move depends on uninitialised value(s)</what>
  <stack>
    <frame><ip>0x1000</ip><obj>/usr/lib/libc.so.6</obj><fn>memcmp</fn></frame>
    <frame><ip>0x4849C00</ip><obj>/lib/libref.so</obj><fn>xor_bit</fn></frame>
  </stack>
</error>
<error>
  <unique>0x3</unique>
  <tid>1</tid>
  <kind>Leak_DefinitelyLost</kind>
  <stack><frame><ip>0x1</ip><obj>/lib/libref.so</obj><fn>malloc</fn></frame></stack>
</error>
<errorcounts>
  <pair><count>30</count><unique>0x0</unique></pair>
  <pair><count>8</count><unique>0x1</unique></pair>
  <pair><count>3</count><unique>0x2</unique></pair>
</errorcounts>
</valgrindoutput>"#;

    #[test]
    fn findings_are_merged_per_place_and_attributed_to_the_library() {
        let f = findings(XML, Path::new("/lib/libref.so")).expect("parses");
        assert_eq!(
            f,
            vec![
                Finding {
                    kind: FindingKind::Address,
                    function: "aes_round_no_key".into(),
                    place: "CryptHash_AlgorithmInstance.c:77".into(),
                    count: 38,
                },
                Finding {
                    kind: FindingKind::Branch,
                    function: "xor_bit".into(),
                    place: "/lib/libref.so at 0x4849C00".into(),
                    count: 3,
                },
            ]
        );
    }

    #[test]
    fn a_clean_run_has_no_finding_and_junk_is_refused() {
        let clean = "<valgrindoutput><protocolversion>4</protocolversion></valgrindoutput>";
        assert_eq!(findings(clean, Path::new("/x.so")).expect("parses"), vec![]);
        assert!(findings("<other/>", Path::new("/x.so")).is_err());
        assert!(findings("<valgrindoutput><error>", Path::new("/x.so")).is_err());
    }

    #[test]
    fn the_refused_instruction_is_named() {
        let e = "vex amd64->IR: unhandled instruction bytes: 0x62 0xF1 0x7D 0x48 0x6F 0x4 0x24 0x62 0x1\n==1== valgrind: Unrecognised instruction";
        assert_eq!(
            unhandled_instruction(e).as_deref(),
            Some("0x62 0xF1 0x7D 0x48 0x6F 0x4 0x24 0x62")
        );
        assert_eq!(unhandled_instruction("all fine"), None);
    }

    #[test]
    fn the_fatal_signal_is_placed_in_the_library() {
        let xml = r#"<valgrindoutput><fatal_signal><tid>1</tid><signo>4</signo>
<stack>
<frame><ip>0x4853131</ip><obj>/usr/lib/libc.so.6</obj><fn>memcpy</fn></frame>
<frame><ip>0x4853131</ip><obj>/tmp/x/libshani.so</obj><fn>work</fn><file>shani.c</file><line>6</line></frame>
<frame><ip>0x485316C</ip><obj>/tmp/x/libshani.so</obj><fn>CryptHash</fn><file>shani.c</file><line>10</line></frame>
</stack></fatal_signal></valgrindoutput>"#;
        assert_eq!(
            fatal_place(xml, Path::new("/tmp/x/libshani.so")).as_deref(),
            Some("work at shani.c:6 by CryptHash at shani.c:10")
        );
        assert_eq!(
            fatal_place(xml, Path::new("/elsewhere/libother.so")).as_deref(),
            Some("memcpy at /usr/lib/libc.so.6 at 0x4853131")
        );
        assert_eq!(fatal_place("<valgrindoutput/>", Path::new("/x")), None);
        assert_eq!(fatal_place("not xml", Path::new("/x")), None);
    }

    #[test]
    fn the_messages_reach_every_tail_and_block_edge() {
        for alg in Algorithm::ALL {
            let m = audit_messages(alg);
            let bits: Vec<u64> = m.iter().map(|m| m.bits).collect();
            let rate = 8 * alg.rate_len() as u64;
            assert!(bits.contains(&0));
            for t in 1..=7 {
                assert!(
                    bits.contains(&t) && bits.contains(&(rate + t)),
                    "{alg} tail {t}"
                );
            }
            for edge in [rate, 2 * rate] {
                for b in [edge - 1, edge, edge + 1] {
                    assert!(bits.contains(&b), "{alg} {b}");
                }
            }
            assert!(bits.iter().any(|&b| b > 4 * rate));
            assert!(m.iter().all(|m| m.bytes.len() as u64 == m.bits.div_ceil(8)));
        }
    }
}
