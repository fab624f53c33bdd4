//! `pavelor site`: two quick runs with different system ids merge into a
//! site whose every relative link resolves, whose pages fetch nothing and
//! whose cross-system page shows both systems; a tampered run, two runs of
//! one system id, and an output directory that is not a site are refused
//! with one line and leave no partial site.
//!
//! The runs are timed like every report; they share the CPU with other
//! tests' campaigns only through [`common::serial`].

#![allow(clippy::unwrap_used, clippy::panic)] // tests may fail loudly

mod common;

use std::path::Path;

use assert_cmd::Command;
use common::serial;

fn pavelor() -> Command {
    Command::cargo_bin("pavelor").unwrap()
}

fn quick_run(out: &Path, system: &str) {
    pavelor()
        .args([
            "report",
            "--no-ct-audit",
            "--quick",
            "--trials",
            "1",
            "--sizes",
            "32,1024",
            "--skip-2-33",
            "--no-compare",
            "--system-id",
            system,
            "--out",
        ])
        .arg(out)
        .assert()
        .success();
}

fn fails(cmd: &mut Command, needle: &str) {
    let out = cmd.output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "succeeded: {err}");
    assert_eq!(err.trim_end().lines().count(), 1, "one line: {err}");
    assert!(err.contains(needle), "{needle:?} not in: {err}");
}

#[test]
fn two_systems_merge_into_a_site_whose_links_all_resolve() {
    let _serial = serial();
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (dir.path().join("run-a"), dir.path().join("run-b"));
    quick_run(&a, "x86_a");
    quick_run(&b, "arm_b");
    let site = dir.path().join("site");
    let out = pavelor()
        .arg("site")
        .arg("--out")
        .arg(&site)
        .arg(&a)
        .arg(&b)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(said.contains("2 system(s) (x86_a, arm_b)"), "{said}");

    let names = common::site_pages_and_links_resolve(&site);
    for want in [
        "index.html",
        "compare.html",
        "x86_a/index.html",
        "x86_a/hash-22.html",
        "x86_a/method.html",
        "x86_a/report.html",
        "arm_b/index.html",
        "arm_b/hash-22.html",
    ] {
        assert!(names.contains(want), "no {want} in {names:?}");
    }
    // The cross-system page: both systems at each instance, with a chart each.
    let cmp = std::fs::read_to_string(site.join("compare.html")).unwrap();
    assert_eq!(cmp.matches("<svg").count(), 3);
    for sys in ["x86_a", "arm_b"] {
        assert!(
            cmp.matches(&format!("<td>{sys}</td>")).count() >= 6,
            "{sys} rows"
        );
    }
    assert!(cmp.contains("×</td>"), "no × pseudoXOF factor");
    // The summary has the baselines and × pseudoXOF on the Pavelor rows;
    // the candidate page is in the NICCS layout with the system links.
    let summary = std::fs::read_to_string(site.join("x86_a/index.html")).unwrap();
    assert!(summary.contains("<code>pseudoXOF</code>") && summary.contains("<code>sm3hash</code>"));
    assert!(summary.contains("×)</td>"));
    let cand = std::fs::read_to_string(site.join("arm_b/hash-22.html")).unwrap();
    assert!(cand.contains("<a href=\"../x86_a/hash-22.html\">x86_a</a> · <strong>arm_b</strong>"));
    assert!(cand.contains("<h2 id=\"7-raw-evidence-index\">"));

    // Made again over itself: replaced, still whole.
    pavelor()
        .arg("site")
        .arg("--out")
        .arg(&site)
        .arg(&a)
        .arg(&b)
        .assert()
        .success();
    assert!(site.join("compare.html").is_file());

    // Refusals, each before anything is written.
    let other = dir.path().join("not-a-site");
    std::fs::create_dir(&other).unwrap();
    std::fs::write(other.join("keep.txt"), "mine").unwrap();
    fails(
        pavelor().arg("site").arg("--out").arg(&other).arg(&a),
        "not a site made by pavelor site",
    );
    assert_eq!(
        std::fs::read_to_string(other.join("keep.txt")).unwrap(),
        "mine"
    );
    fails(
        pavelor()
            .arg("site")
            .arg("--out")
            .arg(a.join("site"))
            .arg(&a),
        "inside a run",
    );
    let twice = dir.path().join("twice");
    fails(
        pavelor()
            .arg("site")
            .arg("--out")
            .arg(&twice)
            .arg(&a)
            .arg(&a),
        "already another run's",
    );
    assert!(!twice.exists());
    // A tampered record is refused with the validator's reason.
    let record = std::fs::read_dir(b.join("records"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| {
            p.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("pseudoxof-512.S1")
        })
        .unwrap();
    let mut r: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&record).unwrap()).unwrap();
    let cycles = r["trials"][0]["cycles"].as_u64().unwrap();
    r["trials"][0]["cycles"] = serde_json::json!(cycles / 2);
    std::fs::write(&record, serde_json::to_vec_pretty(&r).unwrap()).unwrap();
    let fresh = dir.path().join("fresh");
    fails(
        pavelor()
            .arg("site")
            .arg("--out")
            .arg(&fresh)
            .arg(&a)
            .arg(&b),
        "refusing the run",
    );
    assert!(!fresh.exists(), "a partial site");
}
