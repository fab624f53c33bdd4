//! Hashing many independent byte messages at once.
//!
//! A single message cannot go faster than one AES round per `AESENC`
//! throughput slot; independent messages can share wide vector instructions
//! instead. With VAES, one `vaesenc` on a `zmm` register performs the AES
//! rounds of four messages at once (or two on a `ymm` register), so a batch
//! needs fewer AES instructions per byte than the messages one after the
//! other ([`Available::lanes`](crate::Available::lanes) says how many lanes
//! a backend has; `pavelor bench` measures the difference). The other
//! backends (`aesni`, `aesni-avx`, `armv8-aes` on AArch64, `portable`) hash a batch one
//! message at a time with their single-message kernel
//! ([`Available::lanes`](crate::Available::lanes) is 1):
//! AArch64 has no AES instruction wider than 128 bits, and one Paff state
//! (19 independent AES rounds per Paff round) already keeps its AES units
//! busy.
//!
//! ```
//! use pavelor::{P512, Pavelor512, batch};
//!
//! let inputs: [&[u8]; 3] = [b"", b"abc", &[0x5a; 1000]];
//! let mut outputs = [Default::default(); 3];
//! batch::hash_many::<P512>(&inputs, &mut outputs)?;
//! assert_eq!(outputs[1], Pavelor512::digest(b"abc"));
//! # Ok::<(), pavelor::batch::BatchError>(())
//! ```
//!
//! * Messages are **byte** strings; messages whose length is not a multiple
//!   of 8 bits go through the streaming API ([`crate::Pavelor::update_bits`]).
//! * Messages may have different lengths. Each lane of the wide kernel
//!   streams its own message; when a message ends its lane is refilled with
//!   the next message of the batch, and when too few messages remain for the
//!   wide kernel the remaining lanes move to a narrower kernel (4 → 2 → 1
//!   lanes). These decisions depend only on the (public) message lengths,
//!   never on message contents.
//! * The digests are bit-identical to [`crate::Pavelor::digest`].
//! * No allocation; `no_std`. The backend is chosen once per call.

mod lane_hasher;
mod many;

pub use lane_hasher::{LaneError, LaneHasher};
pub use many::{BatchError, hash_many, hash_many_dyn, hash_many_dyn_with, hash_many_with};
