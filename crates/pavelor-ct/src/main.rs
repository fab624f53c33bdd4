//! `pavelor-ct`: runs the constant-time scenarios (see `pavelor_ct::scenarios`)
//! on the backends of this CPU. Meant to run under
//! `valgrind --tool=memcheck`; see `scripts/ct.sh`.
//!
//! ```text
//! pavelor-ct [--backend NAME]...   run every scenario on these backends
//!                                  (default: every backend available here)
//! pavelor-ct --list                print the backends available here
//! pavelor-ct --toy table|branch|vector-table|ct-eq
//!                                  run one of the harness's self-test toys
//! pavelor-ct --static-check [BINARY]
//!                                  check the SIMD kernels' machine code in
//!                                  BINARY (default: this executable), see
//!                                  `pavelor_ct::disasm`
//! ```
//!
//! Exit status: 0 if every scenario matched the portable backend and (under
//! valgrind) memcheck reported no error; 1 otherwise; 2 on a usage error.

use std::process::ExitCode;

use pavelor::{Available, Backend};
use pavelor_ct::{scenarios, toy, vg};

fn usage(msg: &str) -> ExitCode {
    eprintln!("pavelor-ct: {msg}");
    eprintln!(
        "usage: pavelor-ct [--backend NAME]... | --list | --toy table|branch|vector-table|ct-eq \
         | --static-check [BINARY]"
    );
    ExitCode::from(2)
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut backends = Vec::new();
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "--list" => {
                for b in Available::all() {
                    println!("{b}");
                }
                return ExitCode::SUCCESS;
            }
            "--toy" => {
                let Some(t) = it.next().and_then(|n| toy::Toy::from_name(n)) else {
                    return usage("--toy needs table, branch, vector-table or ct-eq");
                };
                let r = toy::run(t);
                println!("toy {t:?}: result {r}");
                return finish(true);
            }
            "--static-check-aarch64" => {
                let Some(binary) = it.next() else {
                    return usage("--static-check-aarch64 needs the aarch64 build of pavelor-ct");
                };
                return static_check_aarch64(std::path::Path::new(&binary));
            }
            "--static-check" => {
                let binary = match it.next() {
                    Some(p) => std::path::PathBuf::from(p),
                    None => match std::env::current_exe() {
                        Ok(p) => p,
                        Err(e) => return usage(&format!("cannot find this executable: {e}")),
                    },
                };
                return static_check(&binary);
            }
            "--backend" => match it.next() {
                Some(n) => match Backend::from_name(n) {
                    Some(b) => backends.push(b),
                    None => {
                        return usage(&format!("--backend: {}", pavelor::Error::UnknownBackend));
                    }
                },
                None => return usage("--backend needs a backend name"),
            },
            other => return usage(&format!("unknown argument '{other}'")),
        }
    }
    if backends.is_empty() {
        backends = Available::all().map(|b| b.backend()).collect();
    }

    let on_vg = vg::running_on_valgrind() > 0;
    println!(
        "pavelor-ct: {} (backends: {})",
        if on_vg {
            "under valgrind: secret inputs are marked undefined"
        } else {
            "NOT under valgrind: functional run only, nothing is verified"
        },
        backends
            .iter()
            .map(|b| b.name())
            .collect::<Vec<_>>()
            .join(", ")
    );
    let mut ok = true;
    for &name in &backends {
        let Ok(b) = Available::resolve(Some(name.name())) else {
            println!("{name}: FAIL not available on this CPU (or hidden by valgrind's CPUID)");
            ok = false;
            continue;
        };
        for s in scenarios::ALL {
            let before = vg::error_count();
            let result = (s.run)(b);
            let errors = vg::error_count() - before;
            match result {
                Ok(()) if errors == 0 => println!("{b} {}: ok", s.name),
                Ok(()) => {
                    println!("{b} {}: LEAK: {errors} memcheck report(s)", s.name);
                    ok = false;
                }
                Err(e) => {
                    println!("{b} {}: FAIL {e} ({errors} memcheck report(s))", s.name);
                    ok = false;
                }
            }
        }
    }
    finish(ok)
}

/// Prints the memcheck error total and turns it into the exit status.
fn finish(ok: bool) -> ExitCode {
    let errors = vg::error_count();
    if vg::running_on_valgrind() > 0 {
        println!("memcheck errors: {errors}");
    }
    if ok && errors == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

/// `--static-check-aarch64 BINARY`: the armv8-aes kernels of an aarch64
/// build must be clean, the synthetic leaky listing must not.
fn static_check_aarch64(binary: &std::path::Path) -> ExitCode {
    use pavelor_ct::disasm;
    let listing = match disasm::disassemble_aarch64(binary) {
        Ok(l) => l,
        Err(e) => {
            eprintln!("pavelor-ct: {e}");
            return ExitCode::FAILURE;
        }
    };
    let mut ok = print_reports(disasm::check_listing_aarch64(
        &listing,
        disasm::KERNELS_AARCH64,
    ));
    match disasm::check_listing_aarch64(
        disasm::LEAKY_AARCH64_LISTING,
        &["pavelor_ct::toy::leaky_aarch64"],
    ) {
        Ok(r) if r.iter().all(|r| r.violations.len() >= 4) => {
            println!("positive control (synthetic aarch64 leaks): rejected, as it must be");
        }
        Ok(r) => {
            println!("positive control (synthetic aarch64 leaks): FAIL, too few violations: {r:?}");
            ok = false;
        }
        Err(e) => {
            println!("positive control (synthetic aarch64 leaks): FAIL: {e}");
            ok = false;
        }
    }
    println!(
        "static aarch64 kernel check: {}",
        if ok { "PASS" } else { "FAIL" }
    );
    if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

/// Prints kernel reports; whether all are clean, do AES rounds, and each
/// permutation kernel does exactly the AES rounds of one Paff.
fn print_reports(result: Result<Vec<pavelor_ct::disasm::KernelReport>, pavelor_ct::Error>) -> bool {
    let mut ok = true;
    match result {
        Ok(reports) => {
            for r in &reports {
                println!(
                    "{} @{:x}: {} instructions, {} AES rounds, {} conditional branches, \
                     {} scalar loads{}: {}",
                    r.name,
                    r.addr,
                    r.instructions,
                    r.aes_rounds,
                    r.conditional_branches,
                    r.scalar_loads.len(),
                    if r.callees.is_empty() {
                        String::new()
                    } else {
                        format!(" (calls {})", r.callees.join(", "))
                    },
                    if r.violations.is_empty() {
                        "ok"
                    } else {
                        "VIOLATIONS"
                    }
                );
                for l in &r.scalar_loads {
                    println!("    scalar load {l}");
                }
                for v in &r.violations {
                    println!("    violation {v}");
                }
                // A permutation kernel is exactly one Paff, fully unrolled.
                let one_paff = pavelor::paff::ROUNDS * (pavelor::paff::SUBBLOCKS - 1);
                if r.name.ends_with("::permute_impl") && r.aes_rounds != one_paff {
                    println!(
                        "    violation: {} AES rounds, one Paff has {one_paff}",
                        r.aes_rounds
                    );
                    ok = false;
                }
                ok &= r.violations.is_empty() && r.aes_rounds > 0;
            }
        }
        Err(e) => {
            println!("kernels: FAIL {e}");
            ok = false;
        }
    }
    ok
}

/// `--static-check`: the kernels must be clean, the leaky toy must not.
fn static_check(binary: &std::path::Path) -> ExitCode {
    use pavelor_ct::disasm;
    let listing = match disasm::disassemble(binary) {
        Ok(l) => l,
        Err(e) => {
            eprintln!("pavelor-ct: {e}");
            return ExitCode::FAILURE;
        }
    };
    let mut ok = print_reports(disasm::check_listing(&listing, disasm::KERNELS));
    // Positive control: the check must reject the harness's leaky toy.
    match disasm::check_listing(&listing, &[disasm::LEAKY_TOY]) {
        Ok(reports) if reports.iter().all(|r| !r.violations.is_empty()) => {
            let n: usize = reports.iter().map(|r| r.violations.len()).sum();
            println!(
                "positive control {}: rejected ({n} violations), as it must be",
                disasm::LEAKY_TOY
            );
        }
        Ok(_) => {
            println!("positive control {}: FAIL not rejected", disasm::LEAKY_TOY);
            ok = false;
        }
        Err(e) => {
            println!("positive control: FAIL {e}");
            ok = false;
        }
    }
    println!("static kernel check: {}", if ok { "PASS" } else { "FAIL" });
    if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
