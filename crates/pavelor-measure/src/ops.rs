//! What can be measured: each Pavelor instance on each backend, and the
//! hashes users would otherwise pick.

use std::fmt;

use pavelor::{Algorithm, Available, Backend, InstanceFn, Variant};
use serde::{Deserialize, Serialize};

use pavelor_iccs_helpers::Helper;

use crate::protocol::TaskId;

/// A hash implementation to measure, as one-shot calls `H(msg)`. In JSON
/// it is its [`id`](Operation::id).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(into = "String", try_from = "String")]
pub enum Operation {
    /// A Pavelor instance on a given backend.
    Pavelor(Algorithm, Backend),
    /// SHA-512, RustCrypto `sha2`.
    Sha512,
    /// SHA3-512, RustCrypto `sha3`.
    Sha3_512,
    /// BLAKE2b-512, RustCrypto `blake2`.
    Blake2b512,
    /// BLAKE3 with 64 bytes of output, the `blake3` crate.
    Blake3,
    /// SM3, RustCrypto `sm3`.
    Sm3,
    /// An ICCS helper (`sm3hash`, `pseudohash`, `pseudoXOF`): the
    /// baselines of the NICCS summary, written on RustCrypto `sm3`.
    Iccs(Helper),
}

impl Operation {
    /// The comparison hashes, in report order.
    pub const OTHERS: [Operation; 5] = [
        Operation::Sha512,
        Operation::Sha3_512,
        Operation::Blake2b512,
        Operation::Blake3,
        Operation::Sm3,
    ];

    /// The ICCS helpers, in the order of the harness's summary.
    pub fn baselines() -> impl Iterator<Item = Operation> {
        Helper::ALL.into_iter().map(Operation::Iccs)
    }

    /// Every Pavelor instance on every backend this CPU runs.
    pub fn pavelor_all() -> Vec<Operation> {
        Algorithm::ALL
            .into_iter()
            .flat_map(|a| Available::all().map(move |b| Operation::Pavelor(a, b.backend())))
            .collect()
    }

    /// A stable identifier, used in file names and worker arguments.
    pub fn id(&self) -> String {
        match self {
            Operation::Pavelor(a, b) => format!("{}.{}", a.name().to_ascii_lowercase(), b.name()),
            Operation::Sha512 => "sha-512".into(),
            Operation::Sha3_512 => "sha3-512".into(),
            Operation::Blake2b512 => "blake2b-512".into(),
            Operation::Blake3 => "blake3-512".into(),
            Operation::Sm3 => "sm3".into(),
            Operation::Iccs(h) => h.label().to_ascii_lowercase(),
        }
    }

    /// Parses an [`id`](Self::id).
    pub fn from_id(id: &str) -> Option<Self> {
        if let Some((alg, backend)) = id.split_once('.') {
            return Some(Operation::Pavelor(
                alg.parse().ok()?,
                Backend::from_name(backend)?,
            ));
        }
        Operation::OTHERS
            .into_iter()
            .chain(Operation::baselines())
            .find(|o| o.id() == id)
    }

    /// The algorithm's name, without the implementation.
    pub fn algorithm_name(&self) -> &'static str {
        match self {
            Operation::Pavelor(a, _) => a.name(),
            Operation::Sha512 => "SHA-512",
            Operation::Sha3_512 => "SHA3-512",
            Operation::Blake2b512 => "BLAKE2b-512",
            Operation::Blake3 => "BLAKE3 (512-bit output)",
            Operation::Sm3 => "SM3",
            Operation::Iccs(h) => h.function(),
        }
    }

    /// The implementation measured.
    pub fn implementation(&self) -> String {
        match self {
            Operation::Pavelor(_, b) => {
                format!("pavelor {} ({b} backend)", env!("CARGO_PKG_VERSION"))
            }
            Operation::Sha512 => "RustCrypto sha2 0.11".into(),
            Operation::Sha3_512 => "RustCrypto sha3 0.12".into(),
            Operation::Blake2b512 => "RustCrypto blake2 0.11".into(),
            Operation::Blake3 => "blake3 1.x (auto-detected SIMD)".into(),
            Operation::Sm3 => "RustCrypto sm3 0.5".into(),
            Operation::Iccs(h) => format!(
                "pavelor {} ICCS helper {}, on RustCrypto sm3 0.5",
                env!("CARGO_PKG_VERSION"),
                h.label()
            ),
        }
    }

    /// Digest length in bytes.
    pub fn output_len(&self) -> usize {
        match self {
            Operation::Pavelor(a, _) => a.output_len(),
            Operation::Sm3 => 32,
            Operation::Iccs(h) => h.output_len(),
            _ => 64,
        }
    }

    /// A ready-to-call hasher: everything that can fail (backend
    /// availability) is checked here, once, before any timing.
    pub fn prepare(&self) -> Result<Prepared, pavelor::Error> {
        match self {
            Operation::Pavelor(a, b) => {
                Ok(Prepared::Pavelor(*a, Available::resolve(Some(b.name()))?))
            }
            other => Ok(Prepared::Other(*other)),
        }
    }
}

impl From<Operation> for String {
    fn from(op: Operation) -> String {
        op.id()
    }
}

/// A task id or subject record that names nothing this build measures.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum UnknownTask {
    /// An operation id that is not one of this build.
    #[error("'{0}' is not an operation of this build")]
    Operation(String),
    /// A library instance name that is not a Pavelor instance.
    #[error("'{0}' is not a Pavelor instance")]
    Instance(String),
}

impl TryFrom<String> for Operation {
    type Error = UnknownTask;

    fn try_from(id: String) -> Result<Self, UnknownTask> {
        Operation::from_id(&id).ok_or(UnknownTask::Operation(id))
    }
}

impl fmt::Display for Operation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Operation::Pavelor(a, b) => write!(f, "{a} ({b})"),
            Operation::Iccs(h) => write!(f, "{h}"),
            other => f.write_str(other.algorithm_name()),
        }
    }
}

/// Anything measured: a built-in operation or one instance of a C library.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(into = "SubjectRecord", try_from = "SubjectRecord")]
pub enum Subject {
    /// A Pavelor backend or a comparison hash of this build.
    Op(Operation),
    /// A `CryptHash` library (`--lib NAME=PATH`) at one digest length.
    Lib {
        /// The library's name.
        name: String,
        /// The library file.
        path: std::path::PathBuf,
        /// The instance.
        alg: Algorithm,
    },
}

impl Subject {
    /// The subject's stable identifier (file names, worker tasks).
    pub fn id(&self) -> TaskId {
        TaskId::new(match self {
            Subject::Op(o) => o.id(),
            Subject::Lib { name, alg, .. } => {
                format!("lib-{name}.{}", alg.name().to_ascii_lowercase())
            }
        })
    }

    /// The name of the library (`--lib NAME=PATH`) this subject is an
    /// instance of; `None` for a built-in operation.
    pub fn library(&self) -> Option<&str> {
        match self {
            Subject::Lib { name, .. } => Some(name),
            Subject::Op(_) => None,
        }
    }

    /// The Pavelor instance, if it is one.
    pub fn algorithm(&self) -> Option<Algorithm> {
        match self {
            Subject::Op(Operation::Pavelor(a, _)) | Subject::Lib { alg: a, .. } => Some(*a),
            Subject::Op(_) => None,
        }
    }

    /// The name of the implementation in a table of one instance:
    /// `aesni` (Rust backend), `lib subref`, `SHA-512`.
    pub fn short_name(&self) -> String {
        match self {
            Subject::Op(Operation::Pavelor(_, b)) => format!("Rust {b}"),
            Subject::Op(o) => o.algorithm_name().to_string(),
            Subject::Lib { name, .. } => format!("C {name}"),
        }
    }

    /// What the worker times for a library.
    pub fn lib_target(&self) -> Option<crate::protocol::LibTarget> {
        match self {
            Subject::Lib { path, alg, .. } => Some(crate::protocol::LibTarget {
                path: path.clone(),
                bits: alg.output_bits(),
            }),
            Subject::Op(_) => None,
        }
    }
}

/// A [`Subject`] in JSON: `{"op": ID}` or `{"library": NAME, "path":
/// PATH, "instance": "Pavelor-512"}`.
#[derive(Serialize, Deserialize)]
#[serde(untagged)]
enum SubjectRecord {
    Op {
        op: Operation,
    },
    Lib {
        library: String,
        path: std::path::PathBuf,
        instance: String,
    },
}

impl From<Subject> for SubjectRecord {
    fn from(s: Subject) -> Self {
        match s {
            Subject::Op(op) => SubjectRecord::Op { op },
            Subject::Lib { name, path, alg } => SubjectRecord::Lib {
                library: name,
                path,
                instance: alg.name().to_string(),
            },
        }
    }
}

impl TryFrom<SubjectRecord> for Subject {
    type Error = UnknownTask;

    fn try_from(r: SubjectRecord) -> Result<Self, UnknownTask> {
        match r {
            SubjectRecord::Op { op } => Ok(Subject::Op(op)),
            SubjectRecord::Lib {
                library,
                path,
                instance,
            } => Ok(Subject::Lib {
                name: library,
                path,
                alg: instance
                    .parse()
                    .map_err(|_| UnknownTask::Instance(instance))?,
            }),
        }
    }
}

impl fmt::Display for Subject {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Subject::Op(o) => o.fmt(f),
            Subject::Lib { name, alg, .. } => write!(f, "{alg} (C library {name})"),
        }
    }
}

/// An [`Operation`] ready to hash.
#[derive(Clone, Debug)]
pub enum Prepared {
    /// A Pavelor instance and a backend checked to run here: each call is
    /// the typed one-shot API `Pavelor::<V>::digest_with`.
    Pavelor(Algorithm, Available),
    /// A comparison hash.
    Other(Operation),
}

impl Prepared {
    /// One one-shot call: hashes `msg` into the front of `out`.
    #[inline]
    pub fn hash(&self, msg: &[u8], out: &mut [u8; 128]) {
        use digest::Digest;
        match self {
            Prepared::Pavelor(alg, backend) => {
                // The typed one-shot API (what a Rust caller uses), so the
                // figure carries no run-time-dispatch wrapper cost.
                struct OneShot<'a>(Available, &'a [u8], &'a mut [u8; 128]);
                impl InstanceFn for OneShot<'_> {
                    type Output = ();
                    #[inline(always)]
                    fn call<V: Variant>(self) {
                        let d = pavelor::Pavelor::<V>::digest_with(self.0, self.1);
                        self.2[..V::DIGEST].copy_from_slice(&d);
                    }
                }
                alg.dispatch(OneShot(*backend, msg, out));
            }
            Prepared::Other(op) => match op {
                Operation::Sha512 => out[..64].copy_from_slice(&sha2::Sha512::digest(msg)),
                Operation::Sha3_512 => out[..64].copy_from_slice(&sha3::Sha3_512::digest(msg)),
                Operation::Blake2b512 => {
                    out[..64].copy_from_slice(&blake2::Blake2b512::digest(msg))
                }
                Operation::Blake3 => {
                    let mut h = blake3::Hasher::new();
                    h.update(msg);
                    h.finalize_xof().fill(&mut out[..64]);
                }
                Operation::Sm3 => out[..32].copy_from_slice(&sm3::Sm3::digest(msg)),
                Operation::Iccs(h) => {
                    // The output always fits (at most 128 bytes) and the
                    // message is whole bytes: the call cannot fail.
                    let _ = h.compute(msg, 8 * msg.len() as u64, out);
                }
                Operation::Pavelor(..) => {}
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_round_trip() {
        for op in Operation::pavelor_all()
            .into_iter()
            .chain(Operation::OTHERS)
            .chain(Operation::baselines())
        {
            assert_eq!(Operation::from_id(&op.id()), Some(op), "{op}");
        }
        assert_eq!(Operation::from_id("pavelor-512.nosuch"), None);
        assert_eq!(Operation::from_id("md5"), None);
    }

    #[test]
    fn known_digests() {
        let mut out = [0u8; 128];
        Operation::Sm3
            .prepare()
            .expect("sm3")
            .hash(b"abc", &mut out);
        assert_eq!(out[..4], [0x66, 0xc7, 0xf0, 0xf4]);
        Operation::Pavelor(Algorithm::Pavelor512, Backend::Portable)
            .prepare()
            .expect("portable")
            .hash(b"", &mut out);
        assert_eq!(out[..4], [0xc5, 0x35, 0x78, 0xfa]);
    }
}
