//! `pavelor compare`: a run against itself, a library that does twice the
//! work against ours, the `--fail-above` gate, mismatched and tampered
//! runs. Each run is a real `pavelor report` of our library at
//! 4096 B by the NICCS method with short trials (disturbed trials run
//! again), the Rust backends beside it.

#![allow(clippy::unwrap_used, clippy::panic)] // tests may fail loudly

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::OnceLock;

mod common;

use common::{cc_shim, our_crypthash};

fn pavelor() -> Command {
    let mut c = Command::new(assert_cmd::cargo::cargo_bin("pavelor"));
    c.stdin(Stdio::null());
    c
}

/// The two report directories: BASE measures ours as `x`, NEW the
/// twice-hashing shim as `x` (5 trials each, and NEW with 4: the method
/// differs on purpose). `disturbed`: a trial of the library's figure waited
/// for the CPU in each of [`ATTEMPTS`] pairs of runs, so its ratio says
/// little.
struct Runs {
    _dir: tempfile::TempDir,
    base: PathBuf,
    new: PathBuf,
    disturbed: bool,
}

/// Pairs of runs measured at most, while the library's figure is disturbed.
const ATTEMPTS: usize = 3;

fn report(out: &Path, lib: &Path, trials: &str) {
    let o = pavelor()
        .args([
            "report",
            "--no-ct-audit",
            "--skip-2-33",
            "--trials",
            trials,
            "--trial-seconds",
            "0.05",
            "--sizes",
            "4096",
            "--no-compare",
            "--no-baselines",
            "--out",
        ])
        .arg(out)
        .arg("--lib")
        .arg(format!("x={}", lib.display()))
        .output()
        .unwrap();
    assert!(
        o.status.success(),
        "report: {}",
        String::from_utf8_lossy(&o.stderr)
    );
}

fn runs() -> &'static Runs {
    static RUNS: OnceLock<Runs> = OnceLock::new();
    RUNS.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let ours = our_crypthash();
        let twice = cc_shim(dir.path(), "twice", "hash_twice", &ours);
        let (base, new) = (dir.path().join("base"), dir.path().join("new"));
        let mut disturbed = true;
        for attempt in 1..=ATTEMPTS {
            if attempt > 1 {
                std::fs::remove_dir_all(&base).unwrap();
                std::fs::remove_dir_all(&new).unwrap();
                eprintln!("cli_compare: the library's figure was disturbed; attempt {attempt}");
            }
            report(&base, &ours, "5");
            report(&new, &twice, "4");
            let md = stdout(&compare(&[base.as_os_str(), new.as_os_str()]));
            disturbed = lib_row(&md).contains('†');
            if !disturbed {
                break;
            }
        }
        Runs {
            _dir: dir,
            base,
            new,
            disturbed,
        }
    })
}

fn compare(args: &[&std::ffi::OsStr]) -> Output {
    pavelor().arg("compare").args(args).output().unwrap()
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// The table row of the library's Pavelor-512 figure.
fn lib_row(md: &str) -> String {
    md.lines()
        .find(|l| l.starts_with("| Pavelor-512 (C library x) | 4096 B"))
        .unwrap_or_else(|| panic!("no row of library x:\n{md}"))
        .to_string()
}

#[test]
fn a_run_compared_with_itself_shows_no_difference_anywhere() {
    let r = runs();
    let out = tempfile::tempdir().unwrap();
    let o = compare(&[
        r.base.as_os_str(),
        r.base.as_os_str(),
        "--fail-above".as_ref(),
        "20".as_ref(),
        "--out".as_ref(),
        out.path().as_os_str(),
    ]);
    let md = stdout(&o);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{md}\n{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(md.contains("The two runs agree on the machine"), "{md}");
    let json: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.path().join("compare.json")).unwrap()).unwrap();
    let pairs = json["pairs"].as_array().unwrap();
    assert!(pairs.len() >= 4, "{json}");
    for p in pairs {
        assert_eq!(p["verdict"], "no_significant_difference", "{p}");
        assert_eq!(p["interval"]["ratio"], 1.0, "{p}");
    }
    assert!(json["only_base"].as_array().unwrap().is_empty());
    for f in ["compare.md", "compare.html", "compare-ratios.svg"] {
        assert!(out.path().join(f).is_file(), "{f}");
    }
    let html = std::fs::read_to_string(out.path().join("compare.html")).unwrap();
    assert!(html.contains("<svg") && html.contains("Content-Security-Policy"));
}

/// Section 11 shows each figure's 95% interval beside its mean: here the
/// library's, recomputed from its record's 5 trials with the textbook
/// formula (mean ± t(4) · s / sqrt(5), t(4) = 2.7764 from the printed
/// tables).
#[test]
fn the_side_by_side_section_shows_the_interval_of_each_mean() {
    let r = runs();
    let md = std::fs::read_to_string(r.base.join("report.md")).unwrap();
    let row = md
        .lines()
        .find(|l| l.starts_with("| C x |"))
        .unwrap_or_else(|| panic!("no side-by-side row for x:\n{md}"));
    let shown: f64 = row
        .split('±')
        .nth(1)
        .and_then(|rest| rest.split('%').next())
        .and_then(|p| p.trim().parse().ok())
        .unwrap_or_else(|| panic!("no ±P% in {row}"));
    let rec: serde_json::Value = serde_json::from_slice(
        &std::fs::read(r.base.join("records/lib-x.pavelor-512.S5-4096.json")).unwrap(),
    )
    .unwrap();
    let xs: Vec<f64> = rec["trials"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["cycles"].as_f64().unwrap() / t["calls"].as_f64().unwrap())
        .collect();
    assert_eq!(xs.len(), 5);
    let mean = xs.iter().sum::<f64>() / 5.0;
    let s = (xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / 4.0).sqrt();
    let expected = 100.0 * 2.776_445 * s / 5f64.sqrt() / mean;
    assert!(
        (shown - expected).abs() <= 0.051,
        "shown ±{shown}%, the formula gives ±{expected:.3}% ({row})"
    );
    // The NICCS sections stay the harness's: no interval there.
    let niccs = md.split("## Beyond the NICCS guide").next().unwrap();
    assert!(!niccs.contains('±'), "an interval in the NICCS sections");
}

#[test]
fn a_library_hashing_twice_is_slower_at_about_2x_and_the_gate_fails() {
    let r = runs();
    let o = compare(&[r.base.as_os_str(), r.new.as_os_str()]);
    let md = stdout(&o);
    assert_eq!(o.status.code(), Some(0), "{md}");
    // The method (5 trials against 4) and the library's file are named.
    assert!(md.contains("**The runs differ**"), "{md}");
    assert!(md.contains("- method: BASE 5 trials"), "{md}");
    assert!(md.contains("- library `x`: BASE SHA-256 "), "{md}");
    let row = lib_row(&md);
    let cells: Vec<&str> = row.split('|').map(str::trim).collect();
    // | name | length | base | new | ratio | interval | trials | verdict |
    let ratio: f64 = cells[5].parse().unwrap();
    let (low, high) = cells[6].split_once(" – ").unwrap();
    let (low, high): (f64, f64) = (low.parse().unwrap(), high.parse().unwrap());
    assert!(low <= ratio && ratio <= high, "{row}");
    assert_eq!(cells[7], "5 / 4", "{row}");
    if r.disturbed {
        eprintln!(
            "NOT CHECKED: the ratio near 2 (the figure was disturbed in {ATTEMPTS} pairs of runs): {row}"
        );
        return;
    }
    // Twice the work: about 2x, within what two runs of 5 and 4 short
    // trials on a shared machine give (2.75 has been seen without a
    // disturbed trial); well clear of 1 either way.
    assert!((1.5..=3.5).contains(&ratio), "{row}");
    assert!(low > 1.0, "{row}");
    assert!(cells[8].starts_with("**slower**"), "{row}");
    let gated = compare(&[
        r.base.as_os_str(),
        r.new.as_os_str(),
        "--fail-above".as_ref(),
        "20".as_ref(),
    ]);
    assert_eq!(gated.status.code(), Some(1));
    let err = String::from_utf8_lossy(&gated.stderr);
    assert!(err.contains("Pavelor-512 (C library x) at 4096 B"), "{err}");
}

#[test]
fn a_tampered_or_missing_run_is_refused_in_one_line() {
    let r = runs();
    let dir = tempfile::tempdir().unwrap();
    let copy = dir.path().join("copy");
    let o = Command::new("cp")
        .arg("-r")
        .arg(&r.base)
        .arg(&copy)
        .output()
        .unwrap();
    assert!(o.status.success());
    let rec = std::fs::read_dir(copy.join("records"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| {
            p.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("lib-x.pavelor-512")
        })
        .expect("the library's record");
    let text = std::fs::read_to_string(&rec).unwrap();
    // A timed trial's count, one digit longer.
    let at = text.find("\"trials\": [").expect("the trials");
    let tampered = format!(
        "{}{}",
        &text[..at],
        text[at..].replacen("\"cycles\": ", "\"cycles\": 1", 1)
    );
    assert_ne!(text, tampered);
    std::fs::write(&rec, tampered).unwrap();
    for bad in [copy.as_path(), dir.path().join("missing").as_path()] {
        let o = compare(&[r.base.as_os_str(), bad.as_os_str()]);
        assert_eq!(o.status.code(), Some(2));
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(err.trim_end().lines().count(), 1, "{err}");
        assert!(
            err.contains("is not a report directory that passes report --check"),
            "{err}"
        );
        assert!(o.stdout.is_empty());
    }
}
