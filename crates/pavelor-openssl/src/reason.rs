//! The crate's error type [`Reason`]: the reason codes this provider puts
//! on the OpenSSL error queue, their texts (served by
//! `get_reason_strings`), and raising one through the core's error
//! functions ([`CoreErrors`]), at a [`Site`] made by [`site!`].

use std::ffi::{CStr, c_int};

use crate::abi::{
    CoreNewErrorFn, CoreSetErrorDebugFn, CoreVsetErrorFn, GenericFn, OSSL_FUNC_CORE_NEW_ERROR,
    OSSL_FUNC_CORE_SET_ERROR_DEBUG, OSSL_FUNC_CORE_VSET_ERROR, OsslCoreHandle, OsslDispatch,
    OsslItem, Table,
};

/// Why a call failed: the reason codes this provider puts on the OpenSSL
/// error queue (the core combines them with the provider's library number;
/// the texts are served by `get_reason_strings`, so `ERR_error_string`
/// shows them). The numbers are part of the provider's interface and do
/// not change; 6 is not used.
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
    /// `final` of a digest longer than `EVP_MAX_MD_SIZE` that is not the
    /// final of an `EVP_DigestFinalXOF` call stating the digest size (see
    /// [`EVP_MAX_MD_SIZE`](crate::EVP_MAX_MD_SIZE)).
    LongDigest = 7,
    /// A parameter with a wrong type, size or value, or a parameter array
    /// without its terminator.
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
    /// Every reason, in the order of their codes.
    pub const ALL: [Reason; 9] = [
        Reason::NullPointer,
        Reason::OutputTooSmall,
        Reason::NotInitialized,
        Reason::LengthTooLarge,
        Reason::Internal,
        Reason::LongDigest,
        Reason::BadParameter,
        Reason::OutputSizeNotDigestSize,
        Reason::XoflenNotForThisFinal,
    ];

    /// The reason code OpenSSL sees.
    pub const fn code(self) -> u32 {
        self as u32
    }

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

/// The `get_reason_strings` answer: every [`Reason`] with its message,
/// then the terminator.
pub(crate) static REASON_STRINGS: Table<OsslItem, { Reason::ALL.len() + 1 }> = {
    let mut items = [const {
        OsslItem {
            id: 0,
            ptr: std::ptr::null_mut(),
        }
    }; Reason::ALL.len() + 1];
    let mut i = 0;
    while i < Reason::ALL.len() {
        let r = Reason::ALL[i];
        items[i] = OsslItem {
            id: r.code(),
            ptr: r.message().as_ptr().cast_mut().cast(),
        };
        i += 1;
    }
    Table(items)
};

/// Where an error is raised, for the core's `set_error_debug`: the source
/// file and line, and the entry point. Made by [`site!`] at the place it
/// stands for.
#[derive(Clone, Copy)]
pub(crate) struct Site {
    pub(crate) file: &'static CStr,
    pub(crate) line: u32,
    pub(crate) func: &'static CStr,
}

/// The [`Site`] of this macro's invocation (its own `file!()` and
/// `line!()`) in the entry point `$func` (a C string literal).
macro_rules! site {
    ($func:expr) => {
        $crate::reason::Site {
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
pub(crate) use site;

/// The core's error functions, read from its dispatch table at provider
/// initialization, and the core handle they take.
pub(crate) struct CoreErrors {
    handle: *const OsslCoreHandle,
    new_error: Option<CoreNewErrorFn>,
    set_error_debug: Option<CoreSetErrorDebugFn>,
    vset_error: Option<CoreVsetErrorFn>,
}

/// Longest core dispatch table read (OpenSSL 3.x offers about 50 entries).
const MAX_CORE_FUNCTIONS: usize = 4096;

impl CoreErrors {
    /// The error functions of the core dispatch table `in_` (those it
    /// lacks are `None`, and then nothing is raised).
    ///
    /// # Safety
    ///
    /// `handle` is the core handle given to `OSSL_provider_init`; `in_` is
    /// NULL or a dispatch table ending with function id 0 whose entries
    /// have the signatures core_dispatch.h gives their ids.
    pub(crate) unsafe fn read(handle: *const OsslCoreHandle, in_: *const OsslDispatch) -> Self {
        let mut errors = CoreErrors {
            handle,
            new_error: None,
            set_error_debug: None,
            vset_error: None,
        };
        if in_.is_null() {
            return errors;
        }
        for i in 0..MAX_CORE_FUNCTIONS {
            // SAFETY: `in_` is a dispatch table terminated by id 0 (the
            // caller's contract); we stop at the terminator.
            let entry = unsafe { &*in_.add(i) };
            if entry.function_id == 0 {
                break;
            }
            let Some(f) = entry.function else {
                continue;
            };
            // The core stores each function under the id whose signature
            // core_dispatch.h declares; each arm below converts back to
            // exactly that signature.
            match entry.function_id {
                OSSL_FUNC_CORE_NEW_ERROR => {
                    // SAFETY: id 5 is `void core_new_error(const
                    // OSSL_CORE_HANDLE *)` = `CoreNewErrorFn`; fn pointers
                    // all have one size and representation.
                    errors.new_error =
                        Some(unsafe { std::mem::transmute::<GenericFn, CoreNewErrorFn>(f) });
                }
                OSSL_FUNC_CORE_SET_ERROR_DEBUG => {
                    // SAFETY: id 6 is `void core_set_error_debug(handle,
                    // const char *, int, const char *)` =
                    // `CoreSetErrorDebugFn`; same-size fn pointers.
                    errors.set_error_debug =
                        Some(unsafe { std::mem::transmute::<GenericFn, CoreSetErrorDebugFn>(f) });
                }
                OSSL_FUNC_CORE_VSET_ERROR => {
                    // SAFETY: id 7 is `void core_vset_error(handle,
                    // uint32_t, const char *, va_list)` = `CoreVsetErrorFn`
                    // (va_list passed as a pointer, see its docs); same-size
                    // fn pointers.
                    errors.vset_error =
                        Some(unsafe { std::mem::transmute::<GenericFn, CoreVsetErrorFn>(f) });
                }
                _ => {}
            }
        }
        errors
    }

    /// Puts `reason` on the calling thread's OpenSSL error queue, reported
    /// at `at`. Cannot panic (no allocation, no formatting).
    pub(crate) fn raise(&self, reason: Reason, at: Site) {
        let (Some(new_error), Some(vset_error)) = (self.new_error, self.vset_error) else {
            return;
        };
        // No format string: the reason code's text (served by
        // `get_reason_strings`) is the message, and the core reads nothing
        // from the argument list, so a stand-in `va_list` is enough.
        let mut no_args = [0u64; 4];
        // SAFETY: the three functions come from the core's dispatch table
        // with these signatures (core_dispatch.h, see `read`); `handle` is
        // the core handle given to `OSSL_provider_init`, valid while the
        // provider is loaded (which it is while any of its contexts
        // exists); the strings are NUL-terminated statics; with a NULL
        // format the core does not touch the argument list.
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
                reason.code(),
                std::ptr::null(),
                no_args.as_mut_ptr().cast(),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_stable_and_every_one_has_its_text() {
        let codes: Vec<u32> = Reason::ALL.iter().map(|r| r.code()).collect();
        assert_eq!(codes, [1, 2, 3, 4, 5, 7, 8, 9, 10]);
        let table = &REASON_STRINGS.0;
        for (item, reason) in table.iter().zip(Reason::ALL) {
            assert_eq!(item.id, reason.code());
            assert_eq!(item.ptr.cast_const().cast(), reason.message().as_ptr());
        }
        let end = table.last().map(|item| (item.id, item.ptr.is_null()));
        assert_eq!(end, Some((0, true)));
    }
}
