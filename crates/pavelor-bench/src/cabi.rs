//! The binding to a foreign ICCS `CryptHash` library: the only module of
//! this crate (besides the tick counter in [`crate::hw`]) with `unsafe`.
//!
//! A library is loaded with `dlopen` (through `libloading`) only inside a
//! worker process: loading runs the library's constructors and every call
//! runs its code, so a crash or a hang takes down the worker, never the
//! campaign (see [`crate::library`]). What this module guarantees is that
//! *we* keep the ICCS contract on every call: the message buffer holds
//! `ceil(msg_len_bits / 8)` readable bytes and the digest buffer holds
//! `digest_len_bits / 8` writable bytes, followed by guard bytes that show
//! an over-write instead of letting it corrupt our memory.

#![allow(unsafe_code)]

use std::ffi::{c_char, c_int, c_uchar, c_ulonglong};
use std::path::Path;

/// `int CryptHash(int, const unsigned char *, unsigned long long, unsigned char *)`.
type CryptHashFn = unsafe extern "C" fn(c_int, *const c_uchar, c_ulonglong, *mut c_uchar) -> c_int;
/// `const char *CryptHash_AlgorithmInstance(void)` (exported by some builds).
type InstanceFn = unsafe extern "C" fn() -> *const c_char;

/// Guard bytes after the digest.
pub const GUARD_BYTES: usize = 64;
/// The value of every guard byte (and of the digest area before a call).
pub const GUARD_BYTE: u8 = 0xA5;
/// The most bytes of `CryptHash_AlgorithmInstance()`'s string read.
pub const MAX_INSTANCE_NAME_BYTES: usize = 64;
/// Largest digest a `CryptHash` call may ask for here (Pavelor-1024).
pub const MAX_DIGEST_BYTES: usize = 128;

/// A digest buffer with guard bytes behind it.
pub struct GuardedDigest {
    buf: Vec<u8>,
    len: usize,
}

impl GuardedDigest {
    /// A buffer for `len` digest bytes (at most [`MAX_DIGEST_BYTES`]).
    pub fn new(len: usize) -> Self {
        let len = len.min(MAX_DIGEST_BYTES);
        GuardedDigest {
            buf: vec![GUARD_BYTE; len + GUARD_BYTES],
            len,
        }
    }

    /// The digest bytes.
    pub fn digest(&self) -> &[u8] {
        &self.buf[..self.len]
    }

    /// How many guard bytes after the digest were changed (0 = none): an
    /// over-write of at least that many bytes past the digest.
    pub fn overwritten(&self) -> usize {
        self.buf[self.len..]
            .iter()
            .rposition(|&b| b != GUARD_BYTE)
            .map_or(0, |i| i + 1)
    }

    /// Whether any byte of the digest area changed (for calls that must
    /// not write).
    pub fn digest_written(&self) -> bool {
        self.digest().iter().any(|&b| b != GUARD_BYTE)
    }

    /// Restores every byte to [`GUARD_BYTE`].
    pub fn reset(&mut self) {
        self.buf.fill(GUARD_BYTE);
    }
}

/// A loaded library and its `CryptHash`.
pub struct CLibrary {
    crypt_hash: CryptHashFn,
    instance: Option<InstanceFn>,
    // Keeps the code mapped while the function pointers are in use; never
    // dropped before them (fields drop in declaration order, and the
    // pointers are plain copies that do not outlive `self`).
    _lib: libloading::Library,
}

impl CLibrary {
    /// Loads `path` (`dlopen`, running its constructors) and resolves
    /// `CryptHash` and, if exported, `CryptHash_AlgorithmInstance`.
    pub fn open(path: &Path) -> Result<Self, String> {
        // SAFETY: loading a library runs its initialisers; that is the point
        // of measuring it, and it happens only in a disposable worker
        // process (crate::library), never in the campaign's process.
        let lib = unsafe { libloading::Library::new(path) }
            .map_err(|e| format!("cannot load {}: {e}", path.display()))?;
        // SAFETY: the symbol's type is the ICCS prototype of `CryptHash`
        // (`int CryptHash(int, const unsigned char *, unsigned long long,
        // unsigned char *)`); a library exporting the name with another type
        // misbehaves in the worker, which records what happened.
        let crypt_hash = unsafe { lib.get::<CryptHashFn>(b"CryptHash\0") }
            .map(|s| *s)
            .map_err(|e| format!("{} does not export CryptHash: {e}", path.display()))?;
        // SAFETY: as above, with the `CryptHash_AlgorithmInstance` prototype
        // of pavelor-ffi's header.
        let instance = unsafe { lib.get::<InstanceFn>(b"CryptHash_AlgorithmInstance\0") }
            .ok()
            .map(|s| *s);
        Ok(CLibrary {
            crypt_hash,
            instance,
            _lib: lib,
        })
    }

    /// Whether the library exports `CryptHash_AlgorithmInstance`.
    pub fn has_instance_fn(&self) -> bool {
        self.instance.is_some()
    }

    /// The instance name from `CryptHash_AlgorithmInstance()`, if exported
    /// and not NULL (at most [`MAX_INSTANCE_NAME_BYTES`] bytes are read, as
    /// the ICCS header allows).
    pub fn algorithm_instance(&self) -> Option<String> {
        let f = self.instance?;
        // SAFETY: a function of the prototype above without arguments.
        let p = unsafe { f() };
        if p.is_null() {
            return None;
        }
        let mut bytes = Vec::new();
        for i in 0..MAX_INSTANCE_NAME_BYTES {
            // SAFETY: the function returns a NUL-terminated string; we read
            // byte by byte and stop at the NUL or after 64 bytes, so a name
            // that fills a 64-byte buffer without a NUL is not over-read.
            let b = unsafe { *p.add(i) } as u8;
            if b == 0 {
                break;
            }
            bytes.push(b);
        }
        Some(String::from_utf8_lossy(&bytes).into_owned())
    }

    /// `CryptHash(digest_bits, msg, msg_bits, out)`; `msg_bits` is capped to
    /// the bits `msg` holds and `digest_bits` to the bytes `out` holds, so
    /// that every buffer the library is given is as long as the contract
    /// says.
    #[inline]
    pub fn hash(
        &self,
        digest_bits: i32,
        msg: &[u8],
        msg_bits: u64,
        out: &mut GuardedDigest,
    ) -> i32 {
        let msg_bits = msg_bits.min(8 * msg.len() as u64);
        let digest_bits = digest_bits.min(8 * out.len as i32);
        // SAFETY: `msg` holds ceil(msg_bits / 8) readable bytes and `out`
        // holds digest_bits / 8 writable bytes plus guard bytes (both
        // capped just above); the pointers live for the call.
        unsafe { (self.crypt_hash)(digest_bits, msg.as_ptr(), msg_bits, out.buf.as_mut_ptr()) }
    }

    /// `CryptHash(digest_bits, NULL, msg_bits, out)`: the contract allows
    /// NULL only with `msg_bits == 0` and asks for an error otherwise.
    pub fn hash_null_msg(&self, digest_bits: i32, msg_bits: u64, out: &mut GuardedDigest) -> i32 {
        let digest_bits = digest_bits.min(8 * out.len as i32);
        // SAFETY: NULL is the input under test; the ICCS contract requires
        // an error return for it (or success for msg_bits == 0) without a
        // read. A library that reads it crashes the worker only.
        unsafe {
            (self.crypt_hash)(
                digest_bits,
                std::ptr::null(),
                msg_bits,
                out.buf.as_mut_ptr(),
            )
        }
    }

    /// `CryptHash(digest_bits, msg, msg_bits, NULL)`: must return an error.
    pub fn hash_null_digest(&self, digest_bits: i32, msg: &[u8]) -> i32 {
        let msg_bits = 8 * msg.len() as u64;
        // SAFETY: `msg` is valid for its length; the NULL digest is the
        // input under test (the contract requires an error return); a
        // library that writes through it crashes the worker only.
        unsafe { (self.crypt_hash)(digest_bits, msg.as_ptr(), msg_bits, std::ptr::null_mut()) }
    }
}
