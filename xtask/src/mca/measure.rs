//! `cargo xtask mca --measure-wide`: the generated wide blocks run, not
//! modelled, beside the `avx512-vaes` kernel's Paff, on this CPU.
//!
//! Each block becomes a loop in a small program (the block's assembly, a C
//! `main` that times it with the monotonic clock) built with `cc`; the
//! fastest kernel is timed by the release `pavelor bench` right before and
//! after ([`kernel_ns`]). Nanoseconds per Paff; the ratio is the figure. The blocks' permute indices and constant tables are zero: their
//! results are not used, and a permute's timing does not depend on its
//! indices. Only x86-64 CPUs with AVX-512 F and VAES run them; elsewhere
//! the step says NOT RUN.

use std::fmt::Write as _;
use std::fs;
use std::path::Path;
use std::process::Command;

/// Paff calls per timed run.
const CALLS: u64 = 200_000;
/// Timed runs; the best counts (a run can be slowed down, never sped up).
pub(crate) const RUNS: u32 = 7;

/// The C side of the program: the best of [`RUNS`] runs of [`CALLS`]
/// iterations of the block, in nanoseconds per iteration.
const MAIN_C: &str = r#"#include <stdio.h>
#include <time.h>
void wide_loop(unsigned long n);
static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e9 + t.tv_nsec;
}
int main(void) {
    double best = 1e300;
    wide_loop(1000);
    for (int r = 0; r < RUNS; r++) {
        double a = now();
        wide_loop(CALLS);
        double t = (now() - a) / CALLS;
        if (t < best) best = t;
    }
    printf("%.2f\n", best);
    return 0;
}
"#;

/// Whether this CPU runs the blocks.
pub(crate) fn supported() -> bool {
    cfg!(target_arch = "x86_64")
        && std::arch::is_x86_feature_detected!("avx512f")
        && std::arch::is_x86_feature_detected!("vaes")
}

/// Nanoseconds per Paff of the fastest single-message backend here: the
/// release `pavelor bench` (built if needed) on one 64 KiB Pavelor-512
/// message, `192 × 1000 / (MB/s)`. That includes absorbing the message
/// (12 loads and XORs per Paff), which the bare blocks do not do: a
/// margin in the blocks' favour. Returns the backend's row name too.
pub(crate) fn kernel_ns(root: &Path) -> Result<(String, f64), String> {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    crate::run(Command::new(&cargo).current_dir(root).args([
        "build",
        "--release",
        "--quiet",
        "-p",
        "pavelor-cli",
    ]))?;
    let exe = crate::target_dir(root).join("release").join("pavelor");
    let out = Command::new(&exe)
        .args(["bench", "--sizes", "65536", "--seconds", "0.1", "--json"])
        .output()
        .map_err(|e| format!("cannot run {}: {e}", exe.display()))?;
    if !out.status.success() {
        return Err(format!("{} bench failed", exe.display()));
    }
    let v: serde_json::Value =
        serde_json::from_slice(&out.stdout).map_err(|e| format!("pavelor bench --json: {e}"))?;
    let rows = v["rows"]
        .as_array()
        .ok_or("pavelor bench --json: no rows")?;
    // The rows of each instance come fastest backend first.
    let row = rows
        .iter()
        .find(|r| {
            r["name"]
                .as_str()
                .is_some_and(|n| n.starts_with("Pavelor-512 ("))
        })
        .ok_or("pavelor bench --json: no Pavelor-512 row")?;
    let mb_per_s = row["mb_per_s"]
        .as_f64()
        .ok_or("pavelor bench --json: no MB/s")?;
    Ok((
        row["name"].as_str().unwrap_or("").to_string(),
        192.0 * 1000.0 / mb_per_s,
    ))
}

/// Builds and runs `block` (AT&T syntax, reading `wide_tables` and
/// `wide_round`) as a loop; nanoseconds per iteration.
pub(crate) fn block_ns(block: &str, dir: &Path, name: &str) -> Result<f64, String> {
    let mut asm = String::from(
        ".bss\n.p2align 6\nwide_tables: .zero 65536\nwide_round: .zero 4096\n.text\n.globl wide_loop\nwide_loop:\n1:\n",
    );
    asm.push_str(block);
    let _ = writeln!(
        asm,
        "dec %rdi\njnz 1b\nvzeroupper\nret\n.section .note.GNU-stack,\"\",@progbits"
    );
    let s = dir.join(format!("{name}.s"));
    let c = dir.join(format!("{name}-main.c"));
    let exe = dir.join(name);
    fs::write(&s, asm).map_err(|e| format!("cannot write {}: {e}", s.display()))?;
    fs::write(&c, MAIN_C).map_err(|e| format!("cannot write {}: {e}", c.display()))?;
    let out = Command::new("cc")
        .args([
            "-O2",
            &format!("-DRUNS={RUNS}"),
            &format!("-DCALLS={CALLS}UL"),
            "-o",
        ])
        .arg(&exe)
        .arg(&c)
        .arg(&s)
        .output()
        .map_err(|e| format!("cannot run cc: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "cc failed on {}: {}",
            s.display(),
            String::from_utf8_lossy(&out.stderr)
                .lines()
                .next()
                .unwrap_or("")
        ));
    }
    let run = Command::new(&exe)
        .output()
        .map_err(|e| format!("cannot run {}: {e}", exe.display()))?;
    let text = String::from_utf8_lossy(&run.stdout);
    text.trim()
        .parse()
        .map_err(|_| format!("{} printed {:?}, not a number", exe.display(), text.trim()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_empty_block_builds_and_runs() {
        if Command::new("cc").arg("--version").output().is_err() {
            println!("SKIPPED: no cc");
            return;
        }
        if !cfg!(target_arch = "x86_64") {
            println!("SKIPPED: the loop is x86-64 assembly");
            return;
        }
        let dir = std::env::temp_dir().join(format!("xtask-measure-{}", std::process::id()));
        fs::create_dir_all(&dir).expect("temp dir");
        let ns = block_ns("", &dir, "empty");
        let _ = fs::remove_dir_all(&dir);
        let ns = ns.expect("the program builds and prints a figure");
        assert!(ns.is_finite() && ns >= 0.0, "{ns}");
        assert!(block_ns("not an instruction", Path::new("/nonexistent-dir"), "x").is_err());
    }
}
