//! The NICCS harness's own published arm_1 dataset beside a run of ours:
//! `pavelor site` puts both on one site, `pavelor compare` pairs them by
//! instance and length, a dataset's text is shown as text, and a tampered
//! dataset is refused by either with one line.
//!
//! The dataset comes from `PAVELOR_NICCS_DIR` (docs/contributing.md says
//! where CI finds it); without it each test says SKIPPED and passes. The
//! pages are also rendered in headless Chromium by `scripts/ci-site.sh`
//! when the dataset is there.

#![allow(clippy::unwrap_used, clippy::panic)] // tests may fail loudly

mod common;

use std::path::Path;
use std::sync::OnceLock;

use assert_cmd::Command;
use common::{copy_dir, harness_arm_1, serial, site_pages_and_links_resolve};

fn pavelor() -> Command {
    Command::cargo_bin("pavelor").unwrap()
}

/// One quick run of ours, at 32 B and 64 KiB with 2 trials (so that
/// `compare` has intervals), shared by the tests of this binary.
fn our_run() -> &'static Path {
    static RUN: OnceLock<tempfile::TempDir> = OnceLock::new();
    RUN.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        pavelor()
            .args([
                "report",
                "--no-ct-audit",
                "--quick",
                "--trials",
                "2",
                "--sizes",
                "32,65536",
                "--skip-2-33",
                "--no-compare",
                "--system-id",
                "x86_here",
                "--out",
            ])
            .arg(dir.path().join("run"))
            .assert()
            .success();
        dir
    })
    .path()
    .join("run")
    .leak()
}

fn one_line_failure(cmd: &mut Command, code: i32, needle: &str) {
    let out = cmd.output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(code), "{err}");
    assert_eq!(err.trim_end().lines().count(), 1, "one line: {err}");
    assert!(err.contains(needle), "{needle:?} not in: {err}");
}

/// A copy of arm_1 whose Pavelor-512 64 KiB record claims a mean of half
/// its trials' cycles.
fn tampered(arm_1: &Path, into: &Path) -> std::path::PathBuf {
    let copy = into.join("arm_1");
    copy_dir(arm_1, &copy);
    let record = copy.join("records/hash-22/Pavelor-512__hash_65536.json");
    let text = std::fs::read_to_string(&record).unwrap();
    let mut v: serde_json::Value = serde_json::from_str(&text).unwrap();
    let mean = v["mean_cycles"].as_f64().unwrap();
    v["mean_cycles"] = serde_json::json!(mean / 2.0);
    std::fs::write(&record, serde_json::to_string_pretty(&v).unwrap()).unwrap();
    copy
}

#[test]
fn a_harness_dataset_joins_the_site_beside_a_run() {
    let Some(arm_1) = harness_arm_1("a_harness_dataset_joins_the_site_beside_a_run") else {
        return;
    };
    let _serial = serial();
    let run = our_run();
    let dir = tempfile::tempdir().unwrap();
    let site = dir.path().join("site");
    let done = pavelor()
        .arg("site")
        .arg("--out")
        .arg(&site)
        .arg(run)
        .arg(&arm_1)
        .assert()
        .success();
    let said = String::from_utf8_lossy(&done.get_output().stdout);
    assert!(said.contains("2 system(s) (x86_here, arm_1)"), "{said}");
    let pages = site_pages_and_links_resolve(&site);
    for want in [
        "arm_1/index.html",
        "arm_1/hash-22.html",
        "arm_1/method.html",
    ] {
        assert!(pages.contains(want), "no {want} in {pages:?}");
    }
    assert!(!pages.contains("arm_1/report.html"));
    assert!(site.join("arm_1/niccs/arm_1/campaign.json").is_file());

    // The index: arm_1 with its processor, counter and headline figure,
    // labelled as NICCS's; ours beside it; one chart.
    let index = std::fs::read_to_string(site.join("index.html")).unwrap();
    let arm_row = index
        .split("<tr>")
        .find(|r| r.contains("arm_1/index.html"))
        .unwrap();
    for want in [
        "Qualcomm Oryon",
        "<td>cycles</td>",
        "187.5 cycles/byte",
        "14.4 MB/s",
        "the reference C, published by NICCS, not measured by pavelor",
    ] {
        assert!(arm_row.contains(want), "{want:?} not in {arm_row}");
    }
    let our_row = index
        .split("<tr>")
        .find(|r| r.contains("x86_here/index.html"))
        .unwrap();
    assert!(our_row.contains("measured by pavelor") && our_row.contains("MB/s"));
    assert_eq!(index.matches("<svg").count(), 1, "the headline chart");

    // The comparison page: arm_1's Pavelor-512 64 KiB row next to ours,
    // each with its implementation, source and counter.
    let cmp = std::fs::read_to_string(site.join("compare.html")).unwrap();
    let rows: Vec<&str> = cmp
        .split("<tr>")
        .filter(|r| r.contains("<td>64 KiB</td>"))
        .collect();
    let arm = rows
        .iter()
        .find(|r| r.contains("<td>arm_1</td>") && r.contains(">187.5</td>"))
        .unwrap_or_else(|| panic!("no arm_1 64 KiB row of 187.5: {rows:?}"));
    for want in [
        "the reference C",
        "published by NICCS",
        "<td>cycles</td>",
        ">14.4</td>",
    ] {
        assert!(arm.contains(want), "{want:?} not in {arm}");
    }
    assert!(
        rows.iter()
            .any(|r| r.contains("<td>x86_here</td>") && r.contains("measured by pavelor")),
        "{rows:?}"
    );

    // The harness's own hash-22 page, with its evidence in the site.
    let page = std::fs::read_to_string(site.join("arm_1/hash-22.html")).unwrap();
    assert!(
        page.contains(
            "<td><code>Pavelor-512</code></td><td>65536 B</td><td>12.29 M</td><td>187.5</td>"
        ),
        "no performance row"
    );
    assert!(page.contains("Published by NICCS, not measured by pavelor."));
    let method = std::fs::read_to_string(site.join("arm_1/method.html")).unwrap();
    assert!(method.contains("Host checks") && method.contains("Qualcomm Oryon"));
}

#[test]
fn compare_pairs_a_harness_dataset_with_a_run_by_instance_and_length() {
    let Some(arm_1) =
        harness_arm_1("compare_pairs_a_harness_dataset_with_a_run_by_instance_and_length")
    else {
        return;
    };
    let _serial = serial();
    let run = our_run();
    for (base, new) in [(arm_1.as_path(), run), (run, arm_1.as_path())] {
        let out = pavelor()
            .arg("compare")
            .arg(base)
            .arg(new)
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{stdout}{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(
            stdout.contains("These are two different setups"),
            "{stdout}"
        );
        assert!(stdout.contains("not about the hash"), "{stdout}");
        assert!(stdout.contains("published by NICCS"), "{stdout}");
        assert!(stdout.contains("**6 figures compared"), "{stdout}");
        // Each row names both sides' implementations.
        let row = stdout
            .lines()
            .find(|l| {
                l.starts_with("| Pavelor-512 — BASE ")
                    && l.contains("NICCS: the reference C")
                    && l.contains("ours: Rust ")
                    && l.contains("| 65536 B |")
            })
            .unwrap_or_else(|| panic!("no Pavelor-512 64 KiB pair: {stdout}"));
        // arm_1's reference C at 14.4 MB/s against our hardware AES: the
        // ratio is far from 1 one way or the other, and significant.
        let ratio: f64 = row.split('|').nth(5).unwrap().trim().parse().unwrap();
        let expected_slower = base != arm_1.as_path();
        assert!(
            if expected_slower {
                ratio > 10.0
            } else {
                ratio < 0.1
            },
            "{row}"
        );
        assert!(
            row.contains("**faster**") || row.contains("**slower**"),
            "{row}"
        );
    }
}

#[test]
fn a_datasets_text_is_shown_as_text() {
    let Some(arm_1) = harness_arm_1("a_datasets_text_is_shown_as_text") else {
        return;
    };
    let _serial = serial();
    let run = our_run();
    let dir = tempfile::tempdir().unwrap();
    // A processor name with a cell separator, HTML and a script link: the
    // validator has no rule against it.
    let copy = dir.path().join("arm_1");
    copy_dir(&arm_1, &copy);
    let campaign = copy.join("campaign.json");
    let mut v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&campaign).unwrap()).unwrap();
    v["environment_at_start"]["cpu_model"] =
        serde_json::json!("Oryon | <img src=x onerror=alert(1)> [l](javascript:alert(2))");
    std::fs::write(&campaign, serde_json::to_string_pretty(&v).unwrap()).unwrap();
    let site = dir.path().join("site");
    pavelor()
        .arg("site")
        .arg("--out")
        .arg(&site)
        .arg(run)
        .arg(&copy)
        .assert()
        .success();
    for page in site_pages_and_links_resolve(&site) {
        let html = std::fs::read_to_string(site.join(&page)).unwrap();
        assert!(!html.contains("<img"), "{page}");
        assert!(
            !html.to_ascii_lowercase().contains("href=\"javascript"),
            "{page}"
        );
    }
    let index = std::fs::read_to_string(site.join("index.html")).unwrap();
    let row = index
        .split("<tr>")
        .find(|r| r.contains("arm_1/index.html"))
        .unwrap();
    assert!(
        row.contains(
            "<td>Oryon | &lt;img src=x onerror=alert(1)&gt; [l](javascript:alert(2))</td>"
        ),
        "{row}"
    );
    assert_eq!(row.matches("<td").count(), 8, "{row}");
}

#[test]
fn a_tampered_harness_dataset_is_refused_with_one_line() {
    let Some(arm_1) = harness_arm_1("a_tampered_harness_dataset_is_refused_with_one_line") else {
        return;
    };
    let _serial = serial();
    let run = our_run();
    let dir = tempfile::tempdir().unwrap();
    let bad = tampered(&arm_1, dir.path());
    let site = dir.path().join("site");
    one_line_failure(
        pavelor()
            .arg("site")
            .arg("--out")
            .arg(&site)
            .arg(run)
            .arg(&bad),
        1,
        "refusing the harness dataset",
    );
    assert!(!site.exists(), "a partial site");
    one_line_failure(
        pavelor().arg("compare").arg(run).arg(&bad),
        2,
        "is not a harness dataset that passes the harness validator's rules",
    );
}
