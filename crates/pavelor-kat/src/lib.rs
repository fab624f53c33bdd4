//! The ICCS known-answer-test (KAT) files of Pavelor: their format, the
//! SM3-based DRNG that makes their messages, and a verifier.
//!
//! * [`format`] parses and writes the four record layouts byte for byte.
//! * [`drng`] is the Hash_DRBG-style generator over SM3.
//! * [`suite`] names the four files of an instance and knows how each
//!   record's message is made.
//! * [`verify`] holds the digest helpers shared by the generator and the
//!   verifier (streamed long messages, the `KAT_Loop` chain, the size limit).
//! * [`generate`] writes the four files from scratch.
//! * [`output`] writes result files atomically (the workspace's one helper).
//! * [`embedded`] holds the official answers of all twelve files, compiled
//!   in (no KAT files needed at run time).
//! * [`official`] checks any [`Implementation`] (a Rust backend, a C
//!   `CryptHash` library, ...) against the embedded answers or, strictly,
//!   against a KAT file; its [`official::Report`] names the failing record.

pub mod drng;
pub mod embedded;
pub mod format;
pub mod generate;
pub mod implementation;
pub mod official;
pub mod output;
pub mod suite;
pub mod verify;

pub use drng::Drng;
pub use format::{FullRecord, LongRecord, ParseError, Record};
pub use implementation::Implementation;
pub use suite::KatKind;
