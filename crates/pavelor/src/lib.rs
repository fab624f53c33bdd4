//! # Pavelor
//!
//! Pavelor-512, Pavelor-768 and Pavelor-1024, the NGCC Round 1 hash
//! candidate hash-22: a sponge over the 2560-bit permutation Paff (24 rounds
//! of 19 AES rounds each).
//!
//! * **Bit-exact** with the official ICCS known-answer tests, including
//!   messages whose length is not a multiple of 8 bits
//!   ([`Pavelor::update_bits`]).
//! * **Constant-time** on every backend: hardware AES where the CPU has it,
//!   a bitsliced software AES round (no S-box table, no data-dependent
//!   branch) elsewhere.
//! * **`no_std`**, no allocation; RustCrypto [`digest`] traits, so
//!   `hmac::Hmac<Pavelor512>` works.
//!
//! ```
//! use pavelor::Pavelor512;
//!
//! let digest = Pavelor512::digest(b"");
//! assert_eq!(digest[..4], [0xc5, 0x35, 0x78, 0xfa]);
//!
//! // Streaming, ending in a partial byte: the 11-bit message 1111_1111 111.
//! let mut h = Pavelor512::new();
//! h.update([0xff]);
//! h.update_bits(&[0xe0], 3)?;
//! let _ = h.finalize();
//! # Ok::<(), pavelor::Error>(())
//! ```
//!
//! ## Layers
//!
//! Each module uses only the ones listed before it:
//!
//! 1. [`definition`]: the Paff wiring and constants, the instances, the
//!    padding;
//! 2. `backend_name`: [`Backend`], the names of the implementations;
//! 3. `error` ([`Error`]) and `wipe` (erasing secrets);
//! 4. `backend`: the kernels, one file per instruction-set level, and
//!    [`Available`], the proof that this CPU runs one;
//! 5. `sponge`: the streaming sponge on a backend;
//! 6. `core_api` ([`PavelorCore`]), then `hasher` ([`Pavelor`]);
//! 7. `dynamic` ([`Algorithm`], [`DynHasher`]), [`hazmat`] (the bare
//!    permutation) and `serialized` (saving a hasher mid-message, see
//!    [Saved states](#saved-states));
//! 8. [`batch`], and `io` (`std::io::Write` for the hashers, with the
//!    `std` feature).
//!
//! ## Features
//!
//! * `std`: `std::io::Write` for [`Pavelor`] and [`DynHasher`], so that
//!   `std::io::copy(&mut file, &mut hasher)` hashes a file. Without it the
//!   crate is `no_std` and allocates nothing.
//!
//! ## Saved states
//!
//! The hashers implement RustCrypto's
//! [`SerializableState`](digest::common::hazmat::SerializableState): a
//! hash can be saved at any point of a message, a partial final byte
//! included, and resumed later, in another process or on another backend.
//! The serialized form is fixed and versioned (format 1, `336 + rate`
//! bytes; the layout is in the source of `serialized.rs`). It is the whole
//! sponge state plus the unabsorbed message bytes: **treat it as secret**
//! as the message itself, and wipe it when done.
//!
//! ```
//! use pavelor::Pavelor768;
//! use pavelor::digest::common::hazmat::SerializableState;
//!
//! let mut h = Pavelor768::new();
//! h.update(b"the first half, ");
//! let saved = h.serialize();
//! let mut resumed = Pavelor768::deserialize(&saved).expect("a state we wrote");
//! resumed.update(b"and the second");
//! assert_eq!(resumed.finalize(), Pavelor768::digest(b"the first half, and the second"));
//! ```
//!
//! ## Round constants
//!
//! `RC[7]` and `RC[22]` differ from the digits of pi they were meant to be:
//! the submitted implementation shifted them by one hex digit, and every
//! official KAT depends on that. This crate uses the constants as the KATs
//! define them (see [`paff::RC`]).

#![no_std]
#![cfg_attr(docsrs, feature(doc_cfg))]
#![deny(unsafe_code)]

#[cfg(any(feature = "std", test))]
extern crate std;

// The layers, lowest first (see "Layers" above; `tests/module_graph.rs`
// checks that each uses only those before it). `unsafe` is allowed in the
// erasing and the backend modules only (volatile stores, SIMD intrinsics).
pub mod definition;

mod backend_name;

mod error;

#[allow(unsafe_code)]
mod wipe;

#[allow(unsafe_code)]
mod backend;

mod sponge;

mod core_api;

mod hasher;

mod dynamic;
pub mod hazmat;
mod serialized;

pub mod batch;
#[cfg(feature = "std")]
mod io;

pub use backend::Available;
pub use backend_name::Backend;
pub use batch::{BatchError, LaneError, LaneHasher, hash_many, hash_many_dyn};
pub use core_api::PavelorCore;
pub use definition::instances::{MAX_DIGEST, MAX_RATE, P512, P768, P1024, Variant};
pub use definition::paff;
pub use digest::{self, Digest};
pub use dynamic::{Algorithm, DynHasher, DynOutput, InstanceFn};
pub use error::Error;
pub use hasher::{Pavelor, Pavelor512, Pavelor768, Pavelor1024};
