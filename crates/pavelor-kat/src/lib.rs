//! The ICCS known-answer-test (KAT) files of Pavelor: their format, the
//! SM3-based DRNG that makes their messages, and a verifier.
//!
//! * [`format`](mod@format) parses and writes the four record layouts byte for byte.
//! * [`drng`] is the Hash_DRBG-style generator over SM3.
//! * [`suite`] names the four files of an instance and knows how each
//!   record's message is made.
//! * [`implementation`] is what is checked: anything that computes Pavelor
//!   digests ([`pavelor::Available`], a C `CryptHash` library, ...).
//! * [`digests`] computes, with any implementation, the digests that are
//!   not one plain message: streamed long messages, the `KAT_Loop` chain
//!   (and the longest message allowed).
//! * [`generate`] writes the four files from scratch.
//! * [`atomic_file`] writes result files atomically (the workspace's one
//!   helper: `kat gen`, `report`, `xtask`).
//! * [`embedded`] holds the official answers of all twelve files, compiled
//!   in (no KAT files needed at run time).
//! * [`official`] checks any [`Implementation`] (a Rust backend, a C
//!   `CryptHash` library, ...) against the embedded answers or, strictly,
//!   against a KAT file; its [`official::Report`] names the failing record.

#![forbid(unsafe_code)]

pub mod atomic_file;
pub mod digests;
pub mod drng;
pub mod embedded;
pub mod error;
pub mod format;
pub mod generate;
pub mod implementation;
pub mod official;
pub mod suite;

pub use drng::Drng;
pub use error::Error;
pub use format::{FullRecord, LongRecord, ParseError, Record};
pub use implementation::Implementation;
pub use suite::KatKind;
