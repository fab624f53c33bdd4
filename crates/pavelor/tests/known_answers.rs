//! Spot checks from the specification, on every backend this CPU runs.

#![allow(clippy::unwrap_used, clippy::panic)] // tests may fail loudly

use pavelor::{Algorithm, Pavelor512, Pavelor768, Pavelor1024};

mod common;
use common::backends;

const EMPTY: [(Algorithm, &str); 3] = [
    (
        Algorithm::Pavelor512,
        "c53578fa7956aad60eeca53d46a2bd1719d8059ad1725f2aa9437b1f40b519f9203437cec8dda146f290ee27d58c6ff214cb7be6aa1d85a94f750f235883fcea",
    ),
    (
        Algorithm::Pavelor768,
        "65baf7ffc9d31766c72c90a5f8d42eaa7f3610603eb950275f1da62b1678c3acb64ffebf433102922d26ed79e16398e8ba4e462aed90ce3394ac595eb38fbe0b7ba970d98bf5d87a5cb14ba929163206eed73908220f1ff44f34952e8be7c44a",
    ),
    (
        Algorithm::Pavelor1024,
        "7011cc8c8bd11ac971bb394cbdb5269362facf05b740d0a4cb1f14c0a91ae7f00eb7a47dbd96ebbc1b0735f1c5a37e745c3053682b5d733ff1045d90a7269d176b448d0058455b750ab2ef38ae7cf89f35eb4d0e98d1c864e51fda93d82ad804a8ea8cdef76fcb29aff2988f0c3b3f2c7919939493e5714f470abb02c3751363",
    ),
];

fn hex(bytes: &[u8]) -> String {
    hex::encode(bytes)
}

#[test]
fn empty_message_every_instance_every_backend() {
    for backend in backends() {
        for (alg, want) in EMPTY {
            let h = alg.hasher_with(backend).unwrap();
            assert_eq!(h.backend(), backend);
            let out = h.finalize();
            assert_eq!(hex(&out), want, "{alg} on {backend}");
            // DynOutput's own formatting: {:x}, {:X} and {:?}.
            assert_eq!(format!("{out:x}"), want);
            assert_eq!(format!("{out:X}"), want.to_uppercase());
            assert_eq!(format!("{out:?}"), want);
        }
    }
}

#[test]
fn typed_one_shot_matches_dynamic() {
    assert_eq!(hex(&Pavelor512::digest(b"")), EMPTY[0].1);
    assert_eq!(hex(&Pavelor768::digest(b"")), EMPTY[1].1);
    assert_eq!(hex(&Pavelor1024::digest(b"")), EMPTY[2].1);
}

#[test]
fn one_bit_message_from_kat_2_12() {
    // KAT_2_12_Pavelor-512, Msg_Len = 1, Msg = 80; the low bits of the byte
    // must be ignored whatever they hold.
    let want = "883fe98de4bd1d52bb74bb3c817e2d2d451668945316d529ac38ad642afd0e70b2c4180f33fa457ba475761311b646f3a060135f0e1e9e6cb2bca01948e6f40f";
    for backend in backends() {
        for byte in [0x80u8, 0xff, 0xa5] {
            let mut h = pavelor::Pavelor512::with_backend(backend).unwrap();
            h.update_bits(&[byte], 1).unwrap();
            assert_eq!(hex(&h.finalize()), want, "{backend} byte {byte:#x}");
        }
    }
}
