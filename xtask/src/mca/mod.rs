//! `cargo xtask mca`: the single-message Paff of every x86 and AArch64
//! kernel against llvm-mca's models of the cores they run on.
//!
//! 1. Compiles `pavelor`'s library for the architecture's target with the
//!    release profile (`cargo rustc --release -p pavelor --lib --target
//!    TARGET -- --emit asm=FILE`): the same crate code generation as the
//!    release build (one codegen unit), with assembly written beside the
//!    rlib. No linking, so no cross linker.
//! 2. Finds each kernel's Paff by symbol: the one function whose
//!    (legacy-mangled, here demangled) name is the kernel's `permute_impl`
//!    (load the 20 subblocks, 24 rounds, store them), from its label to its
//!    `.size` directive. Its instructions (directives, labels, comments and
//!    the final `ret` dropped) are the block llvm-mca models, one iteration =
//!    one Paff including its loads, stores and round-constant loads.
//! 3. Runs llvm-mca (LLVM 22) once per kernel and CPU and prints the
//!    modelled cycles per Paff (`Total Cycles / Iterations`, and the
//!    `Block RThroughput` bound), the cycles per byte of each instance, the
//!    pressure on the busiest ports, and the instruction mix.
//!
//! These are *modelled* figures, not measurements. A missing prerequisite
//! (llvm-mca, the Rust target) is a one-line error naming the command that
//! installs it, exit status 3.

mod measure;
mod parse;
mod wide;

use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

use clap::{Args, ValueEnum};

use crate::{target_dir, workspace_root};
use parse::{Mix, Pressure, Summary, extract_function};

/// An architecture whose kernels are modelled.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub(crate) enum Arch {
    /// x86-64: the `aesni`, `aesni-avx` (also `avx2-vaes`'s single
    /// message) and `avx512-vaes` kernels.
    #[value(name = "x86_64")]
    X86_64,
    /// AArch64: the `armv8-aes` kernel.
    Aarch64,
}

impl Arch {
    /// Every architecture, in the order they are modelled.
    const ALL: [Arch; 2] = [Arch::X86_64, Arch::Aarch64];

    /// The Rust target compiled for.
    pub(crate) fn target(self) -> &'static str {
        match self {
            Arch::X86_64 => "x86_64-unknown-linux-gnu",
            Arch::Aarch64 => "aarch64-unknown-linux-gnu",
        }
    }

    /// The kernels: (backend name, demangled name of its Paff function).
    pub(crate) fn kernels(self) -> &'static [(&'static str, &'static str)] {
        match self {
            Arch::X86_64 => &[
                ("aesni", "pavelor::backend::x86::sse_aesni::permute_impl"),
                (
                    "aesni-avx",
                    "pavelor::backend::x86::avx_aesni::permute_impl",
                ),
                (
                    "avx512-vaes",
                    "pavelor::backend::x86::avx512_vaes::permute_impl",
                ),
            ],
            Arch::Aarch64 => &[(
                "armv8-aes",
                "pavelor::backend::aarch64::armv8_aes::permute_impl",
            )],
        }
    }

    /// The CPUs modelled by default (`-mcpu=`). x86: Intel Sapphire
    /// Rapids and Ice Lake server, AMD Zen 4 and Zen 5. AArch64: Qualcomm
    /// Oryon (the seed's machine), Arm Neoverse V2, Arm Cortex-X925, Apple
    /// M4.
    pub(crate) fn cpus(self) -> &'static [&'static str] {
        match self {
            Arch::X86_64 => &["sapphirerapids", "icelake-server", "znver4", "znver5"],
            Arch::Aarch64 => &["oryon-1", "neoverse-v2", "cortex-x925", "apple-m4"],
        }
    }

    /// The `-mattr` the kernels are compiled with (beyond the CPU's own).
    fn mattr(self) -> &'static str {
        match self {
            Arch::X86_64 => "+aes,+avx2,+avx512f,+avx512vl,+avx512bw,+vaes",
            Arch::Aarch64 => "+aes",
        }
    }

    /// What starts a comment in the listing.
    pub(crate) fn comment(self) -> &'static str {
        match self {
            Arch::X86_64 => "#",
            Arch::Aarch64 => "//",
        }
    }
}

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
    /// Model only this architecture's kernels; repeatable. Default: both.
    #[arg(long = "arch", value_enum, value_name = "ARCH")]
    arches: Vec<Arch>,

    /// Model only this CPU (an llvm-mca -mcpu name of the architecture);
    /// repeatable. Default: sapphirerapids, icelake-server, znver4, znver5
    /// (x86_64); oryon-1, neoverse-v2, cortex-x925, apple-m4 (aarch64).
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

    /// Also run the generated wide blocks on this CPU (x86-64 with AVX-512
    /// F and VAES; built with `cc`) beside the fastest kernel's Paff, and
    /// print the measured ratio.
    #[arg(long)]
    measure_wide: bool,
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
    let arches: Vec<Arch> = if args.arches.is_empty() {
        Arch::ALL.to_vec()
    } else {
        args.arches.clone()
    };
    for &arch in &arches {
        check_target(arch)?;
    }
    println!("llvm-mca: {} ({})", mca.display(), mca_version(&mca));
    println!(
        "MODELLED by llvm-mca, not measured; -iterations={}; port pressure: busy cycles of a port per Paff cycle",
        args.iterations
    );
    for arch in arches {
        let asm = build_asm(arch, args.locked)?;
        let text =
            fs::read_to_string(&asm).map_err(|e| format!("cannot read {}: {e}", asm.display()))?;
        let cpus: Vec<String> = if args.cpus.is_empty() {
            arch.cpus().iter().map(|s| s.to_string()).collect()
        } else {
            args.cpus.clone()
        };
        let mut modelled: Vec<(String, f64)> = Vec::new();
        for &(backend, symbol) in arch.kernels() {
            let block = extract_function(&text, symbol, arch.comment())?;
            let out_dir = asm.parent().unwrap_or(Path::new("."));
            let block_file = out_dir.join(format!("paff-{backend}-block.s"));
            fs::write(&block_file, block.join("\n") + "\n")
                .map_err(|e| format!("cannot write {}: {e}", block_file.display()))?;
            println!();
            println!(
                "{backend} ({}): {symbol}, {} instructions ({})",
                arch.target(),
                block.len(),
                block_file.display()
            );
            println!("instruction mix per Paff: {}", Mix::of(&block).render());
            let mut header = format!("{:<15} {:>12} {:>12}", "cpu", "cycles/Paff", "RThroughput");
            for (name, _) in RATES {
                let _ = write!(header, " {:>16}", format!("{name} c/B"));
            }
            let _ = write!(header, "  busiest ports");
            println!("{header}");
            for cpu in &cpus {
                let report = run_mca(
                    &mca,
                    arch,
                    cpu,
                    args.iterations,
                    args.bottleneck,
                    &block_file,
                )?;
                let summary = Summary::parse(&report)?;
                let per_paff = summary.cycles_per_iteration();
                let mut line = format!(
                    "{cpu:<15} {per_paff:>12.1} {:>12.1}",
                    summary.block_rthroughput
                );
                for (_, rate) in RATES {
                    let _ = write!(line, " {:>16.2}", per_paff / f64::from(rate));
                }
                let pressure = Pressure::parse(&report)?;
                let _ = write!(line, "  {}", pressure.busiest(per_paff, 3));
                println!("{line}");
                if args.bottleneck {
                    println!("{}", bottleneck_section(&report));
                }
                if backend == "avx512-vaes" {
                    modelled.push((cpu.clone(), per_paff));
                }
            }
        }
        if arch == Arch::X86_64 {
            let dir = asm.parent().unwrap_or(Path::new("."));
            model_wide(&mca, args, &cpus, dir, &modelled)?;
        }
    }
    Ok(())
}

/// The two wide single-message shapes of [`wide`]: each generated from
/// the wiring, checked on the value model, then modelled on every CPU
/// beside the `avx512-vaes` kernel's figure.
fn model_wide(
    mca: &Path,
    args: &McaArgs,
    cpus: &[String],
    dir: &Path,
    kernel: &[(String, f64)],
) -> Result<(), Error> {
    for (n, shape) in wide::Shape::ALL.into_iter().enumerate() {
        let first = wide::search_layout(shape, 1 + n as u64, 40);
        let block = wide::build(shape, &first);
        block
            .check(&first)
            .map_err(|e| format!("the generated {} block is wrong: {e}", shape.name()))?;
        let text = block.render();
        let file = dir.join(format!("paff-wide-{n}-block.s"));
        fs::write(&file, &text).map_err(|e| format!("cannot write {}: {e}", file.display()))?;
        let measured = if !args.measure_wide {
            None
        } else if measure::supported() {
            let root = workspace_root();
            let (name, before) = measure::kernel_ns(&root)?;
            let wide = measure::block_ns(&text, dir, &format!("wide-{n}"))?;
            let (_, after) = measure::kernel_ns(&root)?;
            Some((name, before.min(after), wide))
        } else {
            println!("measured: NOT RUN (this CPU lacks AVX-512 F or VAES)");
            None
        };
        println!();
        println!(
            "{} (not a backend: a generated block, checked against the wiring on a value model): {} instructions, {} permutes ({} gathers of three or four registers), {} AES rounds of 4 blocks ({})",
            shape.name(),
            text.lines().count(),
            block.permutes,
            block.wide_gathers,
            5 * crate::codegen::wiring::ROUNDS,
            file.display()
        );
        println!(
            "{:<15} {:>12} {:>12} {:>22}  busiest ports",
            "cpu", "cycles/Paff", "RThroughput", "avx512-vaes ÷ this"
        );
        for cpu in cpus {
            let report = run_mca(
                mca,
                Arch::X86_64,
                cpu,
                args.iterations,
                args.bottleneck,
                &file,
            )?;
            let summary = Summary::parse(&report)?;
            let per_paff = summary.cycles_per_iteration();
            let ratio = kernel
                .iter()
                .find(|(c, _)| c == cpu)
                .map_or("-".to_string(), |(_, k)| format!("{:.2}x", k / per_paff));
            println!(
                "{cpu:<15} {per_paff:>12.1} {:>12.1} {ratio:>22}  {}",
                summary.block_rthroughput,
                Pressure::parse(&report)?.busiest(per_paff, 3)
            );
            if args.bottleneck {
                println!("{}", bottleneck_section(&report));
            }
        }
        if let Some((name, kernel, wide)) = measured {
            println!(
                "MEASURED on this CPU: {wide:.1} ns per Paff (best of {} runs), against {kernel:.1} for {name} (pavelor bench, 64 KiB, the better of a run before and one after): kernel ÷ this = {:.2}x",
                measure::RUNS,
                kernel / wide
            );
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

/// The architecture's standard library must be installed (rustup).
fn check_target(arch: Arch) -> Result<(), Error> {
    let target = arch.target();
    let out = Command::new("rustc")
        .args(["--print", "target-libdir", "--target", target])
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
            "the {target} Rust standard library is not installed: rustup target add {target}"
        )))
    }
}

/// Compiles pavelor's library for the architecture with `--emit asm`;
/// returns the `.s` file.
fn build_asm(arch: Arch, locked: bool) -> Result<PathBuf, Error> {
    let root = workspace_root();
    let target = target_dir(&root);
    let asm = target.join(arch.target()).join("mca").join("pavelor.s");
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
                arch.target(),
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
            arch.target(),
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
    arch: Arch,
    cpu: &str,
    iterations: u32,
    bottleneck: bool,
    block: &Path,
) -> Result<String, Error> {
    let mut cmd = Command::new(mca);
    cmd.arg(format!("-mtriple={}", arch.target()))
        .arg(format!("-mcpu={cpu}"))
        // The kernels are compiled with `#[target_feature(enable = ...)]`.
        .arg(format!("-mattr={}", arch.mattr()))
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
