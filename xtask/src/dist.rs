//! `cargo xtask dist --out DIR`: every artefact of a release, into DIR:
//!
//! * `crates/`: the `.crate` file of every published crate (`cargo
//!   package`, each verified by building it from the file alone);
//! * `libpavelor-VERSION-TARGET.tar.gz`: the C library installed under the
//!   prefix `/usr/local` (`lib/`, `lib/pkgconfig/`, `lib/cmake/pavelor/`,
//!   `include/`); unpacked elsewhere, the CMake package finds itself and
//!   `pkg-config --define-prefix` rewrites the prefix;
//! * `pavelor_VERSION-1_ARCH.deb` ([`crate::deb`]);
//! * `python/`: the wheels and the sdist ([`crate::wheels`]).
//!
//! The tools every step needs are checked before the first is built.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use clap::Args;

use crate::{run, workspace_root};

/// The crates published to crates.io, in dependency order.
pub(crate) const PUBLISHED: [&str; 15] = [
    "pavelor",
    "pavelor-kat",
    "pavelor-niccs",
    "pavelor-iccs-helpers",
    "pavelor-pages",
    "pavelor-elf",
    "pavelor-isolate",
    "pavelor-memcheck",
    "pavelor-measure",
    "pavelor-sweep",
    "pavelor-report",
    "pavelor-bench",
    "pavelor-cli",
    "pavelor-ffi",
    "pavelor-capi",
];

#[derive(Args)]
pub(crate) struct DistArgs {
    /// Output directory (created if missing).
    #[arg(long, value_name = "DIR")]
    out: PathBuf,

    /// Pass --locked to the cargo builds.
    #[arg(long)]
    locked: bool,
}

fn copy_into(file: &Path, dir: &Path) -> Result<PathBuf, String> {
    let name = file
        .file_name()
        .ok_or(format!("{}: no file name", file.display()))?;
    let to = dir.join(name);
    let bytes = fs::read(file).map_err(|e| format!("cannot read {}: {e}", file.display()))?;
    crate::write_atomically(&to, &bytes)?;
    Ok(to)
}

pub(crate) fn dist(args: &DistArgs) -> Result<(), String> {
    crate::capi::check_tools()?;
    crate::deb::check_tools()?;
    crate::wheels::check_tools()?;
    fs::create_dir_all(&args.out)
        .map_err(|e| format!("cannot create {}: {e}", args.out.display()))?;
    let out = fs::canonicalize(&args.out)
        .map_err(|e| format!("cannot resolve {}: {e}", args.out.display()))?;
    let root = workspace_root();
    let target = crate::target_dir(&root);
    let version = env!("CARGO_PKG_VERSION");
    let mut made = Vec::new();

    // The crates, verified in a target directory of their own (the
    // verification builds must not meet the workspace's in target/); its
    // builds of the dependencies from crates.io are kept between runs.
    let package_target = target.join("dist-package");
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut package = Command::new(&cargo);
    package
        .current_dir(&root)
        .arg("package")
        .arg("--target-dir")
        .arg(&package_target)
        // The verification shows that each crate builds on its own; nobody
        // debugs those builds, and without debug information they take less
        // time to compile and link.
        .env("CARGO_PROFILE_DEV_DEBUG", "0");
    if args.locked {
        package.arg("--locked");
    }
    for c in PUBLISHED {
        package.args(["-p", c]);
    }
    // Cargo takes a registry package's sources and builds as immutable per
    // version: both are made again, so that the crates are verified
    // against this tree's siblings and not an earlier dist's.
    forget_unpacked_siblings(version)?;
    forget_own_builds(&package_target)?;
    run(&mut package)?;
    let crates = out.join("crates");
    fs::create_dir_all(&crates).map_err(|e| format!("cannot create {}: {e}", crates.display()))?;
    for c in PUBLISHED {
        let file = package_target.join(format!("package/{c}-{version}.crate"));
        made.push(copy_into(&file, &crates)?);
    }

    // The C library tarball.
    let stage = target.join("dist-capi");
    if stage.exists() {
        fs::remove_dir_all(&stage)
            .map_err(|e| format!("cannot remove {}: {e}", stage.display()))?;
    }
    crate::capi::install(
        Path::new("/usr/local"),
        Path::new("lib"),
        Some(&stage),
        args.locked,
    )?;
    let triple = format!("{}-linux-gnu", std::env::consts::ARCH);
    let tarball = out.join(format!("libpavelor-{version}-{triple}.tar.gz"));
    let partial = out.join(format!(".libpavelor-{version}-{triple}.tar.gz.partial"));
    run(Command::new("tar")
        .args(["--owner=0", "--group=0", "--numeric-owner", "-czf"])
        .arg(&partial)
        .arg("-C")
        .arg(stage.join("usr/local"))
        .args(["include", "lib"]))?;
    fs::rename(&partial, &tarball)
        .map_err(|e| format!("cannot rename {}: {e}", partial.display()))?;
    made.push(tarball);

    made.push(crate::deb::build(&out, args.locked)?);
    made.extend(crate::wheels::build(&out.join("python"))?);

    for f in &made {
        let size = fs::metadata(f).map(|m| m.len()).unwrap_or(0);
        println!(
            "{:>10} bytes  {}",
            size,
            f.strip_prefix(&out).unwrap_or(f).display()
        );
    }
    Ok(())
}

/// Removes the fingerprints of this workspace's crates from the
/// verification builds in `package_target` (`<profile>/.fingerprint/
/// NAME-HASH`): cargo takes the siblings, which it reads from a registry
/// overlay, as immutable per version and would not rebuild them from
/// changed sources; without a fingerprint it builds them, and everything
/// that depends on them, again. Dependencies from crates.io keep theirs.
fn forget_own_builds(package_target: &Path) -> Result<(), String> {
    let Ok(profiles) = fs::read_dir(package_target) else {
        return Ok(());
    };
    for profile in profiles.flatten() {
        let Ok(units) = fs::read_dir(profile.path().join(".fingerprint")) else {
            continue;
        };
        for unit in units.flatten() {
            let name = unit.file_name();
            let name = name.to_string_lossy();
            let ours = name.rsplit_once('-').is_some_and(|(package, hash)| {
                PUBLISHED.contains(&package)
                    && hash.len() == 16
                    && hash.bytes().all(|b| b.is_ascii_hexdigit())
            });
            if ours {
                fs::remove_dir_all(unit.path())
                    .map_err(|e| format!("cannot remove {}: {e}", unit.path().display()))?;
            }
        }
    }
    Ok(())
}

/// `cargo package` verifies each crate against its siblings' fresh
/// `.crate` files through a local overlay source, which it unpacks under
/// `$CARGO_HOME/registry/src/-<hash>/NAME-VERSION/`. It does not unpack a
/// version that is already there, so a second `dist` of the same version
/// would verify against the first one's sources: those are removed first
/// (and the builds made from them, by [`forget_own_builds`]).
/// (Only directories whose name starts with `-`, the overlays, are
/// touched; a real registry's are named after its host.)
fn forget_unpacked_siblings(version: &str) -> Result<(), String> {
    let home = std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cargo")));
    let Some(src) = home.map(|h| h.join("registry").join("src")) else {
        return Ok(());
    };
    let Ok(entries) = fs::read_dir(&src) else {
        return Ok(());
    };
    for e in entries.flatten() {
        if !e.file_name().to_string_lossy().starts_with('-') {
            continue;
        }
        for c in PUBLISHED {
            let stale = e.path().join(format!("{c}-{version}"));
            if stale.is_dir() {
                fs::remove_dir_all(&stale)
                    .map_err(|err| format!("cannot remove {}: {err}", stale.display()))?;
            }
        }
    }
    Ok(())
}
