//! The digests: an `EVP_MD_CTX`'s algorithm context ([`DigestCtx`]) and
//! the digest entry points, each generic over the instance `V` (the
//! dispatch table of an instance is made of their `V` versions, see
//! [`crate::dispatch`]), and the rules of their `final` for
//! `EVP_MAX_MD_SIZE` and `xoflen`.

use std::ffi::{c_int, c_void};

use pavelor::{Pavelor, Variant};

use crate::abi::{
    OSSL_DIGEST_PARAM_ALGID_ABSENT, OSSL_DIGEST_PARAM_BLOCK_SIZE, OSSL_DIGEST_PARAM_SIZE,
    OSSL_DIGEST_PARAM_XOF, OSSL_DIGEST_PARAM_XOFLEN, OSSL_PARAM_INTEGER,
    OSSL_PARAM_UNSIGNED_INTEGER, OsslParam, Table,
};
use crate::boundary::{
    check_output, ctx_mut, ctx_ref, final_result, free_ctx, guarded, input, new_ctx, status,
    write_output,
};
use crate::params::{answer_each, get_uint, set_uint};
use crate::provctx::{ProvPtr, prov_ref};
use crate::reason::{Reason, site};

/// OpenSSL's `EVP_MAX_MD_SIZE`: the documented bound on what
/// `EVP_DigestFinal_ex` writes, so the size of many callers' digest buffers
/// (OpenSSL's own HMAC, `openssl speed`, Python's `hashlib`, ...).
///
/// A Pavelor digest longer than this (Pavelor-768 and Pavelor-1024, 96
/// and 128 bytes) would overflow such buffers if its `EVP_DigestFinal_ex`
/// were answered. So its `final` fails (with [`Reason::LongDigest`]) unless
/// it is the `final` of an `EVP_DigestFinalXOF(ctx, md, digest size)` call,
/// told apart by the address of the `xoflen` that call sets. A digest that
/// fits (Pavelor-512, 64 bytes) always answers `EVP_DigestFinal_ex`.
pub const EVP_MAX_MD_SIZE: usize = 64;

/// [`check_output`] for a digest's `final` and one-shot: `outsz` must be
/// exactly `need`. `EVP_DigestFinal_ex` passes exactly the digest size, and
/// `EVP_DigestFinalXOF` its length, which `set_ctx_params` only accepts
/// equal to it; a larger `outsz` means a caller asking for an XOF output
/// (OpenSSL 3.x releases may call `final` with the requested length even
/// after the `xoflen` set was refused), which a Pavelor digest is not. Note
/// that `outsz` alone does not tell the two EVP calls apart (both pass the
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

/// Whether the `xoflen` recorded by the last `set_ctx_params` (the address
/// `xoflen_at` of the `size_t` it was read from) was set for the `final`
/// called with `outl`, for a digest of `need` bytes.
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

/// An `EVP_MD_CTX`'s algorithm context, of instance `V`.
pub(crate) struct DigestCtx<V: Variant> {
    prov: ProvPtr,
    /// `None` before `init` and after `final`. Dropping it wipes the state
    /// (the crate's hashers zeroize on drop).
    hasher: Option<Pavelor<V>>,
    /// When the last call on this context was a `set_ctx_params` that
    /// accepted an `xoflen`: the address of the `size_t` it was read from
    /// (see [`xoflen_is_for`]). Every other call on the context clears it
    /// (`init`, `update`, `final` whatever its outcome, a `set_ctx_params`
    /// without an accepted `xoflen`), and `dupctx` does not copy it: an
    /// `xoflen` applies to the one `final` that follows it.
    xoflen_at: Option<usize>,
}

/// `OSSL_FUNC_digest_newctx` of instance `V`.
pub(crate) unsafe extern "C" fn digest_newctx<V: Variant>(provctx: *mut c_void) -> *mut c_void {
    // SAFETY: OpenSSL passes the context `OSSL_provider_init` returned.
    let Some(prov) = (unsafe { prov_ref(provctx) }) else {
        return std::ptr::null_mut();
    };
    guarded(
        Some(prov),
        site!(c"digest_newctx"),
        std::ptr::null_mut(),
        || {
            new_ctx(DigestCtx::<V> {
                prov: ProvPtr::new(prov),
                hasher: None,
                xoflen_at: None,
            })
        },
    )
}

/// `OSSL_FUNC_digest_init`: (re)starts the hash on the provider's backend.
/// No settable parameters; `params` is ignored.
pub(crate) unsafe extern "C" fn digest_init<V: Variant>(
    dctx: *mut c_void,
    _params: *const OsslParam,
) -> c_int {
    // SAFETY: OpenSSL passes a context this instance's newctx/dupctx made.
    let Some(ctx) = (unsafe { ctx_mut::<DigestCtx<V>>(dctx) }) else {
        return 0;
    };
    let prov = ctx.prov.get();
    guarded(Some(prov), site!(c"digest_init"), 0, || {
        ctx.hasher = Some(Pavelor::with_backend(prov.backend));
        ctx.xoflen_at = None;
        1
    })
}

/// `OSSL_FUNC_digest_update`.
pub(crate) unsafe extern "C" fn digest_update<V: Variant>(
    dctx: *mut c_void,
    data: *const u8,
    len: usize,
) -> c_int {
    // SAFETY: OpenSSL passes a context this instance's newctx/dupctx made.
    let Some(ctx) = (unsafe { ctx_mut::<DigestCtx<V>>(dctx) }) else {
        return 0;
    };
    status(ctx.prov.get(), site!(c"digest_update"), || {
        ctx.xoflen_at = None;
        // SAFETY: the caller gives `len` readable bytes at `data` for the
        // call (EVP_DigestUpdate's contract); `input` checks NULL and size.
        let bytes = unsafe { input(data, len) }?;
        ctx.hasher
            .as_mut()
            .ok_or(Reason::NotInitialized)?
            .update(bytes);
        Ok(())
    })
}

/// `OSSL_FUNC_digest_final`. Succeeds only if `outsz` is the digest size,
/// and the `xoflen` recorded by the call just before, if any, was set for
/// this very `final` ([`xoflen_is_for`]); for a digest longer than
/// [`EVP_MAX_MD_SIZE`] such an `xoflen` is also required. The recorded
/// `xoflen` is used up whatever the outcome. On failure `*outl` is 0 (if
/// `outl` is non-NULL), nothing is written to `out`, and the hash state is
/// unchanged.
pub(crate) unsafe extern "C" fn digest_final<V: Variant>(
    dctx: *mut c_void,
    out: *mut u8,
    outl: *mut usize,
    outsz: usize,
) -> c_int {
    // SAFETY: OpenSSL passes a context this instance's newctx/dupctx made.
    let Some(ctx) = (unsafe { ctx_mut::<DigestCtx<V>>(dctx) }) else {
        // SAFETY: `outl` is NULL or the caller's writable `size_t`.
        return unsafe { final_result(0, outl) };
    };
    let rc = status(ctx.prov.get(), site!(c"digest_final"), || {
        let xoflen_at = ctx.xoflen_at.take();
        let need = V::DIGEST;
        check_digest_output(out, outl, outsz, need)?;
        // SAFETY: `outl` is non-NULL (checked) and points to the caller's
        // `size_t` (the `final` contract).
        if !unsafe { xoflen_is_for(xoflen_at, outl, need) } {
            if need > EVP_MAX_MD_SIZE {
                return Err(Reason::LongDigest);
            }
            if xoflen_at.is_some() {
                return Err(Reason::XoflenNotForThisFinal);
            }
        }
        let digest = ctx.hasher.take().ok_or(Reason::NotInitialized)?.finalize();
        // SAFETY: `check_digest_output` saw non-NULL `out`/`outl` and
        // `outsz == V::DIGEST == digest.len()`; the caller gives `outsz`
        // writable bytes there (EVP_DigestFinal_ex's contract); `digest` is
        // a local.
        unsafe { write_output(&digest, out, outl) };
        Ok(())
    });
    // SAFETY: `outl` is NULL or the caller's writable `size_t`.
    unsafe { final_result(rc, outl) }
}

/// `OSSL_FUNC_digest_digest` (one-shot) of instance `V`, on the provider's
/// backend: `outsz` must be the digest size (the caller states it, so every
/// instance is served); on failure `*outl` is 0 (if `outl` is non-NULL).
pub(crate) unsafe extern "C" fn digest_oneshot<V: Variant>(
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
    let rc = status(prov, site!(c"digest_digest"), || {
        check_digest_output(out, outl, outsz, V::DIGEST)?;
        // SAFETY: the caller gives `len` readable bytes at `data`; `input`
        // checks NULL and size.
        let bytes = unsafe { input(data, len) }?;
        let digest = Pavelor::<V>::digest_with(prov.backend, bytes);
        // SAFETY: as in `digest_final`: checked non-NULL and of exactly the
        // digest size; `digest` is a local. The input slice is not used
        // after this point, so an overlapping output is harmless.
        unsafe { write_output(&digest, out, outl) };
        Ok(())
    });
    // SAFETY: `outl` is NULL or the caller's writable `size_t`.
    unsafe { final_result(rc, outl) }
}

/// `OSSL_FUNC_digest_freectx`: drops (and so wipes) the state.
pub(crate) unsafe extern "C" fn digest_freectx<V: Variant>(dctx: *mut c_void) {
    // SAFETY: OpenSSL passes a context this instance's newctx/dupctx made,
    // once.
    unsafe { free_ctx::<DigestCtx<V>>(dctx) }
}

/// `OSSL_FUNC_digest_dupctx`: an independent copy, mid-message included;
/// a recorded `xoflen` is not copied (it is for the source's next `final`
/// only).
pub(crate) unsafe extern "C" fn digest_dupctx<V: Variant>(dctx: *mut c_void) -> *mut c_void {
    // SAFETY: OpenSSL passes a context this instance's newctx/dupctx made,
    // which it only reads during the copy (possibly from several threads at
    // once), so a shared reference.
    let Some(ctx) = (unsafe { ctx_ref::<DigestCtx<V>>(dctx) }) else {
        return std::ptr::null_mut();
    };
    guarded(
        Some(ctx.prov.get()),
        site!(c"digest_dupctx"),
        std::ptr::null_mut(),
        || {
            new_ctx(DigestCtx::<V> {
                prov: ctx.prov,
                hasher: ctx.hasher.clone(),
                xoflen_at: None,
            })
        },
    )
}

/// `OSSL_FUNC_digest_get_params` of instance `V`: `size`, `blocksize`
/// (the rate, which is what HMAC's B is), `xof` = 0, `algid-absent` = 0.
/// (No context, so a bad request just returns 0; the core reports the
/// failure.)
pub(crate) unsafe extern "C" fn digest_get_params<V: Variant>(params: *mut OsslParam) -> c_int {
    guarded(None, site!(c"digest_get_params"), 0, || {
        // SAFETY: OpenSSL passes a terminated OSSL_PARAM array whose
        // buffers are writable for the call.
        let result = unsafe {
            answer_each(params, |p, key| {
                if key == OSSL_DIGEST_PARAM_SIZE {
                    set_uint(p, V::DIGEST as u64)
                } else if key == OSSL_DIGEST_PARAM_BLOCK_SIZE {
                    set_uint(p, V::RATE as u64)
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
pub(crate) unsafe extern "C" fn digest_set_ctx_params<V: Variant>(
    dctx: *mut c_void,
    params: *const OsslParam,
) -> c_int {
    // SAFETY: OpenSSL passes a context this instance's newctx/dupctx made.
    let Some(ctx) = (unsafe { ctx_mut::<DigestCtx<V>>(dctx) }) else {
        return 0;
    };
    status(ctx.prov.get(), site!(c"digest_set_ctx_params"), || {
        ctx.xoflen_at = None;
        let mut xoflen_at = None;
        // SAFETY: OpenSSL passes a terminated OSSL_PARAM array whose buffers
        // are readable for the call; `answer_each` only reads through the
        // pointer here (the closure does not write to `p`).
        unsafe {
            answer_each(params.cast_mut(), |p, key| {
                if key == OSSL_DIGEST_PARAM_XOFLEN {
                    if get_uint(p) != Some(V::DIGEST as u64) {
                        return Err(Reason::BadParameter);
                    }
                    xoflen_at = Some(p.data.addr());
                }
                Ok(())
            })
        }?;
        ctx.xoflen_at = xoflen_at;
        Ok(())
    })
}

static DIGEST_SETTABLE_CTX: Table<OsslParam, 2> = Table([
    OsslParam::descriptor(OSSL_DIGEST_PARAM_XOFLEN, OSSL_PARAM_UNSIGNED_INTEGER),
    OsslParam::END,
]);

/// `OSSL_FUNC_digest_settable_ctx_params`.
pub(crate) unsafe extern "C" fn digest_settable_ctx_params(
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
pub(crate) unsafe extern "C" fn digest_gettable_params(_provctx: *mut c_void) -> *const OsslParam {
    DIGEST_GETTABLE.as_ptr()
}
