//! The four KAT files of an instance and how each record's message is made.

use pavelor::Algorithm;

use crate::drng::Drng;
use crate::format::LongRecord;

/// One of the four ICCS KAT files.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum KatKind {
    /// 4097 DRNG messages of 0..=4096 bits.
    Kat2_12,
    /// Three 2^23-bit messages: zeros, 0xFF bytes, DRNG.
    Kat2_23,
    /// Three 2^33-bit (1 GiB) messages: zeros, 0xFF bytes, DRNG.
    Kat2_33,
    /// The 10^6-iteration chained test over an 8192-bit DRNG message.
    Loop,
}

/// Iterations of the chained `KAT_Loop` test.
pub const LOOP_ITERATIONS: u32 = 1_000_000;
/// Message length of `KAT_Loop`, in bits.
pub const LOOP_MSG_BITS: u64 = 8192;

impl KatKind {
    /// All four, in the order the ICCS guide lists them.
    pub const ALL: [KatKind; 4] = [
        KatKind::Kat2_12,
        KatKind::Kat2_23,
        KatKind::Kat2_33,
        KatKind::Loop,
    ];

    /// The file tag, also the DRNG seed's 8-byte unit (`KAT_2_12` ...).
    pub fn tag(self) -> &'static [u8; 8] {
        match self {
            KatKind::Kat2_12 => b"KAT_2_12",
            KatKind::Kat2_23 => b"KAT_2_23",
            KatKind::Kat2_33 => b"KAT_2_33",
            KatKind::Loop => b"KAT_Loop",
        }
    }

    /// The file name for `alg`, e.g. `KAT_2_12_Pavelor-512.txt`.
    pub fn file_name(self, alg: Algorithm) -> String {
        // The tag is ASCII.
        format!("{}_{}.txt", String::from_utf8_lossy(self.tag()), alg.name())
    }

    /// The DRNG seed of this file.
    pub fn seed(self) -> [u8; 64] {
        Drng::official_seed(self.tag())
    }

    /// The message length of the long-message files (`2^23`, `2^33` bits).
    pub fn long_msg_bits(self) -> Option<u64> {
        match self {
            KatKind::Kat2_23 => Some(1 << 23),
            KatKind::Kat2_33 => Some(1 << 33),
            _ => None,
        }
    }
}

/// Where a long record's message comes from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LongSource {
    /// Every byte 0x00.
    Zeros,
    /// Every byte 0xFF.
    Ones,
    /// One `get_random_number(msg_len)` call of a DRNG seeded with this.
    Drng(Vec<u8>),
}

impl LongSource {
    /// The source a record describes: an empty seed with an all-0x00 or
    /// all-0xFF excerpt, or a seed.
    pub fn of(record: &LongRecord) -> Option<Self> {
        if !record.seed.is_empty() {
            return Some(LongSource::Drng(record.seed.clone()));
        }
        for (byte, source) in [(0x00u8, LongSource::Zeros), (0xFF, LongSource::Ones)] {
            if record.exp_head == [byte; 8] && record.exp_tail == [byte; 8] {
                return Some(source);
            }
        }
        None
    }

    /// Hands the `ceil(nbits / 8)` message bytes to `sink` in chunks, without
    /// holding the whole message (a partial last byte is masked for DRNG
    /// output; callers hash with the bit length, which ignores the rest).
    pub fn stream(&self, nbits: u64, mut sink: impl FnMut(&[u8])) {
        match self {
            LongSource::Drng(seed) => Drng::new(seed).generate_with(nbits, sink),
            LongSource::Zeros | LongSource::Ones => {
                let byte = if *self == LongSource::Zeros {
                    0x00
                } else {
                    0xFF
                };
                let chunk = [byte; 64 * 1024];
                let mut remaining = nbits.div_ceil(8);
                while remaining > 0 {
                    let n = remaining.min(chunk.len() as u64) as usize;
                    sink(&chunk[..n]);
                    remaining -= n as u64;
                }
            }
        }
    }
}
