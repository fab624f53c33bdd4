//! `CryptHash` called through the rlib (default instance, Pavelor-512): the
//! error contract and a few `KAT_2_12` records. The official `KAT_2_12`
//! file is regenerated in memory (DRNG messages, portable-backend digests)
//! and accepted only if its SHA-256 equals the official file's, embedded in
//! pavelor-kat: so the records are the official ones, no KAT files
//! needed.

// Calls the C ABI under test: `unsafe` is allowed in this test (the
// workspace denies it).
#![allow(unsafe_code)]
#![allow(clippy::unwrap_used, clippy::panic)] // tests may fail loudly

use std::ffi::CStr;
use std::ptr;

use CryptHash::{
    Algorithm, CRYPTHASH_ERR_DIGEST_LENGTH, CRYPTHASH_ERR_NULL_POINTER, CRYPTHASH_OK, CryptHash,
    CryptHash_AlgorithmInstance, INSTANCE,
};

const BITS: i32 = 512;
const LEN: usize = 64;

/// The official `KAT_2_12` file of `alg`, regenerated and checked against
/// the embedded SHA-256 of the official file.
fn official_kat_2_12(alg: Algorithm) -> String {
    use sha2::{Digest, Sha256};
    let kind = pavelor_kat::KatKind::Kat2_12;
    let portable = pavelor::Available::portable();
    let text = pavelor_kat::generate::file_text(kind, alg, portable, &mut |_, _| {}).unwrap();
    assert_eq!(
        <[u8; 32]>::from(Sha256::digest(text.as_bytes())),
        pavelor_kat::embedded::Answers::of(alg).file_sha256(kind),
        "regenerated {} is not the official file",
        kind.file_name(alg)
    );
    text
}

struct Record {
    msg_bits: u64,
    msg: Vec<u8>,
    digest: Vec<u8>,
}

fn unhex(s: &str) -> Vec<u8> {
    hex::decode(s).unwrap_or_else(|e| panic!("bad hex {s:?}: {e}"))
}

/// Parses a full-message KAT file (`Msg_Len`, `Msg`, `Dst_Len`, `Dst`).
fn load_kat_2_12(alg: Algorithm) -> Vec<Record> {
    let path = format!("KAT_2_12_{}.txt", alg.name());
    let text = official_kat_2_12(alg);
    let mut records = Vec::new();
    for block in text.split("\n\n").filter(|b| !b.trim().is_empty()) {
        let field = |key: &str| {
            block
                .lines()
                .find_map(|l| l.strip_prefix(key)?.strip_prefix(" ="))
                .unwrap_or_else(|| panic!("{path}: no {key} in {block:?}"))
                .trim()
        };
        let record = Record {
            msg_bits: field("Msg_Len").parse().unwrap(),
            msg: unhex(field("Msg")),
            digest: unhex(field("Dst")),
        };
        assert_eq!(field("Dst_Len"), alg.output_bits().to_string());
        assert_eq!(record.msg.len() as u64, record.msg_bits.div_ceil(8));
        records.push(record);
    }
    assert_eq!(records.len(), 4097, "{path}");
    records
}

/// Calls `CryptHash` on a slice (NULL for an empty one) into a fresh buffer
/// pre-filled with 0xA5.
fn crypt_hash(digest_bits: i32, msg: &[u8], msg_bits: u64) -> (i32, [u8; LEN]) {
    let mut out = [0xa5u8; LEN];
    let msg_ptr = if msg.is_empty() {
        ptr::null()
    } else {
        msg.as_ptr()
    };
    // SAFETY: `msg_ptr` is NULL or points to `msg.len() >= ceil(msg_bits/8)`
    // bytes (callers pass matching lengths); `out` has room for 512 bits.
    let rc = unsafe { CryptHash(digest_bits, msg_ptr, msg_bits, out.as_mut_ptr()) };
    (rc, out)
}

#[test]
fn default_instance_is_512() {
    assert_eq!(INSTANCE, Algorithm::Pavelor512);
    // SAFETY: returns a pointer to a static NUL-terminated string.
    let name = unsafe { CStr::from_ptr(CryptHash_AlgorithmInstance()) };
    assert_eq!(name.to_str(), Ok("Pavelor-512"));
}

#[test]
fn selected_kat_2_12_records() {
    let records = load_kat_2_12(Algorithm::Pavelor512);
    for bits in [0, 1, 7, 8, 9, 1535, 1536, 1537, 4095, 4096] {
        let r = &records[bits];
        assert_eq!(r.msg_bits, bits as u64);
        let (rc, out) = crypt_hash(BITS, &r.msg, r.msg_bits);
        assert_eq!(rc, CRYPTHASH_OK, "Msg_Len = {bits}");
        assert_eq!(out[..], r.digest[..], "Msg_Len = {bits}");
    }
}

#[test]
fn unused_bits_of_last_byte_are_ignored() {
    let records = load_kat_2_12(Algorithm::Pavelor512);
    let r = &records[1]; // 1-bit message
    let mut msg = r.msg.clone();
    msg[0] |= 0x7f; // garbage below the one message bit
    let (rc, out) = crypt_hash(BITS, &msg, 1);
    assert_eq!(rc, CRYPTHASH_OK);
    assert_eq!(out[..], r.digest[..]);
}

#[test]
fn null_msg_with_zero_length_is_the_empty_message() {
    let records = load_kat_2_12(Algorithm::Pavelor512);
    let (rc, out) = crypt_hash(BITS, &[], 0);
    assert_eq!(rc, CRYPTHASH_OK);
    assert_eq!(out[..], records[0].digest[..]);

    // A non-NULL pointer with length 0 gives the same digest.
    let mut out2 = [0u8; LEN];
    let byte = 0xffu8;
    // SAFETY: length 0 reads nothing; `out2` has room for 512 bits.
    let rc = unsafe { CryptHash(BITS, &byte, 0, out2.as_mut_ptr()) };
    assert_eq!(rc, CRYPTHASH_OK);
    assert_eq!(out2, out);
}

#[test]
fn null_digest_is_refused() {
    let msg = [0u8; 4];
    for bits in [0, 8, 32] {
        // SAFETY: `msg` holds 4 bytes; `digest` is NULL, which must be refused.
        let rc = unsafe { CryptHash(BITS, msg.as_ptr(), bits, ptr::null_mut()) };
        assert_eq!(rc, CRYPTHASH_ERR_NULL_POINTER, "msg_len_bits = {bits}");
    }
}

#[test]
fn null_msg_with_nonzero_length_is_refused() {
    for bits in [1, 8, 4096, u64::MAX] {
        let (rc, out) = crypt_hash(BITS, &[], bits);
        assert_eq!(rc, CRYPTHASH_ERR_NULL_POINTER, "msg_len_bits = {bits}");
        assert_eq!(out, [0xa5; LEN], "digest written on error");
    }
}

#[test]
fn wrong_digest_lengths_are_refused() {
    let msg = [0x61u8, 0x62, 0x63];
    for bits in [768, 1024, 0, -1, -512, 256, 511, 513, i32::MAX, i32::MIN] {
        let (rc, out) = crypt_hash(bits, &msg, 24);
        assert_eq!(rc, CRYPTHASH_ERR_DIGEST_LENGTH, "digest_len_bits = {bits}");
        assert_eq!(out, [0xa5; LEN], "digest written on error");
    }
}

#[test]
fn digest_may_overlap_message() {
    let records = load_kat_2_12(Algorithm::Pavelor512);
    let r = &records[4096]; // 512 bytes of message
    let mut buf = r.msg.clone();
    // SAFETY: `buf` holds 512 readable and writable bytes; the digest (64
    // bytes) goes to its start, which the contract allows.
    let rc = unsafe { CryptHash(BITS, buf.as_ptr(), 4096, buf.as_mut_ptr()) };
    assert_eq!(rc, CRYPTHASH_OK);
    assert_eq!(buf[..LEN], r.digest[..]);
}
