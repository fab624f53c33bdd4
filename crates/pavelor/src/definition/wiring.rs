// The Paff wiring: the state size, the round count and the two subblock
// permutations of a round, the one definition of it. This file is included
// twice: by `definition/paff.rs` (whose `paff_round!` macro spells the same
// wiring out for the compiler, checked against these tables by the test
// `macro_matches_tables`) and by `cargo xtask codegen` (`xtask/src/codegen/`),
// which derives the register-allocated x86 kernels (`backend/x86/generated/`)
// from the tables.

/// Number of 16-byte subblocks in the state.
pub const SUBBLOCKS: usize = 20;
/// Number of Paff rounds.
pub const ROUNDS: usize = 24;

/// `P1[j]`: the subblock that goes through the AES round `A` to give output `j`.
pub const P1: [usize; SUBBLOCKS] = [
    19, 4, 6, 17, 9, 0, 13, 11, 8, 5, 15, 10, 16, 3, 12, 14, 18, 7, 2, 1,
];
/// `P2[j]`: the subblock XOR-ed into output `j` (the AES round key position).
pub const P2: [usize; SUBBLOCKS] = [
    1, 0, 3, 4, 5, 2, 7, 8, 9, 10, 6, 12, 13, 14, 15, 16, 17, 18, 19, 11,
];
/// The output subblock that carries the round constant instead of `A(S[P1[j]])`.
/// Its `P1` entry (subblock 11) is the one input that skips the AES round.
pub const CONST_OUT: usize = 7;
