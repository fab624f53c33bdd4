//! x86 VAES 2-lane batch kernel of the AVX-512 level: two states in `ymm`
//! registers with EVEX encoding (32 registers: no spills), for batches of
//! two or three messages. Used by the `avx512-vaes` backend's batches.
//!
//! The state layout is [`Lanes<2>`](crate::backend::layout::Lanes); the Paff round and the absorb body are
//! the shared ones (the wiring macro, [`crate::backend::kernel`]).
//!
//! Constant-time: `VAESENC` has data-independent timing; the only branches
//! are on the public number of blocks.

#[cfg(target_arch = "x86")]
use core::arch::x86::*;
#[cfg(target_arch = "x86_64")]
use core::arch::x86_64::*;

use crate::backend::kernel::lane_kernel;

/// The level's proof: the batch kernels need exactly the features of the
/// single-message kernel, so one detection serves both.
use super::avx512_vaes::Token;

vector_256!(
    /// Two AES blocks in a `ymm` register, EVEX encoding (32 registers).
    Ymm,
    state_in_regs
);

lane_kernel!(
    Token,
    "aes,sse2,avx,avx2,avx512f,avx512vl,avx512bw,vaes",
    2,
    Ymm,
    absorb_x2,
    absorb_x2_impl
);
