//! `cargo xtask deb --out DIR`: the Debian package `pavelor_VERSION-1_ARCH.deb`
//! for the machine it runs on, built with Debian's own tools (`dpkg-deb`,
//! `dpkg-shlibdeps`, `dpkg-architecture`):
//!
//! * `/usr/bin/pavelor`, its man pages (`pavelor manpages`, gzipped) and its
//!   bash, zsh and fish completions (`pavelor completions`);
//! * the C library as `cargo xtask capi --prefix /usr --libdir
//!   lib/MULTIARCH` installs it (`libpavelor.so.0`, `libpavelor.a`,
//!   `pavelor.h`, `pavelor.pc`, the CMake package);
//! * the OpenSSL provider `pavelor.so` in the directory `openssl version -m`
//!   names on this machine, so that `openssl dgst -provider pavelor` finds
//!   it without a path;
//! * `usr/share/doc/pavelor/copyright`.
//!
//! `Depends` is what `dpkg-shlibdeps` finds the three binaries need.
//! Binaries are stripped of debug information.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use clap::Args;

use crate::{run, workspace_root, write_atomically};

#[derive(Args)]
pub(crate) struct DebArgs {
    /// Output directory (created if missing) for the .deb.
    #[arg(long, value_name = "DIR")]
    out: PathBuf,

    /// Pass --locked to the cargo builds.
    #[arg(long)]
    locked: bool,
}

/// One line of output of `program args...`, which must succeed.
fn output_line(program: &str, args: &[&str]) -> Result<String, String> {
    let out = Command::new(program)
        .args(args)
        .output()
        .map_err(|e| format!("cannot run {program}: {e} (it is needed to build the .deb)"))?;
    if !out.status.success() {
        return Err(format!(
            "{program} {} failed: {}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    Ok(String::from_utf8_lossy(&out.stdout).trim().to_string())
}

/// `bytes` into `path`, creating its directory.
fn write_new(path: &Path, bytes: &[u8]) -> Result<(), String> {
    if let Some(dir) = path.parent() {
        fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    }
    write_atomically(path, bytes)
}

fn copy(from: &Path, to: &Path) -> Result<(), String> {
    if let Some(dir) = to.parent() {
        fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    }
    fs::copy(from, to)
        .map(|_| ())
        .map_err(|e| format!("cannot copy {} to {}: {e}", from.display(), to.display()))
}

/// `openssl version -m`'s directory: `MODULESDIR: "/usr/lib/..."`.
fn modules_dir() -> Result<PathBuf, String> {
    let line = output_line("openssl", &["version", "-m"])?;
    let dir = line
        .strip_prefix("MODULESDIR:")
        .map(|d| d.trim().trim_matches('"'))
        .filter(|d| d.starts_with('/'))
        .ok_or(format!("unexpected `openssl version -m`: {line}"))?;
    Ok(PathBuf::from(dir))
}

/// The machine-readable copyright file of the package.
const COPYRIGHT: &str = "\
Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
Upstream-Name: pavelor

Files: *
Copyright: the pavelor authors
License: MIT or Apache-2.0
 On Debian systems the Apache License 2.0 is in
 /usr/share/common-licenses/Apache-2.0. The MIT licence:
 .
 Permission is hereby granted, free of charge, to any person obtaining a
 copy of this software and associated documentation files (the
 \"Software\"), to deal in the Software without restriction, including
 without limitation the rights to use, copy, modify, merge, publish,
 distribute, sublicense, and/or sell copies of the Software, and to permit
 persons to whom the Software is furnished to do so, subject to the
 following conditions:
 .
 The above copyright notice and this permission notice shall be included
 in all copies or substantial portions of the Software.
 .
 THE SOFTWARE IS PROVIDED \"AS IS\", WITHOUT WARRANTY OF ANY KIND, EXPRESS
 OR IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF
 MERCHANTABILITY, FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN
 NO EVENT SHALL THE AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM,
 DAMAGES OR OTHER LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR
 OTHERWISE, ARISING FROM, OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE
 USE OR OTHER DEALINGS IN THE SOFTWARE.
";

/// Every tool the package needs, with cargo-c for the C library.
pub(crate) fn check_tools() -> Result<(), String> {
    for tool in [
        "dpkg-deb",
        "dpkg-shlibdeps",
        "dpkg-architecture",
        "strip",
        "gzip",
    ] {
        if Command::new("sh")
            .args(["-c", &format!("command -v {tool}")])
            .output()
            .map_or(true, |o| !o.status.success())
        {
            return Err(format!(
                "{tool} is not installed (apt-get install dpkg-dev binutils)"
            ));
        }
    }
    modules_dir()?;
    crate::capi::check_tools()
}

pub(crate) fn run_deb(args: &DebArgs) -> Result<(), String> {
    check_tools()?;
    build(&args.out, args.locked).map(|_| ())
}

/// Builds the package into `out_dir`; returns its path.
pub(crate) fn build(out_dir: &Path, locked: bool) -> Result<PathBuf, String> {
    let arch = output_line("dpkg-architecture", &["-qDEB_HOST_ARCH"])?;
    let multiarch = output_line("dpkg-architecture", &["-qDEB_HOST_MULTIARCH"])?;
    let modules = modules_dir()?;
    fs::create_dir_all(out_dir).map_err(|e| format!("cannot create {}: {e}", out_dir.display()))?;

    let root = workspace_root();
    let version = env!("CARGO_PKG_VERSION");
    let work = root.join("target/deb");
    let stage = work.join("stage");
    if stage.exists() {
        fs::remove_dir_all(&stage)
            .map_err(|e| format!("cannot remove {}: {e}", stage.display()))?;
    }

    let bin = stage_command(&root, &stage, locked)?;

    // The C library, installed as on the target system.
    let libdir = PathBuf::from("lib").join(&multiarch);
    crate::capi::install(Path::new("/usr"), &libdir, Some(&stage), locked)?;

    // The OpenSSL provider, in this machine's modules directory.
    let module =
        crate::openssl::built_module(&root, &crate::openssl::default_target_dir(&root), locked)?;
    let provider = stage
        .join(modules.strip_prefix("/").unwrap_or(&modules))
        .join("pavelor.so");
    copy(&module, &provider)?;

    write_new(
        &stage.join("usr/share/doc/pavelor/copyright"),
        COPYRIGHT.as_bytes(),
    )?;

    let library = stage.join(format!("usr/{}/libpavelor.so.{version}", libdir.display()));
    let archive = stage.join(format!("usr/{}/libpavelor.a", libdir.display()));
    for binary in [&bin, &library, &provider, &archive] {
        run(Command::new("strip").arg("--strip-debug").arg(binary))?;
    }

    let depends = shlib_depends(&work, &stage, &libdir, [&bin, &library, &provider])?;

    write_control(&stage, version, &arch, &depends)?;

    // Built beside the stage, then written under its final name at once.
    let name = format!("pavelor_{version}-1_{arch}.deb");
    let built = work.join(&name);
    run(Command::new("dpkg-deb")
        .args(["--root-owner-group", "-Zxz", "--build"])
        .arg(&stage)
        .arg(&built))?;
    let deb = out_dir.join(&name);
    let bytes = fs::read(&built).map_err(|e| format!("cannot read {}: {e}", built.display()))?;
    write_atomically(&deb, &bytes)?;
    eprintln!("xtask: wrote {} (Depends: {depends})", deb.display());
    Ok(deb)
}

/// Builds the command and stages it under `stage`: `usr/bin/pavelor`, its
/// gzipped man pages and its bash, zsh and fish completions. Returns the
/// staged binary.
fn stage_command(root: &Path, stage: &Path, locked: bool) -> Result<PathBuf, String> {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    // `pavelor-cli` alone, as `cargo install` builds it. The workspace's
    // selection would not do: beside its C libraries (cdylib, staticlib)
    // cargo compiles every dependency with object code and LTO bitcode,
    // where a command alone gets bitcode only, so the two builds share no
    // artefact and this one is the one users install.
    let mut build = Command::new(&cargo);
    build
        .current_dir(root)
        .args(["build", "--release", "-p", "pavelor-cli"]);
    if locked {
        build.arg("--locked");
    }
    run(&mut build)?;
    let target = crate::target_dir(root);
    let exe = target.join("release/pavelor");
    let bin = stage.join("usr/bin/pavelor");
    copy(&exe, &bin)?;
    let man = stage.join("usr/share/man/man1");
    fs::create_dir_all(&man).map_err(|e| format!("cannot create {}: {e}", man.display()))?;
    run(Command::new(&exe)
        .arg("manpages")
        .arg(&man)
        .stdout(std::process::Stdio::null()))?;
    run(Command::new("gzip").args(["-9n"]).args(
        fs::read_dir(&man)
            .map_err(|e| format!("cannot list {}: {e}", man.display()))?
            .filter_map(|e| e.ok().map(|e| e.path())),
    ))?;
    for (shell, path) in [
        ("bash", "usr/share/bash-completion/completions/pavelor"),
        ("zsh", "usr/share/zsh/vendor-completions/_pavelor"),
        ("fish", "usr/share/fish/vendor_completions.d/pavelor.fish"),
    ] {
        let out = Command::new(&exe)
            .args(["completions", shell])
            .output()
            .map_err(|e| format!("cannot run {}: {e}", exe.display()))?;
        if !out.status.success() {
            return Err(format!("pavelor completions {shell} failed"));
        }
        write_new(&stage.join(path), &out.stdout)?;
    }
    Ok(bin)
}

/// `Depends`, from the libraries the staged `binaries` link, as
/// `dpkg-shlibdeps` finds them (it wants a debian/control to read, written
/// under `work`).
fn shlib_depends(
    work: &Path,
    stage: &Path,
    libdir: &Path,
    binaries: [&PathBuf; 3],
) -> Result<String, String> {
    let shlib = work.join("shlibdeps");
    write_new(
        &shlib.join("debian/control"),
        b"Source: pavelor\n\nPackage: pavelor\nArchitecture: any\n",
    )?;
    let mut shlibdeps = Command::new("dpkg-shlibdeps");
    shlibdeps.current_dir(&shlib).arg("-O");
    // The package's own libpavelor is not a dependency of its program.
    shlibdeps.arg(format!("-l{}", stage.join(libdir).display()));
    for binary in binaries {
        shlibdeps.arg(binary);
    }
    let out = shlibdeps
        .output()
        .map_err(|e| format!("cannot run dpkg-shlibdeps: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "dpkg-shlibdeps failed: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    let depends = String::from_utf8_lossy(&out.stdout)
        .lines()
        .find_map(|l| l.strip_prefix("shlibs:Depends="))
        .unwrap_or("")
        .trim()
        .to_string();
    Ok(depends)
}

/// Writes `DEBIAN/control` into `stage`, with the staged size.
fn write_control(stage: &Path, version: &str, arch: &str, depends: &str) -> Result<(), String> {
    let installed_kib = output_line("du", &["-sk", &stage.to_string_lossy()])?
        .split_whitespace()
        .next()
        .unwrap_or("0")
        .to_string();
    let control = format!(
        "Package: pavelor\n\
         Version: {version}-1\n\
         Architecture: {arch}\n\
         Maintainer: pavelor developers\n\
         Installed-Size: {installed_kib}\n\
         Depends: {depends}\n\
         Suggests: openssl (>= 3.0)\n\
         Section: utils\n\
         Priority: optional\n\
         Description: Pavelor-512/768/1024 hash functions (NGCC hash-22)\n \
         The pavelor command (sha512sum-style digests, the official known-answer\n \
         tests, the NICCS measurement report), the C library libpavelor with its\n \
         header, pkg-config and CMake files, and the OpenSSL 3 provider pavelor\n \
         (digests PAVELOR-512, PAVELOR-768 and PAVELOR-1024).\n"
    );
    write_new(&stage.join("DEBIAN/control"), control.as_bytes())
}
