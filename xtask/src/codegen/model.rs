//! The model check: a generated [`Program`] run on a model of the vector
//! unit must leave the state the wiring gives when evaluated directly.

use super::schedule::{Insn, Isa, Loc, NREG, Opnd, Program, SPILL_SLOTS, home};
use super::wiring::{CONST_OUT, P1, P2, ROUNDS, SUBBLOCKS};

/// The model's AES round without its key: an injective 64-bit mix.
pub(crate) fn mix(x: u64) -> u64 {
    (x ^ (x >> 29))
        .wrapping_mul(0x9E37_79B9_7F4A_7C15)
        .rotate_left(17)
}

/// The model's starting state: 20 distinct words.
pub(crate) fn model_state() -> [u64; SUBBLOCKS] {
    std::array::from_fn(|i| 0xdead_beef_0bad_f00du64.wrapping_mul(i as u64 + 3))
}

/// The wiring evaluated directly on the model: 24 rounds of
/// `N[j] = mix(S[P1[j]]) XOR S[P2[j]]`, the constant output
/// `rc(round) XOR S[P2[j]]`.
pub(crate) fn model_paff(mut s: [u64; SUBBLOCKS], rc: fn(usize) -> u64) -> [u64; SUBBLOCKS] {
    for r in 0..ROUNDS {
        let o = s;
        for j in 0..SUBBLOCKS {
            s[j] = if j == CONST_OUT {
                rc(r) ^ o[P2[j]]
            } else {
                mix(o[P1[j]]) ^ o[P2[j]]
            };
        }
    }
    s
}

/// Runs `prog` on a model of the vector unit (an AES round is an injective
/// 64-bit mix, the constant of round `r` a distinct word) and compares the
/// result with the wiring evaluated directly; also checks the SSE operand
/// constraints.
pub(super) fn check(isa: Isa, prog: &Program) -> Result<(), String> {
    fn aes(x: u64, k: u64) -> u64 {
        mix(x) ^ k
    }
    fn rc(r: usize) -> u64 {
        0x1234_5678_9abc_def1u64.wrapping_mul(r as u64 + 1)
    }
    let init = model_state();
    let want = model_paff(init, rc);
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
