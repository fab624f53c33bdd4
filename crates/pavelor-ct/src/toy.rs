//! Known-leaky toys: the harness's positive controls.
//!
//! They reproduce the two findings against the submitted reference: an
//! S-box looked up in a table indexed by secret data, and a branch on
//! secret data (here an early-exit comparison). Run on classified input
//! under valgrind, each must make memcheck report an error; the
//! constant-time comparison next to them must not.

use crate::vg;

/// A 256-entry table (an "S-box": any fixed permutation of the bytes will
/// do for the test; this one is `x -> 167 x + 13 mod 256`).
static TABLE: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut i = 0;
    while i < 256 {
        t[i] = (i as u8).wrapping_mul(167).wrapping_add(13);
        i += 1;
    }
    t
};

/// LEAKY: substitutes every byte through `TABLE` (address depends on the
/// secret byte) and folds the results.
#[inline(never)]
pub fn table_lookup(secret: &[u8]) -> u8 {
    let table = core::hint::black_box(&TABLE);
    secret
        .iter()
        .fold(0u8, |acc, &b| acc.rotate_left(1) ^ table[usize::from(b)])
}

/// LEAKY: compares two byte strings, returning at the first difference
/// (the branch depends on the secret bytes).
#[inline(never)]
pub fn early_exit_eq(secret: &[u8], guess: &[u8]) -> bool {
    if secret.len() != guess.len() {
        return false;
    }
    for (a, b) in secret.iter().zip(guess) {
        if core::hint::black_box(*a) != *b {
            return false;
        }
    }
    true
}

/// LEAKY, in the shape of a SIMD kernel gone wrong: computes in a vector
/// register, moves a lane to a general-purpose register and indexes a
/// table with it. The static kernel check ([`crate::disasm`]) must reject
/// it; memcheck must report it too.
#[cfg(target_arch = "x86_64")]
#[inline(never)]
pub fn vector_table(secret: &[u8; 16]) -> u8 {
    use core::arch::x86_64::{_mm_cvtsi128_si32, _mm_loadu_si128, _mm_set1_epi8, _mm_xor_si128};
    // SAFETY: SSE2 is part of the x86-64 baseline; `secret` is 16 readable
    // bytes and `loadu` has no alignment requirement.
    let low = unsafe {
        let v = _mm_xor_si128(_mm_loadu_si128(secret.as_ptr().cast()), _mm_set1_epi8(0x33));
        _mm_cvtsi128_si32(v)
    };
    core::hint::black_box(&TABLE)[usize::from(low as u8)]
}

/// Constant-time comparison: ORs the differences together; only the final
/// (declassified) result is branched on.
#[inline(never)]
pub fn ct_eq(secret: &[u8], guess: &[u8]) -> bool {
    if secret.len() != guess.len() {
        return false;
    }
    let diff = secret
        .iter()
        .zip(guess)
        .fold(0u8, |acc, (a, b)| acc | core::hint::black_box(a ^ b));
    let mut out = [diff];
    vg::declassify(&mut out);
    out[0] == 0
}

/// Which toy to run ([`run`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Toy {
    /// [`table_lookup`]: must be reported.
    Table,
    /// [`early_exit_eq`]: must be reported.
    Branch,
    /// [`vector_table`] (x86-64): must be reported.
    VectorTable,
    /// [`ct_eq`]: must not be reported.
    CtEq,
}

impl Toy {
    /// Parses `table`, `branch`, `vector-table` or `ct-eq`.
    pub fn from_name(name: &str) -> Option<Self> {
        match name {
            "table" => Some(Toy::Table),
            "branch" => Some(Toy::Branch),
            "vector-table" => Some(Toy::VectorTable),
            "ct-eq" => Some(Toy::CtEq),
            _ => None,
        }
    }
}

/// Runs `toy` on 64 classified bytes; returns a public summary value.
pub fn run(toy: Toy) -> u64 {
    let mut secret: Vec<u8> = (0..64u8).map(|i| i.wrapping_mul(37) ^ 0x5a).collect();
    let guess = secret.clone();
    vg::classify(&mut secret);
    let r = match toy {
        Toy::Table => {
            let mut out = [table_lookup(&secret)];
            vg::declassify(&mut out);
            u64::from(out[0])
        }
        Toy::Branch => {
            // The result of a leaky comparison is itself derived from the
            // secret; declassifying it is what a caller would do.
            let mut out = [u8::from(early_exit_eq(&secret, &guess))];
            vg::declassify(&mut out);
            u64::from(out[0])
        }
        Toy::VectorTable => {
            let mut block = [0u8; 16];
            block.copy_from_slice(&secret[..16]);
            #[cfg(target_arch = "x86_64")]
            let mut out = [vector_table(&block)];
            #[cfg(not(target_arch = "x86_64"))]
            let mut out = [table_lookup(&block)];
            vg::declassify(&mut out);
            u64::from(out[0])
        }
        Toy::CtEq => u64::from(ct_eq(&secret, &guess)),
    };
    vg::declassify(&mut secret);
    r
}
