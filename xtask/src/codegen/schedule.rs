//! The latency model and the register allocation: [`generate`] turns the
//! wiring into a [`Program`] for one instruction encoding ([`Isa`]), with
//! subblocks `0..IN_REGS` in registers and the others in spill slots on
//! entry and exit.

use super::wiring::{CONST_OUT, P1, P2, ROUNDS, SUBBLOCKS};

/// Vector registers of the SSE/VEX x86-64 register file.
pub(super) const NREG: usize = 16;
/// Subblocks `0..IN_REGS` are in `xmm0..` on entry and exit (the kernel
/// bodies index them as registers); must equal `kernel::IN_REGS`.
pub(super) const IN_REGS: usize = 15;
/// Spill slots the generator may use; at most `kernel::SPILL_SLOTS` (the
/// generated code asserts that what it uses fits).
pub(super) const SPILL_SLOTS: usize = 16;
/// Outputs stored to memory in each round: as many as keep the round's
/// end at `IN_REGS` subblocks in registers, leaving one of the 16 free for
/// loads and copies at the start of the next round.
const SPILLED_PER_ROUND: usize = SUBBLOCKS - IN_REGS;

/// Latency model, in cycles: a dependent `vaesenc`, a dependent `vpxor`, and
/// the extra delay of a value that goes through a spill slot.
const AES_LATENCY: f64 = 2.0;
const XOR_LATENCY: f64 = 1.0;
const SPILL_LATENCY: f64 = 4.5;
/// How much later an output that is only used as a round key next round
/// (output 11: a store and no load) may be ready and still be preferred
/// for memory (a tuning constant of the model).
const KEY_ONLY_BONUS: f64 = 5.0;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Isa {
    /// Legacy SSE: two-operand, `aesenc dst, key` overwrites its input.
    Sse,
    /// VEX: three-operand `vaesenc dst, src, key`.
    Vex,
}

/// Where a value is.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Loc {
    Reg(usize),
    Slot(usize),
}

/// An instruction operand.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Opnd {
    Reg(usize),
    Slot(usize),
    /// Round constant `RC[r]`.
    Rc(usize),
}

impl From<Loc> for Opnd {
    fn from(l: Loc) -> Self {
        match l {
            Loc::Reg(x) => Opnd::Reg(x),
            Loc::Slot(s) => Opnd::Slot(s),
        }
    }
}

/// The generated program, one variant per instruction shape.
#[derive(Clone, Copy, Debug)]
pub(super) enum Insn {
    /// `dst = A(src) XOR key` (SSE: `dst == src`).
    Aes { dst: usize, src: usize, key: Opnd },
    /// `dst = a XOR b` (SSE: `dst == a`).
    Xor { dst: usize, a: usize, b: Opnd },
    /// `dst = from` (a register move or a load).
    Mov { dst: usize, from: Opnd },
    /// `slot = src`.
    Store { slot: usize, src: usize },
}

/// No free register at this point of the round.
#[derive(Debug)]
struct NoRegister;

/// Allocation state while one round is emitted.
#[derive(Clone)]
struct Round {
    isa: Isa,
    r: usize,
    /// Where each input subblock is.
    old: [Loc; SUBBLOCKS],
    /// Where each output subblock went.
    new: [Option<Loc>; SUBBLOCKS],
    /// Uses of each input still to come.
    uses: [u8; SUBBLOCKS],
    free_regs: Vec<usize>,
    free_slots: Vec<usize>,
    code: Vec<Insn>,
}

impl Round {
    fn alloc_reg(&mut self) -> Result<usize, NoRegister> {
        if self.free_regs.is_empty() {
            return Err(NoRegister);
        }
        Ok(self.free_regs.remove(0))
    }

    /// Marks one use of input `i` done; frees its place after the last.
    fn release(&mut self, i: usize) {
        self.uses[i] -= 1;
        if self.uses[i] == 0 {
            match self.old[i] {
                Loc::Reg(x) => self.free_regs.push(x),
                Loc::Slot(s) => {
                    self.free_slots.push(s);
                    self.free_slots.sort_unstable();
                }
            }
        }
    }

    /// Emits output `j`, to memory if `spill` (slot `want` if given,
    /// otherwise the lowest free one, at least `min_slot`).
    fn emit(
        &mut self,
        j: usize,
        spill: bool,
        want: Option<usize>,
        min_slot: usize,
    ) -> Result<(), String> {
        let dst = if j == CONST_OUT {
            self.emit_constant_lane(j)?
        } else {
            self.emit_aes(j)?
        };
        if spill {
            let pos = match want {
                Some(w) => self.free_slots.iter().position(|&s| s == w),
                None => self.free_slots.iter().position(|&s| s >= min_slot),
            };
            let slot = self.free_slots.remove(pos.ok_or("no free spill slot")?);
            self.code.push(Insn::Store { slot, src: dst });
            self.free_regs.push(dst);
            self.new[j] = Some(Loc::Slot(slot));
        } else {
            self.new[j] = Some(Loc::Reg(dst));
        }
        Ok(())
    }

    /// The constant lane's output `j`: its input XOR the round constant,
    /// in a register. Returns the register.
    fn emit_constant_lane(&mut self, j: usize) -> Result<usize, String> {
        let rc = Opnd::Rc(self.r);
        let a = P2[j];
        let d = match (self.isa, self.old[a]) {
            (Isa::Vex, Loc::Reg(x)) => {
                self.release(a);
                let d = self.alloc_reg().map_err(|_| "no register")?;
                self.code.push(Insn::Xor {
                    dst: d,
                    a: x,
                    b: rc,
                });
                d
            }
            (Isa::Sse, Loc::Reg(x)) if self.uses[a] == 1 => {
                self.uses[a] = 0;
                self.code.push(Insn::Xor {
                    dst: x,
                    a: x,
                    b: rc,
                });
                x
            }
            (_, l) => {
                let d = self.alloc_reg().map_err(|_| "no register")?;
                self.code.push(Insn::Mov { dst: d, from: rc });
                self.code.push(Insn::Xor {
                    dst: d,
                    a: d,
                    b: l.into(),
                });
                self.release(a);
                d
            }
        };
        Ok(d)
    }

    /// Output `j`: one AES round of its first input keyed by its second, in
    /// a register. Returns the register.
    fn emit_aes(&mut self, j: usize) -> Result<usize, String> {
        let (a, b) = (P1[j], P2[j]);
        let key = Opnd::from(self.old[b]);
        let d = match self.isa {
            Isa::Vex => {
                let (src, tmp) = match self.old[a] {
                    Loc::Reg(x) => (x, false),
                    Loc::Slot(s) => {
                        let t = self.alloc_reg().map_err(|_| "no register")?;
                        self.code.push(Insn::Mov {
                            dst: t,
                            from: Opnd::Slot(s),
                        });
                        (t, true)
                    }
                };
                self.release(a);
                self.release(b);
                if tmp {
                    self.free_regs.insert(0, src);
                }
                let d = self.alloc_reg().map_err(|_| "no register")?;
                self.code.push(Insn::Aes { dst: d, src, key });
                d
            }
            Isa::Sse => {
                let d = match self.old[a] {
                    // Last use: overwrite in place.
                    Loc::Reg(x) if self.uses[a] == 1 => {
                        self.uses[a] = 0;
                        x
                    }
                    l => {
                        let d = self.alloc_reg().map_err(|_| "no register")?;
                        self.code.push(Insn::Mov {
                            dst: d,
                            from: l.into(),
                        });
                        self.release(a);
                        d
                    }
                };
                self.code.push(Insn::Aes {
                    dst: d,
                    src: d,
                    key,
                });
                self.release(b);
                d
            }
        };
        Ok(d)
    }
}

/// A generated Paff and its statistics.
pub(super) struct Program {
    pub(super) code: Vec<Insn>,
    pub(super) slots_used: usize,
    pub(super) critical_path: f64,
}

/// The entry/exit location of subblock `i`.
pub(super) fn home(i: usize) -> Loc {
    if i < IN_REGS {
        Loc::Reg(i)
    } else {
        Loc::Slot(i - IN_REGS)
    }
}

/// Emits round `r` with the outputs `spill` to memory, in readiness order
/// `by_ready` as far as the registers allow.
fn schedule_round(
    isa: Isa,
    r: usize,
    old: [Loc; SUBBLOCKS],
    uses: [u8; SUBBLOCKS],
    spill: [bool; SUBBLOCKS],
    by_ready: &[usize],
) -> Result<Round, String> {
    let last = r == ROUNDS - 1;
    let mut round = Round {
        isa,
        r,
        old,
        new: [None; SUBBLOCKS],
        uses,
        free_regs: (0..NREG).filter(|&x| !old.contains(&Loc::Reg(x))).collect(),
        free_slots: (0..SPILL_SLOTS)
            .filter(|&s| !old.contains(&Loc::Slot(s)))
            .collect(),
        code: Vec::new(),
    };
    // Values stored in the next-to-last round stay clear of the home
    // slots, which the last round fills.
    let min_slot = if r + 2 == ROUNDS {
        SUBBLOCKS - IN_REGS
    } else {
        0
    };
    let mut remaining = by_ready.to_vec();
    while !remaining.is_empty() {
        // The first output in readiness order that leaves a register free
        // for the next one, else the first that fits at all.
        let mut chosen: Option<(usize, Round)> = None;
        for (idx, &j) in remaining.iter().enumerate() {
            let mut trial = round.clone();
            let want = match (last, home(j)) {
                (true, Loc::Slot(s)) => Some(s),
                _ => None,
            };
            if trial.emit(j, spill[j], want, min_slot).is_ok() {
                let roomy = !trial.free_regs.is_empty() || remaining.len() == 1;
                if roomy {
                    chosen = Some((idx, trial));
                    break;
                }
                if chosen.is_none() {
                    chosen = Some((idx, trial));
                }
            }
        }
        let (idx, next) = chosen.ok_or_else(|| format!("{isa:?}: no schedule for round {r}"))?;
        round = next;
        remaining.remove(idx);
    }
    Ok(round)
}

pub(super) fn generate(isa: Isa) -> Result<Program, String> {
    let mut old: [Loc; SUBBLOCKS] = std::array::from_fn(home);
    // Time at which each input is available to its consumers (model).
    let mut ready = [0f64; SUBBLOCKS];
    for (i, t) in ready.iter_mut().enumerate() {
        if matches!(home(i), Loc::Slot(_)) {
            *t = SPILL_LATENCY;
        }
    }
    let mut code = Vec::new();
    let mut critical_path = 0f64;
    for r in 0..ROUNDS {
        let last = r == ROUNDS - 1;
        let mut uses = [0u8; SUBBLOCKS];
        for j in 0..SUBBLOCKS {
            if j != CONST_OUT {
                uses[P1[j]] += 1;
            }
            uses[P2[j]] += 1;
        }
        let out_ready: [f64; SUBBLOCKS] = std::array::from_fn(|j| {
            if j == CONST_OUT {
                ready[P2[j]] + XOR_LATENCY
            } else {
                ready[P1[j]].max(ready[P2[j]]) + AES_LATENCY
            }
        });
        let mut by_ready: Vec<usize> = (0..SUBBLOCKS).collect();
        by_ready.sort_by(|&x, &y| out_ready[x].total_cmp(&out_ready[y]).then(x.cmp(&y)));
        let spill = spilled_outputs(&out_ready, &by_ready, last);
        let mut round = schedule_round(isa, r, old, uses, spill, &by_ready)?;
        for j in 0..SUBBLOCKS {
            critical_path = critical_path.max(out_ready[j]);
            ready[j] = out_ready[j] + if spill[j] { SPILL_LATENCY } else { 0.0 };
        }
        code.append(&mut round.code);
        for (o, n) in old.iter_mut().zip(round.new) {
            *o = n.ok_or("output not emitted")?;
        }
    }
    restore_homes(&mut old, &mut code)?;
    let slots_used = code
        .iter()
        .filter_map(|i| match i {
            Insn::Store { slot, .. } => Some(slot + 1),
            _ => None,
        })
        .max()
        .unwrap_or(0)
        .max(SUBBLOCKS - IN_REGS);
    Ok(Program {
        code,
        slots_used,
        critical_path,
    })
}

/// Which outputs of a round go to memory: in the last round those whose
/// home is a slot; otherwise the [`SPILLED_PER_ROUND`] ready earliest
/// whose trip delays the next round least. `out_ready`: when each output
/// is ready (model); `by_ready`: the outputs in that order.
fn spilled_outputs(
    out_ready: &[f64; SUBBLOCKS],
    by_ready: &[usize],
    last: bool,
) -> [bool; SUBBLOCKS] {
    let key_only = |j: usize| {
        !P1.iter()
            .enumerate()
            .any(|(k, &p)| p == j && k != CONST_OUT)
    };
    let mut cands = by_ready.to_vec();
    // How much later the next round's outputs fed by `j` would be ready
    // if `j` went through memory (0 when their other input is later
    // anyway).
    let delay = |j: usize| -> f64 {
        let mut worst = 0f64;
        for k in 0..SUBBLOCKS {
            let other = if k == CONST_OUT {
                if P2[k] != j {
                    continue;
                }
                f64::MIN
            } else if P1[k] == j {
                out_ready[P2[k]]
            } else if P2[k] == j {
                out_ready[P1[k]]
            } else {
                continue;
            };
            let now = out_ready[j].max(other);
            let spilled = (out_ready[j] + SPILL_LATENCY).max(other);
            worst = worst.max(spilled - now);
        }
        worst
    };
    // To memory: the outputs ready earliest whose trip delays the next
    // round least, preferring key-only outputs (a store and no load).
    let cost = |j: usize| out_ready[j] + delay(j) - if key_only(j) { KEY_ONLY_BONUS } else { 0.0 };
    cands.sort_by(|&x, &y| cost(x).total_cmp(&cost(y)).then(x.cmp(&y)));
    let mut spill = [false; SUBBLOCKS];
    if last {
        for (j, s) in spill.iter_mut().enumerate() {
            *s = matches!(home(j), Loc::Slot(_));
        }
    } else {
        for &j in cands.iter().take(SPILLED_PER_ROUND) {
            spill[j] = true;
        }
    }
    spill
}

/// Moves the register outputs back to their home registers (parallel
/// moves; a cycle is broken through a free register).
fn restore_homes(old: &mut [Loc; SUBBLOCKS], code: &mut Vec<Insn>) -> Result<(), String> {
    loop {
        let mut holder = [None; NREG];
        for (j, l) in old.iter().enumerate() {
            if let Loc::Reg(x) = l {
                holder[*x] = Some(j);
            }
        }
        let Some(j) = (0..IN_REGS).find(|&j| old[j] != Loc::Reg(j)) else {
            break;
        };
        // A value whose home is free moves there; otherwise a cycle is
        // broken through a free register.
        let movable = (0..IN_REGS).find(|&k| old[k] != Loc::Reg(k) && holder[k].is_none());
        let (value, to) = match movable {
            Some(k) => (k, k),
            None => (
                j,
                (0..NREG)
                    .find(|&x| holder[x].is_none())
                    .ok_or("no free register")?,
            ),
        };
        let Loc::Reg(from) = old[value] else {
            return Err("register output in memory".into());
        };
        code.push(Insn::Mov {
            dst: to,
            from: Opnd::Reg(from),
        });
        old[value] = Loc::Reg(to);
    }
    Ok(())
}
