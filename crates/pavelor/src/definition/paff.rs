//! The Paff permutation: 2560-bit state, 24 rounds of 19 AES rounds each.
//!
//! The *definition* (wiring and round constants) that every backend
//! implements. Round `i` maps the state `S` to `N` with
//! `N[j] = A(S[P1[j]]) XOR S[P2[j]]`, where `A` is one AES encryption round
//! without the key addition (`SubBytes`, `ShiftRows`, `MixColumns`), except
//! `N[CONST_OUT] = RC[i] XOR S[P2[CONST_OUT]]`. To apply the permutation, see
//! [`crate::hazmat`].

include!("wiring.rs");

/// State width in bytes (2560 bits).
pub const STATE_BYTES: usize = 16 * SUBBLOCKS;

/// The sponge state as 20 subblocks of 16 bytes; subblock `j` is bytes
/// `16j .. 16j+16` of the byte-string state of the specification.
pub type State = [[u8; 16]; SUBBLOCKS];

/// Round constants `RC[0..24]`, byte 0 first.
///
/// These are consecutive 128-bit chunks of the fractional part of pi, **except
/// `RC[7]` and `RC[22]`**, which the submitted implementation (and therefore
/// every official known-answer test) shifted left by one hex digit. They are
/// kept exactly as the KATs define them.
pub const RC: [[u8; 16]; ROUNDS] = [
    hex16(b"243f6a8885a308d313198a2e03707344"),
    hex16(b"a4093822299f31d0082efa98ec4e6c89"),
    hex16(b"452821e638d01377be5466cf34e90c6c"),
    hex16(b"c0ac29b7c97c50dd3f84d5b5b5470917"),
    hex16(b"9216d5d98979fb1bd1310ba698dfb5ac"),
    hex16(b"2ffd72dbd01adfb7b8e1afed6a267e96"),
    hex16(b"ba7c9045f12c7f9924a19947b3916cf7"),
    hex16(b"801f2e2858efc16636920d871574e690"),
    hex16(b"a458fea3f4933d7e0d95748f728eb658"),
    hex16(b"718bcd5882154aee7b54a41dc25a59b5"),
    hex16(b"9c30d5392af26013c5d1b023286085f0"),
    hex16(b"ca417918b8db38ef8e79dcb0603a180e"),
    hex16(b"6c9e0e8bb01e8a3ed71577c1bd314b27"),
    hex16(b"78af2fda55605c60e65525f3aa55ab94"),
    hex16(b"5748986263e8144055ca396a2aab10b6"),
    hex16(b"b4cc5c341141e8cea15486af7c72e993"),
    hex16(b"b3ee1411636fbc2a2ba9c55d741831f6"),
    hex16(b"ce5c3e169b87931eafd6ba336c24cf5c"),
    hex16(b"7a325381289586773b8f48986b4bb9af"),
    hex16(b"c4bfe81b6628219361d809ccfb21a991"),
    hex16(b"487cac605dec8032ef845d5de98575b1"),
    hex16(b"dc262302eb651b8823893e81d396acc5"),
    hex16(b"f6d6ff383f442392e0b4482a48420040"),
    hex16(b"69c8f04a9e1f9b5e21c66842f6e96c9a"),
];

/// Decodes 32 lowercase hex digits at compile time.
#[allow(clippy::panic)] // only evaluated in constants: a bad digit fails the build
const fn hex16(s: &[u8; 32]) -> [u8; 16] {
    const fn nibble(c: u8) -> u8 {
        match c {
            b'0'..=b'9' => c - b'0',
            b'a'..=b'f' => c - b'a' + 10,
            _ => panic!("bad hex digit in round constant"),
        }
    }
    let mut out = [0u8; 16];
    let mut i = 0;
    while i < 16 {
        out[i] = (nibble(s[2 * i]) << 4) | nibble(s[2 * i + 1]);
        i += 1;
    }
    out
}

/// The Paff round wiring, written out once for every backend: expands to
/// the 20 new subblocks `[N[0], .., N[19]]` of one round as an array
/// expression, from the old subblocks `$o` (anything indexable by a
/// constant), the AES-round function `$enc(x, y) = A(x) XOR y`, the XOR
/// function `$xor` and the round constant `$rc`:
/// `N[j] = $enc($o[P1[j]], $o[P2[j]])`, except `N[CONST_OUT] = $xor($rc, $o[8])`.
///
/// Every index is a literal, so a kernel that keeps the state in a register
/// array and unrolls the rounds gets pure register renaming. The AES rounds
/// are listed in output order, which is also roughly the order their inputs
/// become ready, helping the scheduler keep the AES units busy across round
/// boundaries. A macro rather than a generic function so that each kernel's
/// (target-feature, `unsafe`) primitives are called from inside that
/// kernel's own `unsafe` block; `tests::macro_matches_tables` checks it
/// against [`P1`], [`P2`] and [`CONST_OUT`].
macro_rules! paff_round {
    ($o:expr, $rc:expr, $enc:expr, $xor:expr) => {{
        let o = $o;
        [
            $enc(o[19], o[1]),
            $enc(o[4], o[0]),
            $enc(o[6], o[3]),
            $enc(o[17], o[4]),
            $enc(o[9], o[5]),
            $enc(o[0], o[2]),
            $enc(o[13], o[7]),
            $xor($rc, o[8]),
            $enc(o[8], o[9]),
            $enc(o[5], o[10]),
            $enc(o[15], o[6]),
            $enc(o[10], o[12]),
            $enc(o[16], o[13]),
            $enc(o[3], o[14]),
            $enc(o[12], o[15]),
            $enc(o[14], o[16]),
            $enc(o[18], o[17]),
            $enc(o[7], o[18]),
            $enc(o[2], o[19]),
            $enc(o[1], o[11]),
        ]
    }};
}
pub(crate) use paff_round;

/// The 24 rounds of Paff, fully unrolled, on the register array `$s`:
/// `$s = paff_round!($s, $rc(i), $enc, $xor)` for `i = 0..24`, where
/// `$rc(i)` yields `RC[i]` in the kernel's vector type.
macro_rules! paff_rounds {
    ($s:ident, $rc:expr, $enc:expr, $xor:expr) => {
        $crate::definition::paff::paff_rounds!(@r $s, $rc, $enc, $xor;
            0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23)
    };
    (@r $s:ident, $rc:expr, $enc:expr, $xor:expr; $($i:literal)*) => {
        $( $s = $crate::definition::paff::paff_round!($s, $rc($i), $enc, $xor); )*
    };
}
pub(crate) use paff_rounds;

/// The outputs of a round in an order that needs no copy when the AES
/// instruction overwrites its data operand (AArch64 `AESE Vd, Vn`), derived
/// from [`P1`], [`P2`] and [`CONST_OUT`] at compile time.
///
/// Every subblock `k` except `P1[CONST_OUT]` has two uses in a round: AES
/// input of output `P1⁻¹[k]` and XOR operand of output `P2⁻¹[k]`. Done in
/// place, the AES round destroys `k`, so `k` needs no copy exactly when its
/// XOR use comes first. The order starts with the round-constant output
/// (the XOR use of `k = P2[CONST_OUT]`, no AES round), then repeatedly
/// takes the output `j = P1⁻¹[k]` whose AES input is the subblock just
/// freed and moves on to `k = P2[j]`, the subblock that output XORs. That
/// chain follows the permutation `k ↦ P2[P1⁻¹[k]]`, which for this wiring is
/// one cycle of all 20 subblocks through `P1[CONST_OUT]` (the one subblock
/// without an AES round), so it reaches every output: the build fails
/// otherwise. See `docs/architecture.md` (the AArch64 kernel).
pub const COPY_FREE_ORDER: [usize; SUBBLOCKS] = copy_free_order();

#[allow(clippy::panic)] // only evaluated in a constant: a failure fails the build
const fn copy_free_order() -> [usize; SUBBLOCKS] {
    let mut p1_inv = [usize::MAX; SUBBLOCKS];
    let mut j = 0;
    while j < SUBBLOCKS {
        p1_inv[P1[j]] = j;
        j += 1;
    }
    let mut order = [usize::MAX; SUBBLOCKS];
    order[0] = CONST_OUT;
    let mut steps = 1;
    let mut k = P2[CONST_OUT];
    while k != P1[CONST_OUT] && steps < SUBBLOCKS {
        let j = p1_inv[k];
        order[steps] = j;
        steps += 1;
        k = P2[j];
    }
    if steps != SUBBLOCKS || k != P1[CONST_OUT] {
        panic!("the wiring has no copy-free order of the AES rounds");
    }
    order
}

/// One Paff round like [`paff_round!`], the outputs computed in
/// [`COPY_FREE_ORDER`] (same arguments): for a kernel whose AES
/// instruction overwrites its input, so that no subblock is copied.
/// Every index is a constant (the order is a `const`).
#[cfg_attr(not(any(target_arch = "aarch64", test)), allow(unused_macros))]
macro_rules! paff_round_copy_free {
    ($o:expr, $rc:expr, $enc:expr, $xor:expr) => {{
        let o = $o;
        let mut n = o;
        n[$crate::definition::paff::CONST_OUT] =
            $xor($rc, o[$crate::definition::paff::P2[$crate::definition::paff::CONST_OUT]]);
        $crate::definition::paff::paff_round_copy_free!(@steps o, n, $enc;
            1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19);
        n
    }};
    (@steps $o:ident, $n:ident, $enc:expr; $($step:literal)*) => {
        $({
            const J: usize = $crate::definition::paff::COPY_FREE_ORDER[$step];
            $n[J] = $enc(
                $o[$crate::definition::paff::P1[J]],
                $o[$crate::definition::paff::P2[J]],
            );
        })*
    };
}
#[cfg_attr(not(any(target_arch = "aarch64", test)), allow(unused_imports))]
pub(crate) use paff_round_copy_free;

/// The 24 rounds of Paff like [`paff_rounds!`], each in
/// [`COPY_FREE_ORDER`] ([`paff_round_copy_free!`]).
#[cfg_attr(not(target_arch = "aarch64"), allow(unused_macros))]
macro_rules! paff_rounds_copy_free {
    ($s:ident, $rc:expr, $enc:expr, $xor:expr) => {
        $crate::definition::paff::paff_rounds_copy_free!(@r $s, $rc, $enc, $xor;
            0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23)
    };
    (@r $s:ident, $rc:expr, $enc:expr, $xor:expr; $($i:literal)*) => {
        $( $s = $crate::definition::paff::paff_round_copy_free!($s, $rc($i), $enc, $xor); )*
    };
}
#[cfg_attr(not(target_arch = "aarch64"), allow(unused_imports))]
pub(crate) use paff_rounds_copy_free;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wiring_is_two_permutations() {
        for p in [P1, P2] {
            let mut seen = [false; SUBBLOCKS];
            for &i in &p {
                assert!(!seen[i]);
                seen[i] = true;
            }
        }
        assert_eq!(P1[CONST_OUT], 11);
    }

    #[test]
    fn macro_matches_tables() {
        // Run the macro on subblock indices: `enc` records (P1, P2) pairs.
        let o: [usize; SUBBLOCKS] = core::array::from_fn(|j| j);
        let pairs: [(usize, usize); SUBBLOCKS] =
            paff_round!(o, usize::MAX, |x, y| (x, y), |rc, y| (rc, y));
        for (j, &(x, y)) in pairs.iter().enumerate() {
            assert_eq!(y, P2[j], "P2[{j}]");
            if j == CONST_OUT {
                assert_eq!(x, usize::MAX);
            } else {
                assert_eq!(x, P1[j], "P1[{j}]");
            }
        }
    }

    /// Replays a round in [`COPY_FREE_ORDER`] on a machine whose AES round
    /// destroys its input: no subblock is read after its AES round (so no
    /// copy), every output is made once, and the round equals `paff_round!`.
    #[test]
    fn copy_free_order_needs_no_copy() {
        let mut destroyed = [false; SUBBLOCKS];
        let mut made = [false; SUBBLOCKS];
        for (step, &j) in COPY_FREE_ORDER.iter().enumerate() {
            assert!(!made[j]);
            made[j] = true;
            assert!(!destroyed[P2[j]], "step {step}: XOR operand {} gone", P2[j]);
            if j == CONST_OUT {
                assert_eq!(step, 0);
            } else {
                assert!(!destroyed[P1[j]]);
                destroyed[P1[j]] = true;
            }
        }
        assert!(made.iter().all(|&m| m));
        // Same round as the output-order macro.
        let o: [u64; SUBBLOCKS] = core::array::from_fn(|j| 1u64 << (3 * j));
        let enc = |x: u64, y: u64| x.rotate_left(7).wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ y;
        let xor = |x: u64, y: u64| x ^ y;
        let a: [u64; SUBBLOCKS] = paff_round!(o, 0x5555, enc, xor);
        let b: [u64; SUBBLOCKS] = paff_round_copy_free!(o, 0x5555, enc, xor);
        assert_eq!(a, b);
    }

    #[test]
    fn constants_match_pi_except_7_and_22() {
        // RC[7] and RC[22] are the pi chunks shifted left by one hex digit.
        assert_eq!(RC[7][0], 0x80);
        assert_eq!(RC[22][15], 0x40);
        assert_eq!(
            RC[0],
            [
                0x24, 0x3f, 0x6a, 0x88, 0x85, 0xa3, 0x08, 0xd3, 0x13, 0x19, 0x8a, 0x2e, 0x03, 0x70,
                0x73, 0x44
            ]
        );
    }
}
