//! The API checks of a library, in the manner of SUPERCOP's
//! `crypto_hash/try.c` (eBASH): more than the answers to fixed messages.
//!
//! For one instance, in a worker, before any timing:
//!
//! * **random lengths** — [`RANDOM_LENGTHS`] messages of 0 to 4096 bytes,
//!   half of them whole bytes and half ending in 1 to 7 bits, drawn from a
//!   seed the gate records, each digest against pavelor's (whole-byte
//!   lengths the campaign times are left to the timed calls' own checks);
//! * **misalignment** — the message and the digest at every address
//!   offset 0–15 from a 16-byte boundary (256 calls);
//! * **guard bytes around the message** — bytes drawn from the seed before
//!   and after the message buffer of every call above, and the message
//!   itself, unchanged after the call;
//! * **determinism** — [`DETERMINISM_PAIRS`] messages hashed twice from
//!   other buffers, the same digest both times;
//! * **overlap** — the digest buffer equal to the message buffer. ICCS
//!   does not say what must happen; what did happen is recorded, for
//!   information.
//!
//! A library that fails one of the first four checks fails the gate, as a
//! wrong KAT answer does.

use pavelor::Algorithm;
use pavelor_kat::Drng;
use serde::{Deserialize, Serialize};

use super::reference;
use crate::cabi::{CLibrary, GuardedRegion};

/// Messages of the random-lengths check.
pub const RANDOM_LENGTHS: usize = 300;
/// The longest message of the random-lengths check, bytes.
pub const LONGEST_RANDOM_BYTES: usize = 4096;
/// Messages hashed twice by the determinism check.
pub const DETERMINISM_PAIRS: usize = 16;

/// One of the API checks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ApiCheckKind {
    /// Messages of random lengths, bytes and bits, against pavelor.
    RandomLengths,
    /// The message and the digest at every offset 0–15.
    Misalignment,
    /// Guard bytes around the message buffer, and the message unchanged.
    MessageGuards,
    /// The same message twice gives the same digest.
    Determinism,
    /// The digest buffer equal to the message buffer (information only).
    Overlap,
}

impl ApiCheckKind {
    /// Every check, in report order.
    pub const ALL: [ApiCheckKind; 5] = [
        ApiCheckKind::RandomLengths,
        ApiCheckKind::Misalignment,
        ApiCheckKind::MessageGuards,
        ApiCheckKind::Determinism,
        ApiCheckKind::Overlap,
    ];

    /// What the check does, for the report.
    pub fn what(self) -> &'static str {
        match self {
            ApiCheckKind::RandomLengths => "random lengths (0 to 4096 bytes, whole bytes and bits)",
            ApiCheckKind::Misalignment => "message and digest at every offset 0 to 15",
            ApiCheckKind::MessageGuards => "guard bytes around the message; the message unchanged",
            ApiCheckKind::Determinism => "the same message twice, the same digest",
            ApiCheckKind::Overlap => "digest buffer = message buffer",
        }
    }

    /// Whether a failure fails the library (all but the overlap, which
    /// ICCS leaves open).
    pub fn decides(self) -> bool {
        self != ApiCheckKind::Overlap
    }
}

/// How a check came out.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ApiVerdict {
    /// Every call as it must be.
    Pass,
    /// A call was not: the library fails.
    Fail,
    /// Recorded for information (the overlap).
    Info,
}

/// One check's outcome.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ApiCheck {
    /// The check.
    pub kind: ApiCheckKind,
    /// The calls it made (or looked at).
    pub calls: u64,
    /// Its verdict.
    pub verdict: ApiVerdict,
    /// What happened, in one line (the first failure, or the observation).
    pub observed: String,
}

/// The API checks of one instance of a library.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ApiChecks {
    /// The instance (`Pavelor-512`, ...).
    pub instance: String,
    /// The seed of the messages and guard bytes, hexadecimal: the same
    /// seed gives the same calls.
    pub seed: String,
    /// Every check, in [`ApiCheckKind::ALL`] order.
    pub checks: Vec<ApiCheck>,
}

impl ApiChecks {
    /// The first check that fails the library, if one does.
    pub fn first_failure(&self) -> Option<&ApiCheck> {
        self.checks
            .iter()
            .find(|c| c.kind.decides() && c.verdict == ApiVerdict::Fail)
    }
}

/// A check being run: its calls and its first failure.
struct Tally {
    kind: ApiCheckKind,
    calls: u64,
    failure: Option<String>,
}

impl Tally {
    fn new(kind: ApiCheckKind) -> Self {
        Tally {
            kind,
            calls: 0,
            failure: None,
        }
    }

    /// Counts a call, and `failure` if it is the first.
    fn call(&mut self, failure: Option<String>) {
        self.calls += 1;
        if self.failure.is_none() {
            self.failure = failure;
        }
    }

    fn finish(self) -> ApiCheck {
        let (verdict, observed) = match self.failure {
            Some(f) => (ApiVerdict::Fail, f),
            None => (
                ApiVerdict::Pass,
                format!("{} calls as required", self.calls),
            ),
        };
        ApiCheck {
            kind: self.kind,
            calls: self.calls,
            verdict,
            observed,
        }
    }
}

/// The checks' random source: the SM3 DRNG of the ICCS files, seeded
/// with the recorded seed.
struct Source(Drng);

impl Source {
    fn new(seed: u64) -> Self {
        Source(Drng::new(
            format!("pavelor api checks {seed:016x}").as_bytes(),
        ))
    }

    fn bytes(&mut self, n: usize) -> Vec<u8> {
        self.0.generate(8 * n as u64)
    }

    fn below(&mut self, n: u64) -> u64 {
        let b = self.bytes(8);
        let mut word = [0u8; 8];
        word.copy_from_slice(&b);
        u64::from_le_bytes(word) % n.max(1)
    }
}

/// A message of the checks: its bytes and its length in bits.
struct Message {
    bytes: Vec<u8>,
    bits: u64,
}

/// One call on fresh guarded buffers: the message at `msg_offset`, the
/// digest at `digest_offset`. Returns the digest, or what went wrong with
/// the call itself; `guards` hears what happened around the message.
fn call(
    lib: &CLibrary,
    alg: Algorithm,
    m: &Message,
    (msg_offset, digest_offset): (usize, usize),
    guard: &[u8],
    guards: &mut Tally,
) -> Result<Vec<u8>, String> {
    let mut msg = GuardedRegion::new(&m.bytes, m.bytes.len(), msg_offset, guard);
    let len = alg.output_len();
    let mut out = GuardedRegion::new(&[], len, digest_offset, guard);
    let rc = lib.hash_regions(alg.output_bits() as i32, &mut msg, m.bits, &mut out);
    let around = msg.damage();
    guards.call(if around.any() {
        Some(format!(
            "{} bits: {}",
            m.bits,
            around.describe().replace("digest", "message")
        ))
    } else if msg.region_changed() {
        Some(format!("{} bits: the message changed", m.bits))
    } else {
        None
    });
    let written = out.damage();
    if written.any() {
        return Err(written.describe());
    }
    if rc != 0 {
        return Err(format!("returns {rc}"));
    }
    Ok(out.region().to_vec())
}

/// The API checks of `alg` on `lib`, from `seed`; no whole-byte message of
/// the random lengths is as long as one of `timed_sizes`.
pub fn check(lib: &CLibrary, alg: Algorithm, seed: u64, timed_sizes: &[usize]) -> ApiChecks {
    let mut src = Source::new(seed);
    let guard = src.bytes(64);
    let mut guards = Tally::new(ApiCheckKind::MessageGuards);

    let mut random = Tally::new(ApiCheckKind::RandomLengths);
    let mut messages = Vec::with_capacity(RANDOM_LENGTHS);
    for i in 0..RANDOM_LENGTHS {
        let whole = i % 2 == 0;
        let mut nbytes = src.below(LONGEST_RANDOM_BYTES as u64 + 1) as usize;
        while whole && timed_sizes.contains(&nbytes) {
            nbytes = src.below(LONGEST_RANDOM_BYTES as u64 + 1) as usize;
        }
        let mut bytes = src.bytes(nbytes);
        let bits = if !whole && nbytes > 0 {
            let tail = 1 + src.below(7);
            let bits = 8 * nbytes as u64 - (8 - tail);
            // The unused low bits of the last byte are zero, as the ICCS
            // files give them.
            if let Some(last) = bytes.last_mut() {
                *last &= 0xFFu8 << (8 - tail);
            }
            bits
        } else {
            8 * nbytes as u64
        };
        let m = Message { bytes, bits };
        let got = call(lib, alg, &m, (0, 0), &guard, &mut guards);
        random.call(wrong(alg, &m, got));
        messages.push(m);
    }

    let mut aligned = Tally::new(ApiCheckKind::Misalignment);
    let fixed = Message {
        bytes: src.bytes(200),
        bits: 1597,
    };
    for msg_offset in 0..16 {
        for digest_offset in 0..16 {
            let got = call(
                lib,
                alg,
                &fixed,
                (msg_offset, digest_offset),
                &guard,
                &mut guards,
            );
            aligned.call(wrong(alg, &fixed, got).map(|w| {
                format!("message at offset {msg_offset}, digest at {digest_offset}: {w}")
            }));
        }
    }

    let mut same = Tally::new(ApiCheckKind::Determinism);
    for m in messages.iter().take(DETERMINISM_PAIRS) {
        let first = call(lib, alg, m, (3, 5), &guard, &mut guards);
        let second = call(lib, alg, m, (11, 7), &guard, &mut guards);
        same.call(match (first, second) {
            (Ok(a), Ok(b)) if a != b => {
                Some(format!("{} bits: two calls gave two digests", m.bits))
            }
            (Ok(_), Ok(_)) => None,
            (Err(e), _) | (_, Err(e)) => Some(format!("{} bits: {e}", m.bits)),
        });
        same.calls += 1;
    }

    let overlap = overlap(lib, alg, &messages, &guard);
    ApiChecks {
        instance: alg.name().to_string(),
        seed: format!("{seed:016x}"),
        checks: vec![
            random.finish(),
            aligned.finish(),
            guards.finish(),
            same.finish(),
            overlap,
        ],
    }
}

/// Why the digest `got` of `m` is not pavelor's, if it is not.
fn wrong(alg: Algorithm, m: &Message, got: Result<Vec<u8>, String>) -> Option<String> {
    match got {
        Err(e) => Some(format!("{} bits: {e}", m.bits)),
        Ok(d) if d != reference(alg, &m.bytes, m.bits) => {
            Some(format!("{} bits: a wrong digest", m.bits))
        }
        Ok(_) => None,
    }
}

/// The overlap: the empty message, one shorter than the digest and one
/// longer, each hashed with the digest written over it. Information only.
fn overlap(lib: &CLibrary, alg: Algorithm, messages: &[Message], guard: &[u8]) -> ApiCheck {
    let len = alg.output_len();
    let short = messages.iter().find(|m| m.bytes.len() < len && m.bits > 0);
    let long = messages.iter().find(|m| m.bytes.len() > len);
    let empty = Message {
        bytes: Vec::new(),
        bits: 0,
    };
    let mut right = 0;
    let mut seen = Vec::new();
    let tried: Vec<&Message> = [Some(&empty), short, long].into_iter().flatten().collect();
    for m in &tried {
        let mut buf = GuardedRegion::new(&m.bytes, m.bytes.len().max(len), 0, guard);
        let rc = lib.hash_overlapping(alg.output_bits() as i32, &mut buf, m.bits);
        let damage = buf.damage();
        let outcome = if damage.any() {
            damage.describe()
        } else if rc != 0 {
            format!("returns {rc}")
        } else if buf.region()[..len] == reference(alg, &m.bytes, m.bits)[..] {
            right += 1;
            continue;
        } else {
            "a wrong digest".to_string()
        };
        seen.push(format!("{} bits: {outcome}", m.bits));
    }
    let observed = if seen.is_empty() {
        format!("the right digest in all {} calls", tried.len())
    } else {
        format!(
            "the right digest in {right} of {} calls; {}",
            tried.len(),
            seen.join("; ")
        )
    };
    ApiCheck {
        kind: ApiCheckKind::Overlap,
        calls: tried.len() as u64,
        verdict: ApiVerdict::Info,
        observed,
    }
}
