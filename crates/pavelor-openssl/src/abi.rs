//! The part of OpenSSL 3's stable provider ABI this module uses, declared
//! from `<openssl/core.h>`, `<openssl/core_dispatch.h>` and
//! `<openssl/core_names.h>` (OpenSSL 3.0; these numbers and layouts are
//! frozen for all 3.x releases).

use std::ffi::{CStr, c_char, c_int, c_uint, c_void};

/// `OSSL_CORE_HANDLE`: opaque, only passed back to the core.
#[repr(C)]
pub struct OsslCoreHandle {
    _opaque: [u8; 0],
}

/// A generic function pointer, `void (*)(void)` in C.
pub type GenericFn = unsafe extern "C" fn();

/// `OSSL_DISPATCH`: `{ int function_id; void (*function)(void); }`.
#[repr(C)]
pub struct OsslDispatch {
    /// One of the `OSSL_FUNC_*` numbers; 0 ends the table.
    pub function_id: c_int,
    /// The function, cast to `void (*)(void)`.
    pub function: Option<GenericFn>,
}

/// `OSSL_ALGORITHM`.
#[repr(C)]
pub struct OsslAlgorithm {
    /// Colon-separated names, e.g. `"PAVELOR-512:PAVELOR512"`.
    pub algorithm_names: *const c_char,
    /// Property definition, e.g. `"provider=pavelor"`.
    pub property_definition: *const c_char,
    /// The implementation's dispatch table.
    pub implementation: *const OsslDispatch,
    /// Human-readable description (may be NULL).
    pub algorithm_description: *const c_char,
}

/// `OSSL_PARAM`.
#[repr(C)]
pub struct OsslParam {
    /// Parameter name; NULL ends an array.
    pub key: *const c_char,
    /// One of the `OSSL_PARAM_*` type numbers.
    pub data_type: c_uint,
    /// The value's buffer.
    pub data: *mut c_void,
    /// Size of `data` in bytes.
    pub data_size: usize,
    /// Set by the responder: the size of the value it wrote (or needs).
    pub return_size: usize,
}

/// `OSSL_PARAM_UNMODIFIED`: the initial `return_size`.
pub const OSSL_PARAM_UNMODIFIED: usize = usize::MAX;

impl OsslParam {
    /// A gettable-parameter descriptor (no data).
    pub const fn descriptor(key: &'static CStr, data_type: c_uint) -> Self {
        OsslParam {
            key: key.as_ptr(),
            data_type,
            data: std::ptr::null_mut(),
            data_size: 0,
            return_size: OSSL_PARAM_UNMODIFIED,
        }
    }

    /// The terminating element (`OSSL_PARAM_END`).
    pub const END: OsslParam = OsslParam {
        key: std::ptr::null(),
        data_type: 0,
        data: std::ptr::null_mut(),
        data_size: 0,
        return_size: 0,
    };
}

/// `OSSL_ITEM`: `{ unsigned int id; void *ptr; }` (reason strings).
#[repr(C)]
pub struct OsslItem {
    /// The reason code.
    pub id: c_uint,
    /// Its text (a `const char *`).
    pub ptr: *mut c_void,
}

/// A table of C structs for the core (dispatch tables, algorithm lists,
/// parameter descriptors, reason strings), built only by this crate as
/// `static`s, constants, or the once-initialized contents of a `static`
/// `OnceLock`, so it can be shared between threads (see the `Sync` and
/// `Send` impls).
///
/// Crate-private: `Sync` holds because of how this crate fills and uses its
/// tables, which code outside it could not be held to.
#[repr(transparent)]
pub(crate) struct Table<T, const N: usize>(pub(crate) [T; N]);

// Why `Table` may be `Sync` (the SAFETY argument of each impl below): it
// is `Sync` only for these four element types, three of which hold raw
// pointers and so are not `Sync` themselves. In every `Table` of this
// crate (`static`s, never `static mut`, constants, and the contents of a
// `OnceLock` static, written once before any reference to it exists; none
// with interior mutability) those pointers are NULL or point to immutable
// `'static` data: C string literals and constants, strings in `OnceLock`
// statics (written once, before any pointer to them exists), other
// `Table`s of this kind, and functions. Neither this crate nor the core writes through them
// (OpenSSL takes these tables as `const OSSL_DISPATCH *`, `const
// OSSL_ALGORITHM *`, `const OSSL_PARAM *` and `const OSSL_ITEM *`;
// `OsslItem::ptr` is `void *` only by C's declaration and points to a
// reason string the core only reads). So sharing a `&Table` between
// threads only ever shares reads of immutable data. The type is
// `pub(crate)`, so no code outside the crate can build a `Table` that
// breaks this.
//
// SAFETY: `OsslDispatch` holds only an `int` and a function pointer, which
// are `Sync`; it is listed because an explicit impl replaces the automatic
// one for every `T`.
unsafe impl<const N: usize> Sync for Table<OsslDispatch, N> {}
// SAFETY: as above (names, properties, descriptions: C string literals,
// constants, or a `OnceLock` string; `implementation`: a `static` or
// constant `Table<OsslDispatch, _>`).
unsafe impl<const N: usize> Sync for Table<OsslAlgorithm, N> {}
// SAFETY: an algorithm list only points to immutable `'static` data (see
// above), which any thread may read, so the list may be built on one
// thread (inside `OnceLock::get_or_init`) and then read from another.
unsafe impl<const N: usize> Send for Table<OsslAlgorithm, N> {}
// SAFETY: as above (descriptors: `key` a C string literal, `data` NULL).
unsafe impl<const N: usize> Sync for Table<OsslParam, N> {}
// SAFETY: as above (`ptr`: a C string literal, or NULL at the end).
unsafe impl<const N: usize> Sync for Table<OsslItem, N> {}

impl<T, const N: usize> Table<T, N> {
    /// Pointer to the first element, as C expects it.
    pub(crate) const fn as_ptr(&self) -> *const T {
        self.0.as_ptr()
    }
}

// OSSL_PARAM data types (core.h).
/// `OSSL_PARAM_INTEGER`.
pub const OSSL_PARAM_INTEGER: c_uint = 1;
/// `OSSL_PARAM_UNSIGNED_INTEGER`.
pub const OSSL_PARAM_UNSIGNED_INTEGER: c_uint = 2;
/// `OSSL_PARAM_UTF8_STRING`.
pub const OSSL_PARAM_UTF8_STRING: c_uint = 4;
/// `OSSL_PARAM_OCTET_STRING`.
pub const OSSL_PARAM_OCTET_STRING: c_uint = 5;
/// `OSSL_PARAM_UTF8_PTR`.
pub const OSSL_PARAM_UTF8_PTR: c_uint = 6;

// Core functions offered to the provider (core_dispatch.h).
/// `OSSL_FUNC_CORE_NEW_ERROR`.
pub const OSSL_FUNC_CORE_NEW_ERROR: c_int = 5;
/// `OSSL_FUNC_CORE_SET_ERROR_DEBUG`.
pub const OSSL_FUNC_CORE_SET_ERROR_DEBUG: c_int = 6;
/// `OSSL_FUNC_CORE_VSET_ERROR`.
pub const OSSL_FUNC_CORE_VSET_ERROR: c_int = 7;

/// `void core_new_error(const OSSL_CORE_HANDLE *)`.
pub type CoreNewErrorFn = unsafe extern "C" fn(*const OsslCoreHandle);
/// `void core_set_error_debug(const OSSL_CORE_HANDLE *, const char *file,
/// int line, const char *func)`.
pub type CoreSetErrorDebugFn =
    unsafe extern "C" fn(*const OsslCoreHandle, *const c_char, c_int, *const c_char);
/// `void core_vset_error(const OSSL_CORE_HANDLE *, uint32_t reason, const
/// char *fmt, va_list args)`.
///
/// `va_list` is declared as a pointer: on every Linux ABI Rust targets it is
/// passed as one (an array type decaying to a pointer on x86-64, s390x and
/// others; a 32-byte struct passed by reference on AArch64; a plain pointer
/// elsewhere). This module always passes a NULL format (the reason code's
/// registered text is the message), so the core never reads the list.
pub type CoreVsetErrorFn =
    unsafe extern "C" fn(*const OsslCoreHandle, u32, *const c_char, *mut c_void);

// Provider functions offered to the core.
/// `OSSL_FUNC_PROVIDER_TEARDOWN`.
pub const OSSL_FUNC_PROVIDER_TEARDOWN: c_int = 1024;
/// `OSSL_FUNC_PROVIDER_GETTABLE_PARAMS`.
pub const OSSL_FUNC_PROVIDER_GETTABLE_PARAMS: c_int = 1025;
/// `OSSL_FUNC_PROVIDER_GET_PARAMS`.
pub const OSSL_FUNC_PROVIDER_GET_PARAMS: c_int = 1026;
/// `OSSL_FUNC_PROVIDER_QUERY_OPERATION`.
pub const OSSL_FUNC_PROVIDER_QUERY_OPERATION: c_int = 1027;
/// `OSSL_FUNC_PROVIDER_GET_REASON_STRINGS`.
pub const OSSL_FUNC_PROVIDER_GET_REASON_STRINGS: c_int = 1029;

/// `OSSL_OP_DIGEST`.
pub const OSSL_OP_DIGEST: c_int = 1;
/// `OSSL_OP_MAC`.
pub const OSSL_OP_MAC: c_int = 3;

// MAC functions.
/// `OSSL_FUNC_MAC_NEWCTX`.
pub const OSSL_FUNC_MAC_NEWCTX: c_int = 1;
/// `OSSL_FUNC_MAC_DUPCTX`.
pub const OSSL_FUNC_MAC_DUPCTX: c_int = 2;
/// `OSSL_FUNC_MAC_FREECTX`.
pub const OSSL_FUNC_MAC_FREECTX: c_int = 3;
/// `OSSL_FUNC_MAC_INIT`.
pub const OSSL_FUNC_MAC_INIT: c_int = 4;
/// `OSSL_FUNC_MAC_UPDATE`.
pub const OSSL_FUNC_MAC_UPDATE: c_int = 5;
/// `OSSL_FUNC_MAC_FINAL`.
pub const OSSL_FUNC_MAC_FINAL: c_int = 6;
/// `OSSL_FUNC_MAC_GET_CTX_PARAMS`.
pub const OSSL_FUNC_MAC_GET_CTX_PARAMS: c_int = 8;
/// `OSSL_FUNC_MAC_SET_CTX_PARAMS`.
pub const OSSL_FUNC_MAC_SET_CTX_PARAMS: c_int = 9;
/// `OSSL_FUNC_MAC_GETTABLE_CTX_PARAMS`.
pub const OSSL_FUNC_MAC_GETTABLE_CTX_PARAMS: c_int = 11;
/// `OSSL_FUNC_MAC_SETTABLE_CTX_PARAMS`.
pub const OSSL_FUNC_MAC_SETTABLE_CTX_PARAMS: c_int = 12;

// Digest functions.
/// `OSSL_FUNC_DIGEST_NEWCTX`.
pub const OSSL_FUNC_DIGEST_NEWCTX: c_int = 1;
/// `OSSL_FUNC_DIGEST_INIT`.
pub const OSSL_FUNC_DIGEST_INIT: c_int = 2;
/// `OSSL_FUNC_DIGEST_UPDATE`.
pub const OSSL_FUNC_DIGEST_UPDATE: c_int = 3;
/// `OSSL_FUNC_DIGEST_FINAL`.
pub const OSSL_FUNC_DIGEST_FINAL: c_int = 4;
/// `OSSL_FUNC_DIGEST_DIGEST`.
pub const OSSL_FUNC_DIGEST_DIGEST: c_int = 5;
/// `OSSL_FUNC_DIGEST_FREECTX`.
pub const OSSL_FUNC_DIGEST_FREECTX: c_int = 6;
/// `OSSL_FUNC_DIGEST_DUPCTX`.
pub const OSSL_FUNC_DIGEST_DUPCTX: c_int = 7;
/// `OSSL_FUNC_DIGEST_GET_PARAMS`.
pub const OSSL_FUNC_DIGEST_GET_PARAMS: c_int = 8;
/// `OSSL_FUNC_DIGEST_SET_CTX_PARAMS`.
pub const OSSL_FUNC_DIGEST_SET_CTX_PARAMS: c_int = 9;
/// `OSSL_FUNC_DIGEST_GETTABLE_PARAMS`.
pub const OSSL_FUNC_DIGEST_GETTABLE_PARAMS: c_int = 11;
/// `OSSL_FUNC_DIGEST_SETTABLE_CTX_PARAMS`.
pub const OSSL_FUNC_DIGEST_SETTABLE_CTX_PARAMS: c_int = 12;

// Parameter names (core_names.h).
/// `OSSL_PROV_PARAM_NAME` (utf8_ptr).
pub const OSSL_PROV_PARAM_NAME: &CStr = c"name";
/// `OSSL_PROV_PARAM_VERSION` (utf8_ptr).
pub const OSSL_PROV_PARAM_VERSION: &CStr = c"version";
/// `OSSL_PROV_PARAM_BUILDINFO` (utf8_ptr).
pub const OSSL_PROV_PARAM_BUILDINFO: &CStr = c"buildinfo";
/// `OSSL_PROV_PARAM_STATUS` (int).
pub const OSSL_PROV_PARAM_STATUS: &CStr = c"status";
/// `OSSL_DIGEST_PARAM_BLOCK_SIZE` (size_t).
pub const OSSL_DIGEST_PARAM_BLOCK_SIZE: &CStr = c"blocksize";
/// `OSSL_DIGEST_PARAM_SIZE` (size_t).
pub const OSSL_DIGEST_PARAM_SIZE: &CStr = c"size";
/// `OSSL_DIGEST_PARAM_XOFLEN` (size_t).
pub const OSSL_DIGEST_PARAM_XOFLEN: &CStr = c"xoflen";
/// `OSSL_DIGEST_PARAM_XOF` (int, 0 or 1).
pub const OSSL_DIGEST_PARAM_XOF: &CStr = c"xof";
/// `OSSL_DIGEST_PARAM_ALGID_ABSENT` (int, 0 or 1).
pub const OSSL_DIGEST_PARAM_ALGID_ABSENT: &CStr = c"algid-absent";
/// `OSSL_MAC_PARAM_KEY` (octet string).
pub const OSSL_MAC_PARAM_KEY: &CStr = c"key";
/// `OSSL_MAC_PARAM_DIGEST` (utf8 string).
pub const OSSL_MAC_PARAM_DIGEST: &CStr = c"digest";
/// `OSSL_MAC_PARAM_PROPERTIES` (utf8 string).
pub const OSSL_MAC_PARAM_PROPERTIES: &CStr = c"properties";
/// `OSSL_MAC_PARAM_SIZE` (size_t).
pub const OSSL_MAC_PARAM_SIZE: &CStr = c"size";
/// `OSSL_MAC_PARAM_BLOCK_SIZE` (size_t).
pub const OSSL_MAC_PARAM_BLOCK_SIZE: &CStr = c"block-size";
