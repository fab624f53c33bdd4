//! # pavelor-ffi: the ICCS C interface of Pavelor
//!
//! Builds one library per Pavelor instance exporting the ICCS entry point
//!
//! ```c
//! int CryptHash(int digest_len_bits, const unsigned char *msg,
//!               unsigned long long msg_len_bits, unsigned char *digest);
//! ```
//!
//! and `const char *CryptHash_AlgorithmInstance(void)`.
//!
//! * The instance is chosen at build time by exactly one of the features
//!   `instance-512` (default), `instance-768`, `instance-1024`; see
//!   [`INSTANCE`].
//! * The library target is named `CryptHash`, so cargo writes
//!   `libCryptHash.so` and `libCryptHash.a` directly; from Rust the crate is
//!   used as `CryptHash` (e.g. `CryptHash::CryptHash(...)`).
//! * [`header`] renders the matching `CryptHash_AlgorithmInstance.h` for any
//!   instance from one template; `cargo xtask iccs --out DIR` builds all three
//!   libraries and writes them with their headers.
//!
//! Return codes: [`CRYPTHASH_OK`] and the `CRYPTHASH_ERR_*` constants (also in
//! [`ERROR_CODES`] and the generated header).

// The crate name `CryptHash` is not snake case; it has to be, to get the
// artifact names the ICCS harness expects.
#![allow(non_snake_case)]

use std::ffi::{c_char, c_int, c_uchar, c_ulonglong};
use std::panic::{AssertUnwindSafe, catch_unwind};

pub use pavelor::Algorithm;

#[cfg(not(any(
    feature = "instance-512",
    feature = "instance-768",
    feature = "instance-1024"
)))]
compile_error!(
    "pavelor-ffi: enable exactly one of the features instance-512, instance-768, instance-1024"
);

#[cfg(any(
    all(feature = "instance-512", feature = "instance-768"),
    all(feature = "instance-512", feature = "instance-1024"),
    all(feature = "instance-768", feature = "instance-1024"),
))]
compile_error!(
    "pavelor-ffi: more than one instance feature enabled; use --no-default-features \
     --features instance-<bits> (one library = one instance, never --all-features)"
);

// The one instance selected by the features (the checks above make the
// three cfgs mutually exclusive).
#[cfg(all(
    feature = "instance-512",
    not(feature = "instance-768"),
    not(feature = "instance-1024")
))]
mod selected {
    /// The instance this library was built for.
    pub const INSTANCE: super::Algorithm = super::Algorithm::Pavelor512;
    pub type Hasher = pavelor::Pavelor512;
    pub const NAME: &std::ffi::CStr = c"Pavelor-512";
}
#[cfg(all(
    feature = "instance-768",
    not(feature = "instance-512"),
    not(feature = "instance-1024")
))]
mod selected {
    /// The instance this library was built for.
    pub const INSTANCE: super::Algorithm = super::Algorithm::Pavelor768;
    pub type Hasher = pavelor::Pavelor768;
    pub const NAME: &std::ffi::CStr = c"Pavelor-768";
}
#[cfg(all(
    feature = "instance-1024",
    not(feature = "instance-512"),
    not(feature = "instance-768")
))]
mod selected {
    /// The instance this library was built for.
    pub const INSTANCE: super::Algorithm = super::Algorithm::Pavelor1024;
    pub type Hasher = pavelor::Pavelor1024;
    pub const NAME: &std::ffi::CStr = c"Pavelor-1024";
}

pub use selected::INSTANCE;
use selected::{Hasher as InstanceHasher, NAME as INSTANCE_NAME};

/// `CryptHash` succeeded.
pub const CRYPTHASH_OK: c_int = 0;
/// `digest_len_bits` is not this library's instance's digest length.
pub const CRYPTHASH_ERR_DIGEST_LENGTH: c_int = 1;
/// `digest` is NULL, or `msg` is NULL while `msg_len_bits != 0`.
pub const CRYPTHASH_ERR_NULL_POINTER: c_int = 2;
/// `ceil(msg_len_bits / 8)` bytes cannot be addressed on this platform
/// (does not fit in `usize`/`isize`; only possible on 32-bit targets).
pub const CRYPTHASH_ERR_MESSAGE_TOO_LONG: c_int = 3;
/// Internal error (a panic was caught); nothing was written.
pub const CRYPTHASH_ERR_INTERNAL: c_int = 4;

/// All return codes of `CryptHash` as `(C macro name, value, meaning)`, in
/// the order the conditions are checked (the generated header lists these).
pub const ERROR_CODES: [(&str, c_int, &str); 5] = [
    ("CRYPTHASH_OK", CRYPTHASH_OK, "success"),
    (
        "CRYPTHASH_ERR_DIGEST_LENGTH",
        CRYPTHASH_ERR_DIGEST_LENGTH,
        "digest_len_bits != DIGEST_BIT_LENGTH",
    ),
    (
        "CRYPTHASH_ERR_NULL_POINTER",
        CRYPTHASH_ERR_NULL_POINTER,
        "digest is NULL, or msg is NULL with msg_len_bits != 0",
    ),
    (
        "CRYPTHASH_ERR_MESSAGE_TOO_LONG",
        CRYPTHASH_ERR_MESSAGE_TOO_LONG,
        "ceil(msg_len_bits / 8) bytes not addressable (32-bit only)",
    ),
    (
        "CRYPTHASH_ERR_INTERNAL",
        CRYPTHASH_ERR_INTERNAL,
        "internal error; nothing written",
    ),
];

/// The ICCS hash entry point of this library's instance ([`INSTANCE`]).
///
/// Hashes the first `msg_len_bits` bits of `msg` (a partial last byte
/// contributes its top `msg_len_bits % 8` bits, MSB-first; its other bits
/// are ignored) and writes `digest_len_bits / 8` bytes to `digest`.
///
/// Returns [`CRYPTHASH_OK`] (0) on success, otherwise (checked in this
/// order, nothing written to `digest`):
/// [`CRYPTHASH_ERR_DIGEST_LENGTH`] if `digest_len_bits` is not
/// `INSTANCE.output_bits()`; [`CRYPTHASH_ERR_NULL_POINTER`] if `digest` is
/// NULL or `msg` is NULL while `msg_len_bits != 0`;
/// [`CRYPTHASH_ERR_MESSAGE_TOO_LONG`] if the message's byte length does not
/// fit in memory addressing; [`CRYPTHASH_ERR_INTERNAL`] if a panic was caught
/// (panics never unwind into the caller).
///
/// # Safety
///
/// * If `msg_len_bits != 0` and `msg` is non-NULL, `msg` must point to
///   `ceil(msg_len_bits / 8)` initialized bytes readable for the duration of
///   the call.
/// * If `digest` is non-NULL and `digest_len_bits` is the instance's length,
///   `digest` must point to `digest_len_bits / 8` bytes writable for the
///   duration of the call, not written concurrently by anyone else. It may
///   overlap `msg` (the message is read completely before the digest is
///   written).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn CryptHash(
    digest_len_bits: c_int,
    msg: *const c_uchar,
    msg_len_bits: c_ulonglong,
    digest: *mut c_uchar,
) -> c_int {
    // Everything runs inside `catch_unwind`: a panic must never unwind into C.
    let result = catch_unwind(AssertUnwindSafe(|| -> Result<(), c_int> {
        let out_bits = INSTANCE.output_bits();
        if u32::try_from(digest_len_bits).ok() != Some(out_bits) {
            return Err(CRYPTHASH_ERR_DIGEST_LENGTH);
        }
        if digest.is_null() || (msg.is_null() && msg_len_bits != 0) {
            return Err(CRYPTHASH_ERR_NULL_POINTER);
        }
        let msg_len = byte_len(msg_len_bits).ok_or(CRYPTHASH_ERR_MESSAGE_TOO_LONG)?;

        let data: &[u8] = if msg_len == 0 {
            &[]
        } else {
            // SAFETY: `msg` is non-NULL (checked above since msg_len_bits != 0);
            // the caller guarantees `ceil(msg_len_bits / 8) == msg_len` readable,
            // initialized bytes there for the call; `msg_len <= isize::MAX` was
            // checked by `byte_len`; `u8` has alignment 1. The slice is only
            // read by the one-shot hash below, before `digest` is written.
            unsafe { std::slice::from_raw_parts(msg, msg_len) }
        };
        // The fused one-shot path (no streaming state, no buffering): one
        // kernel call from the IV to the squeeze.
        let mut out = pavelor::digest::Output::<InstanceHasher>::default();
        InstanceHasher::digest_bits_into(data, msg_len_bits, &mut out)
            .map_err(|_| CRYPTHASH_ERR_INTERNAL)?;
        if out.len() as u64 * 8 != u64::from(out_bits) {
            return Err(CRYPTHASH_ERR_INTERNAL);
        }
        // SAFETY: `digest` is non-NULL (checked above) and, since
        // `digest_len_bits == out_bits == 8 * out.len()`, the caller guarantees
        // `out.len()` writable bytes there. The source is our local `out`, so
        // the two ranges do not overlap; `u8` has alignment 1.
        unsafe { std::ptr::copy_nonoverlapping(out.as_ptr(), digest, out.len()) };
        Ok(())
    }));
    match result {
        Ok(Ok(())) => CRYPTHASH_OK,
        Ok(Err(code)) => code,
        Err(payload) => {
            // Dropping the payload could itself panic; leak it instead.
            std::mem::forget(payload);
            CRYPTHASH_ERR_INTERNAL
        }
    }
}

/// The instance name ([`INSTANCE`]`.name()`, e.g. `"Pavelor-512"`) as a
/// static NUL-terminated C string; never NULL, never to be freed.
#[unsafe(no_mangle)]
pub extern "C" fn CryptHash_AlgorithmInstance() -> *const c_char {
    INSTANCE_NAME.as_ptr()
}

/// Number of bytes holding `nbits` bits, if that many bytes can be
/// addressed (a slice may span at most `isize::MAX` bytes).
fn byte_len(nbits: u64) -> Option<usize> {
    usize::try_from(nbits.div_ceil(8))
        .ok()
        .filter(|&n| isize::try_from(n).is_ok())
}

const HEADER_TEMPLATE: &str = include_str!("CryptHash_AlgorithmInstance.h.in");

/// The ICCS instance header `CryptHash_AlgorithmInstance.h` for `alg`,
/// rendered from the single template `src/CryptHash_AlgorithmInstance.h.in`.
///
/// Works for every instance, whichever one this library was built for. It
/// defines `ALGORITHM_INSTANCE`, `DIGEST_BIT_LENGTH`,
/// `OUTPUT_BLANK_TEST_VECTORS` (0), the return-code macros of
/// [`ERROR_CODES`], and declares `CryptHash` and
/// `CryptHash_AlgorithmInstance` (with `extern "C"` guards for C++).
pub fn header(alg: Algorithm) -> String {
    let width = ERROR_CODES
        .iter()
        .map(|(name, _, _)| name.len())
        .max()
        .unwrap_or(0);
    let codes: String = ERROR_CODES
        .iter()
        .map(|(name, value, meaning)| format!("#define {name:<width$} {value} /* {meaning} */\n"))
        .collect();
    HEADER_TEMPLATE
        .replace("@INSTANCE@", alg.name())
        .replace("@BITS@", &alg.output_bits().to_string())
        .replace("@ERROR_CODES@\n", &codes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ffi::CStr;

    #[test]
    fn instance_name_matches() {
        assert_eq!(INSTANCE_NAME.to_str(), Ok(INSTANCE.name()));
        // SAFETY: the pointer comes from a `&'static CStr`.
        let name = unsafe { CStr::from_ptr(CryptHash_AlgorithmInstance()) };
        assert_eq!(name, INSTANCE_NAME);
    }

    #[test]
    fn byte_lengths() {
        assert_eq!(byte_len(0), Some(0));
        assert_eq!(byte_len(1), Some(1));
        assert_eq!(byte_len(8), Some(1));
        assert_eq!(byte_len(9), Some(2));
        assert_eq!(byte_len(u64::MAX), Some(1 << 61));
    }

    #[test]
    fn header_is_complete() {
        for alg in Algorithm::ALL {
            let h = header(alg);
            assert!(!h.contains('@'), "unreplaced placeholder in\n{h}");
            assert!(h.contains(&format!("#define ALGORITHM_INSTANCE \"{}\"\n", alg.name())));
            assert!(h.contains(&format!(
                "#define DIGEST_BIT_LENGTH {}\n",
                alg.output_bits()
            )));
            assert!(h.contains("#define OUTPUT_BLANK_TEST_VECTORS 0\n"));
            for (name, value, _) in ERROR_CODES {
                assert!(h.contains(&format!("#define {name}")), "{name}");
                assert!(h.contains(&format!(" {value} /* ")));
            }
            assert!(h.contains("int CryptHash(int digest_len_bits"));
            assert!(h.contains("extern \"C\" {"));
        }
    }
}
