//! `cargo xtask mca`: the AArch64 `armv8-aes` Paff against llvm-mca's
//! models of four AArch64 cores.
//!
//! 1. Cross-compiles `pavelor`'s library for `aarch64-unknown-linux-gnu`
//!    with the release profile (`cargo rustc --release -p pavelor --lib
//!    --target aarch64-unknown-linux-gnu -- --emit asm=FILE`): the same
//!    crate code generation as the release build (one codegen unit), with
//!    assembly written beside the rlib. No linking, so no cross linker.
//! 2. Finds the Paff permutation by symbol: the one function whose
//!    (legacy-mangled, here demangled) name is exactly
//!    [`PAFF_SYMBOL`], i.e. the kernel's `permute_impl` (load the 20
//!    subblocks, 24 rounds, store them), from its label to its `.size`
//!    directive. Its instructions (directives, labels, comments and the
//!    final `ret` dropped) are the block llvm-mca models, one iteration =
//!    one Paff including its 20 loads, 20 stores and 24 round-constant loads.
//! 3. Runs llvm-mca (LLVM 22) once per CPU and prints the modelled cycles
//!    per Paff (`Total Cycles / Iterations`, and the `Block RThroughput`
//!    bound), the cycles per byte of each instance, and the instruction mix.
//!
//! These are *modelled* figures, not measurements. A missing prerequisite
//! (llvm-mca, the Rust target) is a one-line error naming the command that
//! installs it, exit status 3.

use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

use clap::Args;

use crate::{target_dir, workspace_root};

/// The cross target.
pub(crate) const TARGET: &str = "aarch64-unknown-linux-gnu";
/// The demangled name of the function modelled: one Paff.
pub(crate) const PAFF_SYMBOL: &str = "pavelor::backend::aarch64::armv8_aes::permute_impl";
/// The CPUs modelled by default (`-mcpu=`): Qualcomm Oryon (the seed's
/// machine), Arm Neoverse V2, Arm Cortex-X925, Apple M4.
pub(crate) const CPUS: [&str; 4] = ["oryon-1", "neoverse-v2", "cortex-x925", "apple-m4"];
/// Bytes absorbed per Paff: (instance, rate).
pub(crate) const RATES: [(&str, u32); 3] = [
    ("Pavelor-512", 192),
    ("Pavelor-768", 128),
    ("Pavelor-1024", 64),
];
/// The llvm-mca binaries tried, in order (Debian's `llvm-22`).
const MCA_CANDIDATES: [&str; 3] = ["llvm-mca-22", "/usr/lib/llvm-22/bin/llvm-mca", "llvm-mca"];
/// Exit status for a missing prerequisite.
const EXIT_MISSING: u8 = 3;

#[derive(Args)]
pub(crate) struct McaArgs {
    /// Model only this CPU (an llvm-mca -mcpu name); repeatable.
    /// Default: oryon-1, neoverse-v2, cortex-x925, apple-m4.
    #[arg(long = "cpu", value_name = "CPU")]
    cpus: Vec<String>,

    /// llvm-mca -iterations.
    #[arg(long, default_value_t = 100)]
    iterations: u32,

    /// Also print llvm-mca's bottleneck analysis (-bottleneck-analysis).
    #[arg(long)]
    bottleneck: bool,

    /// The llvm-mca binary [default: llvm-mca-22, /usr/lib/llvm-22/bin/llvm-mca, llvm-mca].
    #[arg(long, value_name = "PATH")]
    llvm_mca: Option<PathBuf>,

    /// Pass --locked to cargo.
    #[arg(long)]
    locked: bool,
}

/// What went wrong: a missing prerequisite (exit 3) or a failure (exit 1).
enum Error {
    Missing(String),
    Failed(String),
}

impl From<String> for Error {
    fn from(e: String) -> Self {
        Error::Failed(e)
    }
}

pub(crate) fn main(args: &McaArgs) -> ExitCode {
    match run(args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(Error::Missing(e)) => {
            eprintln!("error: {e}");
            ExitCode::from(EXIT_MISSING)
        }
        Err(Error::Failed(e)) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run(args: &McaArgs) -> Result<(), Error> {
    let mca = find_mca(args.llvm_mca.as_deref())?;
    check_target()?;
    let asm = build_asm(args.locked)?;
    let text =
        fs::read_to_string(&asm).map_err(|e| format!("cannot read {}: {e}", asm.display()))?;
    let block = extract_function(&text, PAFF_SYMBOL)?;
    let mix = Mix::of(&block);
    let out_dir = asm.parent().unwrap_or(Path::new("."));
    let block_file = out_dir.join("paff-aarch64-block.s");
    fs::write(&block_file, block.join("\n") + "\n")
        .map_err(|e| format!("cannot write {}: {e}", block_file.display()))?;

    let cpus: Vec<String> = if args.cpus.is_empty() {
        CPUS.iter().map(|s| s.to_string()).collect()
    } else {
        args.cpus.clone()
    };
    println!("llvm-mca: {} ({})", mca.display(), mca_version(&mca));
    println!(
        "block: {PAFF_SYMBOL} ({} instructions, {})",
        block.len(),
        block_file.display()
    );
    println!("instruction mix per Paff: {}", mix.render());
    println!(
        "MODELLED by llvm-mca, not measured; -iterations={}",
        args.iterations
    );
    println!();
    let mut header = format!("{:<12} {:>12} {:>12}", "cpu", "cycles/Paff", "RThroughput");
    for (name, _) in RATES {
        let _ = write!(header, " {:>16}", format!("{name} c/B"));
    }
    println!("{header}");
    for cpu in &cpus {
        let report = run_mca(&mca, cpu, args.iterations, args.bottleneck, &block_file)?;
        let summary = Summary::parse(&report)?;
        let per_paff = summary.cycles_per_iteration();
        let mut line = format!(
            "{cpu:<12} {per_paff:>12.1} {:>12.1}",
            summary.block_rthroughput
        );
        for (_, rate) in RATES {
            let _ = write!(line, " {:>16.2}", per_paff / f64::from(rate));
        }
        println!("{line}");
        if args.bottleneck {
            println!("{}", bottleneck_section(&report));
        }
    }
    Ok(())
}

/// The llvm-mca to use.
fn find_mca(explicit: Option<&Path>) -> Result<PathBuf, Error> {
    let candidates: Vec<PathBuf> = match explicit {
        Some(p) => vec![p.to_path_buf()],
        None => MCA_CANDIDATES.iter().map(PathBuf::from).collect(),
    };
    for c in candidates {
        let ok = Command::new(&c)
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success());
        if ok {
            return Ok(c);
        }
    }
    Err(Error::Missing(
        "llvm-mca (LLVM 22) not found: apt-get install -y llvm-22".to_string(),
    ))
}

/// `LLVM version X.Y.Z` from `llvm-mca --version`.
fn mca_version(mca: &Path) -> String {
    Command::new(mca)
        .arg("--version")
        .output()
        .ok()
        .and_then(|o| {
            String::from_utf8_lossy(&o.stdout)
                .lines()
                .find(|l| l.contains("LLVM version"))
                .map(|l| l.trim().to_string())
        })
        .unwrap_or_else(|| "version unknown".to_string())
}

/// The aarch64 standard library must be installed (rustup).
fn check_target() -> Result<(), Error> {
    let out = Command::new("rustc")
        .args(["--print", "target-libdir", "--target", TARGET])
        .output()
        .map_err(|e| format!("cannot run rustc: {e}"))?;
    let dir = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
    let has_core = out.status.success()
        && fs::read_dir(&dir).is_ok_and(|rd| {
            rd.flatten()
                .any(|e| e.file_name().to_string_lossy().starts_with("libcore-"))
        });
    if has_core {
        Ok(())
    } else {
        Err(Error::Missing(format!(
            "the {TARGET} Rust standard library is not installed: rustup target add {TARGET}"
        )))
    }
}

/// Cross-compiles pavelor's library with `--emit asm`; returns the `.s` file.
fn build_asm(locked: bool) -> Result<PathBuf, Error> {
    let root = workspace_root();
    let target = target_dir(&root);
    let asm = target.join(TARGET).join("mca").join("pavelor.s");
    let dir = asm.parent().unwrap_or(Path::new("."));
    fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let _ = fs::remove_file(&asm);
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let rustc = |clean_first: bool| -> Result<(), Error> {
        if clean_first {
            // Cargo skips a fresh crate: make it compile pavelor again.
            let mut clean = Command::new(&cargo);
            clean.current_dir(&root).args([
                "clean",
                "--release",
                "-p",
                "pavelor",
                "--target",
                TARGET,
            ]);
            crate::run(&mut clean)?;
        }
        let mut cmd = Command::new(&cargo);
        cmd.current_dir(&root).args([
            "rustc",
            "--release",
            "-p",
            "pavelor",
            "--lib",
            "--target",
            TARGET,
        ]);
        if locked {
            cmd.arg("--locked");
        }
        cmd.arg("--").arg(format!("--emit=asm={}", asm.display()));
        crate::run(&mut cmd)?;
        Ok(())
    };
    rustc(false)?;
    if !asm.is_file() {
        rustc(true)?;
    }
    if asm.is_file() {
        Ok(asm)
    } else {
        Err(Error::Failed(format!(
            "cargo rustc did not write {}",
            asm.display()
        )))
    }
}

fn run_mca(
    mca: &Path,
    cpu: &str,
    iterations: u32,
    bottleneck: bool,
    block: &Path,
) -> Result<String, Error> {
    let mut cmd = Command::new(mca);
    cmd.arg(format!("-mtriple={TARGET}"))
        .arg(format!("-mcpu={cpu}"))
        // The kernel is compiled with `#[target_feature(enable = "aes")]`.
        .arg("-mattr=+aes")
        .arg(format!("-iterations={iterations}"));
    if bottleneck {
        cmd.arg("-bottleneck-analysis");
    }
    cmd.arg(block);
    let out = cmd
        .output()
        .map_err(|e| format!("cannot run {}: {e}", mca.display()))?;
    if !out.status.success() {
        let err = String::from_utf8_lossy(&out.stderr);
        return Err(Error::Failed(format!(
            "llvm-mca -mcpu={cpu} failed: {}",
            err.lines().next().unwrap_or("")
        )));
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// The bottleneck-analysis paragraph of an llvm-mca report.
fn bottleneck_section(report: &str) -> String {
    report
        .lines()
        .skip_while(|l| !l.starts_with("Cycles with backend pressure increase"))
        .take_while(|l| !l.starts_with("Instruction Info:"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The summary lines of an llvm-mca report.
#[derive(Debug, PartialEq)]
pub(crate) struct Summary {
    pub iterations: u64,
    pub total_cycles: u64,
    pub block_rthroughput: f64,
}

impl Summary {
    pub(crate) fn parse(report: &str) -> Result<Summary, String> {
        fn field<'a>(report: &'a str, name: &str) -> Result<&'a str, String> {
            report
                .lines()
                .find_map(|l| l.strip_prefix(name)?.strip_prefix(':').map(str::trim))
                .ok_or_else(|| format!("llvm-mca output has no '{name}:' line"))
        }
        let num = |name: &str| -> Result<u64, String> {
            let v = field(report, name)?;
            v.parse()
                .map_err(|_| format!("llvm-mca '{name}: {v}': not an integer"))
        };
        let rt = field(report, "Block RThroughput")?;
        Ok(Summary {
            iterations: num("Iterations")?,
            total_cycles: num("Total Cycles")?,
            block_rthroughput: rt
                .parse()
                .map_err(|_| format!("llvm-mca 'Block RThroughput: {rt}': not a number"))?,
        })
    }

    /// Modelled cycles per iteration (= per Paff).
    pub(crate) fn cycles_per_iteration(&self) -> f64 {
        self.total_cycles as f64 / self.iterations.max(1) as f64
    }
}

/// Instruction counts of the block.
#[derive(Debug, Default, PartialEq)]
pub(crate) struct Mix {
    pub aese: u32,
    pub aesmc: u32,
    pub eor: u32,
    pub mov: u32,
    pub loads: u32,
    pub stores: u32,
    pub other: u32,
}

impl Mix {
    pub(crate) fn of(block: &[String]) -> Mix {
        let mut m = Mix::default();
        for insn in block {
            let mnemonic = insn.split_whitespace().next().unwrap_or("");
            let slot = match mnemonic {
                "aese" => &mut m.aese,
                "aesmc" => &mut m.aesmc,
                "eor" => &mut m.eor,
                "mov" | "fmov" => &mut m.mov,
                _ if mnemonic.starts_with("ld") => &mut m.loads,
                _ if mnemonic.starts_with("st") => &mut m.stores,
                _ => &mut m.other,
            };
            *slot += 1;
        }
        m
    }

    pub(crate) fn render(&self) -> String {
        format!(
            "{} AESE, {} AESMC, {} EOR, {} MOV, {} loads, {} stores, {} other",
            self.aese, self.aesmc, self.eor, self.mov, self.loads, self.stores, self.other
        )
    }
}

/// Demangles a legacy Rust symbol (`_ZN7pavelor...17h<hash>E`) to its path
/// without the hash; `None` if it is not one.
pub(crate) fn demangle_legacy(sym: &str) -> Option<String> {
    let mut rest = sym.strip_prefix("_ZN")?;
    let mut parts = Vec::new();
    while !rest.starts_with('E') {
        let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
        let len: usize = rest[..digits].parse().ok()?;
        let part = rest.get(digits..digits + len)?;
        rest = &rest[digits + len..];
        parts.push(part);
    }
    if parts
        .last()
        .is_some_and(|h| h.len() == 17 && h.starts_with('h'))
    {
        parts.pop();
    }
    Some(parts.join("::"))
}

/// The instructions of the one function named `name` (demangled) in an
/// assembly listing: the lines from its label to its `.size` directive that
/// are instructions (no directive, label or comment), without a final `ret`.
pub(crate) fn extract_function(asm: &str, name: &str) -> Result<Vec<String>, String> {
    let mut found: Vec<(String, Vec<String>)> = Vec::new();
    let mut current: Option<(String, Vec<String>)> = None;
    for line in asm.lines() {
        let t = line.trim();
        if let Some((sym, body)) = current.as_mut() {
            if t.starts_with(".size") && t.contains(sym.as_str()) {
                found.extend(current.take());
                continue;
            }
            let code = t.split("//").next().unwrap_or("").trim();
            if !code.is_empty() && !code.starts_with('.') && !code.ends_with(':') {
                body.push(code.split_whitespace().collect::<Vec<_>>().join(" "));
            }
        } else if let Some(sym) = t.strip_suffix(':')
            && demangle_legacy(sym).as_deref() == Some(name)
        {
            current = Some((sym.to_string(), Vec::new()));
        }
    }
    match found.len() {
        1 => {
            let mut body = found.remove(0).1;
            if body.last().is_some_and(|l| l == "ret") {
                body.pop();
            }
            Ok(body)
        }
        0 => Err(format!("no function {name} in the assembly")),
        n => Err(format!("{n} functions named {name} in the assembly")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The head of `llvm-mca-22 -mtriple=aarch64-unknown-linux-gnu
    /// -mcpu=oryon-1 -mattr=+aes -iterations=100` on the kernel before the
    /// copy-free reordering (LLVM 22.1.8).
    const REPORT: &str = "\
Iterations:        100
Instructions:      169100
Total Cycles:      40211
Total uOps:        171500

Dispatch Width:    14
uOps Per Cycle:    4.27
IPC:               4.21
Block RThroughput: 402.0


Instruction Info:
[1]: #uOps
";

    /// A cut-down listing in the form `rustc --emit asm` writes.
    const ASM: &str = "\t.section\t.text._ZN7pavelor7backend7aarch649armv8_aes12permute_impl17h402f9669a58bbd4bE,\"ax\",@progbits
\t.p2align\t2
\t.type\t_ZN7pavelor7backend7aarch649armv8_aes12permute_impl17h402f9669a58bbd4bE,@function
_ZN7pavelor7backend7aarch649armv8_aes12permute_impl17h402f9669a58bbd4bE:
.Lfunc_begin29:
\t.loc\t33 504 0
\t.cfi_startproc
\tsub\tsp, sp, #80
\tstp\td15, d14, [sp, #16]
\tldp\tq21, q19, [x0, #128]
\tmovi\tv0.2d, #0000000000000000
\t//APP
\t// v0
\t//NO_APP
\tadrp\tx8, .LCPI29_0
\tmov\tv2.16b, v19.16b
\tldr\tq1, [x8, :lo12:.LCPI29_0]
\teor\tv1.16b, v21.16b, v1.16b
\taese\tv21.16b, v0.16b
\taesmc\tv21.16b, v21.16b
\tstr\tq1, [x0]
\tret
.Lfunc_end29:
\t.size\t_ZN7pavelor7backend7aarch649armv8_aes12permute_impl17h402f9669a58bbd4bE, .Lfunc_end29-_ZN7pavelor7backend7aarch649armv8_aes12permute_impl17h402f9669a58bbd4bE
\t.cfi_endproc
_ZN7pavelor7backend7aarch649armv8_aes11absorb_impl17h0b230beb4b55c7e6E:
\taese\tv1.16b, v0.16b
\tret
";

    #[test]
    fn parses_the_summary() {
        let s = Summary::parse(REPORT).expect("the fixture parses");
        assert_eq!(
            s,
            Summary {
                iterations: 100,
                total_cycles: 40211,
                block_rthroughput: 402.0
            }
        );
        assert!((s.cycles_per_iteration() - 402.11).abs() < 1e-9);
        assert!(Summary::parse("Iterations: 100\n").is_err());
    }

    #[test]
    fn demangles_legacy_symbols() {
        assert_eq!(
            demangle_legacy(
                "_ZN7pavelor7backend7aarch649armv8_aes12permute_impl17h402f9669a58bbd4bE"
            )
            .as_deref(),
            Some(PAFF_SYMBOL)
        );
        assert_eq!(demangle_legacy(".Lfunc_begin29"), None);
    }

    #[test]
    fn extracts_the_block_and_its_mix() {
        let block = extract_function(ASM, PAFF_SYMBOL).expect("the fixture has the function");
        assert_eq!(block.first().map(String::as_str), Some("sub sp, sp, #80"));
        assert_eq!(block.last().map(String::as_str), Some("str q1, [x0]"));
        assert_eq!(
            Mix::of(&block),
            Mix {
                aese: 1,
                aesmc: 1,
                eor: 1,
                mov: 1,
                loads: 2,
                stores: 2,
                other: 3,
            }
        );
        assert!(extract_function(ASM, "pavelor::nothing").is_err());
    }
}
