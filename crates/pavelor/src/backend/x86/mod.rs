//! The x86 kernels, one file per instruction-set level, and the intrinsic
//! wrappers they share per register width ([`vectors`]). The generated
//! Paff of the 16-register levels is in `generated/` (written by
//! `cargo xtask codegen`; `--check` fails if it is stale).

#[macro_use]
mod vectors;

pub(crate) mod avx2_vaes_x2;
pub(crate) mod avx512_vaes;
pub(crate) mod avx512_vaes_x2;
pub(crate) mod avx512_vaes_x4;
pub(crate) mod avx_aesni;
pub(crate) mod sse_aesni;
