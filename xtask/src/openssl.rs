//! `cargo xtask openssl --out DIR`: builds the OpenSSL 3 provider module
//! (`crates/pavelor-openssl`) in release mode and writes
//!
//! * `DIR/pavelor.so`: the module, under the file name OpenSSL looks for
//!   when asked for the provider `pavelor` (`-provider-path DIR -provider
//!   pavelor`, `OPENSSL_MODULES=DIR`);
//! * `DIR/pavelor-openssl.cnf`: an OpenSSL configuration that activates the
//!   `default` and `pavelor` providers, the module named by its absolute
//!   path (use with `OPENSSL_CONF=DIR/pavelor-openssl.cnf`).

use std::ffi::OsString;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use clap::Args;

use crate::{workspace_root, write_atomically};

/// The cdylib cargo writes for `pavelor-openssl`.
const CARGO_ARTIFACT: &str = "libpavelor_openssl.so";
/// The module's installed name: OpenSSL maps provider `pavelor` to it.
pub(crate) const MODULE: &str = "pavelor.so";
/// The sample configuration written next to the module.
pub(crate) const CONFIG: &str = "pavelor-openssl.cnf";

#[derive(Args)]
pub(crate) struct OpensslArgs {
    /// Output directory (created if missing); gets pavelor.so and
    /// pavelor-openssl.cnf.
    #[arg(long, value_name = "DIR")]
    out: PathBuf,

    /// Cargo target directory for the build
    /// [default: $CARGO_TARGET_DIR/openssl, else WORKSPACE/target/openssl].
    #[arg(long, value_name = "DIR")]
    build_dir: Option<PathBuf>,

    /// Pass --locked to the cargo build.
    #[arg(long)]
    locked: bool,
}

pub(crate) fn openssl(args: &OpensslArgs) -> Result<(), String> {
    let root = workspace_root();
    let target_dir = match &args.build_dir {
        Some(dir) => dir.clone(),
        None => default_target_dir(&root),
    };
    fs::create_dir_all(&args.out)
        .map_err(|e| format!("cannot create {}: {e}", args.out.display()))?;
    let out = fs::canonicalize(&args.out)
        .map_err(|e| format!("cannot resolve {}: {e}", args.out.display()))?;

    let src = built_module(&root, &target_dir, args.locked)?;
    let module = out.join(MODULE);
    let bytes = fs::read(&src).map_err(|e| format!("cannot read {}: {e}", src.display()))?;
    write_atomically(&module, &bytes)?;
    let config = config_text(&module)?;
    write_atomically(&out.join(CONFIG), config.as_bytes())?;
    eprintln!(
        "xtask: wrote {} and {}",
        module.display(),
        out.join(CONFIG).display()
    );
    Ok(())
}

/// An `openssl.cnf` activating `default` and `pavelor` (by absolute path).
fn config_text(module: &Path) -> Result<String, String> {
    let path = module
        .to_str()
        .filter(|p| !p.contains(['\n', '"', '$', '\\']))
        .ok_or_else(|| {
            format!(
                "{}: path not usable in an OpenSSL config file",
                module.display()
            )
        })?;
    Ok(format!(
        "# OpenSSL 3 configuration loading the Pavelor provider next to the default one.\n\
         # Use: OPENSSL_CONF={dir}/{CONFIG} openssl dgst -PAVELOR-512 FILE\n\
         openssl_conf = openssl_init\n\
         \n\
         [openssl_init]\n\
         providers = provider_sect\n\
         \n\
         [provider_sect]\n\
         default = default_sect\n\
         pavelor = pavelor_sect\n\
         \n\
         [default_sect]\n\
         activate = 1\n\
         \n\
         [pavelor_sect]\n\
         module = {path}\n\
         activate = 1\n",
        dir = module.parent().unwrap_or(Path::new(".")).display(),
    ))
}

/// The provider's own cargo target directory: `$CARGO_TARGET_DIR/openssl`,
/// else `WORKSPACE/target/openssl`.
pub(crate) fn default_target_dir(root: &Path) -> PathBuf {
    crate::target_dir(root).join("openssl")
}

/// Builds the module ([`build`]) and returns the path of the cdylib.
pub(crate) fn built_module(
    root: &Path,
    target_dir: &Path,
    locked: bool,
) -> Result<PathBuf, String> {
    build(root, target_dir, locked)?;
    let src = target_dir.join("release").join(CARGO_ARTIFACT);
    if !src.is_file() {
        return Err(format!("cargo build did not produce {}", src.display()));
    }
    Ok(src)
}

/// `cargo build --release -p pavelor-openssl --lib` into `target_dir`.
fn build(root: &Path, target_dir: &Path, locked: bool) -> Result<(), String> {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| OsString::from("cargo"));
    eprintln!("xtask: building pavelor-openssl (release)");
    let mut cmd = Command::new(&cargo);
    cmd.arg("build")
        .arg("--release")
        .arg("--manifest-path")
        .arg(root.join("Cargo.toml"))
        .args(["--package", "pavelor-openssl", "--lib"])
        .arg("--target-dir")
        .arg(target_dir)
        // A deliverable: no debug info (the workspace's release profile
        // keeps line tables for profiling the CLI).
        .env("CARGO_PROFILE_RELEASE_DEBUG", "false")
        .env("CARGO_PROFILE_RELEASE_STRIP", "debuginfo");
    if locked {
        cmd.arg("--locked");
    }
    let status = cmd
        .status()
        .map_err(|e| format!("cannot run {}: {e}", Path::new(&cargo).display()))?;
    if !status.success() {
        return Err(format!("cargo build of pavelor-openssl failed ({status})"));
    }
    Ok(())
}
