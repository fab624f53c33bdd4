//! `libpavelor`: Pavelor-512/768/1024 for C, with a streaming API.
//!
//! The C declarations, and the contract of every function, are in
//! `assets/pavelor.h`, installed as `include/pavelor.h`; this crate
//! implements them over [`pavelor::DynHasher`]. Built with cargo-c
//! (`cargo cbuild` / `cargo cinstall`), it is `libpavelor.so.0`,
//! `libpavelor.a` and `pavelor.pc`.
//!
//! A hasher lives in caller memory ([`PavelorHasher`], 1 KiB): the first
//! word is a tag that `pavelor_init` writes and `pavelor_wipe` erases, and
//! the [`DynHasher`] follows it. Every function checks the tag before it
//! reads the rest, so a zeroed or wiped hasher is an error code, not a read
//! of garbage. Every failure is a status code and leaves the hasher and the
//! output untouched; no function allocates or can panic.

// A C ABI is this crate's job: `unsafe` is allowed here (the workspace
// denies it), and every block carries a `// SAFETY:` comment.
#![allow(unsafe_code)]

use core::ffi::{CStr, c_char, c_int, c_uint, c_void};
use core::mem::{align_of, size_of};
use std::ffi::CString;
use std::sync::OnceLock;

use pavelor::{Algorithm, Available, DynHasher, Error};
use zeroize::Zeroize;

/// `PAVELOR_OK`.
pub const OK: c_int = 0;
/// `PAVELOR_ERR_NULL`: a required pointer was NULL.
pub const ERR_NULL: c_int = 1;
/// `PAVELOR_ERR_INSTANCE`: not 512, 768 or 1024.
pub const ERR_INSTANCE: c_int = 2;
/// `PAVELOR_ERR_OUTPUT_LEN`: the output buffer is shorter than the digest.
pub const ERR_OUTPUT_LEN: c_int = 3;
/// `PAVELOR_ERR_NOT_INITIALIZED`: the hasher was never initialised, or
/// was wiped.
pub const ERR_NOT_INITIALIZED: c_int = 4;
/// `PAVELOR_ERR_AFTER_PARTIAL_BYTE`: bits after a partial byte.
pub const ERR_AFTER_PARTIAL_BYTE: c_int = 5;
/// `PAVELOR_ERR_TOO_LONG`: more bytes than this machine addresses.
pub const ERR_TOO_LONG: c_int = 6;

/// `PAVELOR_HASHER_WORDS`: the size of [`PavelorHasher`] in 64-bit words.
pub const HASHER_WORDS: usize = 128;

/// `pavelor_hasher`: caller memory for one hasher.
#[repr(C)]
pub struct PavelorHasher {
    opaque: [u64; HASHER_WORDS],
}

/// What an initialised [`PavelorHasher`] holds.
#[repr(C)]
struct Slot {
    tag: u64,
    hasher: DynHasher,
}

/// The tag of an initialised hasher ("pavelor1").
const TAG: u64 = u64::from_be_bytes(*b"pavelor1");

// The C type must hold a `Slot` at its own alignment: a larger Rust state
// would fail here, not overrun caller memory.
const _: () = assert!(size_of::<Slot>() <= size_of::<PavelorHasher>());
const _: () = assert!(align_of::<Slot>() <= align_of::<PavelorHasher>());

/// The initialised hasher in `h`, or the status code saying why there is
/// none.
///
/// # Safety
/// `h` is NULL or points to a `PavelorHasher` this thread may read and
/// write, whose contents are either an initialised hasher or any bytes
/// without the tag.
unsafe fn slot<'a>(h: *mut PavelorHasher) -> Result<&'a mut DynHasher, c_int> {
    if h.is_null() {
        return Err(ERR_NULL);
    }
    // SAFETY: `h` is non-NULL, aligned and readable (the contract); the
    // tag is the first word.
    let tag = unsafe { core::ptr::read(h.cast::<u64>()) };
    if tag != TAG {
        return Err(ERR_NOT_INITIALIZED);
    }
    // SAFETY: the tag is written only together with a `DynHasher` by
    // `pavelor_init` (or a byte copy of such a hasher), and the size and
    // alignment of `Slot` fit `PavelorHasher` (checked at compile time).
    Ok(unsafe { &mut (*h.cast::<Slot>()).hasher })
}

/// The bytes `[data, data + len)` as a slice (empty for `len == 0`, even
/// with a NULL `data`).
///
/// # Safety
/// If `len > 0`, `data` points to `len` readable bytes.
unsafe fn bytes<'a>(data: *const c_void, len: usize) -> Result<&'a [u8], c_int> {
    if len == 0 {
        return Ok(&[]);
    }
    if data.is_null() {
        return Err(ERR_NULL);
    }
    if len > isize::MAX as usize {
        return Err(ERR_TOO_LONG);
    }
    // SAFETY: non-NULL, `len` readable bytes (the contract), at most
    // `isize::MAX` of them.
    Ok(unsafe { core::slice::from_raw_parts(data.cast::<u8>(), len) })
}

/// The bytes holding the first `nbits` bits at `data`.
///
/// # Safety
/// As [`bytes`], for `ceil(nbits / 8)` bytes.
unsafe fn bit_bytes<'a>(data: *const c_void, nbits: u64) -> Result<&'a [u8], c_int> {
    let len = usize::try_from(nbits.div_ceil(8)).map_err(|_| ERR_TOO_LONG)?;
    // SAFETY: the caller's contract for `ceil(nbits / 8)` bytes.
    unsafe { bytes(data, len) }
}

/// The output buffer for `alg`'s digest: `out_len` must hold it.
///
/// # Safety
/// If non-NULL, `out` points to `out_len` writable bytes.
unsafe fn output<'a>(alg: Algorithm, out: *mut u8, out_len: usize) -> Result<&'a mut [u8], c_int> {
    if out.is_null() {
        return Err(ERR_NULL);
    }
    let len = alg.output_len();
    if out_len < len {
        return Err(ERR_OUTPUT_LEN);
    }
    // SAFETY: non-NULL and at least `len` writable bytes (the contract).
    Ok(unsafe { core::slice::from_raw_parts_mut(out, len) })
}

fn algorithm(bits: c_uint) -> Result<Algorithm, c_int> {
    Algorithm::from_output_bits(bits).ok_or(ERR_INSTANCE)
}

fn status(r: Result<(), c_int>) -> c_int {
    r.err().unwrap_or(OK)
}

fn error_code(e: Error) -> c_int {
    match e {
        Error::AfterPartialByte => ERR_AFTER_PARTIAL_BYTE,
        // `bit_bytes` passes exactly the bytes the bits need.
        Error::BitLength { .. } => ERR_TOO_LONG,
        // `Error` is non-exhaustive; the rest (unknown instance, backend
        // selection, which no function here does) name no message problem.
        _ => ERR_INSTANCE,
    }
}

/// `pavelor_digest_len`.
#[unsafe(no_mangle)]
pub extern "C" fn pavelor_digest_len(bits: c_uint) -> usize {
    algorithm(bits).map_or(0, Algorithm::output_len)
}

/// `pavelor_init`.
///
/// # Safety
/// `hasher` is NULL or points to a writable `pavelor_hasher`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn pavelor_init(hasher: *mut PavelorHasher, bits: c_uint) -> c_int {
    let alg = match algorithm(bits) {
        Ok(a) => a,
        Err(e) => return e,
    };
    if hasher.is_null() {
        return ERR_NULL;
    }
    // SAFETY: non-NULL and writable (the contract). The old contents are
    // erased first, padding included, then a `Slot` is written at the
    // start (it fits: checked at compile time). Nothing is dropped: the
    // bytes may never have been a hasher.
    unsafe {
        (*hasher).opaque.zeroize();
        core::ptr::write(
            hasher.cast::<Slot>(),
            Slot {
                tag: TAG,
                hasher: alg.hasher(),
            },
        );
    }
    OK
}

/// `pavelor_update`.
///
/// # Safety
/// `hasher` as for [`pavelor_init`]; `data` points to `len` readable bytes
/// unless `len` is 0.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn pavelor_update(
    hasher: *mut PavelorHasher,
    data: *const c_void,
    len: usize,
) -> c_int {
    // SAFETY: the caller's contract, passed on.
    status(unsafe { slot(hasher) }.and_then(|h| {
        // SAFETY: the caller's contract for `data`.
        let data = unsafe { bytes(data, len) }?;
        h.update(data);
        Ok(())
    }))
}

/// `pavelor_update_bits`.
///
/// # Safety
/// `hasher` as for [`pavelor_init`]; `data` points to `ceil(nbits / 8)`
/// readable bytes unless `nbits` is 0.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn pavelor_update_bits(
    hasher: *mut PavelorHasher,
    data: *const c_void,
    nbits: u64,
) -> c_int {
    // SAFETY: the caller's contract, passed on.
    status(unsafe { slot(hasher) }.and_then(|h| {
        // SAFETY: the caller's contract for `data`.
        let data = unsafe { bit_bytes(data, nbits) }?;
        h.update_bits(data, nbits).map_err(error_code)
    }))
}

/// `pavelor_final`: the digest of a copy, so the hasher is unchanged.
///
/// # Safety
/// `hasher` as for [`pavelor_init`] (it is only read); `out` points to
/// `out_len` writable bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn pavelor_final(
    hasher: *const PavelorHasher,
    out: *mut u8,
    out_len: usize,
) -> c_int {
    // SAFETY: the caller's contract; the hasher is only read (cloned).
    status(unsafe { slot(hasher.cast_mut()) }.and_then(|h| {
        // SAFETY: the caller's contract for `out`.
        let out = unsafe { output(h.algorithm(), out, out_len) }?;
        out.copy_from_slice(h.clone().finalize().as_bytes());
        Ok(())
    }))
}

/// `pavelor_reset`.
///
/// # Safety
/// As [`pavelor_init`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn pavelor_reset(hasher: *mut PavelorHasher) -> c_int {
    // SAFETY: the caller's contract, passed on.
    status(unsafe { slot(hasher) }.map(|h| {
        *h = h.algorithm().hasher_with(h.backend());
    }))
}

/// `pavelor_wipe`.
///
/// # Safety
/// `hasher` is NULL or points to a writable `pavelor_hasher`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn pavelor_wipe(hasher: *mut PavelorHasher) {
    if !hasher.is_null() {
        // SAFETY: non-NULL and writable (the contract); the bytes are
        // overwritten, never read as a hasher.
        unsafe { (*hasher).opaque.zeroize() };
    }
}

/// `pavelor_instance`.
///
/// # Safety
/// As [`pavelor_final`] for `hasher`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn pavelor_instance(hasher: *const PavelorHasher) -> c_uint {
    // SAFETY: the caller's contract; only read.
    unsafe { slot(hasher.cast_mut()) }.map_or(0, |h| h.algorithm().output_bits())
}

/// `pavelor_hash`.
///
/// # Safety
/// `data` points to `len` readable bytes unless `len` is 0; `out` points
/// to `out_len` writable bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn pavelor_hash(
    bits: c_uint,
    data: *const c_void,
    len: usize,
    out: *mut u8,
    out_len: usize,
) -> c_int {
    status(algorithm(bits).and_then(|alg| {
        // SAFETY: the caller's contracts for `out` and `data`.
        let (out, data) = unsafe { (output(alg, out, out_len)?, bytes(data, len)?) };
        out.copy_from_slice(alg.digest(data).as_bytes());
        Ok(())
    }))
}

/// `pavelor_hash_bits`.
///
/// # Safety
/// `data` points to `ceil(nbits / 8)` readable bytes unless `nbits` is 0;
/// `out` points to `out_len` writable bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn pavelor_hash_bits(
    bits: c_uint,
    data: *const c_void,
    nbits: u64,
    out: *mut u8,
    out_len: usize,
) -> c_int {
    status(algorithm(bits).and_then(|alg| {
        // SAFETY: the caller's contracts for `out` and `data`.
        let (out, data) = unsafe { (output(alg, out, out_len)?, bit_bytes(data, nbits)?) };
        let digest = alg.digest_bits(data, nbits).map_err(error_code)?;
        out.copy_from_slice(digest.as_bytes());
        Ok(())
    }))
}

/// The description of a status code.
pub fn status_message(code: c_int) -> &'static CStr {
    match code {
        OK => c"success",
        ERR_NULL => c"a required pointer is NULL",
        ERR_INSTANCE => c"not a Pavelor instance (512, 768 or 1024)",
        ERR_OUTPUT_LEN => c"output buffer shorter than the digest",
        ERR_NOT_INITIALIZED => c"hasher not initialised (pavelor_init) or wiped",
        ERR_AFTER_PARTIAL_BYTE => c"bits given after a partial final byte",
        ERR_TOO_LONG => c"message longer than this machine can address",
        _ => c"unknown status code",
    }
}

/// `pavelor_status_message`.
#[unsafe(no_mangle)]
pub extern "C" fn pavelor_status_message(status: c_int) -> *const c_char {
    status_message(status).as_ptr()
}

/// The crate's version, NUL-terminated.
const VERSION: &str = concat!(env!("CARGO_PKG_VERSION"), "\0");

/// `pavelor_version`.
#[unsafe(no_mangle)]
pub extern "C" fn pavelor_version() -> *const c_char {
    VERSION.as_ptr().cast()
}

/// `pavelor_backend`: the name of [`Available::best`], made once.
#[unsafe(no_mangle)]
pub extern "C" fn pavelor_backend() -> *const c_char {
    static NAME: OnceLock<CString> = OnceLock::new();
    NAME.get_or_init(|| CString::new(Available::best().name()).unwrap_or_default())
        .as_ptr()
}
