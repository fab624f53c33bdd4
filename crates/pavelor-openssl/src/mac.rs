//! The MAC `PAVELOR-HMAC`: HMAC (RFC 2104) over a Pavelor instance, with
//! the block size B = the instance's rate, computed by
//! the RustCrypto `hmac` crate over the `pavelor` crate's hashers.
//!
//! Why the provider has its own: OpenSSL 3's built-in `HMAC` cannot serve
//! any Pavelor instance. Its key buffers hold at most 144 bytes (SHA3-224's
//! block), so it refuses PAVELOR-512's 192-byte block, and it finishes the
//! inner hash into an `EVP_MAX_MD_SIZE` (64-byte) buffer, which
//! PAVELOR-768/1024 digests do not fit (this provider makes that `final`
//! fail rather than overflow; see [`crate::EVP_MAX_MD_SIZE`]).
//!
//! Parameters: `digest` (settable, UTF-8 string: one of the digest names of
//! this provider, any case; required before the first `init`), `key`
//! (settable, octet string; or the `init` key), `properties` (accepted and
//! ignored: the digest is always this provider's), `size` and `block-size`
//! (gettable).

use std::ffi::{c_int, c_void};

use hmac::{Hmac, KeyInit, Mac};
use pavelor::{Algorithm, InstanceFn, Pavelor, Variant};
use zeroize::Zeroizing;

use crate::abi::{
    OSSL_MAC_PARAM_BLOCK_SIZE, OSSL_MAC_PARAM_DIGEST, OSSL_MAC_PARAM_KEY,
    OSSL_MAC_PARAM_PROPERTIES, OSSL_MAC_PARAM_SIZE, OSSL_PARAM_OCTET_STRING,
    OSSL_PARAM_UNSIGNED_INTEGER, OSSL_PARAM_UTF8_STRING, OsslParam, Table,
};
use crate::boundary::{
    check_output, ctx_mut, ctx_ref, final_result, free_ctx, guarded, input, new_ctx, status,
    write_output,
};
use crate::names::algorithm_by_name;
use crate::params::{answer_each, get_octets, get_utf8, set_uint};
use crate::provctx::{ProvPtr, prov_ref};
use crate::reason::{Reason, site};

/// A keyed HMAC computation over one instance: `Hmac<Pavelor<V>>` for the
/// `V` chosen at run time ([`keyed`]).
trait HmacState {
    fn update(&mut self, data: &[u8]);
    /// Writes the tag to `out` (of exactly the digest length).
    fn finalize_into(self: Box<Self>, out: &mut [u8]);
    fn clone_box(&self) -> Box<dyn HmacState>;
}

impl<V: Variant> HmacState for Hmac<Pavelor<V>> {
    fn update(&mut self, data: &[u8]) {
        Mac::update(self, data);
    }

    fn finalize_into(self: Box<Self>, out: &mut [u8]) {
        out.copy_from_slice(&self.finalize().into_bytes());
    }

    fn clone_box(&self) -> Box<dyn HmacState> {
        Box::new(self.clone())
    }
}

impl Clone for Box<dyn HmacState> {
    fn clone(&self) -> Self {
        self.clone_box()
    }
}

/// HMAC over `alg` keyed with `key`. `hmac` makes its hashers through
/// `Default`, which is the fastest backend: the one the provider resolves
/// for its digests as well.
fn keyed(alg: Algorithm, key: &[u8]) -> Box<dyn HmacState> {
    struct Keyed<'a>(&'a [u8]);
    impl InstanceFn for Keyed<'_> {
        type Output = Box<dyn HmacState>;
        fn call<V: Variant>(self) -> Box<dyn HmacState> {
            // `new_from_slice` accepts any key length for HMAC; the
            // fallback (never taken) keeps this free of panics.
            Box::new(
                Hmac::<Pavelor<V>>::new_from_slice(self.0)
                    .unwrap_or_else(|_| Hmac::new(&Default::default())),
            )
        }
    }
    alg.dispatch(Keyed(key))
}

/// An `EVP_MAC_CTX`'s algorithm context.
#[derive(Clone)]
struct MacCtx {
    prov: ProvPtr,
    alg: Option<Algorithm>,
    /// The state right after keying (kept so `init` without a key restarts
    /// with the same key, as OpenSSL's HMAC does).
    keyed: Option<Box<dyn HmacState>>,
    /// The running computation: `None` before the first `init` (or key)
    /// and once `final` has succeeded, when only `init` (or a new key)
    /// starts another; `update` and `final` refuse it. `dupctx` copies it
    /// as it is, so a copy of a finished context is finished too.
    running: Option<Box<dyn HmacState>>,
}

impl MacCtx {
    /// Applies settable parameters (`digest`, `key`, `properties`).
    ///
    /// # Safety
    ///
    /// `params` as for [`answer_each`] (read only here).
    unsafe fn set_params(&mut self, params: *const OsslParam) -> Result<(), Reason> {
        let mut alg = self.alg;
        // Borrowed from the caller's parameter (valid for this call); no copy.
        let mut key: Option<&[u8]> = None;
        // SAFETY: the caller's contract; the closure only reads `p`.
        unsafe {
            answer_each(params.cast_mut(), |p, name| {
                if name == OSSL_MAC_PARAM_DIGEST {
                    let value = get_utf8(p).ok_or(Reason::BadParameter)?;
                    alg = Some(algorithm_by_name(value).ok_or(Reason::BadParameter)?);
                } else if name == OSSL_MAC_PARAM_KEY {
                    key = Some(get_octets(p).ok_or(Reason::BadParameter)?);
                } else if name == OSSL_MAC_PARAM_PROPERTIES {
                    get_utf8(p).ok_or(Reason::BadParameter)?;
                }
                Ok(())
            })
        }?;
        if alg != self.alg {
            self.alg = alg;
            self.keyed = None;
            self.running = None;
        }
        if let Some(k) = key {
            let alg = self.alg.ok_or(Reason::BadParameter)?;
            self.set_key(alg, k);
        }
        Ok(())
    }

    fn set_key(&mut self, alg: Algorithm, key: &[u8]) {
        let state = keyed(alg, key);
        self.running = Some(state.clone());
        self.keyed = Some(state);
    }
}

/// `OSSL_FUNC_mac_newctx`.
pub(crate) unsafe extern "C" fn mac_newctx(provctx: *mut c_void) -> *mut c_void {
    // SAFETY: OpenSSL passes the context `OSSL_provider_init` returned.
    let Some(prov) = (unsafe { prov_ref(provctx) }) else {
        return std::ptr::null_mut();
    };
    guarded(
        Some(prov),
        site!(c"mac_newctx"),
        std::ptr::null_mut(),
        || {
            new_ctx(MacCtx {
                prov: ProvPtr::new(prov),
                alg: None,
                keyed: None,
                running: None,
            })
        },
    )
}

/// `OSSL_FUNC_mac_dupctx`: an independent copy in the same state:
/// mid-message, or finished (then its `final` is refused until `init`).
pub(crate) unsafe extern "C" fn mac_dupctx(mctx: *mut c_void) -> *mut c_void {
    // SAFETY: OpenSSL passes a context this provider made, which it only
    // reads during the copy (possibly from several threads at once), so a
    // shared reference.
    let Some(ctx) = (unsafe { ctx_ref::<MacCtx>(mctx) }) else {
        return std::ptr::null_mut();
    };
    guarded(
        Some(ctx.prov.get()),
        site!(c"mac_dupctx"),
        std::ptr::null_mut(),
        || new_ctx(ctx.clone()),
    )
}

/// `OSSL_FUNC_mac_freectx`: drops (and so wipes) the keyed states.
pub(crate) unsafe extern "C" fn mac_freectx(mctx: *mut c_void) {
    // SAFETY: OpenSSL passes a context this provider made, once.
    unsafe { free_ctx::<MacCtx>(mctx) }
}

/// `OSSL_FUNC_mac_init`: applies `params`, then keys with `key` (if
/// non-NULL) or restarts with the key given before.
pub(crate) unsafe extern "C" fn mac_init(
    mctx: *mut c_void,
    key: *const u8,
    keylen: usize,
    params: *const OsslParam,
) -> c_int {
    // SAFETY: OpenSSL passes a context this provider made.
    let Some(ctx) = (unsafe { ctx_mut::<MacCtx>(mctx) }) else {
        return 0;
    };
    status(ctx.prov.get(), site!(c"mac_init"), || {
        // SAFETY: OpenSSL passes a terminated OSSL_PARAM array (or NULL).
        unsafe { ctx.set_params(params) }?;
        let alg = ctx.alg.ok_or(Reason::BadParameter)?;
        if !key.is_null() {
            // SAFETY: the caller gives `keylen` readable bytes at `key`
            // (EVP_MAC_init's contract); `input` checks size.
            let k = unsafe { input(key, keylen) }?;
            ctx.set_key(alg, k);
        } else if keylen != 0 {
            return Err(Reason::NullPointer);
        } else {
            let keyed = ctx.keyed.clone().ok_or(Reason::NotInitialized)?;
            ctx.running = Some(keyed);
        }
        Ok(())
    })
}

/// `OSSL_FUNC_mac_update`.
pub(crate) unsafe extern "C" fn mac_update(
    mctx: *mut c_void,
    data: *const u8,
    len: usize,
) -> c_int {
    // SAFETY: OpenSSL passes a context this provider made.
    let Some(ctx) = (unsafe { ctx_mut::<MacCtx>(mctx) }) else {
        return 0;
    };
    status(ctx.prov.get(), site!(c"mac_update"), || {
        // SAFETY: the caller gives `len` readable bytes at `data`; `input`
        // checks NULL and size.
        let bytes = unsafe { input(data, len) }?;
        ctx.running
            .as_mut()
            .ok_or(Reason::NotInitialized)?
            .update(bytes);
        Ok(())
    })
}

/// `OSSL_FUNC_mac_final`: the caller states `outsize`, so every instance
/// is served. Finishes the computation: a second `final` (on this context
/// or on a `dupctx` copy made after the first) is refused until `init` or
/// a new `key` parameter restarts it. On failure `*outl` is 0 (if `outl`
/// is non-NULL), nothing is written to `out`, and the context is
/// unchanged.
pub(crate) unsafe extern "C" fn mac_final(
    mctx: *mut c_void,
    out: *mut u8,
    outl: *mut usize,
    outsize: usize,
) -> c_int {
    // SAFETY: OpenSSL passes a context this provider made.
    let Some(ctx) = (unsafe { ctx_mut::<MacCtx>(mctx) }) else {
        // SAFETY: `outl` is NULL or the caller's writable `size_t`.
        return unsafe { final_result(0, outl) };
    };
    let rc = status(ctx.prov.get(), site!(c"mac_final"), || {
        let alg = ctx.alg.ok_or(Reason::NotInitialized)?;
        let len = alg.output_len();
        check_output(out, outl, outsize, len)?;
        let state = ctx.running.take().ok_or(Reason::NotInitialized)?;
        let mut buf = Zeroizing::new([0u8; pavelor::MAX_DIGEST]);
        let tag = buf.get_mut(..len).ok_or(Reason::Internal)?;
        state.finalize_into(tag);
        // SAFETY: `check_output` saw non-NULL `out`/`outl` and
        // `outsize >= len`; the caller gives `outsize` writable bytes
        // (EVP_MAC_final's contract); `tag` is a local.
        unsafe { write_output(tag, out, outl) };
        Ok(())
    });
    // SAFETY: `outl` is NULL or the caller's writable `size_t` (EVP_MAC_final
    // passes its local length, which it then copies to the caller's).
    unsafe { final_result(rc, outl) }
}

/// `OSSL_FUNC_mac_set_ctx_params`.
pub(crate) unsafe extern "C" fn mac_set_ctx_params(
    mctx: *mut c_void,
    params: *const OsslParam,
) -> c_int {
    // SAFETY: OpenSSL passes a context this provider made.
    let Some(ctx) = (unsafe { ctx_mut::<MacCtx>(mctx) }) else {
        return 0;
    };
    status(ctx.prov.get(), site!(c"mac_set_ctx_params"), || {
        // SAFETY: OpenSSL passes a terminated OSSL_PARAM array (or NULL).
        unsafe { ctx.set_params(params) }
    })
}

/// `OSSL_FUNC_mac_get_ctx_params`: `size` and `block-size` of the chosen
/// digest (0 before one is chosen).
pub(crate) unsafe extern "C" fn mac_get_ctx_params(
    mctx: *mut c_void,
    params: *mut OsslParam,
) -> c_int {
    // SAFETY: OpenSSL passes a context this provider made.
    let Some(ctx) = (unsafe { ctx_mut::<MacCtx>(mctx) }) else {
        return 0;
    };
    status(ctx.prov.get(), site!(c"mac_get_ctx_params"), || {
        let (size, block) = ctx
            .alg
            .map_or((0, 0), |a| (a.output_len() as u64, a.rate_len() as u64));
        // SAFETY: OpenSSL passes a terminated OSSL_PARAM array whose
        // buffers are writable for the call.
        unsafe {
            answer_each(params, |p, name| {
                if name == OSSL_MAC_PARAM_SIZE {
                    set_uint(p, size)
                } else if name == OSSL_MAC_PARAM_BLOCK_SIZE {
                    set_uint(p, block)
                } else {
                    Ok(())
                }
            })
        }
    })
}

static MAC_SETTABLE_CTX: Table<OsslParam, 4> = Table([
    OsslParam::descriptor(OSSL_MAC_PARAM_DIGEST, OSSL_PARAM_UTF8_STRING),
    OsslParam::descriptor(OSSL_MAC_PARAM_PROPERTIES, OSSL_PARAM_UTF8_STRING),
    OsslParam::descriptor(OSSL_MAC_PARAM_KEY, OSSL_PARAM_OCTET_STRING),
    OsslParam::END,
]);

static MAC_GETTABLE_CTX: Table<OsslParam, 3> = Table([
    OsslParam::descriptor(OSSL_MAC_PARAM_SIZE, OSSL_PARAM_UNSIGNED_INTEGER),
    OsslParam::descriptor(OSSL_MAC_PARAM_BLOCK_SIZE, OSSL_PARAM_UNSIGNED_INTEGER),
    OsslParam::END,
]);

/// `OSSL_FUNC_mac_settable_ctx_params`.
pub(crate) unsafe extern "C" fn mac_settable_ctx_params(
    _mctx: *mut c_void,
    _provctx: *mut c_void,
) -> *const OsslParam {
    MAC_SETTABLE_CTX.as_ptr()
}

/// `OSSL_FUNC_mac_gettable_ctx_params`.
pub(crate) unsafe extern "C" fn mac_gettable_ctx_params(
    _mctx: *mut c_void,
    _provctx: *mut c_void,
) -> *const OsslParam {
    MAC_GETTABLE_CTX.as_ptr()
}
