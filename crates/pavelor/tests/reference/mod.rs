//! An independent reference implementation of Pavelor, for the tests only.
//!
//! Written from the specification without using the crate: its own AES
//! round (the FIPS 197 S-box table and `xtime`), its own copy of the round
//! table as the specification prints it (output `j` = `AESENC(S[a], S[b])`,
//! or `RC[i] XOR S[8]` for output 7), its own round constants, initial
//! state, bit-by-bit 10*1 padding, absorb and squeeze. It is deliberately
//! plain and slow: bytes and bits, no vectors, no shared code. The crate's
//! `Algorithm` is used only as a key for the instance's numbers, which are
//! written here again.

#![allow(dead_code)] // not every test binary uses every function

use pavelor::Algorithm;

/// The AES S-box (FIPS 197, Figure 7), row `x` = high nibble.
const SBOX: [u8; 256] = [
    0x63, 0x7c, 0x77, 0x7b, 0xf2, 0x6b, 0x6f, 0xc5, 0x30, 0x01, 0x67, 0x2b, 0xfe, 0xd7, 0xab, 0x76,
    0xca, 0x82, 0xc9, 0x7d, 0xfa, 0x59, 0x47, 0xf0, 0xad, 0xd4, 0xa2, 0xaf, 0x9c, 0xa4, 0x72, 0xc0,
    0xb7, 0xfd, 0x93, 0x26, 0x36, 0x3f, 0xf7, 0xcc, 0x34, 0xa5, 0xe5, 0xf1, 0x71, 0xd8, 0x31, 0x15,
    0x04, 0xc7, 0x23, 0xc3, 0x18, 0x96, 0x05, 0x9a, 0x07, 0x12, 0x80, 0xe2, 0xeb, 0x27, 0xb2, 0x75,
    0x09, 0x83, 0x2c, 0x1a, 0x1b, 0x6e, 0x5a, 0xa0, 0x52, 0x3b, 0xd6, 0xb3, 0x29, 0xe3, 0x2f, 0x84,
    0x53, 0xd1, 0x00, 0xed, 0x20, 0xfc, 0xb1, 0x5b, 0x6a, 0xcb, 0xbe, 0x39, 0x4a, 0x4c, 0x58, 0xcf,
    0xd0, 0xef, 0xaa, 0xfb, 0x43, 0x4d, 0x33, 0x85, 0x45, 0xf9, 0x02, 0x7f, 0x50, 0x3c, 0x9f, 0xa8,
    0x51, 0xa3, 0x40, 0x8f, 0x92, 0x9d, 0x38, 0xf5, 0xbc, 0xb6, 0xda, 0x21, 0x10, 0xff, 0xf3, 0xd2,
    0xcd, 0x0c, 0x13, 0xec, 0x5f, 0x97, 0x44, 0x17, 0xc4, 0xa7, 0x7e, 0x3d, 0x64, 0x5d, 0x19, 0x73,
    0x60, 0x81, 0x4f, 0xdc, 0x22, 0x2a, 0x90, 0x88, 0x46, 0xee, 0xb8, 0x14, 0xde, 0x5e, 0x0b, 0xdb,
    0xe0, 0x32, 0x3a, 0x0a, 0x49, 0x06, 0x24, 0x5c, 0xc2, 0xd3, 0xac, 0x62, 0x91, 0x95, 0xe4, 0x79,
    0xe7, 0xc8, 0x37, 0x6d, 0x8d, 0xd5, 0x4e, 0xa9, 0x6c, 0x56, 0xf4, 0xea, 0x65, 0x7a, 0xae, 0x08,
    0xba, 0x78, 0x25, 0x2e, 0x1c, 0xa6, 0xb4, 0xc6, 0xe8, 0xdd, 0x74, 0x1f, 0x4b, 0xbd, 0x8b, 0x8a,
    0x70, 0x3e, 0xb5, 0x66, 0x48, 0x03, 0xf6, 0x0e, 0x61, 0x35, 0x57, 0xb9, 0x86, 0xc1, 0x1d, 0x9e,
    0xe1, 0xf8, 0x98, 0x11, 0x69, 0xd9, 0x8e, 0x94, 0x9b, 0x1e, 0x87, 0xe9, 0xce, 0x55, 0x28, 0xdf,
    0x8c, 0xa1, 0x89, 0x0d, 0xbf, 0xe6, 0x42, 0x68, 0x41, 0x99, 0x2d, 0x0f, 0xb0, 0x54, 0xbb, 0x16,
];

/// Multiplication by `x` in GF(2^8) modulo `x^8 + x^4 + x^3 + x + 1`.
fn xtime(a: u8) -> u8 {
    (a << 1) ^ (0x1b * (a >> 7))
}

/// One AES encryption round without the key addition,
/// `MixColumns(ShiftRows(SubBytes(x)))`, on the FIPS 197 state (byte `i`
/// is row `i % 4`, column `i / 4`).
pub(crate) fn aes_round(x: &[u8; 16]) -> [u8; 16] {
    let mut shifted = [0u8; 16];
    for row in 0..4 {
        for col in 0..4 {
            // ShiftRows moves row `row` left by `row` columns.
            shifted[row + 4 * col] = SBOX[usize::from(x[row + 4 * ((col + row) % 4)])];
        }
    }
    let mut out = [0u8; 16];
    for col in 0..4 {
        let a = &shifted[4 * col..4 * col + 4];
        let all = a[0] ^ a[1] ^ a[2] ^ a[3];
        for row in 0..4 {
            // 2a[r] + 3a[r+1] + a[r+2] + a[r+3] = a[r] ^ all ^ xtime(a[r] ^ a[r+1]).
            out[4 * col + row] = a[row] ^ all ^ xtime(a[row] ^ a[(row + 1) % 4]);
        }
    }
    out
}

/// Where output subblock `j` of a Paff round comes from.
#[derive(Clone, Copy)]
enum Out {
    /// `AESENC(S[a], S[b]) = A(S[a]) XOR S[b]`.
    Aes(usize, usize),
    /// `RC[i] XOR S[b]`.
    Const(usize),
}

/// The round table, output 0 to 19, as the specification prints it.
const ROUND: [Out; 20] = [
    Out::Aes(19, 1),
    Out::Aes(4, 0),
    Out::Aes(6, 3),
    Out::Aes(17, 4),
    Out::Aes(9, 5),
    Out::Aes(0, 2),
    Out::Aes(13, 7),
    Out::Const(8),
    Out::Aes(8, 9),
    Out::Aes(5, 10),
    Out::Aes(15, 6),
    Out::Aes(10, 12),
    Out::Aes(16, 13),
    Out::Aes(3, 14),
    Out::Aes(12, 15),
    Out::Aes(14, 16),
    Out::Aes(18, 17),
    Out::Aes(7, 18),
    Out::Aes(2, 19),
    Out::Aes(1, 11),
];

/// The round constants as the specification lists them (with `RC[7]` and
/// `RC[22]` as the official answers define them).
const RC_HEX: [&str; 24] = [
    "243f6a8885a308d313198a2e03707344",
    "a4093822299f31d0082efa98ec4e6c89",
    "452821e638d01377be5466cf34e90c6c",
    "c0ac29b7c97c50dd3f84d5b5b5470917",
    "9216d5d98979fb1bd1310ba698dfb5ac",
    "2ffd72dbd01adfb7b8e1afed6a267e96",
    "ba7c9045f12c7f9924a19947b3916cf7",
    "801f2e2858efc16636920d871574e690",
    "a458fea3f4933d7e0d95748f728eb658",
    "718bcd5882154aee7b54a41dc25a59b5",
    "9c30d5392af26013c5d1b023286085f0",
    "ca417918b8db38ef8e79dcb0603a180e",
    "6c9e0e8bb01e8a3ed71577c1bd314b27",
    "78af2fda55605c60e65525f3aa55ab94",
    "5748986263e8144055ca396a2aab10b6",
    "b4cc5c341141e8cea15486af7c72e993",
    "b3ee1411636fbc2a2ba9c55d741831f6",
    "ce5c3e169b87931eafd6ba336c24cf5c",
    "7a325381289586773b8f48986b4bb9af",
    "c4bfe81b6628219361d809ccfb21a991",
    "487cac605dec8032ef845d5de98575b1",
    "dc262302eb651b8823893e81d396acc5",
    "f6d6ff383f442392e0b4482a48420040",
    "69c8f04a9e1f9b5e21c66842f6e96c9a",
];

fn round_constant(i: usize) -> [u8; 16] {
    let digits = RC_HEX[i].as_bytes();
    core::array::from_fn(|k| {
        u8::from_str_radix(std::str::from_utf8(&digits[2 * k..2 * k + 2]).unwrap(), 16).unwrap()
    })
}

/// The 320-byte state, subblock `j` = bytes `16j .. 16j + 16`.
pub(crate) type State = [u8; 320];

fn sub(s: &State, j: usize) -> [u8; 16] {
    s[16 * j..16 * j + 16].try_into().unwrap()
}

/// Paff: 24 rounds of the table above.
pub(crate) fn paff(s: &mut State) {
    for i in 0..24 {
        let old = *s;
        for (j, out) in ROUND.iter().enumerate() {
            let (x, y) = match *out {
                Out::Aes(a, b) => (aes_round(&sub(&old, a)), sub(&old, b)),
                Out::Const(b) => (round_constant(i), sub(&old, b)),
            };
            for k in 0..16 {
                s[16 * j + k] = x[k] ^ y[k];
            }
        }
    }
}

/// Rate and digest length in bits, the instance's numbers written again.
pub(crate) fn numbers(alg: Algorithm) -> (usize, usize) {
    match alg.name() {
        "Pavelor-512" => (1536, 512),
        "Pavelor-768" => (1024, 768),
        "Pavelor-1024" => (512, 1024),
        other => panic!("no reference numbers for {other}"),
    }
}

/// The initial state: r, c, b, h as 128-bit big-endian integers in
/// subblocks 0..4.
pub(crate) fn initial_state(alg: Algorithm) -> State {
    let (r, h) = numbers(alg);
    let mut s: State = [0; 320];
    for (j, v) in [r, 2560 - r, 2560, h].into_iter().enumerate() {
        s[16 * j..16 * j + 16].copy_from_slice(&(v as u128).to_be_bytes());
    }
    s
}

/// The state after absorbing `blocks`, whole rate blocks of bytes, without
/// padding (what a streaming hasher holds before it finishes).
pub(crate) fn state_after_blocks(alg: Algorithm, blocks: &[u8]) -> State {
    let rate = numbers(alg).0 / 8;
    assert_eq!(blocks.len() % rate, 0, "whole blocks only");
    let mut s = initial_state(alg);
    for block in blocks.chunks(rate) {
        for (k, &b) in block.iter().enumerate() {
            s[k] ^= b;
        }
        paff(&mut s);
    }
    s
}

/// Bit `k` of a byte string, MSB first.
fn bit(bytes: &[u8], k: usize) -> u8 {
    (bytes[k / 8] >> (7 - k % 8)) & 1
}

/// The digest of the first `nbits` bits of `msg` (MSB first).
pub(crate) fn hash_bits(alg: Algorithm, msg: &[u8], nbits: usize) -> Vec<u8> {
    let (r, h) = numbers(alg);
    // Pad(M) = M || 1 || 0^k || 1, a multiple of r bits.
    let mut bits: Vec<u8> = (0..nbits).map(|k| bit(msg, k)).collect();
    bits.push(1);
    while bits.len() % r != r - 1 {
        bits.push(0);
    }
    bits.push(1);
    let mut s = initial_state(alg);
    for block in bits.chunks(r) {
        for (k, &b) in block.iter().enumerate() {
            s[k / 8] ^= b << (7 - k % 8);
        }
        paff(&mut s);
    }
    let mut out = Vec::new();
    loop {
        let take = (r / 8).min(h / 8 - out.len());
        out.extend_from_slice(&s[..take]);
        if out.len() == h / 8 {
            return out;
        }
        paff(&mut s);
    }
}

/// The digest of a byte message.
pub(crate) fn hash(alg: Algorithm, msg: &[u8]) -> Vec<u8> {
    hash_bits(alg, msg, 8 * msg.len())
}
