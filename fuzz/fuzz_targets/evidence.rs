//! The evidence reader and everything that reads a stranger's directory:
//! `report --check` (`reload::check_run`) or the harness validator
//! (`HarnessRun::check`), `compare` (the pairing, and its files written
//! under `--out`) and `site`, on a small directory built from the input.
//!
//! The input is an archive of entries, each
//! `kind:u8 path_len:u8 path data_len:u16le data`: kind 0 a file holding
//! `data`, 1 a symbolic link to `data`, 2 a FIFO. Paths with `..`, an
//! absolute start or an empty component are dropped by this harness (they
//! could not lie in a directory), and so is an entry whose path is already
//! taken or lies below a link the input made. `scripts/fuzz.sh` seeds it with the
//! report directory and the harness dataset of a real quick run.
//!
//! Asserted: no panic; time and memory within libFuzzer's `-timeout`,
//! `-rss_limit_mb` and `-malloc_limit_mb` (the reader's limits here are
//! small: 1 MiB per file, 4 MiB in all, 256 files, 2000 trials); and
//! nothing written anywhere in the scratch directory but under `--out`
//! and the site's directory (and the site's own staging names beside it).

#![no_main]

use std::fs;
use std::io::Write;
use std::path::{Component, Path, PathBuf};

use libfuzzer_sys::fuzz_target;
use pavelor_niccs::Limits;
use pavelor_report::{compare, site};

const LIMITS: Limits = Limits {
    file_bytes: 1 << 20,
    total_bytes: 4 << 20,
    files: 256,
    trials: 2000,
};

/// Splits the input into (kind, path, data) entries; stops at the first
/// entry that does not fit.
fn entries(mut data: &[u8]) -> Vec<(u8, &[u8], &[u8])> {
    let mut out = Vec::new();
    while data.len() >= 2 {
        let (kind, plen) = (data[0], data[1] as usize);
        data = &data[2..];
        if data.len() < plen + 2 {
            break;
        }
        let path = &data[..plen];
        let dlen = u16::from_le_bytes([data[plen], data[plen + 1]]) as usize;
        data = &data[plen + 2..];
        let d = &data[..dlen.min(data.len())];
        data = &data[d.len()..];
        out.push((kind % 3, path, d));
    }
    out
}

/// `rel` as a plain relative path under `root`, if it is one.
fn plain(root: &Path, rel: &[u8]) -> Option<PathBuf> {
    let rel = std::str::from_utf8(rel).ok()?;
    let p = Path::new(rel);
    if rel.is_empty()
        || rel.contains('\0')
        || !p.components().all(|c| matches!(c, Component::Normal(_)))
    {
        return None;
    }
    Some(root.join(p))
}

/// Whether every directory between `root` and `p` is a real directory (or
/// not there yet): the harness never creates through a symbolic link the
/// input itself made, which could point anywhere.
fn parents_are_plain(root: &Path, p: &Path) -> bool {
    let Ok(rel) = p.strip_prefix(root) else {
        return false;
    };
    let mut at = root.to_path_buf();
    let mut parts: Vec<_> = rel.components().collect();
    parts.pop();
    parts.into_iter().all(|c| {
        at.push(c);
        !matches!(fs::symlink_metadata(&at), Ok(m) if !m.is_dir())
    })
}

/// Makes the input's entries. An entry whose path already holds something
/// is skipped: writing into a FIFO made by an earlier entry would wait for
/// a reader that never comes, and a link could send the write elsewhere.
fn build(dir: &Path, data: &[u8]) {
    for (kind, path, body) in entries(data) {
        let Some(p) = plain(dir, path) else { continue };
        if !parents_are_plain(dir, &p) {
            continue;
        }
        if let Some(parent) = p.parent() {
            if fs::create_dir_all(parent).is_err() {
                continue;
            }
        }
        let _ = match kind {
            0 => fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(&p)
                .and_then(|mut f| f.write_all(body)),
            1 => std::os::unix::fs::symlink(
                std::ffi::OsStr::new(&*String::from_utf8_lossy(body)),
                &p,
            ),
            _ => {
                nix::unistd::mkfifo(&p, nix::sys::stat::Mode::S_IRWXU).map_err(std::io::Error::from)
            }
        };
    }
}

/// Every path below `dir` (not following links).
fn listing(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = fs::read_dir(dir) else { return };
    for e in rd.flatten() {
        let p = e.path();
        out.push(p.clone());
        if e.file_type().is_ok_and(|t| t.is_dir()) {
            listing(&p, out);
        }
    }
}

fuzz_target!(|data: &[u8]| {
    let Ok(scratch) = tempfile::tempdir() else {
        return;
    };
    let root = scratch.path();
    let input = root.join("in");
    if fs::create_dir(&input).is_err() {
        return;
    }
    build(&input, data);
    let mut before = Vec::new();
    listing(root, &mut before);

    // report --check / the harness validator, through compare's reading.
    let out = root.join("out");
    if let Ok(c) = compare::compare_dirs(&input, &input, &LIMITS) {
        let _ = compare::render::markdown(&c, false);
        let _ = compare::render::write(&out, &c);
    }
    let _ = site::build(&root.join("site"), std::slice::from_ref(&input), &LIMITS);

    // Nothing new outside `out/` and `site/`; the input is unchanged.
    let mut after = Vec::new();
    listing(root, &mut after);
    for p in &after {
        let rel = p.strip_prefix(root).unwrap_or(p);
        let first = rel.components().next();
        let allowed = matches!(first, Some(Component::Normal(n)) if n == "out" || n == "site");
        assert!(
            allowed || before.contains(p),
            "written outside --out: {}",
            p.display()
        );
    }
    for p in &before {
        assert!(after.contains(p), "removed from the input: {}", p.display());
    }
});
