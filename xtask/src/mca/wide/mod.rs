//! Two shapes of a single-message Paff on `zmm` registers (four subblocks
//! per register, one `VAESENC zmm` rounds four), generated from the wiring
//! for llvm-mca: the model that says whether a wide single-message kernel
//! can beat the `xmm` kernels. Neither is a backend; these are blocks to
//! model, each checked on a value model against the wiring first.
//!
//! - **Fused**: the round key is the state in place (`N[j]` is written
//!   where `S[P2[j]]` was), the AES inputs are gathered with permutes,
//!   and `VAESENC` does the XOR. The output that carries the round
//!   constant gets, as its AES input, a constant whose AES round is the
//!   constant (a table lane the permute reads). Per round: 5 `VAESENC` and
//!   the gathers; a permute then an AES round on the dependency path.
//! - **In place**: the AES rounds work on the state in place (`N[j]` is
//!   written where `S[P1[j]]` was), the XOR operands are gathered beside
//!   them and XORed after; the constant's output is rebuilt with a masked
//!   XOR. Per round: 5 `VAESENC`, the gathers, 5 XORs; an AES round then an
//!   XOR on the dependency path.
//!
//! Either way the layout moves every round; the last round of each Paff
//! gathers both operands so that the state ends where it began. A gather
//! whose four lanes come from one or two registers (or one register and
//! the constant table) is one permute; from three or four, two permutes
//! and a select. The starting layout is the one a seeded local search
//! finds with the fewest permutes over the 24 rounds.

use std::collections::HashMap;

mod render;

use crate::codegen::model::mix;
use crate::codegen::wiring::{CONST_OUT, P1, P2, ROUNDS, SUBBLOCKS};

/// Subblocks per register.
const LANES: usize = 4;
/// State registers.
const REGS: usize = SUBBLOCKS / LANES;

/// The two shapes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Shape {
    /// Key in place, AES inputs gathered, the XOR inside `VAESENC`.
    Fused,
    /// AES inputs in place, XOR operands gathered, a separate XOR.
    InPlace,
}

impl Shape {
    pub(crate) const ALL: [Shape; 2] = [Shape::Fused, Shape::InPlace];

    pub(crate) fn name(self) -> &'static str {
        match self {
            Shape::Fused => "wide zmm, fused (gathered AES inputs, key in place)",
            Shape::InPlace => "wide zmm, in place (AES in place, gathered XOR operands)",
        }
    }
}

/// Where a subblock is: (register, lane).
type Pos = (usize, usize);

/// What a gathered lane holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Src {
    /// A lane of a state register.
    Reg(Pos),
    /// The round's constant-table lane.
    Const,
    /// Anything.
    DontCare,
}

/// A `zmm` operand.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Z {
    /// State register `k` of bank `b` (the banks alternate by round).
    State(usize, usize),
    /// A temporary.
    Temp(usize),
    /// The zero register.
    Zero,
}

impl Z {
    fn reg(self) -> usize {
        match self {
            Z::State(b, k) => b * REGS + k,
            Z::Temp(t) => 2 * REGS + t,
            Z::Zero => 31,
        }
    }
}

/// A memory constant: 64 bytes at `name + 64 × index`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mem {
    /// A permute index (per lane: table, source lane) or a lane mask.
    Table(usize),
    /// The round's constant-table vector (`round`).
    Round(usize),
}

/// One instruction of the block.
#[derive(Clone, Debug)]
enum Insn {
    /// Loads a permute index into `dst`.
    LoadIndex { dst: Z, index: Mem },
    /// `dst = permute(a)` by the index in `dst`.
    Perm1 { dst: Z, a: Z },
    /// `dst = permute(a, b)` by the index in `dst` (`b` a register or the
    /// round's constant vector in memory).
    Perm2 { dst: Z, a: Z, b: Result<Z, Mem> },
    /// `dst = mask ? dst : b`, lane by lane.
    Select { dst: Z, b: Z, mask: Mem },
    /// `dst = A(x) XOR key`, lane by lane.
    Aes { dst: Z, x: Z, key: Z },
    /// `dst = a XOR b`.
    Xor { dst: Z, a: Z, b: Result<Z, Mem> },
    /// `dst = b XOR (dst AND mask)`, lane by lane.
    XorMasked { dst: Z, b: Z, mask: Mem },
}

/// A generated block and its memory constants.
pub(crate) struct Block {
    insns: Vec<Insn>,
    /// Permute indices (per lane: table 0/1, source lane) and masks (per
    /// lane: 1 = keep), by [`Mem::Table`] index.
    tables: Vec<[(usize, usize); LANES]>,
    /// Permutes per Paff.
    pub(crate) permutes: usize,
    /// Gathers that needed two permutes and a select.
    pub(crate) wide_gathers: usize,
    /// The In place shape: the lane of each round's vector that holds the
    /// round constant (the others are zero).
    round_lane: [usize; ROUNDS],
}

/// The model's round-constant table lane (the Fused shape's AES input for
/// the constant output).
fn kconst(round: usize) -> u64 {
    0x0f1e_2d3c_4b5a_6978u64.wrapping_mul(round as u64 + 5)
}

/// The model's round constant: the AES round of [`kconst`], so that the
/// Fused shape's constant lane is exact.
fn rc(round: usize) -> u64 {
    mix(kconst(round))
}

/// A small deterministic generator (64-bit LCG, high bits).
struct Lcg(u64);

impl Lcg {
    fn below(&mut self, n: usize) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        ((self.0 >> 33) % n as u64) as usize
    }
}

/// The layout of the round after `cur` (the last round returns to `first`).
fn next_layout(
    shape: Shape,
    cur: &[Pos; SUBBLOCKS],
    first: &[Pos; SUBBLOCKS],
    last: bool,
) -> [Pos; SUBBLOCKS] {
    if last {
        return *first;
    }
    std::array::from_fn(|j| match shape {
        Shape::Fused => cur[P2[j]],
        Shape::InPlace => cur[P1[j]],
    })
}

/// The sources of each output register's AES input and XOR operand in a
/// round from `cur` to `next`, by output register and lane.
type Sources = [[(Src, Src); LANES]; REGS];

fn sources(cur: &[Pos; SUBBLOCKS], next: &[Pos; SUBBLOCKS], shape: Shape) -> Sources {
    let mut s = [[(Src::DontCare, Src::DontCare); LANES]; REGS];
    for j in 0..SUBBLOCKS {
        let (r, l) = next[j];
        let aes = if j == CONST_OUT {
            match shape {
                Shape::Fused => Src::Const,
                Shape::InPlace => Src::DontCare,
            }
        } else {
            Src::Reg(cur[P1[j]])
        };
        s[r][l] = (aes, Src::Reg(cur[P2[j]]));
    }
    s
}

/// The tables (state registers, and the constant table) a gather reads;
/// `None` when the lanes are already in place in one register.
fn tables(src: &[Src; LANES]) -> Option<Vec<Src>> {
    let in_place = src.iter().enumerate().all(|(l, s)| match s {
        Src::Reg((_, lane)) => *lane == l,
        Src::DontCare => true,
        Src::Const => false,
    });
    let mut regs: Vec<Src> = Vec::new();
    for s in src {
        let t = match s {
            Src::Reg((r, _)) => Src::Reg((*r, 0)),
            other => *other,
        };
        if t != Src::DontCare && !regs.contains(&t) {
            regs.push(t);
        }
    }
    if in_place && regs.len() == 1 {
        None
    } else {
        Some(regs)
    }
}

/// The permutes a gather costs, and whether it needs a select.
fn gather_cost(src: &[Src; LANES]) -> (usize, bool) {
    match tables(src) {
        None => (0, false),
        Some(t) if t.len() <= 2 => (1, false),
        Some(_) => (2, true),
    }
}

/// Permutes of a whole Paff from the starting layout `first`, with the
/// three- and four-table gathers weighted (they add a select and a
/// permute to the dependency path).
fn layout_cost(shape: Shape, first: &[Pos; SUBBLOCKS]) -> usize {
    let mut cur = *first;
    let mut cost = 0;
    for round in 0..ROUNDS {
        let last = round == ROUNDS - 1;
        let next = next_layout(shape, &cur, first, last);
        let s = sources(&cur, &next, shape);
        for reg in &s {
            let aes: [Src; LANES] = std::array::from_fn(|l| reg[l].0);
            let key: [Src; LANES] = std::array::from_fn(|l| reg[l].1);
            for g in [aes, key] {
                let (p, wide) = gather_cost(&g);
                cost += p + 2 * usize::from(wide);
            }
        }
        cur = next;
    }
    cost
}

/// The starting layout with the lowest [`layout_cost`] a seeded annealing
/// search finds (`restarts` starts, deterministic for a seed).
pub(crate) fn search_layout(shape: Shape, seed: u64, restarts: usize) -> [Pos; SUBBLOCKS] {
    let mut rng = Lcg(seed);
    let mut best: Option<(usize, [Pos; SUBBLOCKS])> = None;
    for _ in 0..restarts {
        let mut order: [usize; SUBBLOCKS] = std::array::from_fn(|k| k);
        for k in (1..SUBBLOCKS).rev() {
            order.swap(k, rng.below(k + 1));
        }
        let mut pos: [Pos; SUBBLOCKS] =
            std::array::from_fn(|k| (order[k] / LANES, order[k] % LANES));
        let mut cost = layout_cost(shape, &pos);
        let mut temperature = 2.0f64;
        for _ in 0..3000 {
            let (a, b) = (rng.below(SUBBLOCKS), rng.below(SUBBLOCKS));
            pos.swap(a, b);
            let c = layout_cost(shape, &pos);
            let accept = c <= cost
                || (rng.below(1 << 20) as f64)
                    < (1u64 << 20) as f64 * (-((c - cost) as f64) / temperature).exp();
            if accept {
                cost = c;
            } else {
                pos.swap(a, b);
            }
            temperature = (temperature * 0.998).max(0.05);
        }
        if best.is_none_or(|(c, _)| cost < c) {
            best = Some((cost, pos));
        }
    }
    best.map(|(_, p)| p)
        .unwrap_or(std::array::from_fn(|k| (k / LANES, k % LANES)))
}

/// Builds the block of one Paff of `shape` from the starting layout
/// `first`.
pub(crate) fn build(shape: Shape, first: &[Pos; SUBBLOCKS]) -> Block {
    let mut b = Builder {
        insns: Vec::new(),
        tables: Vec::new(),
        index: HashMap::new(),
        next_temp: 0,
        permutes: 0,
        wide_gathers: 0,
        round_lane: [0; ROUNDS],
    };
    let mut cur = *first;
    for round in 0..ROUNDS {
        let last = round == ROUNDS - 1;
        let next = next_layout(shape, &cur, first, last);
        let s = sources(&cur, &next, shape);
        let (bank, out_bank) = (round % 2, (round + 1) % 2);
        for (r, reg) in s.iter().enumerate() {
            let aes: [Src; LANES] = std::array::from_fn(|l| reg[l].0);
            let key: [Src; LANES] = std::array::from_fn(|l| reg[l].1);
            let dst = Z::State(out_bank, r);
            match shape {
                Shape::Fused => {
                    let x = b.gather(&aes, bank, round);
                    let k = b.gather(&key, bank, round);
                    b.insns.push(Insn::Aes { dst, x, key: k });
                }
                Shape::InPlace => {
                    let x = b.gather(&aes, bank, round);
                    let g = b.gather(&key, bank, round);
                    b.insns.push(Insn::Aes {
                        dst,
                        x,
                        key: Z::Zero,
                    });
                    match reg.iter().position(|&(a, _)| a == Src::DontCare) {
                        // The constant's output: its lane is `S[8] XOR RC`
                        // (the round vector holds `RC` in that lane, zero
                        // in the others), the others `A(S[P1]) XOR S[P2]`.
                        Some(c) => {
                            b.round_lane[round] = c;
                            let gx = b.temp();
                            b.insns.push(Insn::Xor {
                                dst: gx,
                                a: g,
                                b: Err(Mem::Round(round)),
                            });
                            let keep = b.table(std::array::from_fn(|l| (usize::from(l != c), 0)));
                            b.insns.push(Insn::XorMasked {
                                dst,
                                b: gx,
                                mask: keep,
                            });
                        }
                        None => b.insns.push(Insn::Xor {
                            dst,
                            a: dst,
                            b: Ok(g),
                        }),
                    }
                }
            }
        }
        cur = next;
    }
    Block {
        insns: b.insns,
        tables: b.tables,
        permutes: b.permutes,
        wide_gathers: b.wide_gathers,
        round_lane: b.round_lane,
    }
}

struct Builder {
    insns: Vec<Insn>,
    tables: Vec<[(usize, usize); LANES]>,
    index: HashMap<[(usize, usize); LANES], usize>,
    next_temp: usize,
    permutes: usize,
    wide_gathers: usize,
    round_lane: [usize; ROUNDS],
}

impl Builder {
    /// A temporary (20 in rotation: enough for one output register's
    /// gathers while the ones before it are still read).
    fn temp(&mut self) -> Z {
        let t = Z::Temp(self.next_temp % 20);
        self.next_temp += 1;
        t
    }

    fn table(&mut self, t: [(usize, usize); LANES]) -> Mem {
        let n = self.tables.len();
        let k = *self.index.entry(t).or_insert(n);
        if k == n {
            self.tables.push(t);
        }
        Mem::Table(k)
    }

    /// The operand holding the lanes `src` (state of `bank`), emitting the
    /// permutes (and select) that gather them.
    fn gather(&mut self, src: &[Src; LANES], bank: usize, round: usize) -> Z {
        let Some(tables) = tables(src) else {
            let reg = src.iter().find_map(|s| match s {
                Src::Reg((r, _)) => Some(*r),
                _ => None,
            });
            return Z::State(bank, reg.unwrap_or(0));
        };
        // Pairs of tables, the constant table always second (a permute
        // reads its second table from memory).
        let mut regs: Vec<Src> = tables
            .iter()
            .copied()
            .filter(|t| *t != Src::Const)
            .collect();
        let has_const = tables.contains(&Src::Const);
        let mut pairs: Vec<Vec<Src>> = Vec::new();
        if has_const {
            let first = regs.pop().map_or(vec![Src::Const], |r| vec![r, Src::Const]);
            pairs.push(first);
        }
        for chunk in regs.chunks(2) {
            pairs.push(chunk.to_vec());
        }
        let mut parts: Vec<(Z, Vec<Src>)> = Vec::new();
        for pair in &pairs {
            let dst = self.temp();
            let idx: [(usize, usize); LANES] = std::array::from_fn(|l| match src[l] {
                Src::Reg((r, lane)) if pair.first() == Some(&Src::Reg((r, 0))) => (0, lane),
                Src::Reg((r, lane)) if pair.get(1) == Some(&Src::Reg((r, 0))) => (1, lane),
                Src::Const if pair.get(1) == Some(&Src::Const) => (1, 0),
                _ => (0, 0),
            });
            let index = self.table(idx);
            self.insns.push(Insn::LoadIndex { dst, index });
            let z = |s: Src| match s {
                Src::Reg((r, _)) => Z::State(bank, r),
                _ => Z::Zero,
            };
            match pair.as_slice() {
                [a] => self.insns.push(Insn::Perm1 { dst, a: z(*a) }),
                [a, Src::Const] => self.insns.push(Insn::Perm2 {
                    dst,
                    a: z(*a),
                    b: Err(Mem::Round(round)),
                }),
                [a, b] => self.insns.push(Insn::Perm2 {
                    dst,
                    a: z(*a),
                    b: Ok(z(*b)),
                }),
                _ => unreachable!("pairs hold one or two tables"),
            }
            self.permutes += 1;
            parts.push((dst, pair.clone()));
        }
        if let [(first, pair), (second, _)] = parts.as_slice() {
            self.wide_gathers += 1;
            let keep = self.table(std::array::from_fn(|l| {
                let from_first = match src[l] {
                    Src::Reg((r, _)) => pair.contains(&Src::Reg((r, 0))),
                    Src::Const => pair.contains(&Src::Const),
                    Src::DontCare => true,
                };
                (usize::from(from_first), 0)
            }));
            self.insns.push(Insn::Select {
                dst: *first,
                b: *second,
                mask: keep,
            });
        }
        parts[0].0
    }
}

#[cfg(test)]
mod tests {
    use super::render::ternary;
    use super::*;

    #[test]
    fn both_shapes_compute_paff_from_any_layout() {
        for shape in Shape::ALL {
            for seed in [1, 2, 3] {
                let mut rng = Lcg(seed);
                let mut order: [usize; SUBBLOCKS] = std::array::from_fn(|k| k);
                for k in (1..SUBBLOCKS).rev() {
                    order.swap(k, rng.below(k + 1));
                }
                let first: [Pos; SUBBLOCKS] =
                    std::array::from_fn(|k| (order[k] / LANES, order[k] % LANES));
                let block = build(shape, &first);
                assert_eq!(block.check(&first), Ok(()), "{shape:?} seed {seed}");
            }
        }
    }

    #[test]
    fn the_check_catches_a_wrong_block() {
        let first: [Pos; SUBBLOCKS] = std::array::from_fn(|k| (k / LANES, k % LANES));
        let mut block = build(Shape::Fused, &first);
        let k = block
            .insns
            .iter()
            .position(|i| matches!(i, Insn::Aes { .. }))
            .expect("a Paff has AES rounds");
        if let Insn::Aes { key, .. } = &mut block.insns[k] {
            *key = Z::Zero;
        }
        assert!(block.check(&first).is_err());
    }

    #[test]
    fn ternary_immediates() {
        // Select: C ? A : B.
        assert_eq!(ternary(|a, b, c| if c { a } else { b }), 0xE4);
        // Three-way XOR.
        assert_eq!(ternary(|a, b, c| a ^ b ^ c), 0x96);
    }
}
