//! Portable, constant-time software backend for Paff.
//!
//! Everything here is plain integer arithmetic on `u64` words: no table is
//! ever indexed by state data, no branch or loop bound depends on state data,
//! and there is no `unsafe` or architecture-specific code.
//!
//! # Bit layout
//!
//! The 20 subblocks of the state live in 20 *slots*, grouped into 5 groups
//! of 4 (`slot = 4 * group + k`, `k` in `0..4`). The state is kept bitsliced
//! for the whole permutation as `[[u64; 8]; 5]`: `bits[g][b]` holds bit `b`
//! (bit 0 = least significant) of every byte of the four blocks of group `g`.
//! Byte `i` of the block in slot `k` (FIPS-197 order: row `i % 4`, column
//! `i / 4`) is stored at bit position
//!
//! ```text
//! 4 * i + k  =  16 * column + 4 * row + k
//! ```
//!
//! so a word is four 16-bit column lanes, each made of four 4-bit row
//! nibbles, each nibble holding one bit of the four blocks of the group.
//! In this layout
//!
//! * `SubBytes` is a 113-gate Boyar–Peralta–Calik circuit applied to the eight
//!   words of a group (five groups give the 20 blocks; 19 are needed);
//! * `ShiftRows` moves row `r` by `r` columns, i.e. rotates the word by `16 r`
//!   bits restricted to the row-`r` nibbles (two masked rotations);
//! * `MixColumns` needs the rows of a column rotated, which is a rotation by
//!   4 or 8 bits inside each 16-bit lane;
//! * moving a block from slot `(g, k)` to slot `(g', k')` is a rotation of
//!   word `g` by `k' - k` followed by a mask and an XOR into word `g'`.
//!
//! # Avoiding block permutations
//!
//! A Paff round computes `N[j] = A(S[P1[j]]) ^ S[P2[j]]`. Instead of moving
//! both terms, we let the assignment of blocks to slots change from round to
//! round: output `j` is placed in the slot that held block `P1[j]`, so the
//! `A(..)` term never moves, and only the `S[P2[j]]` term is gathered. The
//! slot assignments of all 25 round boundaries, the per-round gather moves
//! (merged into classes sharing source group, destination group and rotation)
//! and the per-round constants are computed at compile time from
//! `P1`, `P2` and `RC`. The initial assignment `LABEL0` is one that keeps
//! the total number of gather classes small (any assignment gives the same
//! result; only the speed depends on it). The assignment is undone when
//! converting back.
//!
//! The S-box circuit omits its four output complements; since ShiftRows and
//! MixColumns map the all-`0x63` block to itself, `A(x) = A'(x) ^ 0x63..63`
//! and the constant is folded into the per-round constant words together
//! with `RC[round]` for the output slot `CONST_OUT`.

use crate::definition::instances::{MAX_RATE, Variant};
use crate::definition::pad;
use crate::definition::paff::{CONST_OUT, P1, P2, RC, ROUNDS, SUBBLOCKS, State};
use crate::wipe::wipe;

/// Number of slot groups (four blocks per group).
const GROUPS: usize = SUBBLOCKS / 4;

/// Bit planes of one group: `planes[b]` holds bit `b` of 64 bytes.
type Planes = [u64; 8];

/// The whole bitsliced state (see the module documentation for the layout).
type Bits = [Planes; GROUPS];

/// Initial assignment: block `b` of the input state goes to slot `LABEL0[b]`.
const LABEL0: [usize; SUBBLOCKS] = [
    2, 19, 5, 8, 3, 18, 9, 17, 15, 11, 1, 12, 0, 7, 14, 13, 4, 16, 6, 10,
];

/// Bits of slot `k` in a word: positions `4 i + k` for all 16 bytes `i`.
const fn slot_mask(k: usize) -> u64 {
    0x1111_1111_1111_1111u64 << k
}

/// `LABELS[r][b]`: the slot holding block `b` at the start of round `r`
/// (`r = ROUNDS` is the final state).
const LABELS: [[usize; SUBBLOCKS]; ROUNDS + 1] = {
    let mut l = [[0usize; SUBBLOCKS]; ROUNDS + 1];
    l[0] = LABEL0;
    let mut r = 0;
    while r < ROUNDS {
        let mut j = 0;
        while j < SUBBLOCKS {
            l[r + 1][j] = l[r][P1[j]];
            j += 1;
        }
        r += 1;
    }
    l
};

/// One merged gather move: `dst[dst_g][b] ^= src[src_g][b].rotate_left(rot) & mask`.
#[derive(Clone, Copy)]
struct Move {
    /// Source group.
    src_g: usize,
    /// Destination group.
    dst_g: usize,
    /// Left rotation (in bits) moving source slots onto destination slots.
    rot: u32,
    /// Destination slot bits written by this move.
    mask: u64,
}

/// Per-round gather tables and their lengths.
struct Gathers {
    /// Up to 20 merged moves per round.
    moves: [[Move; SUBBLOCKS]; ROUNDS],
    /// Number of valid entries of `moves[r]`.
    len: [usize; ROUNDS],
}

/// Moves of the `S[P2[j]]` terms for every round: block `P2[j]` goes from
/// its slot to the slot of block `P1[j]` (where output `j` will live).
const GATHERS: Gathers = {
    let empty = Move {
        src_g: 0,
        dst_g: 0,
        rot: 0,
        mask: 0,
    };
    let mut g = Gathers {
        moves: [[empty; SUBBLOCKS]; ROUNDS],
        len: [0; ROUNDS],
    };
    let mut r = 0;
    while r < ROUNDS {
        let mut j = 0;
        while j < SUBBLOCKS {
            let src = LABELS[r][P2[j]];
            let dst = LABELS[r][P1[j]];
            let rot = ((dst % 4 + 64 - src % 4) % 64) as u32;
            let mask = slot_mask(dst % 4);
            let mut c = 0;
            let mut merged = false;
            while c < g.len[r] {
                let m = &mut g.moves[r][c];
                if m.src_g == src / 4 && m.dst_g == dst / 4 && m.rot == rot {
                    m.mask |= mask;
                    merged = true;
                }
                c += 1;
            }
            if !merged {
                g.moves[r][g.len[r]] = Move {
                    src_g: src / 4,
                    dst_g: dst / 4,
                    rot,
                    mask,
                };
                g.len[r] += 1;
            }
            j += 1;
        }
        r += 1;
    }
    g
};

/// Bitsliced form of one block placed in slot `k` (other slots zero).
const fn spread_block(block: &[u8; 16], k: usize) -> Planes {
    let mut p = [0u64; 8];
    let mut i = 0;
    while i < 16 {
        let mut b = 0;
        while b < 8 {
            p[b] |= (((block[i] >> b) & 1) as u64) << (4 * i + k);
            b += 1;
        }
        i += 1;
    }
    p
}

/// Per-round constant words XOR-ed into the new state: `0x63` in every byte
/// of every slot (undoing the complements omitted from the S-box), except
/// the slot of output `CONST_OUT`, which receives `RC[round]`.
const CONSTS: [Bits; ROUNDS] = {
    let mut out = [[[0u64; 8]; GROUPS]; ROUNDS];
    let aff = spread_block(&[0x63; 16], 0);
    let mut r = 0;
    while r < ROUNDS {
        let zero = LABELS[r][P1[CONST_OUT]];
        let mut s = 0;
        while s < SUBBLOCKS {
            let p = if s == zero {
                spread_block(&RC[r], s % 4)
            } else {
                let mut q = [0u64; 8];
                let mut b = 0;
                while b < 8 {
                    q[b] = aff[b] << (s % 4);
                    b += 1;
                }
                q
            };
            let mut b = 0;
            while b < 8 {
                out[r][s / 4][b] |= p[b];
                b += 1;
            }
            s += 1;
        }
        r += 1;
    }
    out
};

/// Exchanges the bits of `a` selected by `mask << n` with the bits of `b`
/// selected by `mask`.
#[inline(always)]
fn swap_move(w: &mut [u64; 8], ia: usize, ib: usize, mask: u64, n: u32) {
    let t = ((w[ia] >> n) ^ w[ib]) & mask;
    w[ib] ^= t;
    w[ia] ^= t << n;
}

/// 8x8 bit transpose of each byte column: afterwards word `j`, bit `8 t + w`
/// holds what was bit `j` of byte `t` of word `w`. It is an involution.
#[inline(always)]
fn transpose(w: &mut [u64; 8]) {
    for i in [0, 2, 4, 6] {
        swap_move(w, i, i + 1, 0x5555_5555_5555_5555, 1);
    }
    for i in [0, 1, 4, 5] {
        swap_move(w, i, i + 2, 0x3333_3333_3333_3333, 2);
    }
    for i in 0..4 {
        swap_move(w, i, i + 4, 0x0f0f_0f0f_0f0f_0f0f, 4);
    }
}

/// For bit position `p = 8 t + w` of a plane word, the byte index `8 w + t`
/// in the byte array fed to `transpose`.
#[inline(always)]
const fn byte_slot(p: usize) -> usize {
    8 * (p % 8) + p / 8
}

/// Converts a state into bitsliced form, block `b` going to slot `label[b]`.
#[inline(always)]
fn pack(state: &State, label: &[usize; SUBBLOCKS]) -> Bits {
    let mut bytes = [[0u8; 64]; GROUPS];
    for (blk, block) in state.iter().enumerate() {
        let s = label[blk];
        for (i, &v) in block.iter().enumerate() {
            bytes[s / 4][byte_slot(4 * i + s % 4)] = v;
        }
    }
    let mut bits = [[0u64; 8]; GROUPS];
    for (planes, raw) in bits.iter_mut().zip(bytes.iter()) {
        for (w, chunk) in planes.iter_mut().zip(raw.chunks_exact(8)) {
            let mut le = [0u8; 8];
            le.copy_from_slice(chunk);
            *w = u64::from_le_bytes(le);
        }
        transpose(planes);
    }
    bits
}

/// Converts back from bitsliced form; block `b` is read from slot `label[b]`.
#[inline(always)]
fn unpack(bits: &Bits, label: &[usize; SUBBLOCKS], state: &mut State) {
    let mut bytes = [[0u8; 64]; GROUPS];
    for (raw, planes) in bytes.iter_mut().zip(bits.iter()) {
        let mut w = *planes;
        transpose(&mut w);
        for (chunk, word) in raw.chunks_exact_mut(8).zip(w.iter()) {
            chunk.copy_from_slice(&word.to_le_bytes());
        }
    }
    for (blk, block) in state.iter_mut().enumerate() {
        let s = label[blk];
        for (i, v) in block.iter_mut().enumerate() {
            *v = bytes[s / 4][byte_slot(4 * i + s % 4)];
        }
    }
}

/// AES S-box without its four output complements (`S(x) ^ 0x63`), on the
/// eight bit planes of 64 bytes, using the 113-gate Boyar–Peralta–Calik
/// straight-line program (`u0`/`s0` are the most significant bits there).
#[inline(always)]
fn sub_bytes(p: &mut Planes) {
    let (u0, u1, u2, u3) = (p[7], p[6], p[5], p[4]);
    let (u4, u5, u6, u7) = (p[3], p[2], p[1], p[0]);

    // Top linear layer.
    let y14 = u3 ^ u5;
    let y13 = u0 ^ u6;
    let y9 = u0 ^ u3;
    let y8 = u0 ^ u5;
    let t0 = u1 ^ u2;
    let y1 = t0 ^ u7;
    let y4 = y1 ^ u3;
    let y12 = y13 ^ y14;
    let y2 = y1 ^ u0;
    let y5 = y1 ^ u6;
    let y3 = y5 ^ y8;
    let t1 = u4 ^ y12;
    let y15 = t1 ^ u5;
    let y20 = t1 ^ u1;
    let y6 = y15 ^ u7;
    let y10 = y15 ^ t0;
    let y11 = y20 ^ y9;
    let y7 = u7 ^ y11;
    let y17 = y10 ^ y11;
    let y19 = y10 ^ y8;
    let y16 = t0 ^ y11;
    let y21 = y13 ^ y16;
    let y18 = u0 ^ y16;

    // Shared non-linear middle part.
    let t2 = y12 & y15;
    let t3 = y3 & y6;
    let t4 = t3 ^ t2;
    let t5 = y4 & u7;
    let t6 = t5 ^ t2;
    let t7 = y13 & y16;
    let t8 = y5 & y1;
    let t9 = t8 ^ t7;
    let t10 = y2 & y7;
    let t11 = t10 ^ t7;
    let t12 = y9 & y11;
    let t13 = y14 & y17;
    let t14 = t13 ^ t12;
    let t15 = y8 & y10;
    let t16 = t15 ^ t12;
    let t17 = t4 ^ y20;
    let t18 = t6 ^ t16;
    let t19 = t9 ^ t14;
    let t20 = t11 ^ t16;
    let t21 = t17 ^ t14;
    let t22 = t18 ^ y19;
    let t23 = t19 ^ y21;
    let t24 = t20 ^ y18;
    let t25 = t21 ^ t22;
    let t26 = t21 & t23;
    let t27 = t24 ^ t26;
    let t28 = t25 & t27;
    let t29 = t28 ^ t22;
    let t30 = t23 ^ t24;
    let t31 = t22 ^ t26;
    let t32 = t31 & t30;
    let t33 = t32 ^ t24;
    let t34 = t23 ^ t33;
    let t35 = t27 ^ t33;
    let t36 = t24 & t35;
    let t37 = t36 ^ t34;
    let t38 = t27 ^ t36;
    let t39 = t29 & t38;
    let t40 = t25 ^ t39;
    let t41 = t40 ^ t37;
    let t42 = t29 ^ t33;
    let t43 = t29 ^ t40;
    let t44 = t33 ^ t37;
    let t45 = t42 ^ t41;
    let z0 = t44 & y15;
    let z1 = t37 & y6;
    let z2 = t33 & u7;
    let z3 = t43 & y16;
    let z4 = t40 & y1;
    let z5 = t29 & y7;
    let z6 = t42 & y11;
    let z7 = t45 & y17;
    let z8 = t41 & y10;
    let z9 = t44 & y12;
    let z10 = t37 & y3;
    let z11 = t33 & y4;
    let z12 = t43 & y13;
    let z13 = t40 & y5;
    let z14 = t29 & y2;
    let z15 = t42 & y9;
    let z16 = t45 & y14;
    let z17 = t41 & y8;

    // Bottom linear layer (XNORs replaced by XORs).
    let tc1 = z15 ^ z16;
    let tc2 = z10 ^ tc1;
    let tc3 = z9 ^ tc2;
    let tc4 = z0 ^ z2;
    let tc5 = z1 ^ z0;
    let tc6 = z3 ^ z4;
    let tc7 = z12 ^ tc4;
    let tc8 = z7 ^ tc6;
    let tc9 = z8 ^ tc7;
    let tc10 = tc8 ^ tc9;
    let tc11 = tc6 ^ tc5;
    let tc12 = z3 ^ z5;
    let tc13 = z13 ^ tc1;
    let tc14 = tc4 ^ tc12;
    let s3 = tc3 ^ tc11;
    let tc16 = z6 ^ tc8;
    let tc17 = z14 ^ tc10;
    let tc18 = tc13 ^ tc14;
    let s7 = z12 ^ tc18;
    let tc20 = z15 ^ tc16;
    let tc21 = tc2 ^ z11;
    let s0 = tc3 ^ tc16;
    let s6 = tc10 ^ tc18;
    let s4 = tc14 ^ s3;
    let s1 = s3 ^ tc16;
    let tc26 = tc17 ^ tc20;
    let s2 = tc26 ^ z17;
    let s5 = tc21 ^ tc17;

    *p = [s7, s6, s5, s4, s3, s2, s1, s0];
}

/// Row-`r` nibbles of every column lane.
const ROW: [u64; 4] = [
    0x000f_000f_000f_000f,
    0x00f0_00f0_00f0_00f0,
    0x0f00_0f00_0f00_0f00,
    0xf000_f000_f000_f000,
];

/// ShiftRows on one plane word: row `r` of column `c` takes row `r` of
/// column `c + r`, done as "rows 1, 3 by one column" then "rows 2, 3 by two".
#[inline(always)]
fn shift_rows(x: u64) -> u64 {
    let x = x ^ ((x ^ x.rotate_right(16)) & (ROW[1] | ROW[3]));
    x ^ ((x ^ x.rotate_right(32)) & (ROW[2] | ROW[3]))
}

/// Rotates the rows of every column up by one: row `r` takes row `r + 1`.
#[inline(always)]
fn rot_rows1(x: u64) -> u64 {
    ((x >> 4) & !ROW[3]) | ((x << 12) & ROW[3])
}

/// Rotates the rows of every column by two: row `r` takes row `r + 2`.
#[inline(always)]
fn rot_rows2(x: u64) -> u64 {
    ((x >> 8) & (ROW[0] | ROW[1])) | ((x << 8) & (ROW[2] | ROW[3]))
}

/// `A'(x) = MixColumns(ShiftRows(S(x) ^ 0x63))` on the 4 blocks of a group.
#[inline(always)]
fn aes_round_nc(p: &mut Planes) {
    sub_bytes(p);
    // out = 2 * (a ^ a1) ^ a1 ^ rot2(a ^ a1) with a = ShiftRows(S'(x)) and
    // a1 = rot1(a); the doubling is a plane shift with reduction by
    // x^8 = x^4 + x^3 + x + 1, so plane 7 of `a ^ a1` is needed first.
    let a7 = shift_rows(p[7]);
    let hi = a7 ^ rot_rows1(a7);
    let mut prev = hi;
    for (b, w) in p.iter_mut().enumerate() {
        let a = shift_rows(*w);
        let a1 = rot_rows1(a);
        let d = a ^ a1;
        let mut x2 = prev;
        if b == 1 || b == 3 || b == 4 {
            x2 ^= hi;
        }
        *w = x2 ^ a1 ^ rot_rows2(d);
        prev = d;
    }
}

/// `A'` on all five groups (kept out of line: it is shared by every round).
#[inline(never)]
fn aes_layer(t: &mut Bits) {
    for p in t.iter_mut() {
        aes_round_nc(p);
    }
}

/// One Paff round on the bitsliced state, using the slot assignment of round
/// `R`. The round index is a const parameter so that the gather rotations and
/// masks become immediate operands.
#[inline(always)]
fn round<const R: usize>(s: &Bits) -> Bits {
    let mut t = *s;
    aes_layer(&mut t);
    // The A(..) value in the slot of output CONST_OUT is replaced by RC.
    let zero = LABELS[R][P1[CONST_OUT]];
    let keep = !slot_mask(zero % 4);
    for w in t[zero / 4].iter_mut() {
        *w &= keep;
    }
    for (tp, kp) in t.iter_mut().zip(CONSTS[R].iter()) {
        for (w, k) in tp.iter_mut().zip(kp.iter()) {
            *w ^= k;
        }
    }
    let moves = &GATHERS.moves[R];
    for b in 0..8 {
        let src: [u64; GROUPS] = core::array::from_fn(|g| s[g][b]);
        let mut acc: [u64; GROUPS] = core::array::from_fn(|g| t[g][b]);
        for m in moves.iter().take(GATHERS.len[R]) {
            acc[m.dst_g] ^= src[m.src_g].rotate_left(m.rot) & m.mask;
        }
        for (tg, a) in t.iter_mut().zip(acc) {
            tg[b] = a;
        }
    }
    t
}

/// Runs the 24 rounds, each with its own compile-time round index.
macro_rules! all_rounds {
    ($bits:ident; $($r:literal)*) => {
        $( $bits = round::<$r>(&$bits); )*
    };
}

/// Applies Paff to `state` in place, in constant time.
pub(crate) fn permute(state: &mut State) {
    let mut bits = pack(state, &LABELS[0]);
    all_rounds!(bits; 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23);
    unpack(&bits, &LABELS[ROUNDS], state);
}

/// For each `V::RATE`-byte block of `blocks`: XOR it into the rate of the
/// state, then apply Paff.
pub(crate) fn absorb<V: Variant>(state: &mut State, blocks: &[u8]) {
    for block in blocks.chunks_exact(V::RATE) {
        for (sub, chunk) in state.iter_mut().zip(block.as_chunks::<16>().0) {
            // Whole subblocks as one 128-bit XOR (byte order is irrelevant).
            *sub = (u128::from_ne_bytes(*sub) ^ u128::from_ne_bytes(*chunk)).to_ne_bytes();
        }
        permute(state);
    }
}

/// The digest of `data` followed by the top `tail_bits` (0..8) bits of
/// `tail`, into `out` (`V::DIGEST` bytes): the IV, the whole blocks, the
/// padded end ([`pad::pad`]) and the squeeze, on a local state that is
/// wiped before returning.
pub(crate) fn hash<V: Variant>(data: &[u8], tail: u8, tail_bits: u8, out: &mut [u8]) {
    let mut state = V::IV;
    let whole = data.len() - data.len() % V::RATE;
    absorb::<V>(&mut state, &data[..whole]);
    let mut buf = [0u8; 2 * MAX_RATE];
    let nb = pad::pad::<V>(&data[whole..], tail, tail_bits, &mut buf);
    absorb::<V>(&mut state, &buf[..nb * V::RATE]);
    for (k, chunk) in out.chunks_mut(V::RATE).enumerate() {
        if k > 0 {
            permute(&mut state);
        }
        chunk.copy_from_slice(&state.as_flattened()[..chunk.len()]);
    }
    wipe(&mut buf[..nb * V::RATE]);
    wipe(state.as_flattened_mut());
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Multiplication by `x` in GF(2^8) modulo the AES polynomial.
    fn xtime(a: u8) -> u8 {
        (a << 1) ^ if a & 0x80 != 0 { 0x1b } else { 0 }
    }

    /// Multiplication in GF(2^8).
    fn gmul(mut a: u8, mut b: u8) -> u8 {
        let mut r = 0;
        while b != 0 {
            if b & 1 != 0 {
                r ^= a;
            }
            a = xtime(a);
            b >>= 1;
        }
        r
    }

    /// The AES S-box table, built from its definition (inverse + affine map).
    fn sbox_table() -> [u8; 256] {
        let mut t = [0u8; 256];
        for (x, out) in t.iter_mut().enumerate() {
            let x = x as u8;
            // x^254 = x^-1 (and 0 -> 0)
            let mut inv = 1u8;
            for _ in 0..254 {
                inv = gmul(inv, x);
            }
            let b = inv;
            *out = b
                ^ b.rotate_left(1)
                ^ b.rotate_left(2)
                ^ b.rotate_left(3)
                ^ b.rotate_left(4)
                ^ 0x63;
        }
        t
    }

    /// Reference A(X) = MixColumns(ShiftRows(SubBytes(X))).
    fn aes_ref(sbox: &[u8; 256], x: &[u8; 16]) -> [u8; 16] {
        let mut s = [0u8; 16];
        for (i, v) in s.iter_mut().enumerate() {
            let (r, c) = (i % 4, i / 4);
            *v = sbox[x[r + 4 * ((c + r) % 4)] as usize];
        }
        let mut o = [0u8; 16];
        for c in 0..4 {
            let a = &s[4 * c..4 * c + 4];
            for r in 0..4 {
                o[4 * c + r] =
                    gmul(a[r], 2) ^ gmul(a[(r + 1) % 4], 3) ^ a[(r + 2) % 4] ^ a[(r + 3) % 4];
            }
        }
        o
    }

    /// Value of one lowercase hex digit.
    fn nibble(c: u8) -> u8 {
        if c.is_ascii_digit() {
            c - b'0'
        } else {
            c - b'a' + 10
        }
    }

    /// Decodes `N` bytes from `2 N` lowercase hex digits.
    fn hex<const N: usize>(s: &str) -> [u8; N] {
        let d = s.as_bytes();
        core::array::from_fn(|i| (nibble(d[2 * i]) << 4) | nibble(d[2 * i + 1]))
    }

    /// xorshift64 PRNG.
    struct Rng(u64);
    impl Rng {
        /// Next 64-bit output.
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }
        /// A pseudo-random block.
        fn block(&mut self) -> [u8; 16] {
            let mut b = [0u8; 16];
            b[..8].copy_from_slice(&self.next().to_le_bytes());
            b[8..].copy_from_slice(&self.next().to_le_bytes());
            b
        }
        /// A pseudo-random state.
        fn state(&mut self) -> State {
            let mut s = [[0u8; 16]; SUBBLOCKS];
            for b in s.iter_mut() {
                *b = self.block();
            }
            s
        }
    }

    #[test]
    fn reference_round_matches_fips197() {
        let sbox = sbox_table();
        assert_eq!(sbox[0x00], 0x63);
        assert_eq!(sbox[0x53], 0xed);
        let x = hex("193de3bea0f4e22b9ac68d2ae9f84808");
        assert_eq!(aes_ref(&sbox, &x), hex("046681e5e0cb199a48f8d37a2806264c"));
        // Round 2 of the same example.
        let x = hex("a49c7ff2689f352b6b5bea43026a5049");
        assert_eq!(aes_ref(&sbox, &x), hex("584dcaf11b4b5aacdbe7caa81b6bb0e5"));
    }

    #[test]
    fn pack_unpack_roundtrip() {
        let mut rng = Rng(0x1234_5678_9abc_def1);
        for l in LABELS.iter() {
            let s = rng.state();
            let mut out = [[0u8; 16]; SUBBLOCKS];
            unpack(&pack(&s, l), l, &mut out);
            assert_eq!(out, s);
        }
    }

    #[test]
    fn bitsliced_round_matches_reference() {
        let sbox = sbox_table();
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        let label: [usize; SUBBLOCKS] = core::array::from_fn(|i| i);
        for _ in 0..200 {
            let s = rng.state();
            let mut bits = pack(&s, &label);
            for p in bits.iter_mut() {
                aes_round_nc(p);
                for (w, a) in p.iter_mut().zip(spread_block(&[0x63; 16], 0)) {
                    *w ^= a * 0xf;
                }
            }
            let mut out = [[0u8; 16]; SUBBLOCKS];
            unpack(&bits, &label, &mut out);
            for (o, x) in out.iter().zip(s.iter()) {
                assert_eq!(*o, aes_ref(&sbox, x));
            }
        }
    }
}
