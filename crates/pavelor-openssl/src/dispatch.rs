//! The algorithm tables `query_operation` answers with: for every
//! instance of [`Algorithm::ALL`] an `OSSL_ALGORITHM` entry (its names and
//! description from [`crate::names`], its `OSSL_DISPATCH` table made of the
//! instance's versions of the [`crate::digest`] entry points), and the one
//! MAC, [`crate::mac`]'s HMAC. Also [`entry!`], the one way an
//! `OSSL_DISPATCH` entry is made.

use std::ffi::{c_int, c_void};
use std::marker::PhantomData;
use std::sync::OnceLock;

use pavelor::{Algorithm, InstanceFn, Variant};

use crate::abi::{
    OSSL_FUNC_DIGEST_DIGEST, OSSL_FUNC_DIGEST_DUPCTX, OSSL_FUNC_DIGEST_FINAL,
    OSSL_FUNC_DIGEST_FREECTX, OSSL_FUNC_DIGEST_GET_PARAMS, OSSL_FUNC_DIGEST_GETTABLE_PARAMS,
    OSSL_FUNC_DIGEST_INIT, OSSL_FUNC_DIGEST_NEWCTX, OSSL_FUNC_DIGEST_SET_CTX_PARAMS,
    OSSL_FUNC_DIGEST_SETTABLE_CTX_PARAMS, OSSL_FUNC_DIGEST_UPDATE, OSSL_FUNC_MAC_DUPCTX,
    OSSL_FUNC_MAC_FINAL, OSSL_FUNC_MAC_FREECTX, OSSL_FUNC_MAC_GET_CTX_PARAMS,
    OSSL_FUNC_MAC_GETTABLE_CTX_PARAMS, OSSL_FUNC_MAC_INIT, OSSL_FUNC_MAC_NEWCTX,
    OSSL_FUNC_MAC_SET_CTX_PARAMS, OSSL_FUNC_MAC_SETTABLE_CTX_PARAMS, OSSL_FUNC_MAC_UPDATE,
    OsslAlgorithm, OsslDispatch, OsslParam, Table,
};
use crate::digest::{
    digest_dupctx, digest_final, digest_freectx, digest_get_params, digest_gettable_params,
    digest_init, digest_newctx, digest_oneshot, digest_set_ctx_params, digest_settable_ctx_params,
    digest_update,
};
use crate::mac::{
    mac_dupctx, mac_final, mac_freectx, mac_get_ctx_params, mac_gettable_ctx_params, mac_init,
    mac_newctx, mac_set_ctx_params, mac_settable_ctx_params, mac_update,
};
use crate::names::{HMAC_NAMES, InstanceNames, PROPERTY, hmac_description};

/// An `OSSL_DISPATCH` entry for `$f`, whose real signature is `$ty` (the
/// one core_dispatch.h gives function number `$id`).
macro_rules! entry {
    ($id:expr, $f:expr, $ty:ty) => {
        $crate::abi::OsslDispatch {
            function_id: $id,
            // SAFETY: only the stored type changes (fn pointer to fn
            // pointer, same size); OpenSSL casts it back to `$ty`, the
            // signature it defines for `$id`, before calling.
            function: Some(unsafe { std::mem::transmute::<$ty, $crate::abi::GenericFn>($f) }),
        }
    };
}
pub(crate) use entry;

/// The entry that ends a dispatch table.
pub(crate) const DISPATCH_END: OsslDispatch = OsslDispatch {
    function_id: 0,
    function: None,
};

/// The entry that ends an algorithm list.
const ALGORITHM_END: OsslAlgorithm = OsslAlgorithm {
    algorithm_names: std::ptr::null(),
    property_definition: std::ptr::null(),
    implementation: std::ptr::null(),
    algorithm_description: std::ptr::null(),
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
/// `gettable_params(provctx)`: a parameter descriptor list.
pub(crate) type GettableFn = unsafe extern "C" fn(*mut c_void) -> *const OsslParam;
type SetCtxParamsFn = unsafe extern "C" fn(*mut c_void, *const OsslParam) -> c_int;
type CtxParamsTableFn = unsafe extern "C" fn(*mut c_void, *mut c_void) -> *const OsslParam;
type MacInitFn = unsafe extern "C" fn(*mut c_void, *const u8, usize, *const OsslParam) -> c_int;
type CtxGetParamsFn = unsafe extern "C" fn(*mut c_void, *mut OsslParam) -> c_int;

/// The digest dispatch table of instance `V`.
struct DigestTable<V>(PhantomData<V>);

impl<V: Variant> DigestTable<V> {
    const TABLE: &'static Table<OsslDispatch, 12> = &Table([
        entry!(OSSL_FUNC_DIGEST_NEWCTX, digest_newctx::<V>, NewCtxFn),
        entry!(OSSL_FUNC_DIGEST_INIT, digest_init::<V>, InitFn),
        entry!(OSSL_FUNC_DIGEST_UPDATE, digest_update::<V>, UpdateFn),
        entry!(OSSL_FUNC_DIGEST_FINAL, digest_final::<V>, FinalFn),
        entry!(OSSL_FUNC_DIGEST_DIGEST, digest_oneshot::<V>, OneShotFn),
        entry!(OSSL_FUNC_DIGEST_FREECTX, digest_freectx::<V>, FreeCtxFn),
        entry!(OSSL_FUNC_DIGEST_DUPCTX, digest_dupctx::<V>, DupCtxFn),
        entry!(
            OSSL_FUNC_DIGEST_GET_PARAMS,
            digest_get_params::<V>,
            GetParamsFn
        ),
        entry!(
            OSSL_FUNC_DIGEST_GETTABLE_PARAMS,
            digest_gettable_params,
            GettableFn
        ),
        entry!(
            OSSL_FUNC_DIGEST_SET_CTX_PARAMS,
            digest_set_ctx_params::<V>,
            SetCtxParamsFn
        ),
        entry!(
            OSSL_FUNC_DIGEST_SETTABLE_CTX_PARAMS,
            digest_settable_ctx_params,
            CtxParamsTableFn
        ),
        DISPATCH_END,
    ]);
}

/// The `OSSL_ALGORITHM` entry of an instance.
struct DigestAlgorithm;

impl InstanceFn for DigestAlgorithm {
    type Output = OsslAlgorithm;
    fn call<V: Variant>(self) -> OsslAlgorithm {
        OsslAlgorithm {
            algorithm_names: InstanceNames::<V>::NAMES.as_ptr(),
            property_definition: PROPERTY.as_ptr(),
            implementation: DigestTable::<V>::TABLE.as_ptr(),
            algorithm_description: InstanceNames::<V>::DESCRIPTION.as_ptr(),
        }
    }
}

/// The digest list, one entry per instance in the order of
/// [`Algorithm::ALL`], then the terminator.
type DigestList = Table<OsslAlgorithm, { Algorithm::ALL.len() + 1 }>;

/// The `query_operation` answer for `OSSL_OP_DIGEST`. Made on first use;
/// everything it points to is a constant.
pub(crate) fn digests() -> &'static DigestList {
    static DIGESTS: OnceLock<DigestList> = OnceLock::new();
    DIGESTS.get_or_init(|| {
        let mut list = [ALGORITHM_END; Algorithm::ALL.len() + 1];
        for (entry, alg) in list.iter_mut().zip(Algorithm::ALL) {
            *entry = alg.dispatch(DigestAlgorithm);
        }
        Table(list)
    })
}

static MAC_HMAC: Table<OsslDispatch, 11> = Table([
    entry!(OSSL_FUNC_MAC_NEWCTX, mac_newctx, NewCtxFn),
    entry!(OSSL_FUNC_MAC_DUPCTX, mac_dupctx, DupCtxFn),
    entry!(OSSL_FUNC_MAC_FREECTX, mac_freectx, FreeCtxFn),
    entry!(OSSL_FUNC_MAC_INIT, mac_init, MacInitFn),
    entry!(OSSL_FUNC_MAC_UPDATE, mac_update, UpdateFn),
    entry!(OSSL_FUNC_MAC_FINAL, mac_final, FinalFn),
    entry!(
        OSSL_FUNC_MAC_SET_CTX_PARAMS,
        mac_set_ctx_params,
        SetCtxParamsFn
    ),
    entry!(
        OSSL_FUNC_MAC_GET_CTX_PARAMS,
        mac_get_ctx_params,
        CtxGetParamsFn
    ),
    entry!(
        OSSL_FUNC_MAC_SETTABLE_CTX_PARAMS,
        mac_settable_ctx_params,
        CtxParamsTableFn
    ),
    entry!(
        OSSL_FUNC_MAC_GETTABLE_CTX_PARAMS,
        mac_gettable_ctx_params,
        CtxParamsTableFn
    ),
    DISPATCH_END,
]);

/// The `query_operation` answer for `OSSL_OP_MAC`. Made on first use
/// (the description is, see [`hmac_description`]).
pub(crate) fn macs() -> &'static Table<OsslAlgorithm, 2> {
    static MACS: OnceLock<Table<OsslAlgorithm, 2>> = OnceLock::new();
    MACS.get_or_init(|| {
        Table([
            OsslAlgorithm {
                algorithm_names: HMAC_NAMES.as_ptr(),
                property_definition: PROPERTY.as_ptr(),
                implementation: MAC_HMAC.as_ptr(),
                algorithm_description: hmac_description().as_ptr(),
            },
            ALGORITHM_END,
        ])
    })
}

#[cfg(test)]
mod tests {
    use std::ffi::CStr;

    use super::*;
    use crate::names::digest_names;

    #[test]
    fn one_digest_entry_per_instance_then_the_end() {
        let list = &digests().0;
        for (entry, alg) in list.iter().zip(Algorithm::ALL) {
            // SAFETY: the names are C string constants.
            let names = unsafe { CStr::from_ptr(entry.algorithm_names) };
            assert_eq!(names, digest_names(alg));
            assert!(!entry.implementation.is_null());
        }
        assert!(list.last().is_some_and(|e| e.algorithm_names.is_null()));
        assert_eq!(list.len(), Algorithm::ALL.len() + 1);
    }
}
