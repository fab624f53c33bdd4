//! The crate's error: what failed when a digest was checked against the
//! embedded official answers, and on which record.

use pavelor::Algorithm;

use crate::suite::KatKind;

/// A failed check of a computed digest; its `Display` is the reason a
/// report shows for the record.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The implementation under test refused to hash; the detail is its
    /// own message.
    #[error(transparent)]
    Implementation(crate::implementation::DigestError),
    /// The implementation returned a digest of the wrong length.
    #[error("the implementation returned {got} digest bytes, {algorithm} has {want}")]
    DigestLength {
        /// The algorithm hashed.
        algorithm: Algorithm,
        /// The digest bytes returned.
        got: usize,
        /// The digest bytes the algorithm has.
        want: usize,
    },
    /// The digest differs from the official answer.
    #[error("Dst differs from the official answer: {what} {official}, computed {computed}")]
    DiffersFromOfficial {
        /// Which part of the answer is compared: `official Dst` or
        /// `official Dst starts` (only a prefix is stored).
        what: &'static str,
        /// The official bytes, upper-case hex.
        official: String,
        /// The computed bytes of the same length, upper-case hex.
        computed: String,
    },
    /// No official answer is embedded for the record.
    #[error("no embedded answer")]
    NoEmbeddedAnswer {
        /// The file.
        kind: KatKind,
        /// The record, from 0.
        index: usize,
    },
    /// A long record's `Msg_Len` is over the verifier's limit
    /// (`digests::MAX_LONG_BITS`).
    #[error(
        "Msg_Len {msg_len} exceeds the verifier's limit of {limit} bits \
         (record {record} of an official {tag} file has Msg_Len = {official})"
    )]
    MsgLenOverLimit {
        /// The record's `Msg_Len`.
        msg_len: u64,
        /// The verifier's limit, in bits.
        limit: u64,
        /// The record, from 1.
        record: usize,
        /// The file tag, e.g. `KAT_2_23`.
        tag: String,
        /// The official `Msg_Len` of that record.
        official: u64,
    },
    /// A record's `Msg_Len` is not the official one.
    #[error(
        "Msg_Len is {msg_len}, but record {record} of an official {tag} file has Msg_Len = {official}"
    )]
    MsgLenMismatch {
        /// The record's `Msg_Len`.
        msg_len: u64,
        /// The record, from 1.
        record: usize,
        /// The file tag, e.g. `KAT_2_12`.
        tag: String,
        /// The official `Msg_Len` of that record.
        official: u64,
    },
    /// A record's `Dst_Len` is not the algorithm's digest length.
    #[error("Dst_Len is {dst_len}, but {algorithm} digests have {want} bits")]
    DstLenMismatch {
        /// The record's `Dst_Len`.
        dst_len: u32,
        /// The algorithm of the file.
        algorithm: Algorithm,
        /// The algorithm's digest length in bits.
        want: u32,
    },
    /// A `KAT_2_12` record's message is not the DRNG output.
    #[error("Msg is not the DRNG output for this record")]
    MsgNotDrng,
    /// The `KAT_Loop` message is not the 8192-bit DRNG message.
    #[error("Msg is not the 8192-bit DRNG message of KAT_Loop")]
    LoopMsgNotDrng,
    /// A long record's `Msg_Seed` is not the official one.
    #[error("Msg_Seed is {found}, but record {record} is {message} (Msg_Seed {official})")]
    SeedMismatch {
        /// The record's seed, described (`empty`, `KAT_2_23 x 8`, ...).
        found: String,
        /// The record, from 1.
        record: usize,
        /// The official message of that record, e.g. `the all-0x00 message`.
        message: &'static str,
        /// The official seed, described as `found` is.
        official: String,
    },
    /// A long record's `Msg_Exp` is not the official message's.
    #[error("Msg_Exp {head} .... {tail} is not {message} expected as record {record}")]
    ExpMismatch {
        /// The record's first 8 message bytes, upper-case hex.
        head: String,
        /// The record's last 8 message bytes, upper-case hex.
        tail: String,
        /// The official message of that record.
        message: &'static str,
        /// The record, from 1.
        record: usize,
    },
    /// The record's layout is not the one of the file kind.
    #[error("record layout does not belong in a {tag} file")]
    LayoutMismatch {
        /// The file tag, e.g. `KAT_Loop`.
        tag: String,
    },
    /// A long record's `Msg_Exp` differs from the message streamed for it.
    #[error("Msg_Exp differs from the message: it starts {head} and ends {tail}")]
    StreamedExpMismatch {
        /// The streamed message's first 8 bytes, upper-case hex.
        head: String,
        /// The streamed message's last 8 bytes, upper-case hex.
        tail: String,
    },
}
