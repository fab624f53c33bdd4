//! The RustCrypto `digest` traits: `Digest`, `Hmac`, `Reset`, `Clone`,
//! `DynDigest`, and `CoreProxy` round trips.

#![allow(clippy::unwrap_used, clippy::panic)] // tests may fail loudly

use digest::block_api::CoreProxy;
use digest::{Digest, DynDigest, FixedOutputReset};
use hmac::{Hmac, KeyInit, Mac};
use pavelor::{Available, Pavelor512, Pavelor768, Pavelor1024};

fn generic_digest<D: Digest>(data: &[u8]) -> Vec<u8> {
    let mut h = D::new();
    Digest::update(&mut h, data);
    h.finalize().to_vec()
}

#[test]
fn digest_trait_matches_inherent_api() {
    let data = b"The quick brown fox jumps over the lazy dog";
    assert_eq!(
        generic_digest::<Pavelor512>(data),
        Pavelor512::digest(data).to_vec()
    );
    assert_eq!(
        generic_digest::<Pavelor768>(data),
        Pavelor768::digest(data).to_vec()
    );
    assert_eq!(
        generic_digest::<Pavelor1024>(data),
        Pavelor1024::digest(data).to_vec()
    );
    assert_eq!(<Pavelor512 as Digest>::output_size(), 64);
    assert_eq!(<Pavelor1024 as Digest>::output_size(), 128);
}

#[test]
fn hmac_works_and_depends_on_key_and_message() {
    type H = Hmac<Pavelor512>;
    let tag = |key: &[u8], msg: &[u8]| {
        let mut m = H::new_from_slice(key).expect("any key length");
        m.update(msg);
        m.finalize().into_bytes().to_vec()
    };
    let t = tag(b"key", b"message");
    assert_eq!(t.len(), 64);
    assert_ne!(t, tag(b"key2", b"message"));
    assert_ne!(t, tag(b"key", b"message2"));
    // A key longer than the block (192 bytes) is hashed first.
    assert_eq!(
        tag(&[7u8; 300], b"m"),
        tag(&Pavelor512::digest([7u8; 300]), b"m")
    );
    // The tag verifies.
    let mut m = H::new_from_slice(b"key").expect("any key length");
    m.update(b"message");
    m.verify_slice(&t).expect("own tag verifies");
    // HMAC-Pavelor-1024 (64-byte block) too.
    let mut m = Hmac::<Pavelor1024>::new_from_slice(b"k").expect("any key length");
    m.update(b"x");
    assert_eq!(m.finalize().into_bytes().len(), 128);
}

#[test]
fn reset_clone_and_finalize_reset() {
    let mut h = Pavelor768::with_backend(Available::portable());
    h.update(b"abc");
    let copy = h.clone();
    let first = FixedOutputReset::finalize_fixed_reset(&mut h);
    assert_eq!(first, copy.finalize());
    assert_eq!(
        h.backend(),
        Available::portable(),
        "reset keeps the backend"
    );
    h.update(b"abc");
    assert_eq!(h.finalize(), first);
    let mut d: Box<dyn DynDigest> = Box::new(Pavelor512::new());
    DynDigest::update(&mut *d, b"abc");
    let mut out = [0u8; 64];
    d.finalize_into_reset(&mut out).expect("64-byte buffer");
    assert_eq!(out[..], Pavelor512::digest(b"abc")[..]);
}

#[test]
fn decompose_and_compose_keep_the_pending_partial_byte() {
    let mut h = Pavelor512::new();
    h.update([1u8; 100]);
    h.update_bits(&[0xC0], 2).expect("valid");
    let want = h.clone().finalize();
    let (core, buffer) = h.decompose();
    assert_eq!(Pavelor512::compose(core, buffer).finalize(), want);
}

#[test]
fn debug_output_does_not_leak_state() {
    let mut h = Pavelor512::new();
    h.update(b"secret");
    let s = format!("{h:?}");
    assert!(s.starts_with("Pavelor-512"), "{s}");
    assert!(!s.contains("secret") && !s.contains("115"), "{s}");
}
