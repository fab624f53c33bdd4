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

// A C ABI is this crate's job: `unsafe` is allowed here (the workspace
// denies it), and every block carries a `// SAFETY:` comment.
#![allow(unsafe_code)]
// The crate name `CryptHash` is not snake case; it has to be, to get the
// artifact names the ICCS harness expects.
#![allow(non_snake_case)]

use std::ffi::{CStr, c_char, c_int, c_uchar, c_ulonglong};
use std::marker::PhantomData;
use std::panic::{AssertUnwindSafe, catch_unwind};

use pavelor::{InstanceFn, Pavelor, Variant};

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

/// The instance this library was built for, chosen by its `instance-<bits>`
/// feature (the checks above let exactly one be enabled).
///
/// Everything else about the instance follows from this constant: the name
/// [`CryptHash_AlgorithmInstance`] returns, the digest length [`CryptHash`]
/// accepts and the [`Variant`] it hashes with (through
/// [`Algorithm::dispatch`]: a match on this constant, which optimized builds
/// fold away, leaving only that instance's code).
pub const INSTANCE: Algorithm = if cfg!(feature = "instance-512") {
    Algorithm::Pavelor512
} else if cfg!(feature = "instance-768") {
    Algorithm::Pavelor768
} else {
    Algorithm::Pavelor1024
};

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
    let call = OneShot {
        digest_len_bits,
        msg,
        msg_len_bits,
        digest,
    };
    // Everything runs inside `catch_unwind`: a panic must never unwind into C.
    match catch_unwind(AssertUnwindSafe(|| INSTANCE.dispatch(call))) {
        Ok(Ok(())) => CRYPTHASH_OK,
        Ok(Err(code)) => code,
        Err(payload) => {
            // Dropping the payload could itself panic; leak it instead.
            std::mem::forget(payload);
            CRYPTHASH_ERR_INTERNAL
        }
    }
}

/// The arguments of one [`CryptHash`] call, hashed by [`InstanceFn::call`]
/// for the instance's [`Variant`]. Made only by `CryptHash`, so the pointers
/// come with the contract of its `# Safety` section.
struct OneShot {
    digest_len_bits: c_int,
    msg: *const c_uchar,
    msg_len_bits: c_ulonglong,
    digest: *mut c_uchar,
}

impl InstanceFn for OneShot {
    type Output = Result<(), c_int>;

    /// The checks of [`CryptHash`] in its documented order, then the fused
    /// one-shot path of instance `V` (no streaming state, no buffering: one
    /// kernel call from the IV to the squeeze) into a local digest, copied
    /// to `digest` once the message has been read.
    #[inline]
    fn call<V: Variant>(self) -> Result<(), c_int> {
        let OneShot {
            digest_len_bits,
            msg,
            msg_len_bits,
            digest,
        } = self;
        let mut out = pavelor::digest::Output::<Pavelor<V>>::default();
        if u64::try_from(digest_len_bits).ok() != Some(8 * out.len() as u64) {
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
            // the caller of `CryptHash` guarantees `ceil(msg_len_bits / 8) ==
            // msg_len` readable, initialized bytes there for the call;
            // `msg_len <= isize::MAX` was checked by `byte_len`; `u8` has
            // alignment 1. The slice is only read by the one-shot hash below,
            // before `digest` is written.
            unsafe { std::slice::from_raw_parts(msg, msg_len) }
        };
        Pavelor::<V>::digest_bits_into(data, msg_len_bits, &mut out)
            .map_err(|_| CRYPTHASH_ERR_INTERNAL)?;
        // SAFETY: `digest` is non-NULL (checked above) and, since
        // `digest_len_bits == 8 * out.len()` (checked above), the caller of
        // `CryptHash` guarantees `out.len()` writable bytes there. The source
        // is our local `out`, so the two ranges do not overlap; `u8` has
        // alignment 1.
        unsafe { std::ptr::copy_nonoverlapping(out.as_ptr(), digest, out.len()) };
        Ok(())
    }
}

/// The instance name ([`INSTANCE`]`.name()`, e.g. `"Pavelor-512"`) as a
/// static NUL-terminated C string; never NULL, never to be freed.
#[unsafe(no_mangle)]
pub extern "C" fn CryptHash_AlgorithmInstance() -> *const c_char {
    instance_name().as_ptr()
}

/// [`INSTANCE`]`.name()` as a C string, made at compile time.
fn instance_name() -> &'static CStr {
    INSTANCE.dispatch(NameOf)
}

/// An instance's name as a C string ([`CName`]), for [`Algorithm::dispatch`].
struct NameOf;

impl InstanceFn for NameOf {
    type Output = &'static CStr;

    #[inline]
    fn call<V: Variant>(self) -> &'static CStr {
        CName::<V>::C_STR
    }
}

/// Room for an instance name and its NUL.
const NAME_CAPACITY: usize = 32;

/// The name of instance `V` ([`Variant::NAME`], the string
/// [`Algorithm::name`] returns) as a C string, evaluated at compile time.
struct CName<V>(PhantomData<V>);

impl<V: Variant> CName<V> {
    const BYTES: &'static [u8; NAME_CAPACITY] = &nul_terminated(V::NAME);
    const C_STR: &'static CStr = match CStr::from_bytes_until_nul(Self::BYTES) {
        Ok(name) => name,
        Err(_) => panic!("an instance name is not a C string"),
    };
}

/// `name` followed by NUL bytes. Fails the build if `name` contains a NUL
/// or does not leave room for one.
const fn nul_terminated(name: &str) -> [u8; NAME_CAPACITY] {
    let name = name.as_bytes();
    assert!(name.len() < NAME_CAPACITY, "instance name too long");
    let mut out = [0u8; NAME_CAPACITY];
    let mut i = 0;
    while i < name.len() {
        assert!(name[i] != 0, "NUL in an instance name");
        out[i] = name[i];
        i += 1;
    }
    out
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

    #[test]
    fn instance_name_matches() {
        assert_eq!(instance_name().to_str(), Ok(INSTANCE.name()));
        // SAFETY: the pointer comes from a `&'static CStr`.
        let name = unsafe { CStr::from_ptr(CryptHash_AlgorithmInstance()) };
        assert_eq!(name, instance_name());
    }

    #[test]
    fn c_names_of_every_instance() {
        for alg in Algorithm::ALL {
            assert_eq!(alg.dispatch(NameOf).to_str(), Ok(alg.name()));
        }
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
