//! The MAC `PAVELOR-HMAC`: HMAC (RFC 2104) over a Pavelor instance, with
//! the block size B = the instance's rate (192/128/64 bytes), computed by
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
use pavelor::{Algorithm, Pavelor512, Pavelor768, Pavelor1024};
use zeroize::Zeroizing;

use crate::abi::{
    OSSL_MAC_PARAM_BLOCK_SIZE, OSSL_MAC_PARAM_DIGEST, OSSL_MAC_PARAM_KEY,
    OSSL_MAC_PARAM_PROPERTIES, OSSL_MAC_PARAM_SIZE, OSSL_PARAM_OCTET_STRING,
    OSSL_PARAM_UNSIGNED_INTEGER, OSSL_PARAM_UTF8_STRING, OsslParam, Table,
};
use crate::params::{ParamError, answer_each, get_octets, get_utf8, set_uint};
use crate::{ProvCtx, Reason, check_output, final_result, guarded, input, prov_ref, write_output};

/// A keyed HMAC state of one instance.
#[derive(Clone)]
enum HmacState {
    P512(Hmac<Pavelor512>),
    P768(Hmac<Pavelor768>),
    P1024(Hmac<Pavelor1024>),
}

impl HmacState {
    fn new(alg: Algorithm, key: &[u8]) -> Self {
        // `new_from_slice` accepts any key length for HMAC; the fallback
        // (never taken) keeps this free of panics.
        match alg {
            Algorithm::Pavelor512 => HmacState::P512(
                Hmac::new_from_slice(key).unwrap_or_else(|_| Hmac::new(&Default::default())),
            ),
            Algorithm::Pavelor768 => HmacState::P768(
                Hmac::new_from_slice(key).unwrap_or_else(|_| Hmac::new(&Default::default())),
            ),
            _ => HmacState::P1024(
                Hmac::new_from_slice(key).unwrap_or_else(|_| Hmac::new(&Default::default())),
            ),
        }
    }

    fn update(&mut self, data: &[u8]) {
        match self {
            HmacState::P512(m) => m.update(data),
            HmacState::P768(m) => m.update(data),
            HmacState::P1024(m) => m.update(data),
        }
    }

    /// Writes the tag to `out` (of exactly the digest length).
    fn finalize_into(self, out: &mut [u8]) {
        match self {
            HmacState::P512(m) => out.copy_from_slice(&m.finalize().into_bytes()),
            HmacState::P768(m) => out.copy_from_slice(&m.finalize().into_bytes()),
            HmacState::P1024(m) => out.copy_from_slice(&m.finalize().into_bytes()),
        }
    }
}

/// An `EVP_MAC_CTX`'s algorithm context.
#[derive(Clone)]
struct MacCtx {
    prov: *const ProvCtx,
    alg: Option<Algorithm>,
    /// The state right after keying (kept so `init` without a key restarts
    /// with the same key, as OpenSSL's HMAC does).
    keyed: Option<HmacState>,
    /// The running computation: `None` before the first `init` (or key)
    /// and once `final` has succeeded, when only `init` (or a new key)
    /// starts another; `update` and `final` refuse it. `dupctx` copies it
    /// as it is, so a copy of a finished context is finished too.
    running: Option<HmacState>,
}

impl MacCtx {
    /// The provider context; outlives this context (see `DigestCtx::prov`).
    fn prov<'p>(&self) -> &'p ProvCtx {
        // SAFETY: `prov` was a live provider context when this context was
        // made, and OpenSSL keeps the provider alive while any of its
        // algorithm contexts exists (the EVP_MAC_CTX holds the EVP_MAC,
        // which holds a reference to the provider).
        unsafe { &*self.prov }
    }

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
        let result = unsafe {
            answer_each(params.cast_mut(), |p, name| {
                if name == OSSL_MAC_PARAM_DIGEST {
                    let value = get_utf8(p).ok_or(ParamError::BadType)?;
                    alg = Some(algorithm_by_name(value).ok_or(ParamError::BadType)?);
                } else if name == OSSL_MAC_PARAM_KEY {
                    key = Some(get_octets(p).ok_or(ParamError::BadType)?);
                } else if name == OSSL_MAC_PARAM_PROPERTIES {
                    get_utf8(p).ok_or(ParamError::BadType)?;
                }
                Ok(())
            })
        };
        if result.is_err() {
            return Err(Reason::BadParameter);
        }
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
        let state = HmacState::new(alg, key);
        self.running = Some(state.clone());
        self.keyed = Some(state);
    }
}

/// The instance named `name` (any of this provider's digest names and
/// aliases, case-insensitive).
fn algorithm_by_name(name: &[u8]) -> Option<Algorithm> {
    let name = std::str::from_utf8(name).ok()?;
    crate::ALGORITHM_NAMES
        .iter()
        .zip(Algorithm::ALL)
        .find(|(names, _)| {
            names
                .to_str()
                .is_ok_and(|n| n.split(':').any(|a| a.eq_ignore_ascii_case(name)))
        })
        .map(|(_, alg)| alg)
}

/// The MAC context behind `mctx`, if non-NULL.
///
/// # Safety
///
/// `mctx` must be NULL or a pointer returned by `mac_newctx` /
/// `mac_dupctx`, not yet freed, not used by another thread during the call.
unsafe fn mac_mut<'a>(mctx: *mut c_void) -> Option<&'a mut MacCtx> {
    // SAFETY: per the contract, a live, exclusively used `MacCtx` made by
    // `Box::into_raw` (or NULL).
    unsafe { mctx.cast::<MacCtx>().as_mut() }
}

/// The MAC context behind `mctx`, if non-NULL, read only: for `dupctx`,
/// whose source OpenSSL declares `const` (`EVP_MAC_CTX_dup(const
/// EVP_MAC_CTX *src)`), so two threads may copy from one context at once.
///
/// # Safety
///
/// `mctx` must be NULL or a pointer returned by `mac_newctx` /
/// `mac_dupctx`, not yet freed, not modified by another thread during the
/// call (concurrent readers are fine).
unsafe fn ctx_ref<'a>(mctx: *const c_void) -> Option<&'a MacCtx> {
    // SAFETY: per the contract, a live `MacCtx` made by `Box::into_raw` (or
    // NULL), only read for `'a`.
    unsafe { mctx.cast::<MacCtx>().as_ref() }
}

/// `OSSL_FUNC_mac_newctx`.
pub unsafe extern "C" fn mac_newctx(provctx: *mut c_void) -> *mut c_void {
    // SAFETY: OpenSSL passes the context `OSSL_provider_init` returned.
    let Some(prov) = (unsafe { prov_ref(provctx) }) else {
        return std::ptr::null_mut();
    };
    guarded(
        Some(prov),
        site!(c"mac_newctx"),
        std::ptr::null_mut(),
        || {
            Box::into_raw(Box::new(MacCtx {
                prov,
                alg: None,
                keyed: None,
                running: None,
            }))
            .cast()
        },
    )
}

/// `OSSL_FUNC_mac_dupctx`: an independent copy in the same state:
/// mid-message, or finished (then its `final` is refused until `init`).
pub unsafe extern "C" fn mac_dupctx(mctx: *mut c_void) -> *mut c_void {
    // SAFETY: OpenSSL passes a context this provider made, which it only
    // reads during the copy (possibly from several threads at once), so a
    // shared reference.
    let Some(ctx) = (unsafe { ctx_ref(mctx) }) else {
        return std::ptr::null_mut();
    };
    let prov = ctx.prov();
    guarded(
        Some(prov),
        site!(c"mac_dupctx"),
        std::ptr::null_mut(),
        || Box::into_raw(Box::new(ctx.clone())).cast(),
    )
}

/// `OSSL_FUNC_mac_freectx`: drops (and so wipes) the keyed states.
pub unsafe extern "C" fn mac_freectx(mctx: *mut c_void) {
    if mctx.is_null() {
        return;
    }
    // SAFETY: a non-NULL `mctx` is a `Box<MacCtx>` this provider leaked in
    // newctx/dupctx, freed exactly once.
    let ctx = unsafe { Box::from_raw(mctx.cast::<MacCtx>()) };
    let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(move || drop(ctx)));
}

/// `OSSL_FUNC_mac_init`: applies `params`, then keys with `key` (if
/// non-NULL) or restarts with the previous key.
pub unsafe extern "C" fn mac_init(
    mctx: *mut c_void,
    key: *const u8,
    keylen: usize,
    params: *const OsslParam,
) -> c_int {
    // SAFETY: OpenSSL passes a context this provider made.
    let Some(ctx) = (unsafe { mac_mut(mctx) }) else {
        return 0;
    };
    let prov = ctx.prov();
    guarded(Some(prov), site!(c"mac_init"), 0, || {
        let result = (|| {
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
        })();
        match result {
            Ok(()) => 1,
            Err(reason) => {
                raise!(prov, reason, c"mac_init");
                0
            }
        }
    })
}

/// `OSSL_FUNC_mac_update`.
pub unsafe extern "C" fn mac_update(mctx: *mut c_void, data: *const u8, len: usize) -> c_int {
    // SAFETY: OpenSSL passes a context this provider made.
    let Some(ctx) = (unsafe { mac_mut(mctx) }) else {
        return 0;
    };
    let prov = ctx.prov();
    guarded(Some(prov), site!(c"mac_update"), 0, || {
        // SAFETY: the caller gives `len` readable bytes at `data`; `input`
        // checks NULL and size.
        let result = unsafe { input(data, len) }.and_then(|bytes| {
            ctx.running
                .as_mut()
                .ok_or(Reason::NotInitialized)?
                .update(bytes);
            Ok(())
        });
        match result {
            Ok(()) => 1,
            Err(reason) => {
                raise!(prov, reason, c"mac_update");
                0
            }
        }
    })
}

/// `OSSL_FUNC_mac_final`: the caller states `outsize`, so every instance
/// is served. Finishes the computation: a second `final` (on this context
/// or on a `dupctx` copy made after the first) is refused until `init` or
/// a new `key` parameter restarts it. On failure `*outl` is 0 (if `outl`
/// is non-NULL), nothing is written to `out`, and the context is
/// unchanged.
pub unsafe extern "C" fn mac_final(
    mctx: *mut c_void,
    out: *mut u8,
    outl: *mut usize,
    outsize: usize,
) -> c_int {
    // SAFETY: OpenSSL passes a context this provider made.
    let Some(ctx) = (unsafe { mac_mut(mctx) }) else {
        // SAFETY: `outl` is NULL or the caller's writable `size_t`.
        return unsafe { final_result(0, outl) };
    };
    let prov = ctx.prov();
    let rc = guarded(Some(prov), site!(c"mac_final"), 0, || {
        let result = (|| {
            let alg = ctx.alg.ok_or(Reason::NotInitialized)?;
            let len = alg.output_len();
            check_output(out, outl, outsize, len)?;
            let state = ctx.running.take().ok_or(Reason::NotInitialized)?;
            let mut buf = Zeroizing::new([0u8; 128]);
            let tag = buf.get_mut(..len).ok_or(Reason::Internal)?;
            state.finalize_into(tag);
            // SAFETY: `check_output` saw non-NULL `out`/`outl` and
            // `outsize >= len`; the caller gives `outsize` writable bytes
            // (EVP_MAC_final's contract); `tag` is a local.
            unsafe { write_output(tag, out, outl) };
            Ok(())
        })();
        match result {
            Ok(()) => 1,
            Err(reason) => {
                raise!(prov, reason, c"mac_final");
                0
            }
        }
    });
    // SAFETY: `outl` is NULL or the caller's writable `size_t` (EVP_MAC_final
    // passes its local length, which it then copies to the caller's).
    unsafe { final_result(rc, outl) }
}

/// `OSSL_FUNC_mac_set_ctx_params`.
pub unsafe extern "C" fn mac_set_ctx_params(mctx: *mut c_void, params: *const OsslParam) -> c_int {
    // SAFETY: OpenSSL passes a context this provider made.
    let Some(ctx) = (unsafe { mac_mut(mctx) }) else {
        return 0;
    };
    let prov = ctx.prov();
    guarded(Some(prov), site!(c"mac_set_ctx_params"), 0, || {
        // SAFETY: OpenSSL passes a terminated OSSL_PARAM array (or NULL).
        match unsafe { ctx.set_params(params) } {
            Ok(()) => 1,
            Err(reason) => {
                raise!(prov, reason, c"mac_set_ctx_params");
                0
            }
        }
    })
}

/// `OSSL_FUNC_mac_get_ctx_params`: `size` and `block-size` of the chosen
/// digest (0 before one is chosen).
pub unsafe extern "C" fn mac_get_ctx_params(mctx: *mut c_void, params: *mut OsslParam) -> c_int {
    // SAFETY: OpenSSL passes a context this provider made.
    let Some(ctx) = (unsafe { mac_mut(mctx) }) else {
        return 0;
    };
    let prov = ctx.prov();
    guarded(Some(prov), site!(c"mac_get_ctx_params"), 0, || {
        let (size, block) = ctx
            .alg
            .map_or((0, 0), |a| (a.output_len() as u64, a.rate_len() as u64));
        // SAFETY: OpenSSL passes a terminated OSSL_PARAM array whose
        // buffers are writable for the call.
        let result = unsafe {
            answer_each(params, |p, name| {
                if name == OSSL_MAC_PARAM_SIZE {
                    set_uint(p, size)
                } else if name == OSSL_MAC_PARAM_BLOCK_SIZE {
                    set_uint(p, block)
                } else {
                    Ok(())
                }
            })
        };
        match result {
            Ok(()) => 1,
            Err(_) => {
                raise!(prov, Reason::BadParameter, c"mac_get_ctx_params");
                0
            }
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
pub unsafe extern "C" fn mac_settable_ctx_params(
    _mctx: *mut c_void,
    _provctx: *mut c_void,
) -> *const OsslParam {
    MAC_SETTABLE_CTX.as_ptr()
}

/// `OSSL_FUNC_mac_gettable_ctx_params`.
pub unsafe extern "C" fn mac_gettable_ctx_params(
    _mctx: *mut c_void,
    _provctx: *mut c_void,
) -> *const OsslParam {
    MAC_GETTABLE_CTX.as_ptr()
}
