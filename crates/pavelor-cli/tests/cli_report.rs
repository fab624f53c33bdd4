//! `pavelor report` on a tiny configuration: every section is there, every
//! figure in a performance table traces to a record file holding it. The
//! KAT step uses the official answers built into the binary (no
//! `../shared/kat` needed).

#![allow(clippy::unwrap_used, clippy::panic)] // tests may fail loudly

use assert_cmd::Command;

#[test]
fn tiny_report_has_every_section_and_traceable_figures() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("report");
    Command::cargo_bin("pavelor")
        .unwrap()
        .args([
            "report",
            "--quick",
            "--trials",
            "2",
            "--sizes",
            "32,200",
            "--skip-2-33",
            "--out",
        ])
        .arg(&out)
        .assert()
        .success();
    let md = std::fs::read_to_string(out.join("report.md")).unwrap();
    for section in [
        "## 1. Basic information",
        "## 2. Assessment environment",
        "## 3. Functional testing",
        "## 4. Performance",
        "## 5. Resource consumption",
        "## 6. Public-key specific figures",
        "## 7. Raw evidence index",
        "## Comparison with the reference campaigns",
    ] {
        assert!(md.contains(section), "missing {section}");
    }
    assert!(!md.contains("**FAIL**"), "a KAT failed:\n{md}");
    for alg in ["pavelor-512", "pavelor-768", "pavelor-1024"] {
        let svg = std::fs::read_to_string(out.join(format!("chart-{alg}.svg"))).unwrap();
        assert!(svg.contains("<polyline"), "{alg} chart has no line");
    }
    // Every performance row: `| Sx | bytes | mean | per byte | median | time | MB/s | n | [json](./records/...) |`.
    let mut rows = 0;
    for line in md.lines().filter(|l| l.contains("[json](./records/")) {
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        let link = cells[9]
            .trim_start_matches("[json](./")
            .trim_end_matches(')');
        let record: serde_json::Value =
            serde_json::from_slice(&std::fs::read(out.join(link)).unwrap()).unwrap();
        let shown_mean: f64 = cells[3].parse().unwrap();
        let shown_mbs: f64 = cells[7].parse().unwrap();
        assert_eq!(
            shown_mean,
            record["mean_cycles"].as_f64().unwrap().round(),
            "{line}"
        );
        assert!(
            (shown_mbs - record["mb_per_s"].as_f64().unwrap()).abs() < 0.051,
            "{line}"
        );
        assert_eq!(cells[2], record["message_bytes"].to_string(), "{line}");
        let trials = record["trials"].as_array().unwrap();
        assert_eq!(trials.len(), 2);
        let calls: u64 = trials.iter().map(|t| t["calls"].as_u64().unwrap()).sum();
        assert!(cells[8].starts_with(&format!("{calls} (2 × ")), "{line}");
        assert!(record["command_line"].as_array().unwrap().len() >= 2);
        assert!(record["environment"]["cpu_model"].is_string());
        rows += 1;
    }
    // 3 instances x every backend x 2 sizes, plus 5 comparison hashes x 2 sizes.
    let backends = pavelor::Backend::ALL
        .iter()
        .filter(|b| b.is_available())
        .count();
    assert_eq!(rows, 3 * backends * 2 + 5 * 2);
    for f in ["kat.json", "environment.json"] {
        assert!(out.join("records").join(f).is_file(), "{f}");
    }
    // No temporary files left behind.
    for entry in std::fs::read_dir(&out)
        .unwrap()
        .chain(std::fs::read_dir(out.join("records")).unwrap())
    {
        let name = entry.unwrap().file_name();
        assert!(
            !name.to_string_lossy().starts_with('.'),
            "left over {name:?}"
        );
    }
}

#[test]
fn report_rejects_bad_options() {
    for args in [
        &["report", "--sizes", "0"][..],
        &["report", "--trials", "0"],
        &["report", "--cpu", "9999"],
    ] {
        let out = Command::cargo_bin("pavelor")
            .unwrap()
            .args(args)
            .output()
            .unwrap();
        assert!(!out.status.success(), "{args:?}");
        assert!(!String::from_utf8_lossy(&out.stderr).is_empty());
    }
}
