//! Valgrind client requests, issued with the "special instruction" sequence
//! valgrind documents for amd64 (see `valgrind.h`): four rotations of `rdi`
//! by 3, 13, 61 and 51 bits (128 in total, so `rdi` is unchanged) followed by
//! `xchg rbx, rbx`, with `rax` pointing at `[request, arg1, ..., arg5]` and
//! the result in `rdx`. Natively the sequence does nothing and leaves the
//! default value in `rdx`, so every request is a no-op outside valgrind.
//!
//! pavelor's constant-time audits use them: `pavelor-ct` on the Rust
//! kernels, and the audit of a measured library in `pavelor-measure`. Only
//! the requests they need are here. The request numbers are
//! those of `valgrind.h` / `memcheck.h` (valgrind 3.x, stable ABI):
//! `VG_USERREQ_TOOL_BASE('M','C') = 0x4d43_0000`, memcheck's requests count
//! up from it.

// The client request is inline assembly: `unsafe` is allowed in this crate
// (the workspace denies it), with a `// SAFETY:` comment on the block.
#![allow(unsafe_code)]
#![no_std]

extern crate alloc;

use alloc::vec;

/// `VG_USERREQ__RUNNING_ON_VALGRIND`.
const RUNNING_ON_VALGRIND: u64 = 0x1001;
/// `VG_USERREQ__COUNT_ERRORS`.
const COUNT_ERRORS: u64 = 0x1201;
/// `VG_USERREQ_TOOL_BASE('M','C')`.
const MEMCHECK_BASE: u64 = ((b'M' as u64) << 24) | ((b'C' as u64) << 16);
/// `VG_USERREQ__MAKE_MEM_UNDEFINED`.
const MAKE_MEM_UNDEFINED: u64 = MEMCHECK_BASE + 1;
/// `VG_USERREQ__MAKE_MEM_DEFINED`.
const MAKE_MEM_DEFINED: u64 = MEMCHECK_BASE + 2;
/// `VG_USERREQ__GET_VBITS`.
const GET_VBITS: u64 = MEMCHECK_BASE + 8;

/// Issues one client request; returns `default` when not under valgrind.
#[cfg(target_arch = "x86_64")]
#[inline(never)]
fn request(default: u64, req: u64, a1: u64, a2: u64, a3: u64) -> u64 {
    let args: [u64; 6] = [req, a1, a2, a3, 0, 0];
    let mut result = default;
    // SAFETY: the sequence rotates `rdi` by 128 bits in total (unchanged,
    // declared clobbered anyway) and exchanges `rbx` with itself; natively
    // it only changes flags (not declared preserved). Under valgrind it is the documented client
    // request: valgrind reads the six words at `rax` (a live local array)
    // and writes the result to `rdx`. Memory may be read (the args) and its
    // shadow state changed, hence no `nomem`/`readonly`.
    unsafe {
        core::arch::asm!(
            "rol rdi, 3",
            "rol rdi, 13",
            "rol rdi, 61",
            "rol rdi, 51",
            "xchg rbx, rbx",
            in("rax") args.as_ptr(),
            inout("rdx") result,
            out("rdi") _,
            options(nostack),
        );
    }
    core::hint::black_box(&args);
    result
}

#[cfg(not(target_arch = "x86_64"))]
fn request(default: u64, _req: u64, _a1: u64, _a2: u64, _a3: u64) -> u64 {
    default
}

/// Whether the program runs under valgrind (the nesting depth, 0 natively).
pub fn running_on_valgrind() -> u64 {
    request(0, RUNNING_ON_VALGRIND, 0, 0, 0)
}

/// Number of errors valgrind has reported so far (0 natively).
pub fn error_count() -> u64 {
    request(0, COUNT_ERRORS, 0, 0, 0)
}

/// Marks `bytes` as secret: memcheck treats them as uninitialised, so any
/// branch or address computed from them is reported.
///
/// Takes `&mut` so that the compiler must assume the bytes changed and
/// reload them from memory afterwards (a copy it kept in a register would
/// keep its old, defined shadow state).
pub fn classify(bytes: &mut [u8]) {
    request(
        0,
        MAKE_MEM_UNDEFINED,
        bytes.as_mut_ptr() as u64,
        bytes.len() as u64,
        0,
    );
}

/// Marks `bytes` as public again (e.g. a digest, which the caller may
/// compare and print). `&mut` for the same reason as in [`classify`].
pub fn declassify(bytes: &mut [u8]) {
    request(
        0,
        MAKE_MEM_DEFINED,
        bytes.as_mut_ptr() as u64,
        bytes.len() as u64,
        0,
    );
}

/// Whether every bit of `bytes` is undefined (secret-derived) in memcheck's
/// shadow memory. `None` when not running under valgrind.
///
/// The harness asserts this of every digest it computes from secret input
/// before declassifying it: it proves the secret marking really reached the
/// computation (so a clean run is not clean because nothing was tracked).
pub fn fully_undefined(bytes: &[u8]) -> Option<bool> {
    if running_on_valgrind() == 0 {
        return None;
    }
    let mut vbits = vec![0u8; bytes.len()];
    // 1 = success; the V bits of an undefined bit are 1.
    let r = request(
        0,
        GET_VBITS,
        bytes.as_ptr() as u64,
        vbits.as_mut_ptr() as u64,
        bytes.len() as u64,
    );
    let vbits = core::hint::black_box(vbits);
    Some(r == 1 && vbits.iter().all(|&v| v == 0xFF))
}
