//! # pavelor-ct: is Pavelor constant-time? Ask valgrind.
//!
//! The "ctgrind" technique: secret inputs (message bytes, the permutation
//! state) are marked *uninitialised* with memcheck's client request
//! `MAKE_MEM_UNDEFINED`. Memcheck then tracks them bit by bit through every
//! instruction and reports
//!
//! * "Conditional jump or move depends on uninitialised value(s)" for a
//!   branch on secret data, and
//! * "Use of uninitialised value of size N" for a memory address (e.g. a
//!   table index) computed from secret data.
//!
//! Outputs (digests) are marked defined again ([`vg::declassify`]) before the
//! harness compares them, so a run of the scenarios with zero memcheck
//! errors means no branch and no address in the code under test depended on
//! the message or the state. Natively every request is a no-op and the
//! scenarios are plain functional checks (each compares its digests with
//! the portable backend's).
//!
//! [`scenarios`] lists what is run per backend; [`toy`] holds deliberately
//! leaky functions (and one constant-time counterpart) that the harness's
//! own tests run under valgrind to prove it detects leaks. [`disasm`] is the
//! static check of the VAES/AVX-512 kernels, which valgrind cannot run.

// Valgrind client requests and the kernels' raw entry points: `unsafe` is
// allowed here (the workspace denies it), each block with a `// SAFETY:`
// comment.
#![allow(unsafe_code)]

pub mod disasm;
pub mod error;
pub mod scenarios;
pub mod toy;
pub use pavelor_memcheck as vg;

pub use error::Error;
