//! `pavelor report --sweep`: every Pavelor implementation, ours and a
//! library's, swept at every length of the quick plan in workers of their
//! own; a library that is wrong only at a length the sweep alone measures
//! is caught there and fails the report; `report --check` reads the sweep
//! back and refuses an edited or missing record; `compare` of a run with
//! itself names no length; the site has the page of every length.
//!
//! The run is timed like every report; it shares the CPU with other
//! tests' campaigns only through [`common::serial`].

#![allow(clippy::unwrap_used, clippy::panic)] // tests may fail loudly

mod common;

use std::path::Path;

use assert_cmd::Command;
use common::{cc_shim, copy_dir, our_crypthash, serial};

fn pavelor() -> Command {
    Command::cargo_bin("pavelor").unwrap()
}

fn check(dir: &Path) -> std::process::Output {
    pavelor()
        .args(["report", "--check"])
        .arg(dir)
        .output()
        .unwrap()
}

#[test]
fn report_sweep_of_ours_and_a_library_reads_back_and_compares() {
    let _serial = serial();
    let tmp = tempfile::tempdir().unwrap();
    let good = our_crypthash();
    let sly = cc_shim(tmp.path(), "sly", "wrong_at_5104_bytes", &good);
    let out = tmp.path().join("report");
    let run = pavelor()
        .args([
            "report",
            "--quick",
            "--sweep",
            "--sweep-seed",
            "11",
            "--trials",
            "1",
            "--sizes",
            "32",
            "--skip-2-33",
            "--no-compare",
            "--no-baselines",
            "--no-ct-audit",
            "--system-id",
            "swept",
            "--out",
        ])
        .arg(&out)
        .arg("--lib")
        .arg(format!("good={}", good.display()))
        .arg("--lib")
        .arg(format!("sly={}", sly.display()))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&run.stdout);
    let stderr = String::from_utf8_lossy(&run.stderr);
    // The sly library passes its gate and its figure; only the sweep sees
    // its wrong answer, and that fails the report.
    assert_eq!(run.status.code(), Some(1), "{stdout}\n{stderr}");
    assert!(
        stdout.contains("sweep of Pavelor-512 (C library sly): wrong: ")
            && stdout.contains("the first at 5104 B"),
        "{stdout}"
    );
    let md = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(md.contains("gave no length sweep (section 16)"), "{md}");
    let section = &md[md.find("## 16. Every length (the eBASH method)").unwrap()..];
    assert!(section.contains("Not swept:"), "{section}");
    assert!(section.contains("sly"), "{section}");
    for alg in ["Pavelor-512", "Pavelor-768", "Pavelor-1024"] {
        assert!(section.contains(&format!("### {alg}")), "{alg}");
        let chart = out.join(format!("sweep-{}.svg", alg.to_ascii_lowercase()));
        let svg = std::fs::read_to_string(&chart).unwrap();
        assert!(svg.contains("Rust portable"), "{}", chart.display());
    }
    // The library's row in the table and the steps table, with a step per
    // boundary of 192 B up to 4096 (21).
    let good_rows: Vec<&str> = section
        .lines()
        .filter(|l| l.starts_with("| C good |"))
        .collect();
    assert_eq!(good_rows.len(), 2, "{section}");
    assert!(
        good_rows[1].starts_with("| C good | 21 |"),
        "{}",
        good_rows[1]
    );
    assert!(
        std::fs::read_to_string(out.join("sweep-pavelor-512.svg"))
            .unwrap()
            .contains("C good")
    );
    let sweep_dir = out.join("records/sweep");
    assert!(sweep_dir.join("lib-good.pavelor-512.json").is_file());
    assert!(!sweep_dir.join("lib-sly.pavelor-512.json").exists());
    let failures = std::fs::read_to_string(sweep_dir.join("failures.json")).unwrap();
    assert!(
        failures.contains("lib-sly") || failures.contains("\"sly\""),
        "{failures}"
    );

    // --check reads every sweep record back against its samples and the
    // pages against what they give.
    let ok = check(&out);
    let said = String::from_utf8_lossy(&ok.stdout);
    assert!(
        ok.status.success(),
        "{said}{}",
        String::from_utf8_lossy(&ok.stderr)
    );
    assert!(
        said.contains("sweep records agree with their samples") && said.contains("and 6 charts"),
        "{said}"
    );

    // An edited sample (at 8 B, a published column) is refused, naming the
    // record; so is a missing record.
    let edited = tmp.path().join("edited");
    copy_dir(&out, &edited);
    let name = "records/sweep/pavelor-512.portable.json";
    let mut rec: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(edited.join(name)).unwrap()).unwrap();
    let lengths = rec["curve"]["plan"]["lengths"].as_array().unwrap().clone();
    let at8 = lengths.iter().position(|n| n == 8).unwrap();
    for s in rec["curve"]["samples"][at8].as_array_mut().unwrap() {
        *s = serde_json::json!(1);
    }
    std::fs::write(edited.join(name), rec.to_string()).unwrap();
    let refused = check(&edited);
    let why = String::from_utf8_lossy(&refused.stderr);
    assert!(!refused.status.success());
    assert!(why.contains(name) && why.contains("summary"), "{why}");
    std::fs::remove_file(edited.join(name)).unwrap();
    let refused = check(&edited);
    let why = String::from_utf8_lossy(&refused.stderr);
    assert!(!refused.status.success());
    assert!(why.contains(name) && why.contains("missing"), "{why}");

    // A run compared with itself: every length paired, none named.
    let cmp = tmp.path().join("cmp");
    pavelor()
        .args(["compare", "--out"])
        .arg(&cmp)
        .arg(&out)
        .arg(&out)
        .assert()
        .success();
    let text = std::fs::read_to_string(cmp.join("compare.md")).unwrap();
    let sweeps = &text[text.find("## Every length (the eBASH sweep)").unwrap()..];
    let compared = sweeps
        .matches("lengths compared: NEW faster at no length, slower at no length; 0 more")
        .count();
    // Every backend of ours here (portable at least) for three instances,
    // and the good library's Pavelor-512.
    assert!(compared >= 4, "{sweeps}");
    assert_eq!(
        compared,
        sweeps.matches("lengths compared").count(),
        "{sweeps}"
    );

    // The site's page of every length shows the run's curves.
    let site = tmp.path().join("site");
    pavelor()
        .args(["site", "--out"])
        .arg(&site)
        .arg(&out)
        .assert()
        .success();
    let page = std::fs::read_to_string(site.join("every-length.html")).unwrap();
    assert!(
        page.contains("swept: C good (") && page.contains("<svg"),
        "site page"
    );
}

#[test]
fn sweep_options_are_checked_before_measuring() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("r");
    // A seed without the sweep, and the sweep with --check, are refused
    // by the option parser.
    pavelor()
        .args(["report", "--sweep-seed", "3", "--out"])
        .arg(&out)
        .assert()
        .failure()
        .code(2);
    pavelor()
        .args(["report", "--sweep", "--check"])
        .arg(&out)
        .assert()
        .failure()
        .code(2);
    assert!(!out.exists());
}
