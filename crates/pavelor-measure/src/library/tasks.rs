//! The worker side: what a worker does with a loaded library. Each task
//! prints one JSON answer on stdout; before every call into the library it
//! prints what it is about to do on stderr, so that the parent can say which
//! call crashed or hung.

use std::path::PathBuf;

use pavelor::Algorithm;
use pavelor_kat::Drng;
use pavelor_kat::format::encode_hex_upper;
use pavelor_kat::implementation::{DigestError, Implementation};
use pavelor_kat::official;
use pavelor_kat::suite::KatKind;
use serde::{Deserialize, Serialize};

use super::reference;
use super::{api, ct_audit};
use crate::cabi::{CLibrary, GuardedDigest};
use crate::clock::monotonic_raw_ns;
use crate::protocol::{Damage, WorkerError};

/// The instances of the digest lengths `bits`.
fn algorithms(bits: &[u32]) -> Result<Vec<Algorithm>, Error> {
    bits.iter()
        .map(|&bits| Algorithm::from_output_bits(bits).ok_or(Error::NotADigestLength { bits }))
        .collect()
}

/// Why a worker's library task failed before or during a call.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The task names a KAT kind that does not exist.
    #[error("unknown KAT kind '{kind}'")]
    UnknownKatKind {
        /// The tag as given.
        kind: String,
    },
    /// The task's digest length is not one of Pavelor's.
    #[error("not a Pavelor digest length")]
    NotADigestLength {
        /// The length asked for, bits.
        bits: u32,
    },
    /// A call wrote outside its digest.
    #[error("{}", damage.describe())]
    WroteOutsideDigest {
        /// Where it wrote.
        damage: Damage,
    },
    /// A call returned non-zero.
    #[error("CryptHash returned {rc}")]
    CallFailed {
        /// What it returned.
        rc: i32,
    },
}

/// A request to a worker about a library.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(tag = "lib_task", rename_all = "kebab-case")]
pub enum LibTask {
    /// Which digest lengths does it compute correctly?
    Probe {
        /// The library.
        path: PathBuf,
    },
    /// Check one KAT file through the C ABI.
    Kat {
        /// The library.
        path: PathBuf,
        /// Digest length passed to `CryptHash`.
        bits: u32,
        /// The file's kind (`KAT_2_12`, ...).
        kind: String,
        /// The KAT file; `None`: the official answers embedded in pavelor-kat.
        file: Option<PathBuf>,
    },
    /// The constant-time audit's calls of some instances, each on a
    /// secret message ([`super::ct_audit`]; run under valgrind memcheck).
    CtAudit {
        /// The library.
        path: PathBuf,
        /// The instances' digest lengths.
        bits: Vec<u32>,
    },
    /// The same calls on one of pavelor's own backends.
    CtAuditBackend {
        /// The backend, by name.
        backend: String,
        /// The instances' digest lengths.
        bits: Vec<u32>,
    },
    /// The API checks of one instance ([`api`]).
    Api {
        /// The library.
        path: PathBuf,
        /// The instance's digest length.
        bits: u32,
        /// The seed of the checks' messages and guard bytes.
        seed: u64,
        /// Whole-byte lengths the random lengths leave out (the timed ones).
        timed_sizes: Vec<usize>,
    },
    /// One bad-input call, for information.
    Behaviour {
        /// The library.
        path: PathBuf,
        /// The instance's digest length.
        bits: u32,
        /// Which call.
        check: Check,
    },
}

/// The bad-input calls recorded for information.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Check {
    /// `msg = NULL` with `msg_len_bits = 8` (must be an error).
    NullMsg,
    /// `msg = NULL` with `msg_len_bits = 0` (allowed: the empty message).
    NullMsgEmpty,
    /// `digest = NULL` (must be an error).
    NullDigest,
    /// `digest_len_bits = 256`, not an instance (must be an error).
    WrongLength,
}

impl Check {
    /// Every check, in report order.
    pub const ALL: [Check; 4] = [
        Check::NullMsg,
        Check::NullMsgEmpty,
        Check::NullDigest,
        Check::WrongLength,
    ];

    /// What the call is, for the report.
    pub fn call(self) -> &'static str {
        match self {
            Check::NullMsg => "msg = NULL, msg_len_bits = 8",
            Check::NullMsgEmpty => "msg = NULL, msg_len_bits = 0",
            Check::NullDigest => "digest = NULL",
            Check::WrongLength => "digest_len_bits = 256",
        }
    }

    /// What the ICCS contract asks for.
    pub fn expected(self) -> &'static str {
        match self {
            Check::NullMsgEmpty => "0 and the empty message's digest",
            _ => "a non-zero error code, nothing written",
        }
    }
}

/// One digest length as the probe found it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Verdict {
    /// Every probe message gave the right digest.
    Correct,
    /// The first call returned an error code: not this library's instance.
    Rejected,
    /// A call returned success with a wrong digest (or failed after
    /// accepting the length).
    Wrong,
    /// A call wrote past the digest.
    Overwrite,
}

/// The probe's finding for one digest length.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LengthProbe {
    /// `digest_len_bits`.
    pub bits: u32,
    /// The verdict.
    pub verdict: Verdict,
    /// Details (return code, first differing call).
    pub detail: String,
    /// Nanoseconds per 1 KiB call (correct lengths only), to size time limits.
    pub ns_per_kib: Option<f64>,
}

/// What the probe found.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ProbeResult {
    /// Whether `CryptHash_AlgorithmInstance` is exported.
    pub exports_instance_fn: bool,
    /// What it returned.
    pub instance_name: Option<String>,
    /// Every digest length probed.
    pub lengths: Vec<LengthProbe>,
}

/// The answer to a behaviour check.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BehaviourResult {
    /// The return value.
    pub rc: i32,
    /// Whether the digest buffer changed.
    pub digest_written: bool,
    /// Whether it was the expected digest (`NullMsgEmpty` only).
    pub digest_correct: bool,
    /// Guard bytes changed past the digest.
    pub overwritten: usize,
    /// Guard bytes changed before the digest.
    #[serde(default)]
    pub written_before: usize,
}

/// A KAT file checked through the C ABI.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct KatFileResult {
    /// Records that verified.
    pub passed: usize,
    /// Records in the file.
    pub total: usize,
    /// Whether every record verified.
    pub pass: bool,
    /// The first failure.
    pub failure: Option<String>,
}

/// The probe messages: (description, bytes, bits).
fn probe_messages() -> Vec<(&'static str, Vec<u8>, u64)> {
    let long = Drng::new(&Drng::official_seed(b"PAVPROBE")).generate(8 * 1000);
    vec![
        ("the empty message", Vec::new(), 0),
        ("\"abc\" (24 bits)", b"abc".to_vec(), 24),
        ("5 bits 10101", vec![0xA8], 5),
        ("1000 DRNG bytes", long.clone(), 8000),
        ("1597 bits", long[..200].to_vec(), 1597),
    ]
}

fn say(what: &str) {
    eprintln!("{what}");
}

fn probe(lib: &CLibrary) -> ProbeResult {
    let instance_name = lib.algorithm_instance();
    let candidates: Vec<Algorithm> = match instance_name.as_deref().map(str::parse::<Algorithm>) {
        Some(Ok(alg)) => vec![alg],
        _ => Algorithm::ALL.to_vec(),
    };
    let messages = probe_messages();
    let mut lengths = Vec::new();
    'alg: for alg in candidates {
        let bits = alg.output_bits();
        let mut out = GuardedDigest::new(alg.output_len());
        for (i, (what, msg, nbits)) in messages.iter().enumerate() {
            out.reset();
            say(&format!("probe: CryptHash({bits}, {what})"));
            // The library gets a copy: what it does to its input is the
            // API checks' concern, and the answer is checked against the
            // message as it was.
            let given = msg.clone();
            let rc = lib.hash(bits as i32, &given, *nbits, &mut out);
            let damage = out.damage();
            let (verdict, detail) = if damage.any() {
                (
                    Verdict::Overwrite,
                    format!("{} ({} bytes; {what})", damage.describe(), alg.output_len()),
                )
            } else if rc != 0 && i == 0 {
                (Verdict::Rejected, format!("returns {rc}"))
            } else if rc != 0 {
                (
                    Verdict::Wrong,
                    format!("returns {rc} for {what} after accepting {bits}"),
                )
            } else if out.digest() != reference(alg, msg, *nbits).as_slice() {
                (
                    Verdict::Wrong,
                    format!(
                        "wrong digest for {what}: {}…",
                        &encode_hex_upper(out.digest())[..16]
                    ),
                )
            } else {
                continue;
            };
            lengths.push(LengthProbe {
                bits,
                verdict,
                detail,
                ns_per_kib: None,
            });
            continue 'alg;
        }
        // Correct: time 1 KiB calls for about 20 ms (at least one call).
        let msg = vec![0x5Au8; 1024];
        say(&format!("probe: timing CryptHash({bits}, 1 KiB)"));
        let t0 = monotonic_raw_ns();
        let mut calls = 0u64;
        while calls == 0 || monotonic_raw_ns() - t0 < 20_000_000 {
            lib.hash(bits as i32, &msg, 8192, &mut out);
            calls += 1;
        }
        let ns = (monotonic_raw_ns() - t0) as f64 / calls as f64;
        lengths.push(LengthProbe {
            bits,
            verdict: Verdict::Correct,
            detail: format!("{} probe messages right", messages.len()),
            ns_per_kib: Some(ns),
        });
    }
    ProbeResult {
        exports_instance_fn: lib.has_instance_fn(),
        instance_name,
        lengths,
    }
}

/// One call through the C ABI that must succeed without an over-write.
fn digest_via(
    lib: &CLibrary,
    alg: Algorithm,
    out: &mut GuardedDigest,
    msg: &[u8],
    nbits: u64,
) -> Result<Vec<u8>, Error> {
    out.reset();
    let rc = lib.hash(alg.output_bits() as i32, msg, nbits, out);
    let damage = out.damage();
    if damage.any() {
        return Err(Error::WroteOutsideDigest { damage });
    }
    if rc != 0 {
        return Err(Error::CallFailed { rc });
    }
    Ok(out.digest().to_vec())
}

/// Parses a KAT kind from its tag (`KAT_2_12`, `KAT_2_23`, `KAT_2_33`, `KAT_Loop`).
pub fn kind_from_tag(tag: &str) -> Option<KatKind> {
    KatKind::ALL
        .into_iter()
        .find(|k| k.tag().as_slice() == tag.as_bytes())
}

/// A loaded library as the KAT verifier's [`Implementation`]: every call
/// through the C ABI into a guarded digest buffer.
pub struct CImplementation<'a> {
    lib: &'a CLibrary,
    out: GuardedDigest,
}

impl Implementation for CImplementation<'_> {
    fn digest(&mut self, alg: Algorithm, msg: &[u8], nbits: u64) -> Result<Vec<u8>, DigestError> {
        if self.out.digest().len() != alg.output_len() {
            self.out = GuardedDigest::new(alg.output_len());
        }
        digest_via(self.lib, alg, &mut self.out, msg, nbits)
            .map_err(|e| DigestError::Other(Box::new(e)))
    }
}

fn kat(
    lib: &CLibrary,
    bits: u32,
    kind: KatKind,
    file: Option<&PathBuf>,
) -> Result<KatFileResult, Error> {
    let alg = Algorithm::from_output_bits(bits).ok_or(Error::NotADigestLength { bits })?;
    let mut imp = CImplementation {
        lib,
        out: GuardedDigest::new(alg.output_len()),
    };
    let mut shown = u64::MAX;
    let mut progress = |record: u64, _: u64| {
        if record != shown {
            shown = record;
            say(&format!(
                "kat: {} record {}",
                kind.file_name(alg),
                record + 1
            ));
        }
    };
    let report = match file {
        Some(path) => official::check_file(&mut imp, alg, kind, path, &mut progress),
        None => official::check_embedded(&mut imp, alg, kind, &mut progress),
    };
    Ok(KatFileResult {
        passed: report.passed,
        total: report.total,
        pass: report.is_pass(),
        failure: report.failure.map(|f| f.to_string()),
    })
}

/// The digest buffer of a bad-input call: exactly as long as the call's
/// digest length (32 bytes for the 256-bit call), so that guard bytes show
/// any write past it.
fn behaviour_buffer_len(alg: Option<Algorithm>, check: Check) -> usize {
    match check {
        Check::WrongLength => 256 / 8,
        _ => alg.map_or(crate::cabi::MAX_DIGEST_BYTES, |a| a.output_len()),
    }
}

fn behaviour(lib: &CLibrary, bits: u32, check: Check) -> BehaviourResult {
    let alg = Algorithm::from_output_bits(bits);
    let mut out = GuardedDigest::new(behaviour_buffer_len(alg, check));
    say(&format!("behaviour: CryptHash with {}", check.call()));
    let rc = match check {
        Check::NullMsg => lib.hash_null_msg(bits as i32, 8, &mut out),
        Check::NullMsgEmpty => lib.hash_null_msg(bits as i32, 0, &mut out),
        Check::NullDigest => lib.hash_null_digest(bits as i32, b"abc"),
        Check::WrongLength => lib.hash(256, b"abc", 24, &mut out),
    };
    let digest_correct = alg.is_some_and(|a| out.digest() == reference(a, &[], 0).as_slice());
    let damage = out.damage();
    BehaviourResult {
        rc,
        digest_written: out.digest_written(),
        digest_correct,
        overwritten: damage.after,
        written_before: damage.before,
    }
}

/// Runs `task` in this (worker) process; the JSON answer.
pub fn run(task: &LibTask) -> Result<String, WorkerError> {
    // The answer carries a failure as text across the process boundary.
    let json =
        |r: Result<String, serde_json::Error>| r.map_err(|e| WorkerError::Failed(e.to_string()));
    let failed = |e: Error| WorkerError::Failed(e.to_string());
    match task {
        LibTask::Probe { path } => {
            let lib = CLibrary::open(path)?;
            json(serde_json::to_string(&probe(&lib)))
        }
        LibTask::Kat {
            path,
            bits,
            kind,
            file,
        } => {
            let kind = kind_from_tag(kind)
                .ok_or_else(|| failed(Error::UnknownKatKind { kind: kind.clone() }))?;
            let lib = CLibrary::open(path)?;
            let result = kat(&lib, *bits, kind, file.as_ref()).map_err(failed)?;
            json(serde_json::to_string(&result))
        }
        LibTask::Behaviour { path, bits, check } => {
            let lib = CLibrary::open(path)?;
            json(serde_json::to_string(&behaviour(&lib, *bits, *check)))
        }
        LibTask::CtAudit { path, bits } => {
            let algs = algorithms(bits).map_err(failed)?;
            let lib = CLibrary::open(path)?;
            json(serde_json::to_string(&ct_audit::audit_calls(&lib, &algs)))
        }
        LibTask::CtAuditBackend { backend, bits } => {
            let algs = algorithms(bits).map_err(failed)?;
            let backend = pavelor::Backend::from_name(backend)
                .ok_or_else(|| WorkerError::Failed(pavelor::Error::UnknownBackend.to_string()))?;
            json(serde_json::to_string(&ct_audit::audit_backend(
                backend, &algs,
            )))
        }
        LibTask::Api {
            path,
            bits,
            seed,
            timed_sizes,
        } => {
            let alg = Algorithm::from_output_bits(*bits)
                .ok_or(Error::NotADigestLength { bits: *bits })
                .map_err(failed)?;
            let lib = CLibrary::open(path)?;
            json(serde_json::to_string(&api::check(
                &lib,
                alg,
                *seed,
                timed_sizes,
            )))
        }
    }
}
