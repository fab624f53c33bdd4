//! `cargo xtask capi --prefix DIR`: installs the C library (`pavelor-capi`)
//! into a prefix: `cargo cinstall` (cargo-c) puts `libpavelor.so.0` (its
//! SONAME), `libpavelor.a`, `include/pavelor.h` and `pavelor.pc` there, and
//! this adds the CMake package (`LIBDIR/cmake/pavelor/`), made from
//! `crates/pavelor-capi/cmake/*.in` with the prefix-relative paths and the
//! version the `.pc` file records.

use std::path::{Component, Path, PathBuf};
use std::process::Command;

use clap::Args;

#[derive(Args)]
pub(crate) struct CapiArgs {
    /// Installation prefix, absolute (the paths written into pavelor.pc).
    #[arg(long, value_name = "DIR")]
    prefix: PathBuf,

    /// Library directory, relative to the prefix (Debian: lib/x86_64-linux-gnu).
    #[arg(long, value_name = "DIR", default_value = "lib")]
    libdir: PathBuf,

    /// Stage the files under DESTDIR/PREFIX instead of PREFIX (packaging).
    #[arg(long, value_name = "DIR")]
    destdir: Option<PathBuf>,

    /// Pass --locked to cargo.
    #[arg(long)]
    locked: bool,
}

/// The cargo-c release that builds with this project's toolchain (newer
/// ones may need a newer rustc); CI installs the same one.
pub(crate) const CARGO_C_VERSION: &str = include_str!("../../scripts/cargo-c-version");

/// cargo-c must be installed.
pub(crate) fn check_tools() -> Result<(), String> {
    let have_cargo_c = Command::new("cargo")
        .args(["cinstall", "--version"])
        .output()
        .is_ok_and(|o| o.status.success());
    if have_cargo_c {
        Ok(())
    } else {
        Err(format!(
            "cargo-c is not installed (cargo install --locked cargo-c --version {})",
            CARGO_C_VERSION.trim()
        ))
    }
}

/// The CMake package files: (template, installed name).
const CMAKE_FILES: [(&str, &str); 2] = [
    ("pavelorConfig.cmake.in", "pavelorConfig.cmake"),
    (
        "pavelorConfigVersion.cmake.in",
        "pavelorConfigVersion.cmake",
    ),
];

pub(crate) fn run(args: &CapiArgs) -> Result<(), String> {
    install(
        &args.prefix,
        &args.libdir,
        args.destdir.as_deref(),
        args.locked,
    )
}

/// Installs the C library under `prefix` (library directory `libdir_rel`
/// within it), staged under `destdir` when given.
pub(crate) fn install(
    prefix: &Path,
    libdir_rel: &Path,
    destdir: Option<&Path>,
    locked: bool,
) -> Result<(), String> {
    if !prefix.is_absolute() {
        return Err(format!(
            "--prefix {}: not an absolute path",
            prefix.display()
        ));
    }
    let plain =
        |p: &Path| p.is_relative() && p.components().all(|c| matches!(c, Component::Normal(_)));
    if !plain(libdir_rel) || libdir_rel.as_os_str().is_empty() {
        return Err(format!(
            "--libdir {}: must be a relative path inside the prefix",
            libdir_rel.display()
        ));
    }
    check_tools()?;
    let root = crate::workspace_root();
    let libdir = prefix.join(libdir_rel);
    let mut cmd = Command::new("cargo");
    cmd.current_dir(&root)
        .args(["cinstall", "--release", "-p", "pavelor-capi", "--prefix"])
        .arg(prefix)
        .arg("--libdir")
        .arg(&libdir)
        .arg("--includedir")
        .arg(prefix.join("include"));
    if let Some(d) = &destdir {
        cmd.arg("--destdir").arg(d);
    }
    if locked {
        cmd.arg("--locked");
    }
    let status = cmd
        .status()
        .map_err(|e| format!("cannot run cargo cinstall: {e}"))?;
    if !status.success() {
        return Err(format!("cargo cinstall failed ({status})"));
    }
    // Where the files are now: DESTDIR/PREFIX/... when staged.
    let staged = |p: &Path| match &destdir {
        Some(d) => d.join(p.strip_prefix("/").unwrap_or(p)),
        None => p.to_path_buf(),
    };
    let pc_path = staged(&libdir.join("pkgconfig/pavelor.pc"));
    let pc = std::fs::read_to_string(&pc_path)
        .map_err(|e| format!("cannot read {}: {e}", pc_path.display()))?;
    let field = |name: &str| {
        pc.lines()
            .find_map(|l| l.strip_prefix(name))
            .map(str::trim)
            .ok_or(format!("{}: no {name}", pc_path.display()))
    };
    let version = field("Version:")?;
    let mut parts = version.split('.');
    let (major, minor) = (parts.next().unwrap_or("0"), parts.next().unwrap_or("0"));
    let soversion = major;
    let static_libs = field("Libs.private:")?
        .split_whitespace()
        .filter_map(|f| f.strip_prefix("-l"))
        .collect::<Vec<_>>()
        .join(";");
    let depth = libdir_rel.components().count() + 2;
    let up = vec![".."; depth].join("/");
    let cmake_dir = staged(&libdir.join("cmake/pavelor"));
    std::fs::create_dir_all(&cmake_dir)
        .map_err(|e| format!("cannot create {}: {e}", cmake_dir.display()))?;
    let templates = root.join("crates/pavelor-capi/cmake");
    for (template, name) in CMAKE_FILES {
        let path = templates.join(template);
        let text = std::fs::read_to_string(&path)
            .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        let text = text
            .replace("@PREFIX_FROM_HERE@", &up)
            .replace("@LIBDIR@", &libdir_rel.to_string_lossy())
            .replace("@INCLUDEDIR@", "include")
            .replace("@VERSION@", version)
            .replace("@SOVERSION@", soversion)
            .replace("@MAJOR@", major)
            .replace("@MINOR@", minor)
            .replace("@STATIC_LIBS@", &static_libs);
        if text.contains('@') {
            return Err(format!("{template}: a placeholder was left unreplaced"));
        }
        crate::write_atomically(&cmake_dir.join(name), text.as_bytes())?;
    }
    eprintln!(
        "xtask: libpavelor {version} installed under {}",
        staged(prefix).display()
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)] // tests may fail loudly

    /// The READMEs' install lines, `check_tools`' message and CI name one
    /// cargo-c version: scripts/cargo-c-version.
    #[test]
    fn the_readme_installs_the_cargo_c_version_ci_uses() {
        let version = super::CARGO_C_VERSION.trim();
        assert!(!version.is_empty() && !version.contains(char::is_whitespace));
        let line = format!("cargo install --locked cargo-c --version {version}");
        for doc in ["README.md", "crates/pavelor-capi/README.md"] {
            let text = std::fs::read_to_string(crate::workspace_root().join(doc)).unwrap();
            assert!(text.contains(&line), "{doc} lacks `{line}`");
        }
        let packaging =
            std::fs::read_to_string(crate::workspace_root().join("scripts/ci-packaging.sh"))
                .unwrap();
        assert!(packaging.contains("scripts/cargo-c-version"));
    }
}
