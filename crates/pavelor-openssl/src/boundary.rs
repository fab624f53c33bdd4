//! What every entry point does at the C boundary: no panic crosses into C
//! ([`guarded`]), a failure becomes OpenSSL's 0 with its [`Reason`] on the
//! error queue ([`status`]), and pointers from C become references only
//! after their checks: algorithm contexts ([`ctx_mut`], [`ctx_ref`]),
//! input bytes ([`input`]), output buffers ([`check_output`],
//! [`write_output`], [`final_result`]).

use std::ffi::{c_int, c_void};
use std::panic::{AssertUnwindSafe, catch_unwind};

use crate::provctx::ProvCtx;
use crate::reason::{Reason, Site};

/// Runs `f` so that no panic crosses into C: a panic becomes
/// [`Reason::Internal`] (raised on `prov` if there is one, at `at`: the
/// entry point's `site!`) and `fallback`.
pub(crate) fn guarded<R>(
    prov: Option<&ProvCtx>,
    at: Site,
    fallback: R,
    f: impl FnOnce() -> R,
) -> R {
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

/// The C status of an entry point whose work is `f`: 1 if it succeeds; 0
/// if it fails, with its reason raised on `prov` at `at` (the entry point's
/// `site!`); 0 with [`Reason::Internal`] if it panics ([`guarded`]).
pub(crate) fn status(prov: &ProvCtx, at: Site, f: impl FnOnce() -> Result<(), Reason>) -> c_int {
    guarded(Some(prov), at, 0, || match f() {
        Ok(()) => 1,
        Err(reason) => {
            prov.raise(reason, at);
            0
        }
    })
}

/// `ctx` moved to the heap, as the `void *` context (an algorithm's, or
/// the provider's) the core holds until it calls the matching
/// [`free_ctx`].
pub(crate) fn new_ctx<T>(ctx: T) -> *mut c_void {
    Box::into_raw(Box::new(ctx)).cast()
}

/// The algorithm context behind `ctx`, if non-NULL.
///
/// # Safety
///
/// `ctx` must be NULL or a pointer returned by [`new_ctx`] for this `T`
/// and not yet freed, not used by another thread during the call
/// (OpenSSL's rule for `EVP_MD_CTX` and `EVP_MAC_CTX`).
pub(crate) unsafe fn ctx_mut<'a, T>(ctx: *mut c_void) -> Option<&'a mut T> {
    // SAFETY: per the contract, a live, exclusively used `T` made by
    // `Box::into_raw` (or NULL).
    unsafe { ctx.cast::<T>().as_mut() }
}

/// The algorithm context behind `ctx`, if non-NULL, read only: for
/// `dupctx`, whose source OpenSSL declares `const` (`EVP_MD_CTX_copy_ex`
/// takes `const EVP_MD_CTX *in`, `EVP_MAC_CTX_dup` a `const EVP_MAC_CTX
/// *`), so two threads may copy from one context at once; a `&mut` there
/// would alias.
///
/// # Safety
///
/// `ctx` must be NULL or a pointer returned by [`new_ctx`] for this `T`
/// and not yet freed, not modified by another thread during the call
/// (concurrent readers are fine).
pub(crate) unsafe fn ctx_ref<'a, T>(ctx: *const c_void) -> Option<&'a T> {
    // SAFETY: per the contract, a live `T` made by `Box::into_raw` (or
    // NULL), only read for `'a`.
    unsafe { ctx.cast::<T>().as_ref() }
}

/// Drops (and so wipes, for the crate's hashers) the context behind a
/// non-NULL `ctx`; a panic while dropping is caught (what was not dropped
/// yet is leaked).
///
/// # Safety
///
/// `ctx` must be NULL or a pointer returned by [`new_ctx`] for this `T`,
/// freed exactly once (OpenSSL calls `freectx` and `teardown` once).
pub(crate) unsafe fn free_ctx<T>(ctx: *mut c_void) {
    if ctx.is_null() {
        return;
    }
    // SAFETY: a non-NULL `ctx` is a `Box<T>` leaked by `new_ctx`, given
    // back once (the contract).
    let ctx = unsafe { Box::from_raw(ctx.cast::<T>()) };
    let _ = catch_unwind(AssertUnwindSafe(move || drop(ctx)));
}

/// `len` bytes at `data` as a slice, or why not.
///
/// # Safety
///
/// If `len != 0` and `data` is non-NULL, `data` must point to `len`
/// readable bytes that stay valid and unmodified for `'a`.
pub(crate) unsafe fn input<'a>(data: *const u8, len: usize) -> Result<&'a [u8], Reason> {
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
pub(crate) fn check_output(
    out: *mut u8,
    outl: *mut usize,
    outsz: usize,
    need: usize,
) -> Result<(), Reason> {
    if out.is_null() || outl.is_null() {
        return Err(Reason::NullPointer);
    }
    if outsz < need {
        return Err(Reason::OutputTooSmall);
    }
    Ok(())
}

/// Writes `digest` to a buffer accepted by [`check_output`].
///
/// # Safety
///
/// `out` must point to `outsz >= digest.len()` writable bytes and `outl` to
/// a writable `size_t` (as `check_output` verified for non-NULL-ness and
/// size), neither overlapping `digest`.
pub(crate) unsafe fn write_output(digest: &[u8], out: *mut u8, outl: *mut usize) {
    // SAFETY: per this function's contract; byte copies and a `size_t`
    // write through a pointer the C caller gave for exactly that.
    unsafe {
        std::ptr::copy_nonoverlapping(digest.as_ptr(), out, digest.len());
        outl.write_unaligned(digest.len());
    }
}

/// `rc` of a `final` or one-shot entry point, with `*outl = 0` when it is a
/// failure (any value but 1) and `outl` is non-NULL: what every failed
/// `final` (and one-shot) reports, whatever the reason, so a caller never
/// reads a stale or uninitialised length (EVP_MAC_final copies the
/// provider's answer from an uninitialised local).
///
/// # Safety
///
/// `outl` must be NULL or point to a writable `size_t`.
pub(crate) unsafe fn final_result(rc: c_int, outl: *mut usize) -> c_int {
    if rc != 1 && !outl.is_null() {
        // SAFETY: non-NULL, and per the contract a writable `size_t`; an
        // unaligned write makes no alignment assumption.
        unsafe { outl.write_unaligned(0) };
    }
    rc
}
