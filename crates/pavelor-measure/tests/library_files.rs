//! A `--lib` file of any size is identified in bounded memory: the
//! campaign's process reads the ELF headers and tables it needs and hashes
//! the file in chunks, never the whole file at once.
//!
//! This test reads its own process's peak RSS (`VmHWM`), so it is the only
//! test in this file: another test running beside it would count too.

use std::fs::File;
use std::io::Write;
use std::path::PathBuf;

use pavelor_measure::library::identity::identify;

/// 3 GiB: larger than the memory identify may take by far.
const SIZE: u64 = 3 << 30;

/// The limit on the peak RSS of this whole test process.
const LIMIT_KIB: u64 = 256 * 1024;

/// This process's peak resident set size, KiB (`VmHWM`).
fn peak_rss_kib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").expect("/proc/self/status");
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .expect("a VmHWM line in kB")
}

/// A real shared library: the C library this process has mapped, else
/// this test binary (a PIE, `ET_DYN` too).
fn a_shared_library() -> PathBuf {
    let maps = std::fs::read_to_string("/proc/self/maps").unwrap_or_default();
    maps.lines()
        .filter_map(|l| l.split_whitespace().nth(5))
        .find(|p| {
            let name = p.rsplit('/').next().unwrap_or_default();
            name.starts_with("libc.so") || name.starts_with("libc-")
        })
        .map(PathBuf::from)
        .unwrap_or_else(|| std::env::current_exe().expect("test binary"))
}

#[test]
#[ignore = "soak: hashes 3 GiB files; run by .ci/run (cargo test -- --ignored)"]
fn three_gib_files_are_identified_in_bounded_memory() {
    let dir = tempfile::tempdir().expect("tempdir");

    // A real shared library, then zeros up to 3 GiB (a hole: no disk).
    let lib = a_shared_library();
    let big_elf = dir.path().join("big-elf.so");
    {
        let mut src = File::open(&lib).expect("open the library");
        let dst = File::create(&big_elf).expect("create");
        std::io::copy(&mut src, &mut &dst).expect("copy");
        dst.set_len(SIZE).expect("set_len");
    }
    // Text, then zeros up to 3 GiB.
    let big_text = dir.path().join("big-text.so");
    {
        let mut f = File::create(&big_text).expect("create");
        f.write_all(b"this is not an ELF file\n").expect("write");
        f.set_len(SIZE).expect("set_len");
    }

    let before = peak_rss_kib();
    let id = identify(&big_elf).expect("an ELF shared library followed by zeros");
    assert_eq!(id.size, SIZE);
    assert_eq!(id.sha256.len(), 64);
    assert!(id.static_bytes > 0 && !id.exported.is_empty(), "{id:?}");
    let err = identify(&big_text).expect_err("not ELF").to_string();
    assert_eq!(
        err,
        format!(
            "{}: not an ELF file (it starts with 74 68 69 73 20 69 73 20 ..., \"this is \")",
            big_text.display()
        )
    );
    let peak = peak_rss_kib();
    eprintln!(
        "peak RSS (VmHWM) of this test process: {:.1} MiB ({:.1} MiB before identify); \
         library {}",
        peak as f64 / 1024.0,
        before as f64 / 1024.0,
        lib.display()
    );
    assert!(
        peak < LIMIT_KIB,
        "peak RSS {peak} KiB, not below {LIMIT_KIB} KiB"
    );
}
