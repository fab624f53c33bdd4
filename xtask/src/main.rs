//! `cargo xtask`: project automation for the Pavelor workspace (the alias is
//! in `.cargo/config.toml`).
//!
//! `cargo xtask iccs --out DIR` builds the ICCS `CryptHash` library of
//! `pavelor-ffi` once per instance and writes, for each instance,
//! `DIR/Pavelor-BITS/{libCryptHash.so, libCryptHash.a,
//! CryptHash_AlgorithmInstance.h}`.

#![forbid(unsafe_code)]

mod capi;
mod codegen;
mod deb;
mod dist;
mod mca;
mod openssl;

use std::ffi::OsString;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

use clap::{Args, Parser, Subcommand};
use pavelor_ffi::Algorithm;

mod kat_data;
mod vectors;
mod wheels;

/// Files copied from a cargo build of `pavelor-ffi` (`<target>/release/`).
const LIBRARIES: [&str; 2] = ["libCryptHash.so", "libCryptHash.a"];
/// The generated instance header.
const HEADER: &str = "CryptHash_AlgorithmInstance.h";

/// Project automation for the Pavelor workspace (run as `cargo xtask ...`).
#[derive(Parser)]
#[command(
    name = "cargo xtask",
    bin_name = "cargo xtask",
    version,
    propagate_version = true
)]
struct Cli {
    #[command(subcommand)]
    command: Task,
}

#[derive(Subcommand)]
enum Task {
    /// Build the ICCS CryptHash libraries (one per instance) with their headers.
    ///
    /// For each instance, runs `cargo build --release -p pavelor-ffi
    /// --no-default-features --features instance-BITS` in one target
    /// directory (the core crate is built once) and copies the instance's
    /// libraries aside before the next build, then writes
    /// DIR/Pavelor-BITS/libCryptHash.so, libCryptHash.a and
    /// CryptHash_AlgorithmInstance.h. All builds finish before anything is
    /// written; each file is written to a temporary name and renamed, so no
    /// half-written file ever carries a final name.
    Iccs(IccsArgs),

    /// Build the OpenSSL 3 provider module: writes DIR/pavelor.so (load it as
    /// provider `pavelor`) and DIR/pavelor-openssl.cnf (an OPENSSL_CONF that
    /// activates it with the default provider).
    Openssl(openssl::OpensslArgs),
    /// Install the C library (libpavelor.so.0, libpavelor.a, pavelor.h,
    /// pavelor.pc, the CMake package) into --prefix, with cargo-c.
    Capi(capi::CapiArgs),
    /// Build the Debian package (the CLI with man pages and completions, the
    /// C library, the OpenSSL provider in `openssl version -m`'s directory).
    Deb(deb::DebArgs),
    /// Build the Python wheels (manylinux2014: cp311-abi3 for x86-64 and
    /// aarch64, cp39 and cp310 where those interpreters are present) and the
    /// sdist, with maturin and zig.
    Wheels(wheels::WheelsArgs),
    /// Build every artefact into --out: the .crate files, the C library
    /// tarball, the Debian package, the wheels and the sdist.
    Dist(dist::DistArgs),
    /// Derive the embedded official KAT answers (crates/pavelor-kat/data/) from the official KAT files (--from DIR).
    KatData(kat_data::KatDataArgs),
    /// Derive the test vectors (test-vectors/pavelor.json, from the official
    /// KAT files with --from DIR) and the files generated from them; --check
    /// verifies them without writing.
    Vectors(vectors::VectorsArgs),
    /// Generate the register-allocated Paff assembly of pavelor's
    /// 16-register x86 kernels (crates/pavelor/src/backend/x86/generated/)
    /// from the wiring, each program checked on a model against it;
    /// --check verifies the committed files without writing.
    Codegen(codegen::CodegenArgs),
    /// Model the single-message Paff of every x86 kernel (on
    /// sapphirerapids, icelake-server, znver4, znver5) and of the AArch64
    /// armv8-aes kernel (on oryon-1, neoverse-v2, cortex-x925, apple-m4)
    /// with llvm-mca (LLVM 22): cycles per Paff, cycles per byte of each
    /// instance, the busiest ports, the instruction mix (modelled, not
    /// measured). Exit status 3 if llvm-mca or a Rust target is missing.
    Mca(mca::McaArgs),
}

#[derive(Args)]
struct IccsArgs {
    /// Output directory (created if missing); gets one Pavelor-BITS/
    /// subdirectory per instance.
    #[arg(long, value_name = "DIR")]
    out: PathBuf,

    /// Build only this instance (512, 768, 1024 or e.g. Pavelor-768);
    /// repeatable. Default: all three.
    #[arg(long = "instance", value_name = "INSTANCE", value_parser = parse_instance)]
    instances: Vec<Algorithm>,

    /// The cargo target directory of the three builds
    /// [default: $CARGO_TARGET_DIR/iccs, else WORKSPACE/target/iccs].
    #[arg(long, value_name = "DIR")]
    build_dir: Option<PathBuf>,

    /// Pass --locked to the cargo builds.
    #[arg(long)]
    locked: bool,
}

fn parse_instance(s: &str) -> Result<Algorithm, String> {
    s.parse()
        .map_err(|_| format!("unknown instance '{s}' (expected 512, 768 or 1024)"))
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    if let Task::Mca(args) = &cli.command {
        return mca::main(args);
    }
    let result = match cli.command {
        Task::Iccs(args) => iccs(&args),
        Task::Openssl(args) => openssl::openssl(&args),
        Task::Capi(args) => capi::run(&args),
        Task::Deb(args) => deb::run_deb(&args),
        Task::Wheels(args) => wheels::run(&args),
        Task::Dist(args) => dist::dist(&args),
        Task::KatData(args) => kat_data::run(&args),
        Task::Vectors(args) => vectors::run(&args),
        Task::Codegen(args) => codegen::run(&args),
        Task::Mca(_) => unreachable!("handled above"),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

/// The workspace root (this crate lives in `<root>/xtask`).
fn workspace_root() -> PathBuf {
    let manifest_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    manifest_dir.parent().unwrap_or(manifest_dir).to_path_buf()
}

fn iccs(args: &IccsArgs) -> Result<(), String> {
    let root = workspace_root();
    let instances: Vec<Algorithm> = if args.instances.is_empty() {
        Algorithm::ALL.to_vec()
    } else {
        let mut v = args.instances.clone();
        v.sort_by_key(|a| a.output_bits());
        v.dedup();
        v
    };
    let build_root = match &args.build_dir {
        Some(dir) => dir.clone(),
        None => target_dir(&root).join("iccs"),
    };

    // Fail fast on an unusable output directory, before the slow builds.
    fs::create_dir_all(&args.out)
        .map_err(|e| format!("cannot create {}: {e}", args.out.display()))?;

    // Build everything first: a failed build leaves the output untouched.
    // The instances share one target directory, where each build replaces
    // the last one's libraries: each is copied aside (`staged/NAME/`) first.
    let mut built = Vec::new();
    for &alg in &instances {
        build_instance(&root, alg, &build_root, args.locked)?;
        let staged = build_root.join("staged").join(alg.name());
        fs::create_dir_all(&staged)
            .map_err(|e| format!("cannot create {}: {e}", staged.display()))?;
        for lib in LIBRARIES {
            let src = build_root.join("release").join(lib);
            if !src.is_file() {
                return Err(format!("cargo build did not produce {}", src.display()));
            }
            write_atomically(
                &staged.join(lib),
                &fs::read(&src).map_err(|e| format!("cannot read {}: {e}", src.display()))?,
            )?;
        }
        built.push((alg, staged));
    }

    for (alg, staged) in built {
        let dest = args.out.join(alg.name());
        fs::create_dir_all(&dest).map_err(|e| format!("cannot create {}: {e}", dest.display()))?;
        for lib in LIBRARIES {
            let src = staged.join(lib);
            write_atomically(
                &dest.join(lib),
                &fs::read(&src).map_err(|e| format!("cannot read {}: {e}", src.display()))?,
            )?;
        }
        let header = pavelor_ffi::header(alg);
        write_atomically(&dest.join(HEADER), header.as_bytes())?;
        eprintln!(
            "xtask: wrote {}/{{{}, {HEADER}}}",
            dest.display(),
            LIBRARIES.join(", ")
        );
    }
    Ok(())
}

/// `cargo build --release -p pavelor-ffi` for one instance into `target_dir`.
fn build_instance(
    root: &Path,
    alg: Algorithm,
    target_dir: &Path,
    locked: bool,
) -> Result<(), String> {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| OsString::from("cargo"));
    let feature = format!("instance-{}", alg.output_bits());
    eprintln!("xtask: building {} (feature {feature})", alg.name());
    let mut cmd = Command::new(&cargo);
    cmd.arg("build")
        .arg("--release")
        .arg("--manifest-path")
        .arg(root.join("Cargo.toml"))
        .args(["--package", "pavelor-ffi", "--lib", "--no-default-features"])
        .args(["--features", &feature])
        .arg("--target-dir")
        .arg(target_dir)
        // Deliverables for an ICCS harness: no debug info (the workspace's
        // release profile keeps line tables for profiling the CLI).
        .env("CARGO_PROFILE_RELEASE_DEBUG", "false")
        .env("CARGO_PROFILE_RELEASE_STRIP", "debuginfo");
    if locked {
        cmd.arg("--locked");
    }
    let status = cmd
        .status()
        .map_err(|e| format!("cannot run {}: {e}", Path::new(&cargo).display()))?;
    if !status.success() {
        return Err(format!(
            "cargo build of pavelor-ffi for {} failed ({status})",
            alg.name()
        ));
    }
    Ok(())
}

/// The workspace's cargo target directory: `$CARGO_TARGET_DIR`, else
/// `WORKSPACE/target`.
fn target_dir(root: &Path) -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("target"))
}

/// Runs `cmd`, which must exit 0: the error names the command and how it
/// ended.
fn run(cmd: &mut Command) -> Result<(), String> {
    let shown = format!("{cmd:?}");
    let status = cmd
        .status()
        .map_err(|e| format!("cannot run {shown}: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("{shown} failed ({status})"))
    }
}

/// Writes `path` atomically (the workspace's one helper: an exclusive,
/// unpredictable temporary name, fsync, rename, fsync of the directory).
fn write_atomically(path: &Path, bytes: &[u8]) -> Result<(), String> {
    pavelor_kat::atomic_file::atomic_write(path, bytes)
        .map_err(|e| format!("cannot write {}: {e}", path.display()))
}
