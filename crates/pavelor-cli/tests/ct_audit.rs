//! The constant-time audit of `report --lib` (valgrind memcheck, the
//! ctgrind / TIMECOP technique), on small C libraries built for it: each
//! forwards to ours, so every digest is right and only the audit can tell
//! them apart.
//!
//! * "table" loads from a table at an index taken from the message: a
//!   secret-dependent memory address, at `secret_table.c`'s line;
//! * "branch" branches on a message bit: a secret-dependent branch;
//! * "avx512" runs AVX-512 instructions, and "shani" SHA-NI ones, which
//!   valgrind 3.19 cannot execute: NOT RUN, naming where, with the rest of
//!   the report unaffected (each built only where the CPU has the feature;
//!   SKIPPED otherwise);
//! * ours shows no finding.
//!
//! SKIPPED without valgrind or a C compiler.

#![cfg(unix)]
#![allow(clippy::unwrap_used, clippy::panic)] // tests may fail loudly

mod common;

use common::{cc_shim, our_crypthash, serial};
use std::path::Path;
use std::process::Command;

fn installed(tool: &str) -> bool {
    Command::new(tool)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// The audit's row of `lib` in section 10 (implementation, instances,
/// verdict, seconds: the only table of four columns starting so).
fn row<'a>(md: &'a str, lib: &str) -> &'a str {
    md.lines()
        .find(|l| l.starts_with(&format!("| `{lib}` | Pavelor-")) && l.split('|').count() == 6)
        .unwrap_or_else(|| panic!("no audit row for {lib}:\n{md}"))
}

/// The findings table's rows of `lib`.
fn findings<'a>(md: &'a str, lib: &str) -> Vec<&'a str> {
    md.lines()
        .filter(|l| l.starts_with(&format!("| `{lib}` | secret-dependent ")))
        .collect()
}

/// Whether this CPU has the x86 feature `feature` ("avx512f", "sha").
fn have(feature: &str) -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        match feature {
            "avx512f" => std::arch::is_x86_feature_detected!("avx512f"),
            "sha" => std::arch::is_x86_feature_detected!("sha"),
            _ => false,
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = feature;
        false
    }
}

/// Whether the valgrind here is 3.19, which runs neither AVX-512 nor SHA-NI.
fn valgrind_3_19() -> bool {
    Command::new("valgrind")
        .arg("--version")
        .output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).starts_with("valgrind-3.19"))
}

#[test]
fn audit_finds_a_secret_table_and_a_secret_branch_and_cannot_run_avx512() {
    if !installed("valgrind") || !installed("cc") {
        println!("SKIPPED: the constant-time audit needs valgrind and cc");
        return;
    }
    let _serial = serial();
    let dir = tempfile::tempdir().unwrap();
    let good = our_crypthash();
    let table = cc_shim(dir.path(), "table", "secret_table", &good);
    let branch = cc_shim(dir.path(), "branch", "secret_branch", &good);
    let mut libs: Vec<(&str, &Path)> =
        vec![("good", &good), ("table", &table), ("branch", &branch)];
    // Instructions valgrind 3.19 cannot execute: AVX-512, and SHA-NI.
    let avx512 =
        have("avx512f").then(|| cc_shim(dir.path(), "avx512", "avx512_on_every_call", &good));
    let shani = have("sha").then(|| cc_shim(dir.path(), "shani", "sha_ni_on_every_call", &good));
    match &avx512 {
        Some(p) => libs.push(("avx512", p)),
        None => println!("SKIPPED (the AVX-512 library): this CPU has no AVX-512F"),
    }
    match &shani {
        Some(p) => libs.push(("shani", p)),
        None => println!("SKIPPED (the SHA-NI library): this CPU has no SHA-NI"),
    }
    let out = dir.path().join("report");
    let mut extra: Vec<String> = ["--no-baselines", "--timeout", "20"]
        .map(String::from)
        .to_vec();
    for (name, path) in &libs {
        extra.push("--lib".into());
        extra.push(format!("{name}={}", path.display()));
    }
    let extra: Vec<&str> = extra.iter().map(String::as_str).collect();
    // The audit never changes RESULT: every library is right, so PASS (and
    // the report succeeds).
    common::quick_report(&out, "1", "32", &extra);
    let md = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(md.contains("**RESULT: PASS**"), "{md}");
    let header = md
        .lines()
        .find(|l| l.starts_with("**Constant-time audit**"))
        .expect("the audit's line under RESULT");

    // Ours computes Pavelor-512: 33 calls.
    assert!(row(&md, "good").contains("no secret-dependent branch or address in 33 calls"));
    assert!(findings(&md, "good").is_empty());

    assert!(
        row(&md, "table").contains("| 1 finding |"),
        "{}",
        row(&md, "table")
    );
    let t = findings(&md, "table");
    assert!(
        t.len() == 1
            && t[0].contains("secret-dependent memory address")
            && t[0].contains("`CryptHash`")
            && t[0].contains("`secret_table.c:11`"),
        "{t:?}"
    );
    assert!(
        header.contains("`table` (Pavelor-512): 1 finding"),
        "{header}"
    );

    let b = findings(&md, "branch");
    assert!(
        b.len() == 1
            && b[0].contains("secret-dependent branch")
            && b[0].contains("`secret_branch.c:9`"),
        "{b:?}"
    );

    let old_valgrind = valgrind_3_19();
    for (lib, built, place) in [
        (
            "avx512",
            avx512.is_some(),
            "evex_work at avx512_on_every_call.c:",
        ),
        (
            "shani",
            shani.is_some(),
            "sha_work at sha_ni_on_every_call.c:",
        ),
    ] {
        if !built {
            continue;
        }
        let r = row(&md, lib);
        let not_run = r.contains("NOT RUN: valgrind cannot execute an instruction of the library")
            && r.contains(place);
        // A later valgrind may execute it; 3.19 (Debian 12's) cannot.
        let clean = r.contains("no secret-dependent branch or address");
        assert!(not_run || (clean && !old_valgrind), "{r}");
        // Measured all the same.
        assert!(md.contains(&format!("| `{lib}` | **PASS** |")), "{md}");
    }
    // The records hold the audits, and the page regenerates from them.
    let check = Command::new(assert_cmd::cargo::cargo_bin("pavelor"))
        .args(["report", "--check"])
        .arg(&out)
        .output()
        .unwrap();
    assert!(
        check.status.success(),
        "{}",
        String::from_utf8_lossy(&check.stderr)
    );
    site_and_compare_read_the_audit(dir.path(), &out);
}

/// `site` puts the audit in its index and the system's summary; `compare`
/// names a change of verdict (NEW: a copy whose record says `table` came
/// out clean, its pages rendered again from the records).
fn site_and_compare_read_the_audit(dir: &Path, out: &Path) {
    let pavelor = || Command::new(assert_cmd::cargo::cargo_bin("pavelor"));
    let site = dir.join("site");
    let o = pavelor()
        .arg("site")
        .arg("--out")
        .arg(&site)
        .arg(out)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let index = std::fs::read_to_string(site.join("index.html")).unwrap();
    assert!(index.contains("constant-time audit"), "{index}");
    assert!(
        index.contains("<strong>findings</strong>: <code>table</code>, <code>branch</code>"),
        "{index}"
    );

    let new = dir.join("new");
    common::copy_dir(out, &new);
    let record = new.join("records/library-table.json");
    let mut lib: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&record).unwrap()).unwrap();
    lib["audit"]["verdict"] = "clean".into();
    lib["audit"]["findings"].take();
    std::fs::write(&record, serde_json::to_vec_pretty(&lib).unwrap()).unwrap();
    let o = pavelor()
        .arg("report")
        .arg("--render")
        .arg(&new)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let o = pavelor()
        .arg("compare")
        .arg(out)
        .arg(&new)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(
        text.contains("constant-time audit of `table`: BASE 1 finding; NEW no secret-dependent branch or address in 33 calls"),
        "{text}\n{}",
        String::from_utf8_lossy(&o.stderr)
    );
}
