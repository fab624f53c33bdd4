//! The provider context [`ProvCtx`]: what `OSSL_provider_init` sets up
//! once and every entry point reaches through `provctx` or an algorithm
//! context: the core's error functions, the backend, the build info.

use std::ffi::{CString, c_void};

use pavelor::Available;

use crate::reason::{CoreErrors, Reason, Site};

/// The provider context. Immutable after `OSSL_provider_init`, so shared
/// freely between threads.
pub(crate) struct ProvCtx {
    errors: CoreErrors,
    /// The backend every digest of the provider runs on, resolved once at
    /// initialization.
    pub(crate) backend: Available,
    /// The `buildinfo` parameter (crate version and backend).
    pub(crate) buildinfo: CString,
}

impl ProvCtx {
    /// A provider context raising errors through `errors`, hashing with
    /// `backend`.
    pub(crate) fn new(errors: CoreErrors, backend: Available) -> Self {
        let buildinfo = CString::new(format!(
            "pavelor-openssl {} (backend {backend})",
            env!("CARGO_PKG_VERSION")
        ))
        .unwrap_or_else(|_| c"pavelor-openssl".to_owned());
        ProvCtx {
            errors,
            backend,
            buildinfo,
        }
    }

    /// Puts `reason` on the calling thread's OpenSSL error queue, reported
    /// at `at` (the entry point's [`site!`](crate::reason::site)).
    pub(crate) fn raise(&self, reason: Reason, at: Site) {
        self.errors.raise(reason, at);
    }
}

/// The provider context behind a `void *provctx`, if non-NULL.
///
/// # Safety
///
/// `provctx` must be NULL or the pointer `OSSL_provider_init` returned,
/// not yet torn down.
pub(crate) unsafe fn prov_ref<'a>(provctx: *mut c_void) -> Option<&'a ProvCtx> {
    // SAFETY: per the contract, a live `ProvCtx` made by `Box::into_raw`
    // (or NULL); it is only read.
    unsafe { provctx.cast::<ProvCtx>().as_ref() }
}

/// The provider context as an algorithm context (digest or MAC) holds it.
#[derive(Clone, Copy)]
pub(crate) struct ProvPtr(*const ProvCtx);

impl ProvPtr {
    /// Points to `prov`, which must be the live provider context an
    /// algorithm context is being made for.
    pub(crate) fn new(prov: &ProvCtx) -> Self {
        ProvPtr(prov)
    }

    /// The provider context; its lifetime is not tied to `self` (it
    /// outlives every algorithm context, see below), so it can be used
    /// while the algorithm context is mutably borrowed.
    pub(crate) fn get<'p>(self) -> &'p ProvCtx {
        // SAFETY: the pointer was a live provider context when the
        // algorithm context holding it was made (`new`), and OpenSSL keeps
        // the provider (and so its context) alive while any of its
        // algorithm contexts exists: an EVP_MD_CTX holds its EVP_MD and an
        // EVP_MAC_CTX its EVP_MAC, each of which holds a reference to the
        // provider.
        unsafe { &*self.0 }
    }
}
