//! The provider itself: [`OSSL_provider_init`] (which resolves the backend,
//! once), teardown, `get_params` / `gettable_params`, `query_operation`,
//! `get_reason_strings`, and the provider's own dispatch table.

use std::ffi::{c_int, c_void};

use pavelor::Available;

use crate::abi::{
    OSSL_FUNC_PROVIDER_GET_PARAMS, OSSL_FUNC_PROVIDER_GET_REASON_STRINGS,
    OSSL_FUNC_PROVIDER_GETTABLE_PARAMS, OSSL_FUNC_PROVIDER_QUERY_OPERATION,
    OSSL_FUNC_PROVIDER_TEARDOWN, OSSL_OP_DIGEST, OSSL_OP_MAC, OSSL_PARAM_INTEGER,
    OSSL_PARAM_UTF8_PTR, OSSL_PROV_PARAM_BUILDINFO, OSSL_PROV_PARAM_NAME, OSSL_PROV_PARAM_STATUS,
    OSSL_PROV_PARAM_VERSION, OsslAlgorithm, OsslCoreHandle, OsslDispatch, OsslItem, OsslParam,
    Table,
};
use crate::boundary::{free_ctx, guarded, new_ctx};
use crate::dispatch::{DISPATCH_END, GettableFn, digests, entry, macs};
use crate::names::{PROVIDER_NAME, PROVIDER_VERSION};
use crate::params::{answer_each, set_uint, set_utf8};
use crate::provctx::{ProvCtx, prov_ref};
use crate::reason::{CoreErrors, REASON_STRINGS, site};

/// The backend the provider is asked for: it takes no configuration, so
/// none, which [`Available::resolve`] makes the fastest this CPU runs.
const BACKEND_CHOICE: Option<&str> = None;

/// `OSSL_FUNC_provider_teardown`.
unsafe extern "C" fn provider_teardown(provctx: *mut c_void) {
    // SAFETY: a non-NULL `provctx` is the `ProvCtx` `OSSL_provider_init`
    // made with `new_ctx`; the core calls teardown once, after every
    // context of the provider is gone.
    unsafe { free_ctx::<ProvCtx>(provctx) }
}

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
/// version and the backend chosen), `status` = 1. A bad request returns 0
/// and raises nothing (the core reports the failure).
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
        c_int::from(result.is_ok())
    })
}

/// `OSSL_FUNC_provider_query_operation`: the digests for `OSSL_OP_DIGEST`,
/// the MAC for `OSSL_OP_MAC`.
unsafe extern "C" fn provider_query_operation(
    _provctx: *mut c_void,
    operation_id: c_int,
    no_store: *mut c_int,
) -> *const OsslAlgorithm {
    if !no_store.is_null() {
        // SAFETY: non-NULL; the core passes a pointer to its `int`.
        // 0: the core may cache the answer (it does not change).
        unsafe { no_store.write(0) };
    }
    guarded(
        None,
        site!(c"provider_query_operation"),
        std::ptr::null(),
        || match operation_id {
            OSSL_OP_DIGEST => digests().as_ptr(),
            OSSL_OP_MAC => macs().as_ptr(),
            _ => std::ptr::null(),
        },
    )
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

/// The provider entry point, called by OpenSSL when it loads the module.
///
/// Reads the core's error functions from `in_`, resolves the backend (the
/// one time it is chosen: every digest of the provider then runs on it),
/// and answers with the provider dispatch table and a new provider context.
/// Returns 1 on success, 0 on failure (a NULL `out`/`provctx`, a backend
/// that does not resolve, or a panic).
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
        // SAFETY: `handle` and `in_` are the core's (this function's
        // contract is `read`'s).
        let errors = unsafe { CoreErrors::read(handle, in_) };
        let Ok(backend) = Available::resolve(BACKEND_CHOICE) else {
            return 0;
        };
        let prov = new_ctx(ProvCtx::new(errors, backend));
        // SAFETY: `out` and `provctx` are non-NULL (checked above) and
        // point to the core's variables for these answers.
        unsafe {
            out.write(PROVIDER_DISPATCH.as_ptr());
            provctx.write(prov);
        }
        1
    })
}
