//! `cargo xtask wheels --out DIR`: the Python package's binary wheels and
//! its sdist, built with maturin and zig (`--zig`: glibc 2.17 symbols
//! without a manylinux container), into DIR:
//!
//! * `cp311-abi3` for x86-64 and aarch64: the stable ABI of CPython 3.11,
//!   whose limited API has the buffer protocol the extension reads inputs
//!   with (feature `abi3` of `python/Cargo.toml`);
//! * `cp39` and `cp310` for x86-64, one per interpreter, when that
//!   interpreter is on this machine (`pythonX.Y` on `PATH` or under
//!   pyenv); otherwise the line says NOT BUILT and why;
//! * the sdist.
//!
//! Every wheel is tagged manylinux2014 (`--compatibility manylinux2014`),
//! which maturin checks against the symbols the extension uses.

use std::path::{Path, PathBuf};
use std::process::Command;

use clap::Args;

use crate::workspace_root;

#[derive(Args)]
pub(crate) struct WheelsArgs {
    /// Output directory (created if missing) for the wheels and the sdist.
    #[arg(long, value_name = "DIR")]
    out: PathBuf,
}

/// The interpreters of the per-version wheels.
const PER_VERSION: [&str; 2] = ["3.9", "3.10"];

/// The aarch64 target of the Arm wheel.
const ARM: &str = "aarch64-unknown-linux-gnu";

fn works(cmd: &mut Command) -> bool {
    cmd.output().is_ok_and(|o| o.status.success())
}

/// `pythonX.Y` on `PATH`, else the newest pyenv installation of it.
fn interpreter(version: &str) -> Option<PathBuf> {
    let name = format!("python{version}");
    if works(Command::new(&name).arg("--version")) {
        return Some(PathBuf::from(name));
    }
    let root = std::env::var_os("PYENV_ROOT")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".pyenv")))?;
    let mut found: Vec<PathBuf> = std::fs::read_dir(root.join("versions"))
        .ok()?
        .filter_map(|e| e.ok())
        .filter(|e| {
            let n = e.file_name();
            let n = n.to_string_lossy();
            n.strip_prefix(version)
                .is_some_and(|rest| rest.is_empty() || rest.starts_with('.'))
        })
        .map(|e| e.path().join("bin").join(&name))
        .filter(|p| works(Command::new(p).arg("--version")))
        .collect();
    found.sort();
    found.pop()
}

fn maturin(root: &Path, out: &Path, args: &[&str], interp: Option<&Path>) -> Result<(), String> {
    let mut cmd = Command::new("maturin");
    cmd.current_dir(root)
        .args(args)
        .arg("--manifest-path")
        .arg(root.join("python/Cargo.toml"))
        .arg("--out")
        .arg(out);
    if let Some(i) = interp {
        cmd.arg("--interpreter").arg(i);
    }
    crate::run(&mut cmd)
}

pub(crate) fn run(args: &WheelsArgs) -> Result<(), String> {
    check_tools()?;
    build(&args.out).map(|_| ())
}

/// The Python tools CI installs, pinned: `name==version` lines.
const PY_TOOLS: &str = include_str!("../../scripts/ci-py-tools.txt");

/// `name==version` as scripts/ci-py-tools.txt pins it (or the bare name
/// if it is not pinned there).
fn pinned(name: &str) -> String {
    PY_TOOLS
        .lines()
        .find(|l| l.split("==").next() == Some(name))
        .map_or_else(|| name.to_string(), str::to_string)
}

/// The install line of the wheels' tools, with CI's versions; the README
/// gives the same one.
pub(crate) fn install_line() -> String {
    format!("pip install {} {}", pinned("maturin"), pinned("ziglang"))
}

/// maturin, zig and the aarch64 Rust target must be installed.
pub(crate) fn check_tools() -> Result<(), String> {
    if !works(Command::new("maturin").arg("--version")) {
        return Err(format!("maturin is not installed ({})", install_line()));
    }
    let zig = works(Command::new("zig").arg("version"))
        || works(Command::new("python3").args(["-m", "ziglang", "version"]));
    if !zig {
        return Err(format!("zig is not installed ({})", install_line()));
    }
    let arm = Command::new("rustup")
        .args(["target", "list", "--installed"])
        .output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).lines().any(|l| l == ARM));
    if !arm {
        return Err(format!(
            "the Rust target {ARM} is not installed (rustup target add {ARM})"
        ));
    }
    Ok(())
}

/// The `maturin build` arguments of a manylinux2014 wheel for `target`.
fn wheel(target: &str, abi3: bool) -> Vec<&str> {
    let mut a = vec![
        "build",
        "--release",
        "--zig",
        "--compatibility",
        "manylinux2014",
        "--target",
        target,
    ];
    if abi3 {
        a.extend(["--features", "abi3"]);
    }
    a
}

/// Builds the wheels and the sdist into `out_dir` (created if missing);
/// returns the paths of the files it holds afterwards.
pub(crate) fn build(out_dir: &Path) -> Result<Vec<PathBuf>, String> {
    std::fs::create_dir_all(out_dir)
        .map_err(|e| format!("cannot create {}: {e}", out_dir.display()))?;
    let out = std::fs::canonicalize(out_dir)
        .map_err(|e| format!("cannot resolve {}: {e}", out_dir.display()))?;
    let root = workspace_root();
    for target in ["x86_64-unknown-linux-gnu", ARM] {
        maturin(&root, &out, &wheel(target, true), None)?;
    }
    for version in PER_VERSION {
        match interpreter(version) {
            Some(i) => maturin(
                &root,
                &out,
                &wheel("x86_64-unknown-linux-gnu", false),
                Some(&i),
            )?,
            None => eprintln!(
                "xtask: cp{} wheel NOT BUILT: no python{version} here",
                version.replace('.', "")
            ),
        }
    }
    maturin(&root, &out, &["sdist"], None)?;
    let mut made: Vec<PathBuf> = std::fs::read_dir(&out)
        .map_err(|e| format!("cannot list {}: {e}", out.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            let name = p.to_string_lossy();
            name.ends_with(".whl") || name.ends_with(".tar.gz")
        })
        .collect();
    made.sort();
    eprintln!(
        "xtask: {} wheels and sdist in {}",
        made.len(),
        out.display()
    );
    Ok(made)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)] // tests may fail loudly

    /// The README's wheel line and `check_tools`' message install the
    /// maturin and ziglang that CI pins.
    #[test]
    fn the_readme_installs_the_python_tools_ci_uses() {
        let line = super::install_line();
        assert!(
            line.contains("maturin==") && line.contains("ziglang=="),
            "{line}"
        );
        let readme = std::fs::read_to_string(crate::workspace_root().join("README.md")).unwrap();
        assert!(readme.contains(&line), "README.md lacks `{line}`");
    }
}
