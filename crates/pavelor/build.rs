//! Build script of `pavelor`: generates the Paff of the 16-register x86
//! kernels, `aesni` (SSE `aesenc`), `aesni-avx` (VEX `vaesenc xmm`) and the
//! 2-lane batch kernel of `avx2-vaes` (VEX `vaesenc ymm`), as
//! hand-allocated assembly.
//!
//! # Why
//!
//! The state is 20 AES blocks; these instruction sets have 16 vector
//! registers, so about five blocks live in memory at any time. Left to the
//! compiler, the spills land wherever its allocator puts them, and a value
//! that goes through memory reaches its consumer one store-to-load
//! forwarding later (several cycles, more than a whole round at full AES
//! throughput); chains of such values make the critical path longer than
//! the AES-throughput bound. Placing the spills deliberately keeps them off
//! the critical path.
//!
//! # How
//!
//! The generator walks the 24 rounds with a latency model of every value
//! (AES round 2 cycles, XOR 1, a trip through memory [`SPILL_LATENCY`]):
//!
//! * in each round, the outputs that go to memory are the five that are
//!   ready earliest and whose trip delays the next round least (their
//!   consumers' other input is late anyway), preferring output 11, whose
//!   only use in the next round is as a round key, which `aesenc` reads
//!   straight from memory (a store and no load);
//! * within a round, outputs are emitted in order of readiness, each into
//!   a free register (with SSE, into its AES input's register when that
//!   input is dead after it), and inputs in memory are read as memory
//!   operands where the encoding allows (the round key of `aesenc`, the
//!   XOR of the constant subblock) and loaded otherwise;
//! * on entry and exit subblocks 0..15 are in `xmm0..xmm14` and 15..20 in
//!   spill slots 0..5 (the capacity part for every instance: the message
//!   XOR and the squeeze only touch registers).
//!
//! The wiring comes from `src/definition/wiring.rs`, the same file
//! `definition/paff.rs` defines it with. The build runs each generated
//! program on a model (the AES round replaced by an injective 64-bit mix)
//! against the wiring evaluated directly, and fails on any difference; the
//! crate's known-answer tests then run the real code.
//!
//! Output, committed so that it can be read and reviewed:
//! `src/backend/x86/generated/paff_sse.rs`, `paff_vex.rs` and
//! `paff_vex_ymm.rs` (the VEX program on `ymm` registers and 32-byte slots:
//! two states, one per 128-bit lane), each one `asm!` expression, included
//! by `src/backend/x86/sse_aesni.rs`, `avx_aesni.rs` and `avx2_vaes_x2.rs`.
//! The build compares the committed files with what it generates and fails
//! if they differ; `PAVELOR_REGENERATE=1 cargo build -p pavelor` rewrites
//! them.

use std::error::Error;
use std::fmt::Write as _;
use std::path::PathBuf;

mod wiring {
    include!("src/definition/wiring.rs");
}
use wiring::{CONST_OUT, P1, P2, ROUNDS, SUBBLOCKS};

/// Vector registers of the SSE/VEX x86-64 register file.
const NREG: usize = 16;
/// Subblocks `0..IN_REGS` are in `xmm0..` on entry and exit (the kernel
/// bodies index them as registers); must equal `kernel::IN_REGS`.
const IN_REGS: usize = 15;
/// Spill slots the generator may use; at most `kernel::SPILL_SLOTS` (the
/// generated code asserts that what it uses fits).
const SPILL_SLOTS: usize = 16;
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
enum Isa {
    /// Legacy SSE: two-operand, `aesenc dst, key` overwrites its input.
    Sse,
    /// VEX: three-operand `vaesenc dst, src, key`.
    Vex,
}

/// Where a value is.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Loc {
    Reg(usize),
    Slot(usize),
}

/// An instruction operand.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Opnd {
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
enum Insn {
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
    ) -> Result<(), Box<dyn Error>> {
        let rc = Opnd::Rc(self.r);
        let dst = if j == CONST_OUT {
            let a = P2[j];
            match (self.isa, self.old[a]) {
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
            }
        } else {
            let (a, b) = (P1[j], P2[j]);
            let key = Opnd::from(self.old[b]);
            match self.isa {
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
            }
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
}

/// A generated Paff and its statistics.
struct Program {
    code: Vec<Insn>,
    slots_used: usize,
    critical_path: f64,
}

/// The entry/exit location of subblock `i`.
fn home(i: usize) -> Loc {
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

fn generate(isa: Isa) -> Result<Program, Box<dyn Error>> {
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
        let key_only = |j: usize| {
            !P1.iter()
                .enumerate()
                .any(|(k, &p)| p == j && k != CONST_OUT)
        };
        let mut cands = by_ready.clone();
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
        let cost =
            |j: usize| out_ready[j] + delay(j) - if key_only(j) { KEY_ONLY_BONUS } else { 0.0 };
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
    // Register outputs back to their home registers (parallel moves).
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

/// Runs `prog` on a model of the vector unit (an AES round is an injective
/// 64-bit mix, the constant of round `r` a distinct word) and compares the
/// result with the wiring evaluated directly; also checks the SSE operand
/// constraints.
fn check(isa: Isa, prog: &Program) -> Result<(), String> {
    fn aes(x: u64, k: u64) -> u64 {
        (x ^ (x >> 29))
            .wrapping_mul(0x9E37_79B9_7F4A_7C15)
            .rotate_left(17)
            ^ k
    }
    fn rc(r: usize) -> u64 {
        0x1234_5678_9abc_def1u64.wrapping_mul(r as u64 + 1)
    }
    let init: [u64; SUBBLOCKS] =
        std::array::from_fn(|i| 0xdead_beef_0bad_f00du64.wrapping_mul(i as u64 + 3));
    let mut want = init;
    for r in 0..ROUNDS {
        let o = want;
        for j in 0..SUBBLOCKS {
            want[j] = if j == CONST_OUT {
                rc(r) ^ o[P2[j]]
            } else {
                aes(o[P1[j]], o[P2[j]])
            };
        }
    }
    // `None`: not written yet (the scratch slots start uninitialised,
    // `xmm15` holds nothing of the state).
    let mut reg = [None; NREG];
    let mut mem = [None; SPILL_SLOTS];
    for (i, &v) in init.iter().enumerate() {
        match home(i) {
            Loc::Reg(x) => reg[x] = Some(v),
            Loc::Slot(s) => mem[s] = Some(v),
        }
    }
    let read = |reg: &[Option<u64>; NREG], mem: &[Option<u64>; SPILL_SLOTS], o: Opnd| {
        match o {
            Opnd::Reg(x) => reg[x],
            Opnd::Slot(s) => mem[s],
            Opnd::Rc(r) => Some(rc(r)),
        }
        .ok_or_else(|| format!("{isa:?}: {o:?} read before it is written"))
    };
    for insn in &prog.code {
        match *insn {
            Insn::Aes { dst, src, key } => {
                if isa == Isa::Sse && dst != src {
                    return Err(format!("SSE aesenc with dst != src: {insn:?}"));
                }
                reg[dst] = Some(aes(
                    read(&reg, &mem, Opnd::Reg(src))?,
                    read(&reg, &mem, key)?,
                ));
            }
            Insn::Xor { dst, a, b } => {
                if isa == Isa::Sse && dst != a {
                    return Err(format!("SSE pxor with dst != a: {insn:?}"));
                }
                reg[dst] = Some(read(&reg, &mem, Opnd::Reg(a))? ^ read(&reg, &mem, b)?);
            }
            Insn::Mov { dst, from } => reg[dst] = Some(read(&reg, &mem, from)?),
            Insn::Store { slot, src } => mem[slot] = Some(read(&reg, &mem, Opnd::Reg(src))?),
        }
    }
    for (i, &w) in want.iter().enumerate() {
        let got = match home(i) {
            Loc::Reg(x) => reg[x],
            Loc::Slot(s) => mem[s],
        };
        if got != Some(w) {
            return Err(format!("{isa:?}: subblock {i} differs from the wiring"));
        }
    }
    Ok(())
}

/// The register width a program is rendered for.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Width {
    /// One state, 16-byte `xmm` registers and slots.
    Xmm,
    /// Two states, one per 128-bit lane of 32-byte `ymm` registers and
    /// slots (VAES `vaesenc ymm`; the round constant in both lanes).
    Ymm,
}

impl Width {
    fn reg(self) -> &'static str {
        match self {
            Width::Xmm => "xmm",
            Width::Ymm => "ymm",
        }
    }

    fn bytes(self) -> usize {
        match self {
            Width::Xmm => 16,
            Width::Ymm => 32,
        }
    }
}

fn operand(w: Width, o: Opnd) -> String {
    let (reg, n) = (w.reg(), w.bytes());
    match o {
        Opnd::Reg(x) => format!("{reg}{x}"),
        Opnd::Slot(s) => format!("{reg}word ptr [{{m}} + {}]", n * s),
        Opnd::Rc(r) => format!("{reg}word ptr [{{rc}} + {}]", n * r),
    }
}

/// The `asm!` expression for `prog`.
fn render(isa: Isa, w: Width, prog: &Program) -> Result<String, std::fmt::Error> {
    let (v, name) = match (isa, w) {
        (Isa::Sse, _) => ("", "aesni (SSE)"),
        (Isa::Vex, Width::Xmm) => ("v", "aesni-avx (VEX)"),
        (Isa::Vex, Width::Ymm) => ("v", "2-lane avx2-vaes (VEX ymm)"),
    };
    let reg = w.reg();
    let op = |o| operand(w, o);
    let count = |f: fn(&Insn) -> bool| prog.code.iter().filter(|i| f(i)).count();
    let aes = count(|i| matches!(i, Insn::Aes { .. }));
    let stores = count(|i| matches!(i, Insn::Store { .. }));
    let loads = count(|i| {
        matches!(
            i,
            Insn::Mov {
                from: Opnd::Slot(_) | Opnd::Rc(_),
                ..
            }
        )
    });
    let moves = count(|i| {
        matches!(
            i,
            Insn::Mov {
                from: Opnd::Reg(_),
                ..
            }
        )
    });
    let mut s = String::new();
    writeln!(
        s,
        "// @generated by crates/pavelor/build.rs from src/definition/wiring.rs: do not edit."
    )?;
    writeln!(
        s,
        "// Paff for the {name} kernel. Entry and exit: subblocks 0..{IN_REGS} in"
    )?;
    writeln!(
        s,
        "// {reg}0..{reg}{}, subblocks {IN_REGS}..{SUBBLOCKS} in spill slots 0..{}.",
        IN_REGS - 1,
        SUBBLOCKS - IN_REGS
    )?;
    writeln!(
        s,
        "// {} instructions: {aes} AES rounds, {stores} stores, {loads} loads,",
        prog.code.len()
    )?;
    writeln!(
        s,
        "// {moves} register moves; {} spill slots; model critical path {:.1} cycles.",
        prog.slots_used, prog.critical_path
    )?;
    writeln!(s, "{{")?;
    writeln!(
        s,
        "    const _: () = assert!(crate::backend::kernel::IN_REGS == {IN_REGS});"
    )?;
    writeln!(
        s,
        "    const _: () = assert!({} <= crate::backend::kernel::SPILL_SLOTS);",
        prog.slots_used
    )?;
    writeln!(s, "    core::arch::asm!(")?;
    for insn in &prog.code {
        let line = match *insn {
            Insn::Aes { dst, src, key } => match isa {
                Isa::Vex => format!("vaesenc {reg}{dst}, {reg}{src}, {}", op(key)),
                Isa::Sse => format!("aesenc {reg}{dst}, {}", op(key)),
            },
            Insn::Xor { dst, a, b } => match isa {
                Isa::Vex => format!("vpxor {reg}{dst}, {reg}{a}, {}", op(b)),
                Isa::Sse => format!("pxor {reg}{dst}, {}", op(b)),
            },
            Insn::Mov { dst, from } => format!("{v}movdqa {reg}{dst}, {}", op(from)),
            Insn::Store { slot, src } => format!("{v}movdqa {}, {reg}{src}", op(Opnd::Slot(slot))),
        };
        writeln!(s, "        \"{line}\",")?;
    }
    for i in 0..IN_REGS {
        writeln!(s, "        inout(\"{reg}{i}\") r[{i}].0,")?;
    }
    for x in IN_REGS..NREG {
        writeln!(s, "        out(\"{reg}{x}\") _,")?;
    }
    writeln!(s, "        m = in(reg) m,")?;
    writeln!(s, "        rc = in(reg) rc,")?;
    writeln!(s, "        options(nostack, preserves_flags),")?;
    writeln!(s, "    )")?;
    writeln!(s, "}}")?;
    Ok(s)
}

/// Where the generated programs are committed.
const GENERATED_DIR: &str = "src/backend/x86/generated";
/// Set to `1` to rewrite the committed programs instead of checking them.
const REGENERATE_ENV: &str = "PAVELOR_REGENERATE";

fn main() -> Result<(), Box<dyn Error>> {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=src/definition/wiring.rs");
    println!("cargo:rerun-if-changed={GENERATED_DIR}");
    println!("cargo:rerun-if-env-changed={REGENERATE_ENV}");
    // `pavelor_split`: the target runs the generated kernels (x86-64 with
    // 64-bit pointers: 16 vector registers, and the `asm!` address
    // operands are full 64-bit registers; not 32-bit x86, not x32).
    println!("cargo::rustc-check-cfg=cfg(pavelor_split)");
    let arch = std::env::var("CARGO_CFG_TARGET_ARCH").unwrap_or_default();
    let width = std::env::var("CARGO_CFG_TARGET_POINTER_WIDTH").unwrap_or_default();
    if arch == "x86_64" && width == "64" {
        println!("cargo::rustc-cfg=pavelor_split");
    }
    let manifest = PathBuf::from(
        std::env::var_os("CARGO_MANIFEST_DIR").ok_or("CARGO_MANIFEST_DIR is not set")?,
    );
    let dir = manifest.join(GENERATED_DIR);
    let regenerate = std::env::var_os(REGENERATE_ENV).is_some_and(|v| v == "1");
    let mut stale = Vec::new();
    for isa in [Isa::Sse, Isa::Vex] {
        let prog = generate(isa)?;
        check(isa, &prog)?;
        let files: &[(Width, &str)] = match isa {
            Isa::Sse => &[(Width::Xmm, "paff_sse.rs")],
            Isa::Vex => &[(Width::Xmm, "paff_vex.rs"), (Width::Ymm, "paff_vex_ymm.rs")],
        };
        for &(w, file) in files {
            let text = render(isa, w, &prog)?;
            let path = dir.join(file);
            if regenerate {
                if std::fs::read_to_string(&path).ok().as_deref() != Some(text.as_str()) {
                    std::fs::write(&path, text)?;
                }
            } else if std::fs::read_to_string(&path).ok().as_deref() != Some(text.as_str()) {
                stale.push(format!("{GENERATED_DIR}/{file}"));
            }
        }
    }
    if !stale.is_empty() {
        return Err(format!(
            "generated Paff assembly is stale or missing: {} (run `{REGENERATE_ENV}=1 cargo build -p pavelor` and commit the result)",
            stale.join(", ")
        )
        .into());
    }
    Ok(())
}
