//! Static check of the SIMD kernels valgrind cannot run (VAES, AVX-512).
//!
//! Valgrind 3.19 implements neither VAES nor AVX-512, and hides them in the
//! CPUID it shows the program, so the `avx2-vaes` and `avx512-vaes` backends
//! never run under memcheck. This module checks their machine code instead,
//! as disassembled by `objdump` from a built binary, with a taint argument:
//!
//! 1. **No data leaves the vector unit.** No instruction moves a vector or
//!    mask register (`xmm`/`ymm`/`zmm`/`k`) into a general-purpose register,
//!    and none sets the flags from vector data (`ptest`, `kortest`,
//!    `comiss`, ...).
//! 2. **General-purpose loads are pointer/length fields only.** Every load
//!    into a general-purpose register (or used by a scalar ALU instruction)
//!    is a full 64-bit access at `displacement(base)`, without an index
//!    register (the slice pointers and lengths passed in, spilled counters). A byte/word load or an indexed load — the
//!    shape of a table lookup — is rejected.
//! 3. **No indirect control flow** (`call *`, `jmp *`), except calls
//!    through the GOT (`call *disp(%rip)`: a fixed target; in the test
//!    profile these are the panic handlers of overflow and bounds checks),
//!    which are listed.
//! 4. Direct calls are followed and their targets checked by the same rules.
//!
//! Secret bytes (message, state) enter the kernels only through vector
//! loads; by (1) they never reach a general-purpose register or the flags,
//! so no branch condition and no address can depend on them. What the check
//! assumes, and cannot prove: that rule (2)'s 64-bit loads read the public
//! argument fields and not message bytes (they are listed in the report for
//! review: in the current kernels they are the `blocks[l]` pointers), and
//! that the vector instructions themselves (`vaesenc`, `vpxor`, loads and
//! stores) have data-independent timing, as Intel and AMD document.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::Command;

use crate::Error;

/// The kernel functions (demangled paths, without the hash) that must be
/// found and checked.
pub const KERNELS: &[&str] = &[
    "pavelor::backend::x86::avx512_vaes_x4::absorb_x4_impl",
    "pavelor::backend::x86::avx512_vaes_x2::absorb_x2_impl",
    "pavelor::backend::x86::avx2_vaes_x2::absorb_x2_impl",
    "pavelor::backend::x86::avx512_vaes::permute_impl",
    "pavelor::backend::x86::avx512_vaes::absorb_impl",
    "pavelor::backend::x86::avx512_vaes::hash_impl",
    "pavelor::backend::x86::avx_aesni::permute_impl",
    "pavelor::backend::x86::avx_aesni::absorb_impl",
    "pavelor::backend::x86::avx_aesni::hash_impl",
    "pavelor::backend::x86::sse_aesni::permute_impl",
    "pavelor::backend::x86::sse_aesni::absorb_impl",
    "pavelor::backend::x86::sse_aesni::hash_impl",
];

/// The AArch64 kernel functions (backend `armv8-aes`), checked in the
/// aarch64 build of the harness by [`check_listing_aarch64`].
pub const KERNELS_AARCH64: &[&str] = &[
    "pavelor::backend::aarch64::armv8_aes::permute_impl",
    "pavelor::backend::aarch64::armv8_aes::absorb_impl",
    "pavelor::backend::aarch64::armv8_aes::hash_impl",
];

/// The harness's own deliberately leaky vector function (see
/// [`crate::toy::vector_table`]): the check must reject it.
pub const LEAKY_TOY: &str = "pavelor_ct::toy::vector_table";

/// One disassembled instruction.
#[derive(Clone, Debug)]
struct Insn {
    addr: u64,
    mnemonic: String,
    operands: Vec<String>,
    text: String,
}

/// One function of the binary.
#[derive(Clone, Debug)]
struct Function {
    name: String,
    insns: Vec<Insn>,
}

/// The result of checking one kernel (and the functions it calls).
#[derive(Clone, Debug, Default)]
pub struct KernelReport {
    /// Demangled name of the kernel.
    pub name: String,
    /// Start address of this instance (generic kernels have several).
    pub addr: u64,
    /// Instructions checked (kernel plus callees).
    pub instructions: usize,
    /// AES round instructions among them.
    pub aes_rounds: usize,
    /// Conditional branches (all on general-purpose-register flags).
    pub conditional_branches: usize,
    /// The general-purpose loads allowed by rule 2, for review.
    pub scalar_loads: Vec<String>,
    /// Functions called (checked too).
    pub callees: Vec<String>,
    /// Calls through the GOT (fixed targets, not followed), for review.
    pub external_calls: Vec<String>,
    /// Rule violations: `address: instruction: why`.
    pub violations: Vec<String>,
}

/// Demangles a legacy Rust symbol (`_ZN7pavelor...17h<hash>E`) to
/// `pavelor::...` without the hash; other symbols are returned as they are.
pub fn demangle(sym: &str) -> String {
    let Some(mut rest) = sym.strip_prefix("_ZN") else {
        return sym.to_string();
    };
    let mut parts: Vec<String> = Vec::new();
    while !rest.starts_with('E') && !rest.is_empty() {
        let ndigits = rest.bytes().take_while(u8::is_ascii_digit).count();
        let Some(len) = rest[..ndigits].parse::<usize>().ok() else {
            return sym.to_string();
        };
        let Some(ident) = rest.get(ndigits..ndigits + len) else {
            return sym.to_string();
        };
        parts.push(ident.replace("$LT$", "<").replace("$GT$", ">"));
        rest = &rest[ndigits + len..];
    }
    if parts
        .last()
        .is_some_and(|p| p.len() == 17 && p.starts_with('h'))
    {
        parts.pop();
    }
    parts.join("::")
}

/// Splits AT&T operands at top-level commas (not inside parentheses).
fn split_operands(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut depth = 0;
    let mut cur = String::new();
    for c in s.chars() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            _ => {}
        }
        if c == ',' && depth == 0 {
            out.push(cur.trim().to_string());
            cur.clear();
        } else {
            cur.push(c);
        }
    }
    if !cur.trim().is_empty() {
        out.push(cur.trim().to_string());
    }
    out
}

/// Parses `objdump -d --no-show-raw-insn -w` output into functions keyed by
/// start address.
fn parse_objdump(text: &str, arch: Arch) -> BTreeMap<u64, Function> {
    let mut funcs = BTreeMap::new();
    let mut current: Option<(u64, Function)> = None;
    for line in text.lines() {
        if let Some(head) = line.strip_suffix(">:") {
            if let Some((addr, sym)) = head.split_once(" <")
                && let Ok(addr) = u64::from_str_radix(addr.trim(), 16)
            {
                if let Some((a, f)) = current.take() {
                    funcs.insert(a, f);
                }
                current = Some((
                    addr,
                    Function {
                        name: demangle(sym),
                        insns: Vec::new(),
                    },
                ));
            }
            continue;
        }
        let Some((addr, body)) = line.split_once(":\t") else {
            continue;
        };
        let Ok(addr) = u64::from_str_radix(addr.trim(), 16) else {
            continue;
        };
        // Drop a trailing `# comment` and the symbol annotation `<...>`.
        // (AArch64 comments start with `//`; `#` marks its immediates.)
        let comment = match arch {
            Arch::X86 => " #",
            Arch::Aarch64 => " //",
        };
        let body = body.split(comment).next().unwrap_or(body).trim();
        let (mnemonic, ops) = match body.split_once(char::is_whitespace) {
            Some((m, o)) => (m.to_string(), o.trim()),
            None => (body.to_string(), ""),
        };
        if let Some((_, f)) = current.as_mut() {
            f.insns.push(Insn {
                addr,
                mnemonic,
                operands: split_operands(ops),
                text: body.to_string(),
            });
        }
    }
    if let Some((a, f)) = current.take() {
        funcs.insert(a, f);
    }
    funcs
}

fn is_vector_reg(op: &str) -> bool {
    ["%xmm", "%ymm", "%zmm"].iter().any(|p| op.starts_with(p))
        || (op.len() == 3 && op.starts_with("%k"))
}

fn is_gpr(op: &str) -> bool {
    const NAMED: &[&str] = &[
        "%rax", "%rbx", "%rcx", "%rdx", "%rsi", "%rdi", "%rbp", "%rsp", "%eax", "%ebx", "%ecx",
        "%edx", "%esi", "%edi", "%ebp", "%esp", "%ax", "%bx", "%cx", "%dx", "%si", "%di", "%bp",
        "%sp", "%al", "%bl", "%cl", "%dl", "%ah", "%bh", "%ch", "%dh", "%sil", "%dil", "%bpl",
        "%spl",
    ];
    if NAMED.contains(&op) {
        return true;
    }
    // %r8 .. %r15 with optional d/w/b suffix.
    op.strip_prefix("%r").is_some_and(|r| {
        let digits = r.trim_end_matches(['d', 'w', 'b']);
        matches!(digits.parse::<u8>(), Ok(8..=15))
    })
}

fn is_memory(op: &str) -> bool {
    op.contains('(')
}

/// `disp(%base,%index,scale)`: whether an index register is used.
fn has_index(op: &str) -> bool {
    op.split_once('(')
        .map(|(_, inner)| inner.trim_end_matches(')').split(',').count() > 1)
        .unwrap_or(false)
}

/// The direct call target of `insn`, if it is one.
fn call_target(insn: &Insn) -> Option<u64> {
    if insn.mnemonic != "call" {
        return None;
    }
    let t = insn.operands.first()?;
    let hex = t.split_whitespace().next()?;
    u64::from_str_radix(hex, 16).ok()
}

fn check_insn(insn: &Insn, report: &mut KernelReport) {
    let m = insn.mnemonic.as_str();
    let ops = &insn.operands;
    let mut violation = |why: &str| {
        report
            .violations
            .push(format!("{:x}: {}: {why}", insn.addr, insn.text));
    };
    if m.contains("aesenc") || m.contains("aesdec") {
        report.aes_rounds += 1;
    }
    const VECTOR_FLAGS: &[&str] = &[
        "ptest", "vptest", "vtestp", "ktest", "kortest", "comis", "ucomis", "vcomis", "vucomis",
    ];
    if VECTOR_FLAGS.iter().any(|p| m.starts_with(p)) {
        violation("sets the flags from vector data");
    }
    if (m == "call" || m == "jmp" || m.starts_with("notrack"))
        && let Some(target) = ops.iter().find(|o| o.starts_with('*'))
    {
        if target.ends_with("(%rip)") && m == "call" {
            // A call through the GOT: a fixed target resolved at load time
            // (in the test profile, the panic handlers of overflow and
            // bounds checks on public counters). Not followed.
            report
                .external_calls
                .push(format!("{:x}: {}", insn.addr, insn.text));
        } else {
            violation("indirect control flow");
        }
    }
    let is_cond_branch = m.starts_with('j') && m != "jmp";
    if is_cond_branch {
        report.conditional_branches += 1;
    }
    let Some(dst) = ops.last() else { return };
    if ops.len() >= 2 && is_gpr(dst) {
        let sources = &ops[..ops.len() - 1];
        if sources.iter().any(|o| is_vector_reg(o)) {
            violation("moves vector/mask data into a general-purpose register");
        }
        if m != "lea"
            && !m.starts_with("nop")
            && let Some(mem) = sources.iter().find(|o| is_memory(o))
        {
            // Byte/word loads and indexed loads are what table lookups and
            // byte extraction look like; whole 64-bit fields at a constant
            // offset (pointers, lengths, spilled counters) are listed.
            let full_width = dst.starts_with("%r") && !dst.ends_with(['d', 'w', 'b']);
            let scalar_op = matches!(
                m,
                "mov" | "movq" | "cmp" | "add" | "sub" | "and" | "or" | "xor" | "test" | "imul"
            );
            if scalar_op && full_width && !has_index(mem) {
                report
                    .scalar_loads
                    .push(format!("{:x}: {}", insn.addr, insn.text));
            } else {
                violation(
                    "general-purpose load that is not a plain 64-bit field load (table lookup shape)",
                );
            }
        }
    }
}

/// Checks every instance of every function whose demangled name is in
/// `roots`, following direct calls. Returns one report per instance.
fn check_functions(
    funcs: &BTreeMap<u64, Function>,
    roots: &[&str],
    arch: Arch,
) -> Vec<KernelReport> {
    let mut reports = Vec::new();
    for (&addr, f) in funcs {
        if !roots.contains(&f.name.as_str()) {
            continue;
        }
        let mut report = KernelReport {
            name: f.name.clone(),
            addr,
            ..KernelReport::default()
        };
        let mut seen = BTreeSet::new();
        let mut todo = vec![addr];
        while let Some(a) = todo.pop() {
            if !seen.insert(a) {
                continue;
            }
            let Some(func) = funcs.get(&a) else {
                report
                    .violations
                    .push(format!("call to {a:x}, which is not a known function"));
                continue;
            };
            if a != addr {
                report.callees.push(func.name.clone());
            }
            for insn in &func.insns {
                report.instructions += 1;
                let target = match arch {
                    Arch::X86 => {
                        check_insn(insn, &mut report);
                        call_target(insn)
                    }
                    Arch::Aarch64 => check_insn_aarch64(insn, &mut report),
                };
                if let Some(t) = target {
                    todo.push(t);
                }
            }
        }
        reports.push(report);
    }
    reports
}

/// Disassembles `binary` with objdump.
pub fn disassemble(binary: &Path) -> Result<String, Error> {
    run_objdump("objdump", "binutils", binary)
}

/// Runs the disassembler `tool` (from the package `package`) on `binary`
/// and returns its listing.
fn run_objdump(tool: &'static str, package: &'static str, binary: &Path) -> Result<String, Error> {
    let out = Command::new(tool)
        .args(["-d", "--no-show-raw-insn", "-w"])
        .arg(binary)
        .output()
        .map_err(|source| Error::ToolNotRun {
            tool,
            package,
            source,
        })?;
    if !out.status.success() {
        return Err(Error::ToolFailed {
            tool,
            binary: binary.to_path_buf(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        });
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// Checks the functions named `roots` in an objdump listing. Each root must
/// be present at least once (else the check would be vacuous).
pub fn check_listing(listing: &str, roots: &[&str]) -> Result<Vec<KernelReport>, Error> {
    check_listing_arch(listing, roots, Arch::X86)
}

/// [`check_listing`] for an AArch64 listing (`aarch64-linux-gnu-objdump`),
/// with the same taint argument in AArch64 terms:
///
/// 1. no instruction moves a SIMD register into a general-purpose register
///    (`umov`, `smov`, `fmov`/`mov` to `x`/`w`) or sets the flags from SIMD
///    data (`fcmp`, `fccmp`);
/// 2. general-purpose loads are 64-bit loads (`ldr`/`ldp`/`ldur` into `x`
///    registers) at a base register plus immediate; byte, halfword and
///    32-bit loads and register-offset addressing (the table-lookup shape)
///    are rejected, the others listed;
/// 3. no indirect branch (`br`, `blr`); calls into the PLT (`bl
///    <memcpy@plt>`: a fixed target, the padding copy of public length) are
///    listed and not followed;
/// 4. other direct calls (`bl`) are followed and checked by the same rules.
pub fn check_listing_aarch64(listing: &str, roots: &[&str]) -> Result<Vec<KernelReport>, Error> {
    check_listing_arch(listing, roots, Arch::Aarch64)
}

/// Instruction set of a listing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Arch {
    X86,
    Aarch64,
}

fn check_listing_arch(
    listing: &str,
    roots: &[&str],
    arch: Arch,
) -> Result<Vec<KernelReport>, Error> {
    let funcs = parse_objdump(listing, arch);
    let reports = check_functions(&funcs, roots, arch);
    let missing: Vec<&str> = roots
        .iter()
        .copied()
        .filter(|r| !reports.iter().any(|k| k.name == *r))
        .collect();
    if missing.is_empty() {
        Ok(reports)
    } else {
        Err(Error::KernelsNotFound {
            missing: missing.into_iter().map(String::from).collect(),
        })
    }
}

/// Whether an AArch64 operand is a general-purpose register (`x0`..`x30`,
/// `w0`..`w30`, `xzr`, `wzr`, `sp`).
fn is_gpr_aarch64(op: &str) -> bool {
    if matches!(op, "xzr" | "wzr" | "sp" | "wsp") {
        return true;
    }
    op.strip_prefix(['x', 'w'])
        .is_some_and(|n| matches!(n.parse::<u8>(), Ok(0..=30)))
}

/// Whether an AArch64 operand names a SIMD/FP register (`v3.16b`, `q3`,
/// `d3`, `s3`, `h3`, `b3`, `v3.d[1]`).
fn is_simd_aarch64(op: &str) -> bool {
    let Some(rest) = op.strip_prefix(['v', 'q', 'd', 's', 'h', 'b']) else {
        return false;
    };
    let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
    !digits.is_empty() && matches!(digits.parse::<u8>(), Ok(0..=31))
}

/// Operands of an AArch64 instruction, split on commas outside `[...]` and
/// `{...}`.
fn split_operands_aarch64(ops: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut depth = 0i32;
    let mut cur = String::new();
    for c in ops.chars() {
        match c {
            '[' | '{' => depth += 1,
            ']' | '}' => depth -= 1,
            _ => {}
        }
        if c == ',' && depth == 0 {
            out.push(cur.trim().to_string());
            cur.clear();
        } else {
            cur.push(c);
        }
    }
    if !cur.trim().is_empty() {
        out.push(cur.trim().to_string());
    }
    out
}

/// Checks one AArch64 instruction; returns the target of a direct call to
/// follow.
fn check_insn_aarch64(insn: &Insn, report: &mut KernelReport) -> Option<u64> {
    let m = insn.mnemonic.as_str();
    let ops_text = insn
        .text
        .split_once(char::is_whitespace)
        .map_or("", |(_, o)| o.trim());
    let ops = split_operands_aarch64(ops_text);
    let mut violation = |why: &str| {
        report
            .violations
            .push(format!("{:x}: {}: {why}", insn.addr, insn.text));
    };
    if m == "aese" {
        report.aes_rounds += 1;
    }
    if m.starts_with("b.") || matches!(m, "cbz" | "cbnz" | "tbz" | "tbnz") {
        report.conditional_branches += 1;
    }
    if matches!(m, "fcmp" | "fcmpe" | "fccmp" | "fccmpe") {
        violation("sets the flags from SIMD/FP data");
    }
    if matches!(
        m,
        "br" | "blr" | "braa" | "brab" | "blraa" | "blrab" | "braaz" | "blraaz"
    ) {
        violation("indirect control flow");
    }
    let dst = ops.first().map(String::as_str).unwrap_or("");
    if matches!(m, "umov" | "smov" | "fmov" | "mov" | "fcvtzs" | "fcvtzu")
        && is_gpr_aarch64(dst)
        && ops[1..].iter().any(|o| is_simd_aarch64(o))
    {
        violation("moves SIMD data into a general-purpose register");
    }
    let is_load = m.starts_with("ldr")
        || m.starts_with("ldur")
        || m.starts_with("ldp")
        || m.starts_with("ldar")
        || m.starts_with("ldx")
        || m.starts_with("ldnp");
    if is_load && is_gpr_aarch64(dst) {
        let mem = ops
            .iter()
            .find(|o| o.starts_with('['))
            .map(String::as_str)
            .unwrap_or("");
        let inner = mem.trim_start_matches('[').split(']').next().unwrap_or("");
        let indexed = inner.split(',').skip(1).any(|o| is_gpr_aarch64(o.trim()));
        let narrow = m.ends_with('b')
            || m.ends_with('h')
            || m.ends_with("sw")
            || ops
                .iter()
                .take_while(|o| !o.starts_with('['))
                .any(|o| o.starts_with('w'));
        if indexed || narrow || mem.is_empty() {
            violation(
                "general-purpose load that is not a plain 64-bit field load (table lookup shape)",
            );
        } else {
            report
                .scalar_loads
                .push(format!("{:x}: {}", insn.addr, insn.text));
        }
    }
    if m == "bl" {
        let t = ops.first()?;
        // PLT stubs (memcpy of the public-length padding copy) and the
        // core library's panic paths (bounds checks on public lengths) are
        // fixed targets outside the kernel: listed, not followed.
        if t.contains("@plt>") || t.contains("4core") {
            report
                .external_calls
                .push(format!("{:x}: {}", insn.addr, insn.text));
            return None;
        }
        return u64::from_str_radix(t.split_whitespace().next()?, 16).ok();
    }
    None
}

/// Disassembles an AArch64 `binary` with `aarch64-linux-gnu-objdump`.
pub fn disassemble_aarch64(binary: &Path) -> Result<String, Error> {
    run_objdump(
        "aarch64-linux-gnu-objdump",
        "binutils-aarch64-linux-gnu",
        binary,
    )
}

/// A synthetic AArch64 listing with the leaks the AArch64 rules must catch
/// (a byte table lookup, a register-offset load, a SIMD lane moved to a
/// general-purpose register, an indirect branch): the positive control of
/// the AArch64 check.
pub const LEAKY_AARCH64_LISTING: &str = "\
0000000000001000 <pavelor_ct::toy::leaky_aarch64>:
    1000:\tumov\tw8, v0.b[0]
    1004:\tldrb\tw9, [x1, x8]
    1008:\tldr\tx10, [x2, x9, lsl #3]
    100c:\tblr\tx10
    1010:\tret
";
