//! The constant-time harness, end to end: the `pavelor-ct` binary is run
//! under `valgrind --tool=memcheck` as a subprocess.
//!
//! * the deliberately leaky toys must be reported (the harness detects
//!   leaks), the constant-time toy must not;
//! * every scenario on every backend valgrind can run must be clean;
//! * the static check of the VAES/AVX-512 kernels must pass and must reject
//!   its own leaky toy.
//!
//! Without valgrind (or objdump) the tests that need it print why and pass,
//! so a plain `cargo test --workspace` works anywhere; set
//! `PAVELOR_REQUIRE_VALGRIND=1` (as `scripts/ct.sh` and CI do) to make a
//! missing tool a failure instead.

#![allow(clippy::unwrap_used, clippy::panic)] // tests may fail loudly

/// Writes to the process's stderr directly: libtest captures `eprintln!`
/// of passing tests, and a skipped check must be seen in `cargo test` output.
macro_rules! visible {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stderr(), $($arg)*);
    }};
}

use std::process::{Command, Output};

const BIN: &str = env!("CARGO_BIN_EXE_pavelor-ct");

fn tool_present(tool: &str) -> bool {
    let ok = Command::new(tool)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        if std::env::var_os("PAVELOR_REQUIRE_VALGRIND").is_some_and(|v| v == "1") {
            panic!("{tool} is required (PAVELOR_REQUIRE_VALGRIND=1) but cannot be run");
        }
        visible!("SKIPPED: `{tool}` is not installed; this check did not run");
    }
    ok
}

/// Runs the harness under memcheck; valgrind exits 99 on any error.
fn memcheck(args: &[&str]) -> Output {
    Command::new("valgrind")
        .args([
            "--tool=memcheck",
            "--error-exitcode=99",
            "--track-origins=yes",
            "-q",
        ])
        .arg(BIN)
        .args(args)
        .output()
        .unwrap()
}

fn text(o: &Output) -> String {
    format!(
        "status {}\n--- stdout\n{}\n--- stderr\n{}",
        o.status,
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

#[test]
fn memcheck_reports_the_leaky_toys() {
    if !tool_present("valgrind") {
        return;
    }
    for (toy, needle) in [
        ("table", "Use of uninitialised value of size 8"),
        (
            "branch",
            "Conditional jump or move depends on uninitialised value",
        ),
        ("vector-table", "Use of uninitialised value of size 8"),
    ] {
        let out = memcheck(&["--toy", toy]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(99), "toy {toy}: {}", text(&out));
        assert!(stderr.contains(needle), "toy {toy}: {}", text(&out));
        assert!(
            stderr.contains("pavelor_ct::toy::"),
            "toy {toy}: {}",
            text(&out)
        );
    }
    let out = memcheck(&["--toy", "ct-eq"]);
    assert!(out.status.success(), "ct-eq toy: {}", text(&out));
    assert!(String::from_utf8_lossy(&out.stdout).contains("memcheck errors: 0"));
}

#[test]
fn every_backend_valgrind_runs_is_clean() {
    if !tool_present("valgrind") {
        return;
    }
    let listed = memcheck(&["--list"]);
    assert!(listed.status.success(), "{}", text(&listed));
    let backends: Vec<String> = String::from_utf8_lossy(&listed.stdout)
        .lines()
        .map(str::to_owned)
        .collect();
    assert!(backends.iter().any(|b| b == "portable"), "{backends:?}");
    #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
    if std::arch::is_x86_feature_detected!("aes") {
        assert!(
            backends.iter().any(|b| b == "aesni"),
            "AES-NI CPU but valgrind hides aesni: {backends:?}"
        );
    }
    for b in &backends {
        let out = memcheck(&["--backend", b]);
        eprintln!("{}", String::from_utf8_lossy(&out.stdout).trim());
        assert!(out.status.success(), "backend {b}: {}", text(&out));
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            stdout.contains("under valgrind") && stdout.contains("memcheck errors: 0"),
            "backend {b}: {}",
            text(&out)
        );
        assert_eq!(
            stdout.matches(": ok").count(),
            pavelor_ct::scenarios::ALL.len(),
            "backend {b}: {}",
            text(&out)
        );
    }
    let native: Vec<&str> = pavelor::Available::all()
        .map(|b| b.name())
        .filter(|n| !backends.iter().any(|b| b == n))
        .collect();
    if !native.is_empty() {
        visible!(
            "NOT RUN UNDER VALGRIND (hidden by valgrind's CPUID): {}; \
             covered by the static kernel check instead",
            native.join(", ")
        );
    }
}

#[test]
fn scenarios_pass_natively_on_every_backend() {
    let out = Command::new(BIN).output().unwrap();
    assert!(out.status.success(), "{}", text(&out));
}

/// The check is for the code that ships: the release profile (one codegen
/// unit, thin LTO). At the test profile's opt-level 2 the compiler keeps
/// length-derived (public) flags of the fused one-shot kernels in byte
/// stack slots and selects pointers with `cmov` from memory, shapes the
/// check rejects because it cannot tell public from secret scalars; so this
/// test exists in release builds only (`cargo test --release`;
/// `scripts/ct.sh` runs the same check on the release binary in CI).
#[test]
#[cfg(not(debug_assertions))]
fn static_kernel_check() {
    if !cfg!(target_arch = "x86_64") || !tool_present("objdump") {
        return;
    }
    let out = Command::new(BIN).arg("--static-check").output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{}", text(&out));
    assert!(
        stdout.contains("static kernel check: PASS"),
        "{}",
        text(&out)
    );
    assert!(stdout.contains("rejected"), "{}", text(&out));
}

/// In a build with debug assertions the check above does not exist; say so
/// where `cargo test` shows it.
#[test]
#[cfg(debug_assertions)]
fn static_kernel_check_needs_a_release_build() {
    visible!(
        "SKIPPED static_kernel_check: it checks the release-profile kernels \
         (cargo test --release; scripts/ct.sh checks the release binary)"
    );
}

#[test]
fn demangles_legacy_symbols() {
    use pavelor_ct::disasm::demangle;
    assert_eq!(
        demangle("_ZN7pavelor7backend8x86_vaes7x4_impl17h201e2d4e2792c9adE"),
        "pavelor::backend::x86_vaes::x4_impl"
    );
    assert_eq!(demangle("memcpy"), "memcpy");
}

#[test]
fn static_check_rejects_table_lookups_and_vector_escapes() {
    use pavelor_ct::disasm::check_listing;
    let listing = "\
0000000000001000 <_ZN3toy4leak17h0000000000000000E>:
    1000:\tvmovdqu (%rdi),%xmm0
    1004:\tvmovd  %xmm0,%eax
    1008:\tmovzbl 0x2000(%rax),%eax
    100c:\tvptest %xmm0,%xmm0
    1010:\tcall   *%rax
    1012:\tret
0000000000001100 <_ZN3toy5clean17h0000000000000000E>:
    1100:\tmov    0x10(%rsi),%rcx
    1104:\tvmovdqu (%rcx,%rdx,1),%xmm0
    1108:\taesenc %xmm1,%xmm0
    110c:\tdec    %rdx
    110f:\tjne    1104 <_ZN3toy5clean17h0000000000000000E+0x4>
    1111:\tret
";
    let leak = check_listing(listing, &["toy::leak"]).unwrap();
    assert_eq!(leak.len(), 1);
    assert_eq!(leak[0].violations.len(), 4, "{:?}", leak[0].violations);
    let clean = check_listing(listing, &["toy::clean"]).unwrap();
    assert!(clean[0].violations.is_empty(), "{:?}", clean[0].violations);
    assert_eq!(clean[0].aes_rounds, 1);
    assert_eq!(clean[0].conditional_branches, 1);
    assert!(check_listing(listing, &["toy::missing"]).is_err());
}

#[test]
fn aarch64_check_rejects_leaks_and_accepts_a_clean_kernel() {
    use pavelor_ct::disasm;
    let leaky = disasm::check_listing_aarch64(
        disasm::LEAKY_AARCH64_LISTING,
        &["pavelor_ct::toy::leaky_aarch64"],
    )
    .unwrap();
    assert_eq!(leaky[0].violations.len(), 4, "{:?}", leaky[0].violations);
    let clean = "\
0000000000002000 <pavelor::backend::aarch64::permute_impl>:
    2000:\tldr\tq0, [x0, #16]
    2004:\taese\tv0.16b, v31.16b
    2008:\taesmc\tv0.16b, v0.16b
    200c:\teor\tv0.16b, v0.16b, v1.16b
    2010:\tldr\tx9, [sp, #8]
    2014:\tstr\tq0, [x0, #16]
    2018:\tret
";
    let r =
        disasm::check_listing_aarch64(clean, &["pavelor::backend::aarch64::permute_impl"]).unwrap();
    assert!(r[0].violations.is_empty(), "{:?}", r[0].violations);
    assert_eq!(r[0].aes_rounds, 1);
    assert_eq!(r[0].scalar_loads.len(), 1);
}
