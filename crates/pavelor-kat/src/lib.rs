//! The ICCS known-answer-test (KAT) files of Pavelor: their format, the
//! SM3-based DRNG that makes their messages, and a verifier.
//!
//! * [`format`] parses and writes the four record layouts byte for byte.
//! * [`drng`] is the Hash_DRBG-style generator over SM3.
//! * [`suite`] names the four files of an instance and knows how each
//!   record's message is made.
//! * [`verify`] checks records against the implementation.
//! * [`generate`] writes the four files from scratch.
//! * [`output`] writes result files atomically (the workspace's one helper).

pub mod drng;
pub mod format;
pub mod generate;
pub mod output;
pub mod suite;
pub mod verify;

pub use drng::Drng;
pub use format::{FullRecord, LongRecord, ParseError, Record};
pub use suite::KatKind;
