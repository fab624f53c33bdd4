//! Reading and answering `OSSL_PARAM` arrays (the responder side of
//! `get_params`, the reader side of `set_params`).
//!
//! Semantics follow OpenSSL's `OSSL_PARAM_set_*` / `OSSL_PARAM_get_*`:
//! unknown keys are left alone; a parameter whose `data` is NULL only gets
//! its `return_size` (a size query); integers may be requested as signed or
//! unsigned, 1, 2, 4 or 8 bytes wide, as long as the value fits. Every
//! failure is [`Reason::BadParameter`].

use std::ffi::{CStr, c_char};

use crate::abi::{
    OSSL_PARAM_INTEGER, OSSL_PARAM_OCTET_STRING, OSSL_PARAM_UNSIGNED_INTEGER, OSSL_PARAM_UTF8_PTR,
    OSSL_PARAM_UTF8_STRING, OsslParam,
};
use crate::reason::Reason;

/// Longest parameter array walked; a longer one is treated as unterminated
/// (the core never sends more than a handful).
const MAX_PARAMS: usize = 1024;

/// Calls `answer` with each element of the NULL-key-terminated array
/// `params` and that element's key; stops at the first failure. An array
/// that does not end within [`MAX_PARAMS`] elements is
/// [`Reason::BadParameter`].
///
/// # Safety
///
/// `params` must be NULL or point to an `OSSL_PARAM` array terminated by an
/// element whose key is NULL, every key a NUL-terminated string, and every
/// element's `data`/`data_size` describing a writable buffer (or `data`
/// NULL), all valid and unaliased for the duration of the call.
pub(crate) unsafe fn answer_each(
    params: *mut OsslParam,
    mut answer: impl FnMut(&mut OsslParam, &CStr) -> Result<(), Reason>,
) -> Result<(), Reason> {
    if params.is_null() {
        return Ok(());
    }
    for i in 0..MAX_PARAMS {
        // SAFETY: the caller guarantees a terminated array; we stop at the
        // terminator, so element `i` is within it. `OsslParam` is repr(C) and
        // the pointer comes from C with its natural alignment.
        let p = unsafe { &mut *params.add(i) };
        if p.key.is_null() {
            return Ok(());
        }
        // SAFETY: keys are NUL-terminated strings (caller's guarantee) that
        // outlive this call.
        let key = unsafe { CStr::from_ptr(p.key) };
        answer(p, key)?;
    }
    Err(Reason::BadParameter)
}

/// Stores `value` in `p` (an integer parameter of any width that holds
/// it); [`Reason::BadParameter`] if `p` cannot hold it.
pub(crate) fn set_uint(p: &mut OsslParam, value: u64) -> Result<(), Reason> {
    let signed = match p.data_type {
        OSSL_PARAM_INTEGER => true,
        OSSL_PARAM_UNSIGNED_INTEGER => false,
        _ => return Err(Reason::BadParameter),
    };
    let size = p.data_size;
    let max = match (size, signed) {
        (1, false) => u64::from(u8::MAX),
        (2, false) => u64::from(u16::MAX),
        (4, false) => u64::from(u32::MAX),
        (8, false) => u64::MAX,
        (1, true) => i8::MAX as u64,
        (2, true) => i16::MAX as u64,
        (4, true) => i32::MAX as u64,
        (8, true) => i64::MAX as u64,
        _ => return Err(Reason::BadParameter),
    };
    p.return_size = size;
    if p.data.is_null() {
        return Ok(());
    }
    if value > max {
        return Err(Reason::BadParameter);
    }
    let bytes = value.to_ne_bytes();
    let src = if cfg!(target_endian = "little") {
        &bytes[..size]
    } else {
        &bytes[8 - size..]
    };
    // SAFETY: `data` is non-NULL and, per the caller of `answer_each`, points
    // to `data_size == size` writable bytes; `src` has exactly `size` bytes
    // and is a local, so the ranges do not overlap. Byte copies need no
    // alignment.
    unsafe { std::ptr::copy_nonoverlapping(src.as_ptr(), p.data.cast::<u8>(), size) };
    Ok(())
}

/// Stores the string `value` in `p`, as a pointer (`UTF8_PTR`; `value` must
/// live as long as the provider) or a copy (`UTF8_STRING`);
/// [`Reason::BadParameter`] for another type or a buffer too small.
pub(crate) fn set_utf8(p: &mut OsslParam, value: &CStr) -> Result<(), Reason> {
    let len = value.to_bytes().len();
    match p.data_type {
        OSSL_PARAM_UTF8_PTR => {
            p.return_size = len;
            if p.data.is_null() {
                return Ok(());
            }
            // OpenSSL's own requesters (`OSSL_PARAM_construct_utf8_ptr(key,
            // &ptr, 0)`) often leave `data_size` 0: `data` always points to
            // one `char *`. A size that is set but too small is refused.
            if p.data_size != 0 && p.data_size < size_of::<*const c_char>() {
                return Err(Reason::BadParameter);
            }
            // SAFETY: `data` is non-NULL and, by the UTF8_PTR convention,
            // points to a writable `char *`; an unaligned write makes no
            // alignment assumption.
            unsafe {
                p.data
                    .cast::<*const c_char>()
                    .write_unaligned(value.as_ptr())
            };
            Ok(())
        }
        OSSL_PARAM_UTF8_STRING => {
            p.return_size = len;
            if p.data.is_null() {
                return Ok(());
            }
            if p.data_size < len {
                return Err(Reason::BadParameter);
            }
            let with_nul = if p.data_size > len { len + 1 } else { len };
            // SAFETY: `data` is non-NULL with `data_size >= with_nul`
            // writable bytes (checked above); the source is `value`'s bytes
            // including its NUL (`with_nul <= len + 1`), a different object
            // from the caller's buffer.
            unsafe {
                std::ptr::copy_nonoverlapping(
                    value.as_ptr().cast::<u8>(),
                    p.data.cast::<u8>(),
                    with_nul,
                )
            };
            Ok(())
        }
        _ => Err(Reason::BadParameter),
    }
}

/// Reads an integer parameter of any width (1, 2, 4 or 8 bytes, signed or
/// unsigned) as a `u64`; `None` for another type or size, a NULL `data` or
/// a negative value.
pub(crate) fn get_uint(p: &OsslParam) -> Option<u64> {
    let signed = match p.data_type {
        OSSL_PARAM_INTEGER => true,
        OSSL_PARAM_UNSIGNED_INTEGER => false,
        _ => return None,
    };
    let size = p.data_size;
    if !matches!(size, 1 | 2 | 4 | 8) || p.data.is_null() {
        return None;
    }
    let mut bytes = [0u8; 8];
    let dst = if cfg!(target_endian = "little") {
        &mut bytes[..size]
    } else {
        &mut bytes[8 - size..]
    };
    // SAFETY: `data` is non-NULL and, per the caller of `answer_each`,
    // points to `data_size == size` readable bytes; `dst` is a local of
    // exactly `size` bytes. Byte copies need no alignment.
    unsafe { std::ptr::copy_nonoverlapping(p.data.cast::<u8>(), dst.as_mut_ptr(), size) };
    let negative = signed && {
        let top = if cfg!(target_endian = "little") {
            bytes[size - 1]
        } else {
            bytes[8 - size]
        };
        top & 0x80 != 0
    };
    if negative {
        return None;
    }
    Some(u64::from_ne_bytes(bytes))
}

/// Reads a UTF-8 string parameter (`UTF8_STRING`: `data_size` bytes, the
/// NUL not counted but tolerated; or `UTF8_PTR`) as bytes without any
/// terminator; `None` for another type or a NULL pointer.
pub(crate) fn get_utf8<'a>(p: &OsslParam) -> Option<&'a [u8]> {
    if p.data.is_null() {
        return None;
    }
    match p.data_type {
        OSSL_PARAM_UTF8_STRING => {
            if isize::try_from(p.data_size).is_err() {
                return None;
            }
            // SAFETY: a non-NULL `data` with `data_size <= isize::MAX`
            // readable bytes (the caller of `answer_each` guarantees the
            // buffer for the call, and the `'a` of the result is that call).
            let bytes = unsafe { std::slice::from_raw_parts(p.data.cast::<u8>(), p.data_size) };
            // Like OSSL_PARAM_get_utf8_string: the string ends at a NUL
            // within `data_size`, if any.
            let end = bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len());
            bytes.get(..end)
        }
        OSSL_PARAM_UTF8_PTR => {
            // SAFETY: `data` points to a `const char *` (UTF8_PTR
            // convention); an unaligned read makes no alignment assumption.
            let ptr = unsafe { p.data.cast::<*const c_char>().read_unaligned() };
            if ptr.is_null() {
                return None;
            }
            // SAFETY: a non-NULL pointer to a NUL-terminated string valid
            // for the call (OSSL_PARAM contract).
            Some(unsafe { CStr::from_ptr(ptr) }.to_bytes())
        }
        _ => None,
    }
}

/// Reads an octet-string parameter; `None` for another type or a NULL
/// `data` with a non-zero size.
pub(crate) fn get_octets<'a>(p: &OsslParam) -> Option<&'a [u8]> {
    if p.data_type != OSSL_PARAM_OCTET_STRING {
        return None;
    }
    if p.data_size == 0 {
        return Some(&[]);
    }
    if p.data.is_null() || isize::try_from(p.data_size).is_err() {
        return None;
    }
    // SAFETY: non-NULL `data` with `data_size <= isize::MAX` readable bytes
    // for the call (the caller of `answer_each` guarantees the buffer).
    Some(unsafe { std::slice::from_raw_parts(p.data.cast::<u8>(), p.data_size) })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;
    use std::ffi::c_void;

    fn param(data_type: u32, data: *mut c_void, data_size: usize) -> OsslParam {
        OsslParam {
            key: c"k".as_ptr(),
            data_type,
            data,
            data_size,
            return_size: crate::abi::OSSL_PARAM_UNMODIFIED,
        }
    }

    #[test]
    fn integers_of_every_width_and_signedness() {
        let mut u64v = 0u64;
        let mut p = param(OSSL_PARAM_UNSIGNED_INTEGER, (&raw mut u64v).cast(), 8);
        set_uint(&mut p, 192).unwrap();
        assert_eq!((u64v, p.return_size), (192, 8));
        assert_eq!(get_uint(&p), Some(192));

        let mut i32v = -1i32;
        let mut p = param(OSSL_PARAM_INTEGER, (&raw mut i32v).cast(), 4);
        set_uint(&mut p, 0).unwrap();
        assert_eq!(i32v, 0);
        assert_eq!(set_uint(&mut p, 1 << 31), Err(Reason::BadParameter));
        let mut neg = -5i32;
        let p = param(OSSL_PARAM_INTEGER, (&raw mut neg).cast(), 4);
        assert_eq!(get_uint(&p), None, "negative values are refused");

        let mut u8v = 0u8;
        let mut p = param(OSSL_PARAM_UNSIGNED_INTEGER, (&raw mut u8v).cast(), 1);
        assert_eq!(set_uint(&mut p, 256), Err(Reason::BadParameter));
        set_uint(&mut p, 255).unwrap();
        assert_eq!(u8v, 255);

        let mut odd = [0u8; 3];
        let mut p = param(OSSL_PARAM_UNSIGNED_INTEGER, odd.as_mut_ptr().cast(), 3);
        assert_eq!(set_uint(&mut p, 1), Err(Reason::BadParameter));
        let mut p = param(OSSL_PARAM_UTF8_STRING, odd.as_mut_ptr().cast(), 3);
        assert_eq!(set_uint(&mut p, 1), Err(Reason::BadParameter));

        // Size query: NULL data only sets return_size.
        let mut p = param(OSSL_PARAM_UNSIGNED_INTEGER, std::ptr::null_mut(), 8);
        set_uint(&mut p, 7).unwrap();
        assert_eq!(p.return_size, 8);
        assert_eq!(get_uint(&p), None);
    }

    #[test]
    fn strings_by_pointer_and_by_copy() {
        let mut ptr: *const c_char = std::ptr::null();
        let mut p = param(OSSL_PARAM_UTF8_PTR, (&raw mut ptr).cast(), 0);
        set_utf8(&mut p, c"pavelor").unwrap();
        // SAFETY: `set_utf8` stored the static string's pointer.
        assert_eq!(unsafe { CStr::from_ptr(ptr) }, c"pavelor");
        assert_eq!(p.return_size, 7);
        assert_eq!(get_utf8(&p), Some(&b"pavelor"[..]));

        let mut buf = [0xffu8; 8];
        let mut p = param(OSSL_PARAM_UTF8_STRING, buf.as_mut_ptr().cast(), 8);
        set_utf8(&mut p, c"pavelor").unwrap();
        assert_eq!(&buf, b"pavelor\0");
        let mut small = [0u8; 6];
        let mut p = param(OSSL_PARAM_UTF8_STRING, small.as_mut_ptr().cast(), 6);
        assert_eq!(set_utf8(&mut p, c"pavelor"), Err(Reason::BadParameter));

        // Reading: data_size without the NUL (OSSL_PARAM_construct_utf8_string
        // with an explicit length), or with it.
        let mut name = *b"PAVELOR-512\0";
        let p = param(OSSL_PARAM_UTF8_STRING, name.as_mut_ptr().cast(), 11);
        assert_eq!(get_utf8(&p), Some(&b"PAVELOR-512"[..]));
        let p = param(OSSL_PARAM_UTF8_STRING, name.as_mut_ptr().cast(), 12);
        assert_eq!(get_utf8(&p), Some(&b"PAVELOR-512"[..]));

        let mut key = [1u8, 2, 3];
        let p = param(OSSL_PARAM_OCTET_STRING, key.as_mut_ptr().cast(), 3);
        assert_eq!(get_octets(&p), Some(&[1u8, 2, 3][..]));
        let p = param(OSSL_PARAM_OCTET_STRING, std::ptr::null_mut(), 3);
        assert_eq!(get_octets(&p), None);
    }

    #[test]
    fn walks_to_the_terminator_and_bounds_the_walk() {
        let mut v = 0u64;
        let mut arr = [
            OsslParam {
                key: c"size".as_ptr(),
                ..param(OSSL_PARAM_UNSIGNED_INTEGER, (&raw mut v).cast(), 8)
            },
            OsslParam::END,
        ];
        let mut seen = Vec::new();
        // SAFETY: a terminated array of valid parameters.
        unsafe {
            answer_each(arr.as_mut_ptr(), |p, key| {
                seen.push(key.to_owned());
                set_uint(p, 64)
            })
        }
        .unwrap();
        assert_eq!(seen, [c"size".to_owned()]);
        assert_eq!(v, 64);
        // SAFETY: NULL is allowed.
        let none = unsafe { answer_each(std::ptr::null_mut(), |_, _| Ok(())) };
        assert_eq!(none, Ok(()));
    }
}
