//! # pavelor-openssl: Pavelor as an OpenSSL 3 provider
//!
//! A provider module (`pavelor.so`, built by `cargo xtask openssl --out
//! DIR`) that gives OpenSSL 3's EVP layer the digests
//!
//! | name (aliases) | digest size | block size (rate) |
//! |---|---|---|
//! | `PAVELOR-512` (`Pavelor-512`, `PAVELOR512`) | 64 | 192 |
//! | `PAVELOR-768` (`Pavelor-768`, `PAVELOR768`) | 96 | 128 |
//! | `PAVELOR-1024` (`Pavelor-1024`, `PAVELOR1024`) | 128 | 64 |
//!
//! all with the property `provider=pavelor`. OpenSSL names are
//! case-insensitive, so `pavelor-512` works as well.
//!
//! The module's only exported symbol is [`OSSL_provider_init`]. The C ABI
//! (dispatch tables, parameters, function numbers) is declared in [`abi`]
//! from OpenSSL's stable headers; there is no C code in the module.
//!
//! Every entry point checks its pointers and lengths and runs inside
//! `catch_unwind`; failures return OpenSSL's failure value and, where the
//! function has a context to reach the core with, put an error on the
//! OpenSSL error queue through the core's `new_error` / `set_error_debug` /
//! `vset_error` callbacks, with the reason codes in [`Reason`].
//!
//! The fastest backend this CPU runs is chosen once, when the provider is
//! initialized, and reported in its `buildinfo` parameter.

/// Where an error is raised, for the core's `set_error_debug`: the source
/// file and line, and the entry point. Made by [`site!`] at the place it
/// stands for.
#[derive(Clone, Copy)]
struct Site {
    file: &'static CStr,
    line: u32,
    func: &'static CStr,
}

/// The [`Site`] of this macro's invocation (its own `file!()` and
/// `line!()`) in the entry point `$func` (a C string literal).
macro_rules! site {
    ($func:expr) => {
        $crate::Site {
            file: const {
                match ::std::ffi::CStr::from_bytes_with_nul(concat!(file!(), "\0").as_bytes()) {
                    Ok(f) => f,
                    Err(_) => c"pavelor-openssl",
                }
            },
            line: line!(),
            func: $func,
        }
    };
}

/// Puts `$reason` on the calling thread's OpenSSL error queue through the
/// provider context `$prov`, reported at this invocation's file and line
/// in the entry point `$func` (see [`ProvCtx::raise`]).
macro_rules! raise {
    ($prov:expr, $reason:expr, $func:expr) => {
        $prov.raise($reason, site!($func))
    };
}

pub mod abi;
mod mac;
mod params;

use std::ffi::{CStr, CString, c_int, c_void};
use std::panic::{AssertUnwindSafe, catch_unwind};

use pavelor::{Algorithm, Backend, DynHasher};

use abi::{
    CoreNewErrorFn, CoreSetErrorDebugFn, CoreVsetErrorFn, GenericFn,
    OSSL_DIGEST_PARAM_ALGID_ABSENT, OSSL_DIGEST_PARAM_BLOCK_SIZE, OSSL_DIGEST_PARAM_SIZE,
    OSSL_DIGEST_PARAM_XOF, OSSL_DIGEST_PARAM_XOFLEN, OSSL_FUNC_CORE_NEW_ERROR,
    OSSL_FUNC_CORE_SET_ERROR_DEBUG, OSSL_FUNC_CORE_VSET_ERROR, OSSL_FUNC_DIGEST_DIGEST,
    OSSL_FUNC_DIGEST_DUPCTX, OSSL_FUNC_DIGEST_FINAL, OSSL_FUNC_DIGEST_FREECTX,
    OSSL_FUNC_DIGEST_GET_PARAMS, OSSL_FUNC_DIGEST_GETTABLE_PARAMS, OSSL_FUNC_DIGEST_INIT,
    OSSL_FUNC_DIGEST_NEWCTX, OSSL_FUNC_DIGEST_SET_CTX_PARAMS, OSSL_FUNC_DIGEST_SETTABLE_CTX_PARAMS,
    OSSL_FUNC_DIGEST_UPDATE, OSSL_FUNC_MAC_DUPCTX, OSSL_FUNC_MAC_FINAL, OSSL_FUNC_MAC_FREECTX,
    OSSL_FUNC_MAC_GET_CTX_PARAMS, OSSL_FUNC_MAC_GETTABLE_CTX_PARAMS, OSSL_FUNC_MAC_INIT,
    OSSL_FUNC_MAC_NEWCTX, OSSL_FUNC_MAC_SET_CTX_PARAMS, OSSL_FUNC_MAC_SETTABLE_CTX_PARAMS,
    OSSL_FUNC_MAC_UPDATE, OSSL_FUNC_PROVIDER_GET_PARAMS, OSSL_FUNC_PROVIDER_GET_REASON_STRINGS,
    OSSL_FUNC_PROVIDER_GETTABLE_PARAMS, OSSL_FUNC_PROVIDER_QUERY_OPERATION,
    OSSL_FUNC_PROVIDER_TEARDOWN, OSSL_OP_DIGEST, OSSL_OP_MAC, OSSL_PARAM_INTEGER,
    OSSL_PARAM_UNSIGNED_INTEGER, OSSL_PARAM_UTF8_PTR, OSSL_PROV_PARAM_BUILDINFO,
    OSSL_PROV_PARAM_NAME, OSSL_PROV_PARAM_STATUS, OSSL_PROV_PARAM_VERSION, OsslAlgorithm,
    OsslCoreHandle, OsslDispatch, OsslItem, OsslParam, Table,
};
use params::{ParamError, answer_each, get_uint, set_uint, set_utf8};

/// The provider's `name` parameter.
pub const PROVIDER_NAME: &CStr = c"Pavelor provider";
/// The provider's `version` parameter (the crate version).
pub const PROVIDER_VERSION: &CStr =
    match CStr::from_bytes_with_nul(concat!(env!("CARGO_PKG_VERSION"), "\0").as_bytes()) {
        Ok(v) => v,
        Err(_) => c"unknown",
    };
/// The property definition of every algorithm of this provider.
pub const PROPERTY: &CStr = c"provider=pavelor";

/// The algorithm names (with aliases) registered for each instance, in the
/// order of [`Algorithm::ALL`].
pub const ALGORITHM_NAMES: [&CStr; 3] = [
    c"PAVELOR-512:Pavelor-512:PAVELOR512",
    c"PAVELOR-768:Pavelor-768:PAVELOR768",
    c"PAVELOR-1024:Pavelor-1024:PAVELOR1024",
];

/// Reason codes this provider puts on the OpenSSL error queue (the core
/// combines them with the provider's library number; the texts are served
/// by `get_reason_strings`, so `ERR_error_string` shows them).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u32)]
pub enum Reason {
    /// A required pointer argument was NULL.
    NullPointer = 1,
    /// The output buffer is smaller than the digest.
    OutputTooSmall = 2,
    /// `update`/`final` on a digest or MAC context that was not
    /// initialized (or was already finalized), or a MAC `init` without a
    /// key when none was given before.
    NotInitialized = 3,
    /// A length does not fit the address space.
    LengthTooLarge = 4,
    /// An internal error (a panic was caught at the C boundary).
    Internal = 5,
    /// The chosen backend cannot run (should not happen).
    Backend = 6,
    /// `final` of a digest longer than `EVP_MAX_MD_SIZE` that is not the
    /// final of an `EVP_DigestFinalXOF` call stating the digest size (see
    /// [`EVP_MAX_MD_SIZE`]).
    LongDigest = 7,
    /// A parameter with a wrong type, size or value.
    BadParameter = 8,
    /// A digest `final` or one-shot asked for more than the digest size
    /// (they write exactly the digest; `EVP_DigestFinal_ex` asks for
    /// exactly that).
    OutputSizeNotDigestSize = 9,
    /// A digest `final` (of a digest that fits `EVP_MAX_MD_SIZE`) after an
    /// `xoflen` that was not set for it: the `xoflen` of an
    /// `EVP_DigestFinalXOF` call applies to that call's `final` only.
    XoflenNotForThisFinal = 10,
}

impl Reason {
    /// The reason string OpenSSL shows for this code.
    pub const fn message(self) -> &'static CStr {
        match self {
            Reason::NullPointer => c"NULL pointer argument",
            Reason::OutputTooSmall => c"output buffer smaller than the digest",
            Reason::NotInitialized => {
                c"context not initialized: no init (for a MAC, no key yet), or already finalized"
            }
            Reason::LengthTooLarge => c"length exceeds the address space",
            Reason::Internal => c"internal error in the pavelor provider",
            Reason::Backend => c"Pavelor backend unavailable",
            Reason::LongDigest => {
                c"digest longer than EVP_MAX_MD_SIZE: finish with EVP_DigestFinalXOF(ctx, md, digest size) (an xoflen set by any other call does not count)"
            }
            Reason::BadParameter => {
                c"bad parameter: wrong type, size or value (a digest's xoflen must equal the digest size; PAVELOR-HMAC needs its digest, a Pavelor digest, set before init or a key)"
            }
            Reason::OutputSizeNotDigestSize => {
                c"output size is not the digest size: a Pavelor digest is not an XOF"
            }
            Reason::XoflenNotForThisFinal => {
                c"xoflen was not set for this final: it applies only to the final of the EVP_DigestFinalXOF call that sets it"
            }
        }
    }
}

/// `get_reason_strings` answer.
static REASON_STRINGS: Table<OsslItem, 11> = Table([
    reason_item(Reason::NullPointer),
    reason_item(Reason::OutputTooSmall),
    reason_item(Reason::NotInitialized),
    reason_item(Reason::LengthTooLarge),
    reason_item(Reason::Internal),
    reason_item(Reason::Backend),
    reason_item(Reason::LongDigest),
    reason_item(Reason::BadParameter),
    reason_item(Reason::OutputSizeNotDigestSize),
    reason_item(Reason::XoflenNotForThisFinal),
    OsslItem {
        id: 0,
        ptr: std::ptr::null_mut(),
    },
]);

const fn reason_item(r: Reason) -> OsslItem {
    OsslItem {
        id: r as u32,
        ptr: r.message().as_ptr().cast_mut().cast(),
    }
}

/// The provider context: the core handle and callbacks, and the backend
/// chosen at initialization. Immutable after `OSSL_provider_init`, so
/// shared freely between threads.
struct ProvCtx {
    handle: *const OsslCoreHandle,
    new_error: Option<CoreNewErrorFn>,
    set_error_debug: Option<CoreSetErrorDebugFn>,
    vset_error: Option<CoreVsetErrorFn>,
    backend: Backend,
    buildinfo: CString,
}

impl ProvCtx {
    /// Puts `reason` on the calling thread's OpenSSL error queue, reported
    /// at `at` (use the [`raise!`] macro, which passes the caller's file
    /// and line).
    fn raise(&self, reason: Reason, at: Site) {
        let (Some(new_error), Some(vset_error)) = (self.new_error, self.vset_error) else {
            return;
        };
        // No format string: the reason code's text (served by
        // `get_reason_strings`) is the message, and the core reads nothing
        // from the argument list, so a stand-in `va_list` is enough.
        let mut no_args = [0u64; 4];
        // SAFETY: the three functions come from the core's dispatch table
        // with these signatures (core_dispatch.h); `handle` is the core
        // handle given to `OSSL_provider_init`, valid while the provider is
        // loaded (which it is while any of its contexts exists); the strings
        // are NUL-terminated statics; with a NULL format the core does not
        // touch the argument list.
        unsafe {
            new_error(self.handle);
            if let Some(set_error_debug) = self.set_error_debug {
                set_error_debug(
                    self.handle,
                    at.file.as_ptr(),
                    c_int::try_from(at.line).unwrap_or(0),
                    at.func.as_ptr(),
                );
            }
            vset_error(
                self.handle,
                reason as u32,
                std::ptr::null(),
                no_args.as_mut_ptr().cast(),
            );
        }
    }
}

/// Runs `f` so that no panic crosses into C: a panic becomes
/// [`Reason::Internal`] (raised on `prov` if there is one, at `at`: the
/// entry point's `site!`) and `fallback`.
fn guarded<R>(prov: Option<&ProvCtx>, at: Site, fallback: R, f: impl FnOnce() -> R) -> R {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(r) => r,
        Err(payload) => {
            // Dropping the payload could itself panic; leak it instead.
            std::mem::forget(payload);
            if let Some(prov) = prov {
                // Raising cannot panic (no allocation, no formatting).
                prov.raise(Reason::Internal, at);
            }
            fallback
        }
    }
}

/// `len` bytes at `data` as a slice, or why not.
///
/// # Safety
///
/// If `len != 0` and `data` is non-NULL, `data` must point to `len`
/// readable bytes that stay valid and unmodified for `'a`.
unsafe fn input<'a>(data: *const u8, len: usize) -> Result<&'a [u8], Reason> {
    if len == 0 {
        return Ok(&[]);
    }
    if data.is_null() {
        return Err(Reason::NullPointer);
    }
    if isize::try_from(len).is_err() {
        return Err(Reason::LengthTooLarge);
    }
    // SAFETY: non-NULL, `len <= isize::MAX`, and the caller guarantees `len`
    // readable bytes for `'a`; `u8` has alignment 1.
    Ok(unsafe { std::slice::from_raw_parts(data, len) })
}

/// Checks an output buffer for a digest of `need` bytes, before anything
/// is consumed.
fn check_output(out: *mut u8, outl: *mut usize, outsz: usize, need: usize) -> Result<(), Reason> {
    if out.is_null() || outl.is_null() {
        return Err(Reason::NullPointer);
    }
    if outsz < need {
        return Err(Reason::OutputTooSmall);
    }
    Ok(())
}

/// [`check_output`] for a digest's `final` and one-shot: `outsz` must be
/// exactly `need`. `EVP_DigestFinal_ex` passes exactly the digest size, and
/// `EVP_DigestFinalXOF` its length, which `set_ctx_params` only accepts
/// equal to it; a larger `outsz` means a caller asking for an XOF output
/// (newer OpenSSL 3.x may call `final` with the requested length even after
/// the `xoflen` set was refused), which a Pavelor digest is not. Note that
/// `outsz` alone does not tell the two EVP calls apart (both pass the
/// digest size): see [`xoflen_is_for`].
fn check_digest_output(
    out: *mut u8,
    outl: *mut usize,
    outsz: usize,
    need: usize,
) -> Result<(), Reason> {
    check_output(out, outl, outsz, need)?;
    if outsz != need {
        return Err(Reason::OutputSizeNotDigestSize);
    }
    Ok(())
}

/// Sets `*outl = 0` if `outl` is non-NULL: what every failed `final` (and
/// one-shot) reports, whatever the reason, so a caller never reads a stale
/// or uninitialised length (EVP_MAC_final copies the provider's answer from
/// an uninitialised local).
///
/// # Safety
///
/// `outl` must be NULL or point to a writable `size_t`.
unsafe fn clear_outl(outl: *mut usize) {
    if !outl.is_null() {
        // SAFETY: non-NULL, and per the contract a writable `size_t`; an
        // unaligned write makes no alignment assumption.
        unsafe { outl.write_unaligned(0) };
    }
}

/// `rc` of a `final` or one-shot entry point, with [`clear_outl`] applied
/// when it is a failure (any value but 1).
///
/// # Safety
///
/// As for [`clear_outl`].
unsafe fn final_result(rc: c_int, outl: *mut usize) -> c_int {
    if rc != 1 {
        // SAFETY: the caller's contract is `clear_outl`'s.
        unsafe { clear_outl(outl) };
    }
    rc
}

/// Writes `digest` to a buffer accepted by [`check_output`].
///
/// # Safety
///
/// `out` must point to `outsz >= digest.len()` writable bytes and `outl` to
/// a writable `size_t` (as `check_output` verified for non-NULL-ness and
/// size), neither overlapping `digest`.
unsafe fn write_output(digest: &[u8], out: *mut u8, outl: *mut usize) {
    // SAFETY: per this function's contract; byte copies and a `size_t`
    // write through a pointer the C caller gave for exactly that.
    unsafe {
        std::ptr::copy_nonoverlapping(digest.as_ptr(), out, digest.len());
        outl.write_unaligned(digest.len());
    }
}

// ---------------------------------------------------------------------------
// Digest contexts

/// OpenSSL's `EVP_MAX_MD_SIZE`: the documented bound on what
/// `EVP_DigestFinal_ex` writes, so the size of many callers' digest buffers
/// (OpenSSL's own HMAC, `openssl speed`, Python's `hashlib`, ...).
///
/// Pavelor-768 and Pavelor-1024 (96 and 128 bytes) exceed it: answering
/// their `EVP_DigestFinal_ex` would overflow such buffers. So their `final`
/// fails (with [`Reason::LongDigest`]) unless it is the `final` of an
/// `EVP_DigestFinalXOF(ctx, md, 96 or 128)` call (see [`xoflen_is_for`]).
/// Pavelor-512 (64 bytes) always answers `EVP_DigestFinal_ex`.
pub const EVP_MAX_MD_SIZE: usize = 64;

/// Whether the `xoflen` recorded by the last `set_ctx_params` (the address
/// `xoflen_at` of the `size_t` it was read from) was set for the `final`
/// now called with `outl`, for a digest of `need` bytes.
///
/// OpenSSL 3's EVP calls the provider's `final` in two ways, both with
/// `outsz` = the digest size here:
///
/// * `EVP_DigestFinalXOF(ctx, md, size)` builds the parameter `xoflen`
///   over its own argument `size`, calls `set_ctx_params` with it, then
///   `final(dctx, md, &size, size)`: `outl` is the very `size_t` the
///   `xoflen` was read from, and it still holds that length.
/// * `EVP_DigestFinal_ex(ctx, md, &n)` calls `final(dctx, md, &size,
///   mdsize)` with a local `size_t size = 0`: a different `size_t`, or, if
///   its stack slot happens to be where an earlier caller's `xoflen` lived,
///   one that holds 0.
///
/// So the `xoflen` is for this `final` exactly when `outl` is that `size_t`
/// and it holds the digest size. The address is only compared, never
/// dereferenced; `*outl` is read through `outl`, the caller's own pointer.
///
/// # Safety
///
/// `outl` must point to a readable `size_t` (the `final` contract; checked
/// non-NULL by the caller).
unsafe fn xoflen_is_for(xoflen_at: Option<usize>, outl: *mut usize, need: usize) -> bool {
    if xoflen_at != Some(outl.addr()) {
        return false;
    }
    // SAFETY: per the contract, `outl` points to a readable `size_t`. The
    // memory there held the `xoflen` when `set_ctx_params` read it (same
    // address), and EVP's finals pass an initialised `size_t` (the length,
    // or 0). Unaligned read: no alignment assumption.
    unsafe { outl.read_unaligned() == need }
}

/// An `EVP_MD_CTX`'s algorithm context.
struct DigestCtx {
    prov: *const ProvCtx,
    alg: Algorithm,
    /// `None` before `init` and after `final`. Dropping it wipes the state
    /// (the crate's hashers zeroize on drop).
    hasher: Option<DynHasher>,
    /// When the last call on this context was a `set_ctx_params` that
    /// accepted an `xoflen`: the address of the `size_t` it was read from
    /// (see [`xoflen_is_for`]). Every other call on the context clears it
    /// (`init`, `update`, `final` whatever its outcome, a `set_ctx_params`
    /// without an accepted `xoflen`), and `dupctx` does not copy it: an
    /// `xoflen` applies to the one `final` that follows it.
    xoflen_at: Option<usize>,
}

impl DigestCtx {
    /// The provider context; its lifetime is not tied to `self` (it outlives
    /// every digest context, see below), so it can be used while the
    /// context is mutably borrowed.
    fn prov<'p>(&self) -> &'p ProvCtx {
        // SAFETY: `prov` was a live provider context when this context was
        // made; OpenSSL keeps the provider (and so its context) alive while
        // any of its algorithm contexts exists (the EVP_MD_CTX holds the
        // EVP_MD, which holds a reference to the provider).
        unsafe { &*self.prov }
    }
}

/// The provider context behind a `void *provctx`, if non-NULL.
///
/// # Safety
///
/// `provctx` must be NULL or the pointer `OSSL_provider_init` returned,
/// not yet torn down.
unsafe fn prov_ref<'a>(provctx: *mut c_void) -> Option<&'a ProvCtx> {
    // SAFETY: per the contract, a live `ProvCtx` made by `Box::into_raw`
    // (or NULL); it is only read.
    unsafe { provctx.cast::<ProvCtx>().as_ref() }
}

/// `OSSL_FUNC_digest_newctx` for `Algorithm::ALL[I]`.
unsafe extern "C" fn digest_newctx<const I: usize>(provctx: *mut c_void) -> *mut c_void {
    // SAFETY: OpenSSL passes the context `OSSL_provider_init` returned.
    let Some(prov) = (unsafe { prov_ref(provctx) }) else {
        return std::ptr::null_mut();
    };
    guarded(
        Some(prov),
        site!(c"digest_newctx"),
        std::ptr::null_mut(),
        || {
            let ctx = Box::new(DigestCtx {
                prov,
                alg: Algorithm::ALL[I],
                hasher: None,
                xoflen_at: None,
            });
            Box::into_raw(ctx).cast()
        },
    )
}

/// The digest context behind `dctx`, if non-NULL.
///
/// # Safety
///
/// `dctx` must be NULL or a pointer returned by `digest_newctx` /
/// `digest_dupctx` and not yet freed, not used by another thread during the
/// call (OpenSSL's rule for `EVP_MD_CTX`).
unsafe fn ctx_mut<'a>(dctx: *mut c_void) -> Option<&'a mut DigestCtx> {
    // SAFETY: per the contract, a live, exclusively used `DigestCtx` made by
    // `Box::into_raw` (or NULL).
    unsafe { dctx.cast::<DigestCtx>().as_mut() }
}

/// The digest context behind `dctx`, if non-NULL, read only: for
/// `dupctx`, whose source OpenSSL declares `const` (`EVP_MD_CTX_copy_ex`
/// takes `const EVP_MD_CTX *in`), so two threads may copy from one context
/// at once; a `&mut` there would alias.
///
/// # Safety
///
/// `dctx` must be NULL or a pointer returned by `digest_newctx` /
/// `digest_dupctx` and not yet freed, not modified by another thread
/// during the call (concurrent readers are fine).
unsafe fn ctx_ref<'a>(dctx: *const c_void) -> Option<&'a DigestCtx> {
    // SAFETY: per the contract, a live `DigestCtx` made by `Box::into_raw`
    // (or NULL), only read for `'a`.
    unsafe { dctx.cast::<DigestCtx>().as_ref() }
}

/// `OSSL_FUNC_digest_init`: (re)starts the hash. No settable parameters;
/// `params` is ignored.
unsafe extern "C" fn digest_init(dctx: *mut c_void, _params: *const OsslParam) -> c_int {
    // SAFETY: OpenSSL passes a context this provider made.
    let Some(ctx) = (unsafe { ctx_mut(dctx) }) else {
        return 0;
    };
    let prov = ctx.prov();
    guarded(Some(prov), site!(c"digest_init"), 0, || {
        match ctx.alg.hasher_with(prov.backend) {
            Ok(h) => {
                ctx.hasher = Some(h);
                ctx.xoflen_at = None;
                1
            }
            Err(_) => {
                raise!(prov, Reason::Backend, c"digest_init");
                0
            }
        }
    })
}

/// `OSSL_FUNC_digest_update`.
unsafe extern "C" fn digest_update(dctx: *mut c_void, data: *const u8, len: usize) -> c_int {
    // SAFETY: OpenSSL passes a context this provider made.
    let Some(ctx) = (unsafe { ctx_mut(dctx) }) else {
        return 0;
    };
    let prov = ctx.prov();
    guarded(Some(prov), site!(c"digest_update"), 0, || {
        ctx.xoflen_at = None;
        // SAFETY: the caller gives `len` readable bytes at `data` for the
        // call (EVP_DigestUpdate's contract); `input` checks NULL and size.
        let result = unsafe { input(data, len) }.and_then(|bytes| {
            let h = ctx.hasher.as_mut().ok_or(Reason::NotInitialized)?;
            h.update(bytes);
            Ok(())
        });
        match result {
            Ok(()) => 1,
            Err(reason) => {
                raise!(prov, reason, c"digest_update");
                0
            }
        }
    })
}

/// `OSSL_FUNC_digest_final`. Succeeds only if `outsz` is the digest size,
/// and the `xoflen` recorded by the call just before, if any, was set for
/// this very `final` ([`xoflen_is_for`]); for PAVELOR-768/1024 such an
/// `xoflen` is also required (see [`EVP_MAX_MD_SIZE`]). The recorded
/// `xoflen` is used up whatever the outcome. On failure `*outl` is 0 (if
/// `outl` is non-NULL), nothing is written to `out`, and the hash state is
/// unchanged.
unsafe extern "C" fn digest_final(
    dctx: *mut c_void,
    out: *mut u8,
    outl: *mut usize,
    outsz: usize,
) -> c_int {
    // SAFETY: OpenSSL passes a context this provider made.
    let Some(ctx) = (unsafe { ctx_mut(dctx) }) else {
        // SAFETY: `outl` is NULL or the caller's writable `size_t`.
        return unsafe { final_result(0, outl) };
    };
    let prov = ctx.prov();
    let rc = guarded(Some(prov), site!(c"digest_final"), 0, || {
        let xoflen_at = ctx.xoflen_at.take();
        let need = ctx.alg.output_len();
        let result = check_digest_output(out, outl, outsz, need).and_then(|()| {
            // SAFETY: `outl` is non-NULL (checked) and points to the
            // caller's `size_t` (the `final` contract).
            if !unsafe { xoflen_is_for(xoflen_at, outl, need) } {
                if need > EVP_MAX_MD_SIZE {
                    return Err(Reason::LongDigest);
                }
                if xoflen_at.is_some() {
                    return Err(Reason::XoflenNotForThisFinal);
                }
            }
            let h = ctx.hasher.take().ok_or(Reason::NotInitialized)?;
            let digest = h.finalize();
            // SAFETY: `check_digest_output` saw non-NULL `out`/`outl` and
            // `outsz == output_len == digest.len()`; the caller gives
            // `outsz` writable bytes there (EVP_DigestFinal_ex's contract);
            // `digest` is a local.
            unsafe { write_output(&digest, out, outl) };
            Ok(())
        });
        match result {
            Ok(()) => 1,
            Err(reason) => {
                raise!(prov, reason, c"digest_final");
                0
            }
        }
    });
    // SAFETY: `outl` is NULL or the caller's writable `size_t`.
    unsafe { final_result(rc, outl) }
}

/// `OSSL_FUNC_digest_digest` (one-shot) for `Algorithm::ALL[I]`: `outsz`
/// must be the digest size (the caller states it, so every instance is
/// served); on failure `*outl` is 0 (if `outl` is non-NULL).
unsafe extern "C" fn digest_oneshot<const I: usize>(
    provctx: *mut c_void,
    data: *const u8,
    len: usize,
    out: *mut u8,
    outl: *mut usize,
    outsz: usize,
) -> c_int {
    // SAFETY: OpenSSL passes the context `OSSL_provider_init` returned.
    let Some(prov) = (unsafe { prov_ref(provctx) }) else {
        // SAFETY: `outl` is NULL or the caller's writable `size_t`.
        return unsafe { final_result(0, outl) };
    };
    let rc = guarded(Some(prov), site!(c"digest_digest"), 0, || {
        let alg = Algorithm::ALL[I];
        let result = check_digest_output(out, outl, outsz, alg.output_len()).and_then(|()| {
            // SAFETY: the caller gives `len` readable bytes at `data`;
            // `input` checks NULL and size.
            let bytes = unsafe { input(data, len) }?;
            let digest = alg
                .digest_with(prov.backend, bytes)
                .map_err(|_| Reason::Backend)?;
            // SAFETY: as in `digest_final`: checked non-NULL and of exactly
            // the digest size; `digest` is a local. The input slice is not used after
            // this point, so an overlapping output is harmless.
            unsafe { write_output(&digest, out, outl) };
            Ok(())
        });
        match result {
            Ok(()) => 1,
            Err(reason) => {
                raise!(prov, reason, c"digest_digest");
                0
            }
        }
    });
    // SAFETY: `outl` is NULL or the caller's writable `size_t`.
    unsafe { final_result(rc, outl) }
}

/// `OSSL_FUNC_digest_freectx`: drops (and so wipes) the state.
unsafe extern "C" fn digest_freectx(dctx: *mut c_void) {
    if dctx.is_null() {
        return;
    }
    // SAFETY: a non-NULL `dctx` is a `Box<DigestCtx>` this provider leaked
    // in newctx/dupctx, freed exactly once (OpenSSL calls freectx once).
    let ctx = unsafe { Box::from_raw(dctx.cast::<DigestCtx>()) };
    let _ = catch_unwind(AssertUnwindSafe(move || drop(ctx)));
}

/// `OSSL_FUNC_digest_dupctx`: an independent copy, mid-message included;
/// a recorded `xoflen` is not copied (it is for the source's next `final`
/// only).
unsafe extern "C" fn digest_dupctx(dctx: *mut c_void) -> *mut c_void {
    // SAFETY: OpenSSL passes a context this provider made, which it only
    // reads during the copy (possibly from several threads at once), so a
    // shared reference.
    let Some(ctx) = (unsafe { ctx_ref(dctx) }) else {
        return std::ptr::null_mut();
    };
    let prov = ctx.prov();
    guarded(
        Some(prov),
        site!(c"digest_dupctx"),
        std::ptr::null_mut(),
        || {
            let copy = Box::new(DigestCtx {
                prov: ctx.prov,
                alg: ctx.alg,
                hasher: ctx.hasher.clone(),
                xoflen_at: None,
            });
            Box::into_raw(copy).cast()
        },
    )
}

/// `OSSL_FUNC_digest_get_params` for `Algorithm::ALL[I]`: `size`,
/// `blocksize` (the rate, which is what HMAC's B is), `xof` = 0,
/// `algid-absent` = 0. (No context, so a bad request just returns 0; the
/// core reports the failure.)
unsafe extern "C" fn digest_get_params<const I: usize>(params: *mut OsslParam) -> c_int {
    guarded(None, site!(c"digest_get_params"), 0, || {
        let alg = Algorithm::ALL[I];
        // SAFETY: OpenSSL passes a terminated OSSL_PARAM array whose
        // buffers are writable for the call.
        let result = unsafe {
            answer_each(params, |p, key| {
                if key == OSSL_DIGEST_PARAM_SIZE {
                    set_uint(p, alg.output_len() as u64)
                } else if key == OSSL_DIGEST_PARAM_BLOCK_SIZE {
                    set_uint(p, alg.rate_len() as u64)
                } else if key == OSSL_DIGEST_PARAM_XOF || key == OSSL_DIGEST_PARAM_ALGID_ABSENT {
                    set_uint(p, 0)
                } else {
                    Ok(())
                }
            })
        };
        c_int::from(result.is_ok())
    })
}

/// `OSSL_FUNC_digest_set_ctx_params`: accepts `xoflen` equal to the digest
/// size only (Pavelor is not an XOF; the value states the caller's buffer
/// size, see [`EVP_MAX_MD_SIZE`]) and records where it was read from, for
/// the `final` that follows ([`xoflen_is_for`]). Other keys are ignored. A
/// call without a valid `xoflen` leaves none recorded.
unsafe extern "C" fn digest_set_ctx_params(dctx: *mut c_void, params: *const OsslParam) -> c_int {
    // SAFETY: OpenSSL passes a context this provider made.
    let Some(ctx) = (unsafe { ctx_mut(dctx) }) else {
        return 0;
    };
    let prov = ctx.prov();
    guarded(Some(prov), site!(c"digest_set_ctx_params"), 0, || {
        ctx.xoflen_at = None;
        let need = ctx.alg.output_len() as u64;
        let mut xoflen_at = None;
        // SAFETY: OpenSSL passes a terminated OSSL_PARAM array whose buffers
        // are readable for the call; `answer_each` only reads through the
        // pointer here (the closure does not write to `p`).
        let result = unsafe {
            answer_each(params.cast_mut(), |p, key| {
                if key == OSSL_DIGEST_PARAM_XOFLEN {
                    if get_uint(p) != Some(need) {
                        return Err(ParamError::BadType);
                    }
                    xoflen_at = Some(p.data.addr());
                }
                Ok(())
            })
        };
        match result {
            Ok(()) => {
                ctx.xoflen_at = xoflen_at;
                1
            }
            Err(_) => {
                raise!(prov, Reason::BadParameter, c"digest_set_ctx_params");
                0
            }
        }
    })
}

static DIGEST_SETTABLE_CTX: Table<OsslParam, 2> = Table([
    OsslParam::descriptor(OSSL_DIGEST_PARAM_XOFLEN, OSSL_PARAM_UNSIGNED_INTEGER),
    OsslParam::END,
]);

/// `OSSL_FUNC_digest_settable_ctx_params`.
unsafe extern "C" fn digest_settable_ctx_params(
    _dctx: *mut c_void,
    _provctx: *mut c_void,
) -> *const OsslParam {
    DIGEST_SETTABLE_CTX.as_ptr()
}

static DIGEST_GETTABLE: Table<OsslParam, 5> = Table([
    OsslParam::descriptor(OSSL_DIGEST_PARAM_BLOCK_SIZE, OSSL_PARAM_UNSIGNED_INTEGER),
    OsslParam::descriptor(OSSL_DIGEST_PARAM_SIZE, OSSL_PARAM_UNSIGNED_INTEGER),
    OsslParam::descriptor(OSSL_DIGEST_PARAM_XOF, OSSL_PARAM_INTEGER),
    OsslParam::descriptor(OSSL_DIGEST_PARAM_ALGID_ABSENT, OSSL_PARAM_INTEGER),
    OsslParam::END,
]);

/// `OSSL_FUNC_digest_gettable_params`.
unsafe extern "C" fn digest_gettable_params(_provctx: *mut c_void) -> *const OsslParam {
    DIGEST_GETTABLE.as_ptr()
}

// ---------------------------------------------------------------------------
// Dispatch tables

/// An `OSSL_DISPATCH` entry for `$f`, whose real signature is `$ty` (the
/// one core_dispatch.h gives function number `$id`).
macro_rules! entry {
    ($id:expr, $f:expr, $ty:ty) => {
        OsslDispatch {
            function_id: $id,
            // SAFETY: only the stored type changes (fn pointer to fn
            // pointer, same size); OpenSSL casts it back to `$ty`, the
            // signature it defines for `$id`, before calling.
            function: Some(unsafe { std::mem::transmute::<$ty, GenericFn>($f) }),
        }
    };
}

const DISPATCH_END: OsslDispatch = OsslDispatch {
    function_id: 0,
    function: None,
};

type NewCtxFn = unsafe extern "C" fn(*mut c_void) -> *mut c_void;
type InitFn = unsafe extern "C" fn(*mut c_void, *const OsslParam) -> c_int;
type UpdateFn = unsafe extern "C" fn(*mut c_void, *const u8, usize) -> c_int;
type FinalFn = unsafe extern "C" fn(*mut c_void, *mut u8, *mut usize, usize) -> c_int;
type OneShotFn =
    unsafe extern "C" fn(*mut c_void, *const u8, usize, *mut u8, *mut usize, usize) -> c_int;
type FreeCtxFn = unsafe extern "C" fn(*mut c_void);
type DupCtxFn = unsafe extern "C" fn(*mut c_void) -> *mut c_void;
type GetParamsFn = unsafe extern "C" fn(*mut OsslParam) -> c_int;
type GettableFn = unsafe extern "C" fn(*mut c_void) -> *const OsslParam;

type SetCtxParamsFn = unsafe extern "C" fn(*mut c_void, *const OsslParam) -> c_int;
type CtxParamsTableFn = unsafe extern "C" fn(*mut c_void, *mut c_void) -> *const OsslParam;

const fn digest_table<const I: usize>() -> Table<OsslDispatch, 12> {
    Table([
        entry!(OSSL_FUNC_DIGEST_NEWCTX, digest_newctx::<I>, NewCtxFn),
        entry!(OSSL_FUNC_DIGEST_INIT, digest_init, InitFn),
        entry!(OSSL_FUNC_DIGEST_UPDATE, digest_update, UpdateFn),
        entry!(OSSL_FUNC_DIGEST_FINAL, digest_final, FinalFn),
        entry!(OSSL_FUNC_DIGEST_DIGEST, digest_oneshot::<I>, OneShotFn),
        entry!(OSSL_FUNC_DIGEST_FREECTX, digest_freectx, FreeCtxFn),
        entry!(OSSL_FUNC_DIGEST_DUPCTX, digest_dupctx, DupCtxFn),
        entry!(
            OSSL_FUNC_DIGEST_GET_PARAMS,
            digest_get_params::<I>,
            GetParamsFn
        ),
        entry!(
            OSSL_FUNC_DIGEST_GETTABLE_PARAMS,
            digest_gettable_params,
            GettableFn
        ),
        entry!(
            OSSL_FUNC_DIGEST_SET_CTX_PARAMS,
            digest_set_ctx_params,
            SetCtxParamsFn
        ),
        entry!(
            OSSL_FUNC_DIGEST_SETTABLE_CTX_PARAMS,
            digest_settable_ctx_params,
            CtxParamsTableFn
        ),
        DISPATCH_END,
    ])
}

static DIGEST_512: Table<OsslDispatch, 12> = digest_table::<0>();
static DIGEST_768: Table<OsslDispatch, 12> = digest_table::<1>();
static DIGEST_1024: Table<OsslDispatch, 12> = digest_table::<2>();

static DIGESTS: Table<OsslAlgorithm, 4> = Table([
    OsslAlgorithm {
        algorithm_names: ALGORITHM_NAMES[0].as_ptr(),
        property_definition: PROPERTY.as_ptr(),
        implementation: (&raw const DIGEST_512).cast(),
        algorithm_description: c"Pavelor-512 (NGCC hash-22)".as_ptr(),
    },
    OsslAlgorithm {
        algorithm_names: ALGORITHM_NAMES[1].as_ptr(),
        property_definition: PROPERTY.as_ptr(),
        implementation: (&raw const DIGEST_768).cast(),
        algorithm_description: c"Pavelor-768 (NGCC hash-22)".as_ptr(),
    },
    OsslAlgorithm {
        algorithm_names: ALGORITHM_NAMES[2].as_ptr(),
        property_definition: PROPERTY.as_ptr(),
        implementation: (&raw const DIGEST_1024).cast(),
        algorithm_description: c"Pavelor-1024 (NGCC hash-22)".as_ptr(),
    },
    OsslAlgorithm {
        algorithm_names: std::ptr::null(),
        property_definition: std::ptr::null(),
        implementation: std::ptr::null(),
        algorithm_description: std::ptr::null(),
    },
]);

// ---------------------------------------------------------------------------
// Provider

/// `OSSL_FUNC_provider_teardown`.
unsafe extern "C" fn provider_teardown(provctx: *mut c_void) {
    if provctx.is_null() {
        return;
    }
    // SAFETY: a non-NULL `provctx` is the `Box<ProvCtx>` leaked by
    // `OSSL_provider_init`; the core calls teardown once, after every
    // context of the provider is gone.
    let prov = unsafe { Box::from_raw(provctx.cast::<ProvCtx>()) };
    let _ = catch_unwind(AssertUnwindSafe(move || drop(prov)));
}

type MacInitFn = unsafe extern "C" fn(*mut c_void, *const u8, usize, *const OsslParam) -> c_int;
type CtxGetParamsFn = unsafe extern "C" fn(*mut c_void, *mut OsslParam) -> c_int;

static MAC_HMAC: Table<OsslDispatch, 11> = Table([
    entry!(OSSL_FUNC_MAC_NEWCTX, mac::mac_newctx, NewCtxFn),
    entry!(OSSL_FUNC_MAC_DUPCTX, mac::mac_dupctx, DupCtxFn),
    entry!(OSSL_FUNC_MAC_FREECTX, mac::mac_freectx, FreeCtxFn),
    entry!(OSSL_FUNC_MAC_INIT, mac::mac_init, MacInitFn),
    entry!(OSSL_FUNC_MAC_UPDATE, mac::mac_update, UpdateFn),
    entry!(OSSL_FUNC_MAC_FINAL, mac::mac_final, FinalFn),
    entry!(
        OSSL_FUNC_MAC_SET_CTX_PARAMS,
        mac::mac_set_ctx_params,
        SetCtxParamsFn
    ),
    entry!(
        OSSL_FUNC_MAC_GET_CTX_PARAMS,
        mac::mac_get_ctx_params,
        CtxGetParamsFn
    ),
    entry!(
        OSSL_FUNC_MAC_SETTABLE_CTX_PARAMS,
        mac::mac_settable_ctx_params,
        CtxParamsTableFn
    ),
    entry!(
        OSSL_FUNC_MAC_GETTABLE_CTX_PARAMS,
        mac::mac_gettable_ctx_params,
        CtxParamsTableFn
    ),
    DISPATCH_END,
]);

/// The MAC names of [`mac`]'s HMAC.
pub const HMAC_NAMES: &CStr = c"PAVELOR-HMAC:HMAC-PAVELOR";

static MACS: Table<OsslAlgorithm, 2> = Table([
    OsslAlgorithm {
        algorithm_names: HMAC_NAMES.as_ptr(),
        property_definition: PROPERTY.as_ptr(),
        implementation: (&raw const MAC_HMAC).cast(),
        algorithm_description: c"HMAC over PAVELOR-512/768/1024 (B = rate)".as_ptr(),
    },
    OsslAlgorithm {
        algorithm_names: std::ptr::null(),
        property_definition: std::ptr::null(),
        implementation: std::ptr::null(),
        algorithm_description: std::ptr::null(),
    },
]);

static PROVIDER_GETTABLE: Table<OsslParam, 5> = Table([
    OsslParam::descriptor(OSSL_PROV_PARAM_NAME, OSSL_PARAM_UTF8_PTR),
    OsslParam::descriptor(OSSL_PROV_PARAM_VERSION, OSSL_PARAM_UTF8_PTR),
    OsslParam::descriptor(OSSL_PROV_PARAM_BUILDINFO, OSSL_PARAM_UTF8_PTR),
    OsslParam::descriptor(OSSL_PROV_PARAM_STATUS, OSSL_PARAM_INTEGER),
    OsslParam::END,
]);

/// `OSSL_FUNC_provider_gettable_params`.
unsafe extern "C" fn provider_gettable_params(_provctx: *mut c_void) -> *const OsslParam {
    PROVIDER_GETTABLE.as_ptr()
}

/// `OSSL_FUNC_provider_get_params`: `name`, `version`, `buildinfo` (crate
/// version and the backend chosen), `status` = 1.
unsafe extern "C" fn provider_get_params(provctx: *mut c_void, params: *mut OsslParam) -> c_int {
    // SAFETY: OpenSSL passes the context `OSSL_provider_init` returned.
    let Some(prov) = (unsafe { prov_ref(provctx) }) else {
        return 0;
    };
    guarded(Some(prov), site!(c"provider_get_params"), 0, || {
        // SAFETY: OpenSSL passes a terminated OSSL_PARAM array whose
        // buffers are writable for the call.
        let result = unsafe {
            answer_each(params, |p, key| {
                if key == OSSL_PROV_PARAM_NAME {
                    set_utf8(p, PROVIDER_NAME)
                } else if key == OSSL_PROV_PARAM_VERSION {
                    set_utf8(p, PROVIDER_VERSION)
                } else if key == OSSL_PROV_PARAM_BUILDINFO {
                    // Lives in `prov`, i.e. until teardown.
                    set_utf8(p, &prov.buildinfo)
                } else if key == OSSL_PROV_PARAM_STATUS {
                    set_uint(p, 1)
                } else {
                    Ok(())
                }
            })
        };
        match result {
            Ok(()) => 1,
            Err(ParamError::Unterminated | ParamError::BadType) => 0,
        }
    })
}

/// `OSSL_FUNC_provider_query_operation`: the digests, for `OSSL_OP_DIGEST`.
unsafe extern "C" fn provider_query_operation(
    _provctx: *mut c_void,
    operation_id: c_int,
    no_store: *mut c_int,
) -> *const OsslAlgorithm {
    if !no_store.is_null() {
        // SAFETY: non-NULL; the core passes a pointer to its `int`.
        // 0: the core may cache the answer (it is static).
        unsafe { no_store.write(0) };
    }
    match operation_id {
        OSSL_OP_DIGEST => DIGESTS.as_ptr(),
        OSSL_OP_MAC => MACS.as_ptr(),
        _ => std::ptr::null(),
    }
}

/// `OSSL_FUNC_provider_get_reason_strings`.
unsafe extern "C" fn provider_get_reason_strings(_provctx: *mut c_void) -> *const OsslItem {
    REASON_STRINGS.as_ptr()
}

type TeardownFn = unsafe extern "C" fn(*mut c_void);
type ProvGetParamsFn = unsafe extern "C" fn(*mut c_void, *mut OsslParam) -> c_int;
type QueryFn = unsafe extern "C" fn(*mut c_void, c_int, *mut c_int) -> *const OsslAlgorithm;
type ReasonsFn = unsafe extern "C" fn(*mut c_void) -> *const OsslItem;

static PROVIDER_DISPATCH: Table<OsslDispatch, 6> = Table([
    entry!(OSSL_FUNC_PROVIDER_TEARDOWN, provider_teardown, TeardownFn),
    entry!(
        OSSL_FUNC_PROVIDER_GETTABLE_PARAMS,
        provider_gettable_params,
        GettableFn
    ),
    entry!(
        OSSL_FUNC_PROVIDER_GET_PARAMS,
        provider_get_params,
        ProvGetParamsFn
    ),
    entry!(
        OSSL_FUNC_PROVIDER_QUERY_OPERATION,
        provider_query_operation,
        QueryFn
    ),
    entry!(
        OSSL_FUNC_PROVIDER_GET_REASON_STRINGS,
        provider_get_reason_strings,
        ReasonsFn
    ),
    DISPATCH_END,
]);

/// Longest core dispatch table read (OpenSSL 3.x offers about 50 entries).
const MAX_CORE_FUNCTIONS: usize = 4096;

/// The provider entry point, called by OpenSSL when it loads the module.
///
/// Reads the core's error functions from `in_`, chooses the backend, and
/// answers with the provider dispatch table and a new provider context.
/// Returns 1 on success, 0 on failure (a NULL `out`/`provctx`, or a panic).
///
/// # Safety
///
/// Called by OpenSSL's core only: `in_` is NULL or a dispatch table ending
/// with function id 0 whose entries have the signatures of
/// core_dispatch.h; `out` and `provctx` are writable pointers (checked for
/// NULL).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn OSSL_provider_init(
    handle: *const OsslCoreHandle,
    in_: *const OsslDispatch,
    out: *mut *const OsslDispatch,
    provctx: *mut *mut c_void,
) -> c_int {
    if out.is_null() || provctx.is_null() {
        return 0;
    }
    guarded(None, site!(c"OSSL_provider_init"), 0, || {
        let mut new_error = None;
        let mut set_error_debug = None;
        let mut vset_error = None;
        if !in_.is_null() {
            for i in 0..MAX_CORE_FUNCTIONS {
                // SAFETY: `in_` is a dispatch table terminated by id 0 (the
                // core's contract); we stop at the terminator.
                let entry = unsafe { &*in_.add(i) };
                let Some(f) = entry.function else {
                    if entry.function_id == 0 {
                        break;
                    }
                    continue;
                };
                // The core stores each function under the id whose signature
                // core_dispatch.h declares; each arm below converts back to
                // exactly that signature.
                match entry.function_id {
                    0 => break,
                    OSSL_FUNC_CORE_NEW_ERROR => {
                        // SAFETY: id 5 is `void core_new_error(const
                        // OSSL_CORE_HANDLE *)` = `CoreNewErrorFn`; fn
                        // pointers all have one size and representation.
                        new_error =
                            Some(unsafe { std::mem::transmute::<GenericFn, CoreNewErrorFn>(f) });
                    }
                    OSSL_FUNC_CORE_SET_ERROR_DEBUG => {
                        // SAFETY: id 6 is `void core_set_error_debug(handle,
                        // const char *, int, const char *)` =
                        // `CoreSetErrorDebugFn`; same-size fn pointers.
                        set_error_debug = Some(unsafe {
                            std::mem::transmute::<GenericFn, CoreSetErrorDebugFn>(f)
                        });
                    }
                    OSSL_FUNC_CORE_VSET_ERROR => {
                        // SAFETY: id 7 is `void core_vset_error(handle,
                        // uint32_t, const char *, va_list)` = `CoreVsetErrorFn`
                        // (va_list passed as a pointer, see its docs);
                        // same-size fn pointers.
                        vset_error =
                            Some(unsafe { std::mem::transmute::<GenericFn, CoreVsetErrorFn>(f) });
                    }
                    _ => {}
                }
            }
        }
        let backend = Backend::best();
        let buildinfo = CString::new(format!(
            "pavelor-openssl {} (backend {backend})",
            env!("CARGO_PKG_VERSION")
        ))
        .unwrap_or_else(|_| c"pavelor-openssl".to_owned());
        let prov = Box::new(ProvCtx {
            handle,
            new_error,
            set_error_debug,
            vset_error,
            backend,
            buildinfo,
        });
        // SAFETY: `out` and `provctx` are non-NULL (checked above) and
        // point to the core's variables for these answers.
        unsafe {
            out.write(PROVIDER_DISPATCH.as_ptr());
            provctx.write(Box::into_raw(prov).cast());
        }
        1
    })
}
