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

use crate::protocol::LoadError;

/// `int CryptHash(int, const unsigned char *, unsigned long long, unsigned char *)`.
type CryptHashFn = unsafe extern "C" fn(c_int, *const c_uchar, c_ulonglong, *mut c_uchar) -> c_int;
/// `const char *CryptHash_AlgorithmInstance(void)` (exported by some builds).
type InstanceFn = unsafe extern "C" fn() -> *const c_char;

/// Guard bytes before the first and after the last digest slot of a
/// buffer.
pub const GUARD_BYTES: usize = 4096;
/// Guard bytes between two digest slots of a [`DigestSlots`] buffer.
pub const GAP_BYTES: usize = 64;
/// The value of every guard byte (and of the digest area before a call).
pub const GUARD_BYTE: u8 = 0xA5;
/// The most bytes of `CryptHash_AlgorithmInstance()`'s string read.
pub const MAX_INSTANCE_NAME_BYTES: usize = 64;
/// Largest digest a `CryptHash` call may ask for here (Pavelor-1024).
pub const MAX_DIGEST_BYTES: usize = 128;

pub use crate::protocol::Damage;

/// Digest buffers for `CryptHash` calls: `slots` areas of `len` bytes,
/// with [`GUARD_BYTES`] guard bytes before the first and after the last
/// and [`GAP_BYTES`] between two, all [`GUARD_BYTE`] until a call writes.
pub struct DigestSlots {
    buf: Vec<u8>,
    len: usize,
    slots: usize,
}

impl DigestSlots {
    /// `slots` (at least 1) slots of `len` bytes (at most
    /// [`MAX_DIGEST_BYTES`]), every byte written once now so that no page
    /// is first touched during a timed call.
    pub fn new(len: usize, slots: usize) -> Self {
        let len = len.min(MAX_DIGEST_BYTES);
        let slots = slots.max(1);
        let total = 2 * GUARD_BYTES + slots * len + (slots - 1) * GAP_BYTES;
        DigestSlots {
            buf: vec![GUARD_BYTE; total],
            len,
            slots,
        }
    }

    /// Number of slots.
    pub fn slots(&self) -> usize {
        self.slots
    }

    /// Bytes of one digest.
    pub fn digest_len(&self) -> usize {
        self.len
    }

    fn start(&self, slot: usize) -> usize {
        GUARD_BYTES + slot * (self.len + GAP_BYTES)
    }

    /// The slot `slot` names: itself, or slot 0 past the last one (so a
    /// call never costs a division).
    #[inline]
    fn valid(&self, slot: usize) -> usize {
        if slot < self.slots { slot } else { 0 }
    }

    /// The digest bytes of `slot` (slot 0 past the last slot).
    #[inline]
    pub fn digest(&self, slot: usize) -> &[u8] {
        let s = self.start(self.valid(slot));
        &self.buf[s..s + self.len]
    }

    /// The changed guard bytes: a changed byte between two slots counts
    /// as past the nearer slot's end or before the nearer slot's start.
    pub fn damage(&self) -> Damage {
        let mut d = Damage::default();
        if self.guards_intact() {
            return d;
        }
        let first = self.start(0);
        if let Some(i) = self.buf[..first].iter().position(|&b| b != GUARD_BYTE) {
            d.before = first - i;
        }
        for k in 0..self.slots {
            let end = self.start(k) + self.len;
            let next = if k + 1 < self.slots {
                self.start(k + 1)
            } else {
                self.buf.len()
            };
            for (i, &b) in self.buf[end..next].iter().enumerate() {
                if b == GUARD_BYTE {
                    continue;
                }
                if k + 1 == self.slots || i < GAP_BYTES / 2 {
                    d.after = d.after.max(i + 1);
                } else {
                    d.before = d.before.max(next - (end + i));
                }
            }
        }
        d
    }

    /// Whether every guard byte still holds [`GUARD_BYTE`]: one pass of
    /// XORs and ORs over each guard region, which the compiler turns into
    /// vector code (the common case, checked after every gate call).
    fn guards_intact(&self) -> bool {
        let clean = |r: &[u8]| r.iter().fold(0u8, |acc, &b| acc | (b ^ GUARD_BYTE)) == 0;
        let first = self.start(0);
        clean(&self.buf[..first])
            && (0..self.slots).all(|k| {
                let end = self.start(k) + self.len;
                let next = if k + 1 < self.slots {
                    self.start(k + 1)
                } else {
                    self.buf.len()
                };
                clean(&self.buf[end..next])
            })
    }

    /// Restores every byte to [`GUARD_BYTE`].
    pub fn reset(&mut self) {
        self.buf.fill(GUARD_BYTE);
    }
}

/// One digest buffer with guard bytes before and after it.
pub struct GuardedDigest(DigestSlots);

impl GuardedDigest {
    /// A buffer for `len` digest bytes (at most [`MAX_DIGEST_BYTES`]).
    pub fn new(len: usize) -> Self {
        GuardedDigest(DigestSlots::new(len, 1))
    }

    /// The digest bytes.
    pub fn digest(&self) -> &[u8] {
        self.0.digest(0)
    }

    /// The changed guard bytes around the digest.
    pub fn damage(&self) -> Damage {
        self.0.damage()
    }

    /// How many guard bytes past the digest were changed, counted to the
    /// furthest (0 = none).
    pub fn overwritten(&self) -> usize {
        self.0.damage().after
    }

    /// Whether any byte of the digest area changed (for calls that must
    /// not write).
    pub fn digest_written(&self) -> bool {
        self.digest().iter().any(|&b| b != GUARD_BYTE)
    }

    /// Restores every byte to [`GUARD_BYTE`].
    pub fn reset(&mut self) {
        self.0.reset();
    }
}

/// Guard bytes on each side of a [`GuardedRegion`].
pub const REGION_GUARD_BYTES: usize = 256;

/// A buffer for one side of a `CryptHash` call (the message, the digest, or
/// both at once): `room` bytes starting `offset` bytes past a 16-byte
/// boundary, with [`REGION_GUARD_BYTES`] guard bytes on each side. The
/// guard bytes and the region's first contents are the caller's, so that a
/// library cannot recognise them; [`Self::damage`] and
/// [`Self::region_changed`] report any byte that is no longer what it was.
pub struct GuardedRegion {
    buf: Vec<u8>,
    start: usize,
    room: usize,
    pristine: Vec<u8>,
}

impl GuardedRegion {
    /// `contents` (at most `room` bytes; the rest of the room is the guard
    /// pattern) at an address `offset % 16` past a 16-byte boundary. The
    /// guard bytes repeat `guard` (a zero byte if it is empty).
    pub fn new(contents: &[u8], room: usize, offset: usize, guard: &[u8]) -> Self {
        let room = room.max(contents.len());
        let total = 2 * REGION_GUARD_BYTES + room + 16;
        let pattern: &[u8] = if guard.is_empty() { &[0] } else { guard };
        let mut buf: Vec<u8> = pattern.iter().copied().cycle().take(total).collect();
        let base = buf.as_ptr() as usize + REGION_GUARD_BYTES;
        let start = REGION_GUARD_BYTES + (offset % 16 + 16 - base % 16) % 16;
        buf[start..start + contents.len()].copy_from_slice(contents);
        let pristine = buf.clone();
        GuardedRegion {
            buf,
            start,
            room,
            pristine,
        }
    }

    /// The region's bytes.
    pub fn region(&self) -> &[u8] {
        &self.buf[self.start..self.start + self.room]
    }

    /// The region's address modulo 16.
    pub fn alignment(&self) -> usize {
        (self.buf.as_ptr() as usize + self.start) % 16
    }

    /// Bytes changed outside the region since it was made: before it,
    /// counted to the furthest, and past it likewise.
    pub fn damage(&self) -> Damage {
        let mut d = Damage::default();
        let end = self.start + self.room;
        if let Some(i) = (0..self.start).find(|&i| self.buf[i] != self.pristine[i]) {
            d.before = self.start - i;
        }
        if let Some(i) = (end..self.buf.len())
            .rev()
            .find(|&i| self.buf[i] != self.pristine[i])
        {
            d.after = i + 1 - end;
        }
        d
    }

    /// Whether any byte of the region itself changed since it was made.
    pub fn region_changed(&self) -> bool {
        let end = self.start + self.room;
        self.buf[self.start..end] != self.pristine[self.start..end]
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
    pub fn open(path: &Path) -> Result<Self, LoadError> {
        // SAFETY: loading a library runs its initialisers; that is the point
        // of measuring it, and it happens only in a disposable worker
        // process (crate::library), never in the campaign's process.
        let lib = unsafe { libloading::Library::new(path) }
            .map_err(|e| LoadError(format!("cannot load {}: {e}", path.display())))?;
        // SAFETY: the symbol's type is the ICCS prototype of `CryptHash`
        // (`int CryptHash(int, const unsigned char *, unsigned long long,
        // unsigned char *)`); a library exporting the name with another type
        // misbehaves in the worker, which records what happened.
        let crypt_hash = unsafe { lib.get::<CryptHashFn>(b"CryptHash\0") }
            .map(|s| *s)
            .map_err(|e| LoadError(format!("{} does not export CryptHash: {e}", path.display())))?;
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
            let c: std::ffi::c_char = unsafe { *p.add(i) };
            // `c_char` is `i8` on x86-64 and `u8` on AArch64: the same byte.
            let [b] = c.to_ne_bytes();
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
        self.hash_into(digest_bits, msg, msg_bits, &mut out.0, 0)
    }

    /// [`hash`](Self::hash) into slot `slot` of `out` (slot 0 past the
    /// last slot).
    #[inline]
    pub fn hash_into(
        &self,
        digest_bits: i32,
        msg: &[u8],
        msg_bits: u64,
        out: &mut DigestSlots,
        slot: usize,
    ) -> i32 {
        let msg_bits = msg_bits.min(8 * msg.len() as u64);
        let digest_bits = digest_bits.min(8 * out.len as i32);
        let start = out.start(out.valid(slot));
        // SAFETY: `msg` holds ceil(msg_bits / 8) readable bytes; `start`
        // is a slot of `out.buf` followed by at least `out.len` writable
        // bytes (digest_bits / 8 is capped to that just above) and guard
        // bytes; the pointer carries the whole buffer's provenance, so a
        // stray write into the guards stays in memory we own and shows.
        unsafe {
            (self.crypt_hash)(
                digest_bits,
                msg.as_ptr(),
                msg_bits,
                out.buf.as_mut_ptr().add(start),
            )
        }
    }

    /// `CryptHash(digest_bits, msg, msg_bits, out)` on guarded regions;
    /// `msg_bits` is capped to the bits `msg`'s region holds and
    /// `digest_bits` to the bytes `out`'s region holds.
    /// The message is borrowed mutably: the contract makes it read-only,
    /// but a library that writes into it then writes into memory that is
    /// ours to change, and [`GuardedRegion::region_changed`] shows it.
    pub fn hash_regions(
        &self,
        digest_bits: i32,
        msg: &mut GuardedRegion,
        msg_bits: u64,
        out: &mut GuardedRegion,
    ) -> i32 {
        let msg_bits = msg_bits.min(8 * msg.room as u64);
        let digest_bits = digest_bits.min(8 * out.room.min(MAX_DIGEST_BYTES) as i32);
        // SAFETY: the message pointer starts `msg.room` readable bytes (at
        // least ceil(msg_bits / 8), capped above) inside `msg.buf`; the
        // digest pointer starts `out.room` writable bytes (at least
        // digest_bits / 8, capped above) inside `out.buf`, followed by
        // guard bytes we own, so a stray write shows in `damage`.
        unsafe {
            (self.crypt_hash)(
                digest_bits,
                msg.buf.as_mut_ptr().add(msg.start).cast_const(),
                msg_bits,
                out.buf.as_mut_ptr().add(out.start),
            )
        }
    }

    /// `CryptHash(digest_bits, buf, msg_bits, buf)`: the digest written over
    /// the message it is computed from (the ICCS contract does not say
    /// whether that is allowed). Capped as [`Self::hash_regions`].
    pub fn hash_overlapping(
        &self,
        digest_bits: i32,
        buf: &mut GuardedRegion,
        msg_bits: u64,
    ) -> i32 {
        let msg_bits = msg_bits.min(8 * buf.room as u64);
        let digest_bits = digest_bits.min(8 * buf.room.min(MAX_DIGEST_BYTES) as i32);
        let p = buf.buf.as_mut_ptr().wrapping_add(buf.start);
        // SAFETY: `p` starts `buf.room` bytes inside `buf.buf`, readable for
        // the message (ceil(msg_bits / 8) bytes, capped above) and writable
        // for the digest (digest_bits / 8 bytes, capped above); both
        // pointers carry the whole buffer's provenance.
        unsafe { (self.crypt_hash)(digest_bits, p.cast_const(), msg_bits, p) }
    }

    /// `CryptHash(digest_bits, NULL, msg_bits, out)`: the contract allows
    /// NULL only with `msg_bits == 0` and asks for an error otherwise.
    pub fn hash_null_msg(&self, digest_bits: i32, msg_bits: u64, out: &mut GuardedDigest) -> i32 {
        let digest_bits = digest_bits.min(8 * out.0.len as i32);
        let start = out.0.start(0);
        // SAFETY: NULL is the input under test; the ICCS contract requires
        // an error return for it (or success for msg_bits == 0) without a
        // read. A library that reads it crashes the worker only. `start` is
        // the digest slot inside `out`'s buffer, with digest_bits / 8
        // writable bytes (capped above) and guard bytes after it.
        unsafe {
            (self.crypt_hash)(
                digest_bits,
                std::ptr::null(),
                msg_bits,
                out.0.buf.as_mut_ptr().add(start),
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
