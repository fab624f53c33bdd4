//! `cargo xtask codegen [--check]`: the Paff of the 16-register x86
//! kernels of `pavelor`, `aesni` (SSE `aesenc`), `aesni-avx` (VEX
//! `vaesenc xmm`) and the 2-lane batch kernel of `avx2-vaes` (VEX
//! `vaesenc ymm`), as hand-allocated assembly.
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
//! [`schedule`] walks the 24 rounds with a latency model of every value
//! (AES round 2 cycles, XOR 1, a trip through memory
//! `schedule::SPILL_LATENCY`):
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
//! The wiring is the crate's own `crates/pavelor/src/definition/wiring.rs`
//! (the file `definition/paff.rs` defines it with), compiled here as the
//! module [`wiring`]. Each generated program is run on a model ([`model`]:
//! the AES round replaced by an injective 64-bit mix) against the wiring
//! evaluated directly, in both modes, and any difference is an error; the
//! crate's known-answer tests then run the real code.
//!
//! Output, committed so that it can be read and reviewed, and so that a
//! build of `pavelor` needs no generator: [`FILES`], each one `asm!`
//! expression ([`render`]; `paff_vex_ymm.rs` is the VEX program on `ymm`
//! registers and 32-byte slots: two states, one per 128-bit lane),
//! included by `src/backend/x86/sse_aesni.rs`, `avx_aesni.rs` and
//! `avx2_vaes_x2.rs`.
//!
//! * `cargo xtask codegen` writes the files that differ from what is
//!   generated (a file already up to date is left untouched).
//! * `--check` writes nothing and fails, naming each stale file, unless
//!   every committed file is exactly what would be written (CI runs it).
//!
//! xtask links `pavelor` (through `pavelor-ffi`), which includes these
//! files: it builds only while they compile. A file edited until it no
//! longer does is restored from git first
//! (`git checkout -- crates/pavelor/src/backend/x86/generated/`).

pub(crate) mod model;
mod render;
mod schedule;
// The core's own file (`cargo xtask mca` generates from it too): its items
// are `pub` for the core's modules, which this crate does not have.
#[allow(unreachable_pub)]
#[path = "../../../crates/pavelor/src/definition/wiring.rs"]
pub(crate) mod wiring;

use clap::Args;

use render::Width;
use schedule::Isa;

/// The generated files, relative to the workspace root, each with the
/// encoding and the register width it is rendered for (the two VEX files
/// are one program).
const FILES: [(&str, Isa, Width); 3] = [
    (
        "crates/pavelor/src/backend/x86/generated/paff_sse.rs",
        Isa::Sse,
        Width::Xmm,
    ),
    (
        "crates/pavelor/src/backend/x86/generated/paff_vex.rs",
        Isa::Vex,
        Width::Xmm,
    ),
    (
        "crates/pavelor/src/backend/x86/generated/paff_vex_ymm.rs",
        Isa::Vex,
        Width::Ymm,
    ),
];

#[derive(Args)]
pub(crate) struct CodegenArgs {
    /// Do not write: exit non-zero, naming each stale file, unless every
    /// generated file already holds exactly what would be written.
    #[arg(long)]
    check: bool,
}

pub(crate) fn run(args: &CodegenArgs) -> Result<(), String> {
    let root = crate::workspace_root();
    let mut stale = Vec::new();
    for (file, text) in generate()? {
        let path = root.join(file);
        let current = std::fs::read_to_string(&path).ok();
        match compare(file, current.as_deref(), &text) {
            Ok(()) => eprintln!("xtask: {} is up to date", path.display()),
            Err(e) if args.check => stale.push(e),
            Err(_) => {
                crate::write_atomically(&path, text.as_bytes())?;
                eprintln!("xtask: wrote {}", path.display());
            }
        }
    }
    if stale.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "{}\nrun `cargo xtask codegen` and commit the result",
            stale.join("\n")
        ))
    }
}

/// Every file of [`FILES`] with the text it should hold. Each program is
/// checked on the model before it is rendered: an error names the
/// encoding and what differs (the first subblock that disagrees with the
/// wiring, an SSE operand constraint broken, a value read before it is
/// written).
fn generate() -> Result<Vec<(&'static str, String)>, String> {
    let mut out = Vec::new();
    for isa in [Isa::Sse, Isa::Vex] {
        let prog = schedule::generate(isa)?;
        model::check(isa, &prog).map_err(|e| format!("the model check failed: {e}"))?;
        for &(file, _, width) in FILES.iter().filter(|f| f.1 == isa) {
            let text = render::render(isa, width, &prog)
                .map_err(|e| format!("cannot render {file}: {e}"))?;
            out.push((file, text));
        }
    }
    Ok(out)
}

/// `Ok` if `committed` (`None`: missing or unreadable) is exactly
/// `generated`; otherwise an error naming `file` and the first line that
/// differs.
fn compare(file: &str, committed: Option<&str>, generated: &str) -> Result<(), String> {
    let Some(committed) = committed else {
        return Err(format!("{file} is missing"));
    };
    if committed == generated {
        return Ok(());
    }
    let mut have = committed.split_inclusive('\n');
    let mut want = generated.split_inclusive('\n');
    let mut line = 1;
    while have.next() == want.next() {
        line += 1;
    }
    Err(format!("{file} is stale (first difference at line {line})"))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The committed files are what `cargo xtask codegen` writes (what
    /// `--check` checks).
    #[test]
    fn committed_files_are_fresh() -> Result<(), String> {
        let root = crate::workspace_root();
        let files = generate()?;
        assert_eq!(files.len(), FILES.len());
        for (file, text) in files {
            let committed = std::fs::read_to_string(root.join(file))
                .map_err(|e| format!("cannot read {file}: {e}"))?;
            compare(file, Some(&committed), &text)?;
        }
        Ok(())
    }

    /// A committed text that differs in one instruction, in its last
    /// newline or that is missing is reported as stale, by name and line.
    #[test]
    fn altered_text_is_stale() -> Result<(), String> {
        let (file, text) = generate()?.swap_remove(0);
        assert_eq!(compare(file, Some(&text), &text), Ok(()));

        let line = text
            .lines()
            .position(|l| l.contains("aesenc"))
            .ok_or("no aesenc in the generated text")?;
        let altered = text.replacen("aesenc", "aesdec", 1);
        let err = compare(file, Some(&altered), &text).expect_err("an altered file passes");
        assert_eq!(
            err,
            format!("{file} is stale (first difference at line {})", line + 1)
        );

        let truncated = text.trim_end_matches('\n');
        let err = compare(file, Some(truncated), &text).expect_err("a truncated file passes");
        assert!(err.starts_with(&format!("{file} is stale")), "{err}");

        let err = compare(file, None, &text).expect_err("a missing file passes");
        assert_eq!(err, format!("{file} is missing"));
        Ok(())
    }

    /// The model check rejects a program that computes something else than
    /// the wiring (one round key replaced).
    #[test]
    fn model_rejects_a_wrong_program() -> Result<(), String> {
        for isa in [Isa::Sse, Isa::Vex] {
            let mut prog = schedule::generate(isa)?;
            model::check(isa, &prog)?;
            let key = prog
                .code
                .iter_mut()
                .find_map(|i| match i {
                    schedule::Insn::Aes { key, .. } => Some(key),
                    _ => None,
                })
                .ok_or("no AES round")?;
            *key = match *key {
                schedule::Opnd::Reg(x) => schedule::Opnd::Reg((x + 1) % schedule::IN_REGS),
                _ => schedule::Opnd::Reg(0),
            };
            assert!(model::check(isa, &prog).is_err(), "{isa:?}");
        }
        Ok(())
    }
}
