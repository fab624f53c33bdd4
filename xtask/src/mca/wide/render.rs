//! A generated block as llvm-mca reads it, and its run on the value model.

use std::collections::HashMap;
use std::fmt::Write as _;

use super::{Block, Insn, LANES, Mem, Pos, Z, kconst, rc};
use crate::codegen::model::{mix, model_paff, model_state};
use crate::codegen::wiring::{ROUNDS, SUBBLOCKS};

impl Block {
    /// The block in AT&T syntax for llvm-mca (constants as `wide_tables`
    /// and `wide_round` memory operands).
    pub(crate) fn render(&self) -> String {
        let z = |r: Z| format!("%zmm{}", r.reg());
        let mem = |m: Mem| match m {
            Mem::Table(k) => format!("wide_tables+{}(%rip)", 64 * k),
            Mem::Round(r) => format!("wide_round+{}(%rip)", 64 * r),
        };
        let mut s = String::from("vpxorq %zmm31, %zmm31, %zmm31\n");
        for i in &self.insns {
            let _ = match i {
                Insn::LoadIndex { dst, index } => {
                    writeln!(s, "vmovdqa64 {}, {}", mem(*index), z(*dst))
                }
                Insn::Perm1 { dst, a } => writeln!(s, "vpermq {}, {}, {}", z(*a), z(*dst), z(*dst)),
                Insn::Perm2 { dst, a, b } => {
                    let b = b.map_or_else(mem, z);
                    writeln!(s, "vpermi2q {b}, {}, {}", z(*a), z(*dst))
                }
                // dst = C ? A : B with A = dst, B = b, C = mask.
                Insn::Select { dst, b, mask } => {
                    let imm = ternary(|a, b, c| if c { a } else { b });
                    writeln!(
                        s,
                        "vpternlogq ${imm}, {}, {}, {}",
                        mem(*mask),
                        z(*b),
                        z(*dst)
                    )
                }
                Insn::Aes { dst, x, key } => {
                    writeln!(s, "vaesenc {}, {}, {}", z(*key), z(*x), z(*dst))
                }
                Insn::Xor { dst, a, b } => {
                    let b = b.map_or_else(mem, z);
                    writeln!(s, "vpxorq {b}, {}, {}", z(*a), z(*dst))
                }
                // dst = B XOR (A AND C).
                Insn::XorMasked { dst, b, mask } => {
                    let imm = ternary(|a, b, c| b ^ (a & c));
                    writeln!(
                        s,
                        "vpternlogq ${imm}, {}, {}, {}",
                        mem(*mask),
                        z(*b),
                        z(*dst)
                    )
                }
            };
        }
        s
    }

    /// Runs the block on the value model ([`mix`] for the AES round) from
    /// `first` and compares the result with the wiring evaluated directly.
    pub(crate) fn check(&self, first: &[Pos; SUBBLOCKS]) -> Result<(), String> {
        let init = model_state();
        let want = model_paff(init, rc);
        let mut reg: HashMap<usize, [u64; LANES]> = HashMap::new();
        for (k, &(r, l)) in first.iter().enumerate() {
            reg.entry(Z::State(0, r).reg()).or_insert([0; LANES])[l] = init[k];
        }
        reg.insert(Z::Zero.reg(), [0; LANES]);
        let mut index: HashMap<usize, [(usize, usize); LANES]> = HashMap::new();
        let get = |reg: &HashMap<usize, [u64; LANES]>, z: Z| {
            reg.get(&z.reg())
                .copied()
                .ok_or_else(|| format!("%zmm{} read before it is written", z.reg()))
        };
        for insn in &self.insns {
            let round_vec = |r: usize| -> [u64; LANES] { [kconst(r); LANES] };
            match insn {
                Insn::LoadIndex {
                    dst,
                    index: Mem::Table(k),
                } => {
                    index.insert(dst.reg(), self.tables[*k]);
                    reg.insert(dst.reg(), [0; LANES]);
                }
                Insn::LoadIndex { .. } => return Err("an index from the round table".into()),
                Insn::Perm1 { dst, a } => {
                    let idx = index
                        .remove(&dst.reg())
                        .ok_or("a permute without its index")?;
                    let a = get(&reg, *a)?;
                    reg.insert(dst.reg(), std::array::from_fn(|l| a[idx[l].1]));
                }
                Insn::Perm2 { dst, a, b } => {
                    let idx = index
                        .remove(&dst.reg())
                        .ok_or("a permute without its index")?;
                    let a = get(&reg, *a)?;
                    let b = match b {
                        Ok(z) => get(&reg, *z)?,
                        Err(Mem::Round(r)) => round_vec(*r),
                        Err(Mem::Table(_)) => return Err("a permute of an index table".into()),
                    };
                    reg.insert(
                        dst.reg(),
                        std::array::from_fn(|l| {
                            if idx[l].0 == 0 {
                                a[idx[l].1]
                            } else {
                                b[idx[l].1]
                            }
                        }),
                    );
                }
                // Lane by lane, `keep` from the mask: the select takes the
                // destination's lane where it is set, the masked XOR adds it.
                Insn::Select {
                    dst,
                    b,
                    mask: Mem::Table(k),
                }
                | Insn::XorMasked {
                    dst,
                    b,
                    mask: Mem::Table(k),
                } => {
                    let select = matches!(insn, Insn::Select { .. });
                    let (a, b) = (get(&reg, *dst)?, get(&reg, *b)?);
                    let m = self.tables[*k];
                    reg.insert(
                        dst.reg(),
                        std::array::from_fn(|l| match (select, m[l].0 == 1) {
                            (true, keep) => {
                                if keep {
                                    a[l]
                                } else {
                                    b[l]
                                }
                            }
                            (false, keep) => b[l] ^ if keep { a[l] } else { 0 },
                        }),
                    );
                }
                Insn::Select { .. } | Insn::XorMasked { .. } => {
                    return Err("a mask from the round table".into());
                }
                Insn::Aes { dst, x, key } => {
                    let (x, k) = (get(&reg, *x)?, get(&reg, *key)?);
                    reg.insert(dst.reg(), std::array::from_fn(|l| mix(x[l]) ^ k[l]));
                }
                Insn::Xor { dst, a, b } => {
                    let a = get(&reg, *a)?;
                    let b =
                        match b {
                            Ok(z) => get(&reg, *z)?,
                            Err(Mem::Round(r)) => std::array::from_fn(|l| {
                                if l == self.round_lane[*r] { rc(*r) } else { 0 }
                            }),
                            Err(Mem::Table(_)) => return Err("an XOR with an index table".into()),
                        };
                    reg.insert(dst.reg(), std::array::from_fn(|l| a[l] ^ b[l]));
                }
            }
        }
        for (k, &(r, l)) in first.iter().enumerate() {
            let got = get(&reg, Z::State(ROUNDS % 2, r))?[l];
            if got != want[k] {
                return Err(format!(
                    "subblock {k} (register {r}, lane {l}) differs from the wiring after 24 rounds"
                ));
            }
        }
        Ok(())
    }
}

/// The `vpternlogq` immediate of `f(a, b, c)` (a: the destination, b:
/// the second source, c: the third).
pub(super) fn ternary(f: impl Fn(bool, bool, bool) -> bool) -> u8 {
    (0..8u8).fold(0, |imm, i| {
        imm | (u8::from(f(i & 4 != 0, i & 2 != 0, i & 1 != 0)) << i)
    })
}
