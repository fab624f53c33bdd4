//! `pavelor compare` on hostile evidence: directories made from a real
//! report (and from the NICCS harness's arm_1 dataset, where
//! `PAVELOR_NICCS_DIR` has it: docs/contributing.md) with one thing
//! changed, each a reviewer's reproduction. No output may hold a NaN or an
//! infinity, a figure without an interval says why, the gate gates, each
//! row names its implementations, counters are read from every record,
//! `--out` stays out of the inputs, and a dataset refused after the
//! validator's rules is not said to break them.
//!
//! A record edited here keeps its derived figures consistent (recomputed
//! from its trials), and a report's pages are rendered again, so the
//! directory passes `report --check` as it stands. A reading side that
//! refuses the edit (exit 2, one line) is as good as a right answer.

#![allow(clippy::unwrap_used, clippy::panic)] // tests may fail loudly

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::OnceLock;

use common::{copy_dir, harness_arm_1};
use pavelor_measure::campaign::Measurement;
use pavelor_measure::clock::CounterKind;
use pavelor_report::record_files::figure_record_name;
use pavelor_report::records::{Derived, FigureRecord, RunRecord};
use serde_json::Value;

fn pavelor() -> Command {
    let mut c = Command::new(assert_cmd::cargo::cargo_bin("pavelor"));
    c.stdin(Stdio::null());
    c
}

/// A quick report of our Rust backends (3 trials a figure, no reruns) at
/// the lengths `sizes`, into `out`.
fn report(out: &Path, sizes: &str) {
    common::quick_report(out, "3", sizes, &["--no-ct-audit"]);
}

/// The report at 4096 B every test starts from (made once).
fn base() -> &'static Path {
    static RUN: OnceLock<tempfile::TempDir> = OnceLock::new();
    RUN.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        report(&dir.path().join("run"), "4096");
        dir
    })
    .path()
    .join("run")
    .leak()
}

/// A copy of the base report at `into/name`.
fn copy_of_base(into: &Path, name: &str) -> PathBuf {
    let to = into.join(name);
    copy_dir(base(), &to);
    to
}

fn compare(args: &[&std::ffi::OsStr]) -> Output {
    pavelor().arg("compare").args(args).output().unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// The run record of a report directory.
fn run_record(run: &Path) -> RunRecord {
    serde_json::from_slice(&std::fs::read(run.join("records/report.json")).unwrap()).unwrap()
}

/// The record file of the run's `k`-th subject at its first length, and
/// the subject's name as compare's rows give it.
fn record_of(run: &Path, k: usize) -> (String, String) {
    let r = run_record(run);
    let subject = &r.subjects[k];
    (
        figure_record_name(&subject.id(), r.config.sizes[0]),
        subject.to_string(),
    )
}

/// Edits the measurement of the record `name` of the report `run`,
/// recomputes its derived figures, and renders the report's pages again.
/// Whether the edited directory still passes `report --check`.
fn edit_record(run: &Path, name: &str, f: impl FnOnce(&mut FigureRecord)) -> bool {
    let path = run.join(name);
    let mut rec: FigureRecord = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    f(&mut rec);
    rec.derived = Derived::of(&rec.measurement);
    std::fs::write(&path, serde_json::to_vec_pretty(&rec).unwrap()).unwrap();
    let rendered = pavelor()
        .arg("report")
        .arg("--render")
        .arg(run)
        .output()
        .unwrap();
    rendered.status.success()
        && pavelor()
            .args(["report", "--check"])
            .arg(run)
            .output()
            .unwrap()
            .status
            .success()
}

/// A copy of arm_1 at `into/name/arm_1` (a dataset's directory is named
/// by its system id) whose record `file` has its trials' seconds changed
/// by `f` (trial index, seconds), in the trial list and in the processes,
/// with the derived statistics recomputed as the harness derives them.
fn edit_harness_seconds(
    arm_1: &Path,
    into: &Path,
    name: &str,
    file: &str,
    f: impl Fn(usize, f64) -> f64,
) -> PathBuf {
    let copy = into.join(name).join("arm_1");
    copy_dir(arm_1, &copy);
    let path = copy.join("records/hash-22").join(file);
    let mut v: Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    let n = v["trials"].as_array().unwrap().len();
    let mut k = 0;
    for p in v["processes"].as_array_mut().unwrap() {
        for t in p["trials"].as_array_mut().unwrap() {
            let s = t["seconds"].as_f64().unwrap();
            t["seconds"] = serde_json::json!(f(k, s));
            k += 1;
        }
    }
    assert_eq!(k, n, "one trial a process");
    for (i, t) in v["trials"].as_array_mut().unwrap().iter_mut().enumerate() {
        let s = t["seconds"].as_f64().unwrap();
        t["seconds"] = serde_json::json!(f(i, s));
    }
    let trials: Vec<(f64, f64)> = v["trials"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            (
                t["measurements"].as_f64().unwrap(),
                t["seconds"].as_f64().unwrap(),
            )
        })
        .collect();
    let calls: f64 = trials.iter().map(|t| t.0).sum();
    let mean = trials.iter().map(|t| t.1).sum::<f64>() / calls;
    let mut per: Vec<f64> = trials.iter().map(|t| t.1 / t.0).collect();
    per.sort_by(f64::total_cmp);
    let median = if per.len() % 2 == 1 {
        per[per.len() / 2]
    } else {
        (per[per.len() / 2 - 1] + per[per.len() / 2]) / 2.0
    };
    let bytes = v["input_bytes"].as_f64().unwrap();
    v["mean_seconds"] = serde_json::json!(mean);
    v["median_trial_seconds"] = serde_json::json!(median);
    v["min_trial_seconds"] = serde_json::json!(per[0]);
    v["max_trial_seconds"] = serde_json::json!(per[per.len() - 1]);
    v["operations_per_second"] = serde_json::json!(1.0 / mean);
    v["throughput_MB_per_second"] = serde_json::json!(bytes / mean / 1e6);
    std::fs::write(&path, serde_json::to_string_pretty(&v).unwrap()).unwrap();
    copy
}

/// Whether a harness dataset passes the validator's rules and pavelor's
/// reading of it (`report --check DIR`).
fn harness_accepted(dir: &Path) -> bool {
    pavelor()
        .args(["report", "--check"])
        .arg(dir)
        .output()
        .unwrap()
        .status
        .success()
}

/// A refusal: exit 2, one line on stderr, nothing on stdout.
fn assert_refused(o: &Output) {
    let err = text(&o.stderr);
    eprintln!("refused: {err}");
    assert_eq!(o.status.code(), Some(2), "{err}{}", text(&o.stdout));
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    assert!(o.stdout.is_empty());
}

/// No NaN and no infinity anywhere in `text`.
fn assert_no_nan_or_inf(what: &str, text: &str) {
    let lower = text.to_ascii_lowercase();
    assert!(
        !lower.contains("nan") && !lower.contains("inf"),
        "{what}:\n{text}"
    );
}

/// The Markdown row of the figure `name` at `size` bytes.
fn row<'a>(md: &'a str, name: &str, size: usize) -> &'a str {
    let head = format!("| {name} | {size} B |");
    md.lines()
        .find(|l| l.starts_with(&head))
        .unwrap_or_else(|| panic!("no row {head}:\n{md}"))
}

/// The cells of a Markdown row: | name | length | base | new | ratio |
/// interval | trials | verdict |.
fn cells(row: &str) -> Vec<&str> {
    row.split('|').map(str::trim).collect()
}

/// The Markdown row of our run's Pavelor-512 figure at `size` bytes
/// against a harness dataset's reference C.
fn against_reference(md: &str, size: usize) -> &str {
    md.lines()
        .find(|l| {
            l.starts_with("| Pavelor-512 — ")
                && l.contains("NICCS: the reference C")
                && l.contains(&format!("| {size} B |"))
        })
        .unwrap_or_else(|| panic!("no Pavelor-512 row at {size} B:\n{md}"))
}

/// Whether our run's trials counted cycles (a harness dataset beside it
/// is then compared in cycles, and its seconds do not count).
fn base_counts_cycles() -> bool {
    let (name, _) = record_of(base(), 0);
    let rec: FigureRecord =
        serde_json::from_slice(&std::fs::read(base().join(name)).unwrap()).unwrap();
    rec.measurement.trials[0].counter == CounterKind::PerfCycles
}

/// Reproduction 1: A trial of 1e308 seconds beside our run (compared in
/// wall time): a legible ratio (from its logarithm when it is beyond the
/// doubles), never NaN or infinity; the row that many times slower fails
/// the gate.
#[test]
fn a_trial_of_1e308_seconds_gives_no_nan_and_fails_the_gate() {
    let Some(arm_1) = harness_arm_1("a_trial_of_1e308_seconds_gives_no_nan_and_fails_the_gate")
    else {
        return;
    };
    if base_counts_cycles() {
        eprintln!("SKIPPED a_trial_of_1e308_seconds: this machine counts cycles, not seconds");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let huge = edit_harness_seconds(
        &arm_1,
        dir.path(),
        "huge",
        "Pavelor-512__hash_4096.json",
        |i, s| if i == 2 { 1e308 } else { s },
    );
    if !harness_accepted(&huge) {
        assert_refused(&compare(&[base().as_os_str(), huge.as_os_str()]));
        return;
    }
    let ours = base().to_path_buf();
    for (base, new, slower) in [(&ours, &huge, true), (&huge, &ours, false)] {
        let out = dir
            .path()
            .join(if slower { "out-slower" } else { "out-faster" });
        let o = compare(&[
            base.as_os_str(),
            new.as_os_str(),
            "--fail-above".as_ref(),
            "20".as_ref(),
            "--out".as_ref(),
            out.as_os_str(),
        ]);
        let (md, err) = (text(&o.stdout), text(&o.stderr));
        assert_no_nan_or_inf("stdout", &md);
        for f in ["compare.md", "compare.json", "compare-ratios.svg"] {
            assert_no_nan_or_inf(f, &std::fs::read_to_string(out.join(f)).unwrap());
        }
        let line = against_reference(&md, 4096);
        let name = cells(line)[1].to_string();
        let c = cells(line);
        assert_ne!(c[5], "0.000", "{md}");
        // A ratio as printed, `1.234` or `1.234e309` (beyond the doubles),
        // by its base-10 logarithm.
        let log10 = match c[5].split_once('e') {
            Some((m, e)) => m.parse::<f64>().unwrap().log10() + e.parse::<f64>().unwrap(),
            None => c[5].parse::<f64>().unwrap().log10(),
        };
        assert!(log10.is_finite(), "{md}");
        assert!(!c[8].contains("no significant difference"), "{md}");
        if slower {
            // About 1e309 times slower: the trial of 1e308 s over about
            // 20 calls, averaged with four of microseconds.
            assert!(log10 > 300.0, "{md}");
            assert_eq!(o.status.code(), Some(1), "{err}");
            let failing = err
                .lines()
                .find(|l| l.contains("slower by more than 20%"))
                .unwrap_or_else(|| panic!("no failing line: {err}"));
            // The row's name as the Markdown cell has it may be escaped;
            // the gate's line names the instance and length in plain text.
            let instance = name.split(' ').next().unwrap_or_default();
            assert!(
                failing.contains(&format!("{instance} — BASE ours: ")),
                "{err}"
            );
            assert!(failing.contains(" at 4096 B ("), "{err}");
        } else {
            assert!(log10 < -300.0, "{md}");
            assert_eq!(o.status.code(), Some(0), "{err}");
        }
    }
}

/// Reproduction 2: Zero seconds in a report's trial, negative seconds in a
/// harness dataset's: no interval, and the verdict says why (not "too few
/// trials"); the gate names the figure as left out.
#[test]
fn zero_or_negative_seconds_are_no_interval_with_the_reason() {
    let dir = tempfile::tempdir().unwrap();
    let zero = copy_of_base(dir.path(), "zero");
    let (record, name) = record_of(&zero, 0);
    let accepted = edit_record(&zero, &record, |r| {
        let t = &mut r.measurement.trials[1];
        t.ns = 0;
        t.cycles = 0;
    });
    let o = compare(&[
        base().as_os_str(),
        zero.as_os_str(),
        "--fail-above".as_ref(),
        "20".as_ref(),
    ]);
    if accepted {
        let (md, err) = (text(&o.stdout), text(&o.stderr));
        assert_no_nan_or_inf("stdout", &md);
        let c = cells(row(&md, &name, 4096));
        assert!(c[8].contains("zero or negative"), "{md}");
        assert!(!c[8].contains("too few trials"), "{md}");
        assert_eq!(c[7], "3 / 3", "{md}");
        assert!(
            err.contains(&format!(
                "--fail-above leaves out {name} at 4096 B: no ratio (no interval: a trial's value is zero or negative)"
            )),
            "{err}"
        );
    } else {
        assert_refused(&o);
    }

    let Some(arm_1) = harness_arm_1("zero_or_negative_seconds_are_no_interval_with_the_reason")
    else {
        return;
    };
    if base_counts_cycles() {
        eprintln!("SKIPPED negative seconds: this machine counts cycles, not seconds");
        return;
    }
    let negative = edit_harness_seconds(
        &arm_1,
        dir.path(),
        "negative",
        "Pavelor-512__hash_4096.json",
        |i, s| if i == 1 { -0.1 } else { s },
    );
    let o = compare(&[
        base().as_os_str(),
        negative.as_os_str(),
        "--fail-above".as_ref(),
        "20".as_ref(),
    ]);
    if !harness_accepted(&negative) {
        assert_refused(&o);
        return;
    }
    let (md, err) = (text(&o.stdout), text(&o.stderr));
    let line = against_reference(&md, 4096);
    let name = cells(line)[1].to_string();
    let c = cells(line);
    assert!(c[8].contains("zero or negative"), "{md}");
    assert_eq!(c[5], "–", "no ratio: {md}");
    assert!(
        err.contains(&format!("leaves out {name} at 4096 B: no ratio")),
        "{err}"
    );
}

/// Reproduction 3: The gate: nothing in common fails it, naming every
/// figure it left out; without the gate the exit is 0 but the line is
/// there.
#[test]
fn the_gate_fails_when_nothing_is_in_common_and_names_what_it_leaves_out() {
    static OTHER: OnceLock<tempfile::TempDir> = OnceLock::new();
    let other = OTHER
        .get_or_init(|| {
            let dir = tempfile::tempdir().unwrap();
            report(&dir.path().join("run"), "64");
            dir
        })
        .path()
        .join("run");
    let gated = compare(&[
        base().as_os_str(),
        other.as_os_str(),
        "--fail-above".as_ref(),
        "20".as_ref(),
    ]);
    let err = text(&gated.stderr);
    assert_eq!(gated.status.code(), Some(1), "{err}");
    assert!(err.contains("no figure is in both"), "{err}");
    assert!(err.contains("no figure could be gated"), "{err}");
    let (first, name) = record_of(base(), 0);
    assert!(!first.is_empty());
    assert!(
        err.contains(&format!(
            "--fail-above leaves out {name} at 4096 B: only in BASE"
        )),
        "{err}"
    );
    assert!(
        err.contains(&format!(
            "--fail-above leaves out {name} at 64 B: only in NEW"
        )),
        "{err}"
    );
    let left_out = err.lines().filter(|l| l.contains("leaves out")).count();
    let figures = run_record(base()).subjects.len();
    assert_eq!(left_out, 2 * figures, "{err}");
    assert!(text(&gated.stdout).contains("nothing was compared"));
    // Without the gate: the same line, exit 0.
    let plain = compare(&[base().as_os_str(), other.as_os_str()]);
    assert_eq!(plain.status.code(), Some(0));
    assert!(text(&plain.stderr).contains("no figure is in both"));
}

/// Reproduction 3 (a): a figure with a ratio but no interval (one trial)
/// counts for the gate as its ratio: ten times slower fails
/// `--fail-above 200`.
#[test]
fn a_ratio_without_an_interval_counts_for_the_gate() {
    let dir = tempfile::tempdir().unwrap();
    let one = dir.path().join("one");
    common::quick_report(&one, "1", "4096", &["--no-ct-audit"]);
    let (record, name) = record_of(&one, 0);
    let accepted = edit_record(&one, &record, |r| {
        let t = &mut r.measurement.trials[0];
        t.ns *= 10;
        t.cycles *= 10;
    });
    let o = compare(&[
        base().as_os_str(),
        one.as_os_str(),
        "--fail-above".as_ref(),
        "200".as_ref(),
    ]);
    if !accepted {
        assert_refused(&o);
        return;
    }
    let (md, err) = (text(&o.stdout), text(&o.stderr));
    let c = cells(row(&md, &name, 4096));
    assert_eq!(c[7], "3 / 1", "{md}");
    assert!(c[8].starts_with("too few trials for an interval"), "{md}");
    assert_eq!(o.status.code(), Some(1), "{err}");
    let failing = err
        .lines()
        .find(|l| l.contains("slower by more than 200%"))
        .unwrap_or_else(|| panic!("no failing line: {err}"));
    assert!(failing.contains(&format!("{name} at 4096 B")), "{err}");
}

/// Reproduction 5: A record whose trials name another counter than the
/// run's: the counter is read from every record, so the runs are not said
/// to agree on it, and ticks are never "cycles per call".
#[test]
fn a_record_with_another_counter_is_not_hidden_by_the_first_record() {
    let dir = tempfile::tempdir().unwrap();
    let run_counter = {
        let (name, _) = record_of(base(), 0);
        let rec: FigureRecord =
            serde_json::from_slice(&std::fs::read(base().join(name)).unwrap()).unwrap();
        rec.measurement.trials[0].counter
    };
    let other = if run_counter == CounterKind::PerfCycles {
        CounterKind::Ticks
    } else {
        CounterKind::PerfCycles
    };
    let last = run_record(base()).subjects.len() - 1;
    for (k, name) in [(0, "first"), (last, "last")] {
        let copy = copy_of_base(dir.path(), name);
        let (record, _) = record_of(&copy, k);
        let set = |m: &mut Measurement| {
            for t in &mut m.trials {
                t.counter = other;
            }
        };
        let accepted = edit_record(&copy, &record, |r| {
            set(&mut r.measurement);
            r.counter = other;
            r.counter_unit = other.unit().to_string();
        });
        if !accepted {
            assert_refused(&compare(&[base().as_os_str(), copy.as_os_str()]));
            continue;
        }
        // Against the run it came from: the counters differ.
        let o = compare(&[base().as_os_str(), copy.as_os_str()]);
        let md = text(&o.stdout);
        assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
        assert!(!md.contains("The two runs agree"), "{name}: {md}");
        assert!(md.contains("- counter: BASE "), "{name}: {md}");
        assert!(md.contains("mixed: its records name"), "{name}: {md}");
        // Against itself: no cycles unless every record counted them.
        let o = compare(&[copy.as_os_str(), copy.as_os_str()]);
        let md = text(&o.stdout);
        assert!(!md.contains("cycles per call"), "{name}: {md}");
        assert!(md.contains("the mean time per call"), "{name}: {md}");
    }
}

/// Reproduction 6: `--out` equal to, inside or around an input is refused
/// before anything is read or written, with one line; the input is
/// unchanged.
#[test]
fn out_inside_or_around_an_input_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let run = copy_of_base(dir.path(), "run");
    let listing = |d: &Path| {
        let mut v: Vec<String> = Vec::new();
        let mut stack = vec![d.to_path_buf()];
        while let Some(p) = stack.pop() {
            for e in std::fs::read_dir(&p).unwrap() {
                let e = e.unwrap().path();
                if e.is_dir() {
                    stack.push(e.clone());
                }
                v.push(e.display().to_string());
            }
        }
        v.sort();
        v
    };
    let before = listing(dir.path());
    let link = dir.path().join("link");
    std::os::unix::fs::symlink(&run, &link).unwrap();
    let cases = [
        run.clone(),
        run.join("records"),
        run.join("new/deeper"),
        dir.path().to_path_buf(),
        link.join("out"),
        run.join("records/../out"),
    ];
    for out in &cases {
        for (b, n) in [(base(), run.as_path()), (run.as_path(), base())] {
            let o = compare(&[
                b.as_os_str(),
                n.as_os_str(),
                "--out".as_ref(),
                out.as_os_str(),
            ]);
            assert_refused(&o);
            let err = text(&o.stderr);
            assert!(
                err.contains("may not be an input"),
                "{}: {err}",
                out.display()
            );
        }
    }
    std::fs::remove_file(&link).unwrap();
    assert_eq!(listing(dir.path()), before);
    // Beside the inputs it writes its four files.
    let out = dir.path().join("cmp");
    let o = compare(&[
        base().as_os_str(),
        run.as_os_str(),
        "--out".as_ref(),
        out.as_os_str(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    assert_eq!(std::fs::read_dir(&out).unwrap().count(), 4);
}

/// A copy of arm_1 with an optimized variant of Pavelor-512 beside the
/// reference: a second build entry, `Pavelor-512-opt`, whose records are
/// the reference's under its label and variant.
fn with_optimized(arm_1: &Path, into: &Path) -> PathBuf {
    let copy = into.join("arm_1");
    copy_dir(arm_1, &copy);
    let build_path = copy.join("build.json");
    let mut build: Value = serde_json::from_slice(&std::fs::read(&build_path).unwrap()).unwrap();
    let mut entry = build["instances"]["hash-22/Pavelor-512"].clone();
    entry["label"] = serde_json::json!("Pavelor-512-opt");
    entry["variant"] = serde_json::json!("optimized");
    build["instances"]["hash-22/Pavelor-512-opt"] = entry;
    std::fs::write(&build_path, serde_json::to_string_pretty(&build).unwrap()).unwrap();
    let records = copy.join("records/hash-22");
    for e in std::fs::read_dir(&records).unwrap() {
        let path = e.unwrap().path();
        let file = path.file_name().unwrap().to_string_lossy().into_owned();
        let Some(rest) = file.strip_prefix("Pavelor-512__") else {
            continue;
        };
        let mut v: Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
        v["label"] = serde_json::json!("Pavelor-512-opt");
        v["variant"] = serde_json::json!("optimized");
        std::fs::write(
            records.join(format!("Pavelor-512-opt__{rest}")),
            serde_json::to_string_pretty(&v).unwrap(),
        )
        .unwrap();
    }
    copy
}

/// Reproduction 4: A dataset with an optimized variant beside the
/// reference: two datasets pair implementation with implementation, a run
/// beside it gets one row per implementation, and every row names both
/// sides'.
#[test]
fn variants_pair_by_implementation_and_every_row_names_both() {
    let Some(arm_1) = harness_arm_1("variants_pair_by_implementation_and_every_row_names_both")
    else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let opt = with_optimized(&arm_1, dir.path());
    if !harness_accepted(&opt) {
        let o = compare(&[arm_1.as_os_str(), opt.as_os_str()]);
        assert_refused(&o);
        return;
    }
    let o = compare(&[arm_1.as_os_str(), opt.as_os_str()]);
    let md = text(&o.stdout);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let reference = "Pavelor-512 — BASE NICCS: the reference C / NEW NICCS: the reference C";
    for size in [32, 4096, 65536] {
        let c = cells(row(&md, reference, size));
        assert_eq!(c[5], "1.000", "the reference against itself: {md}");
    }
    assert!(!md.contains("NEW NICCS: the optimized C"), "{md}");
    assert!(
        md.contains("- Pavelor-512 — NICCS: the optimized C at 65536 B"),
        "only in NEW: {md}"
    );
    // Our run beside it: two rows at each length, one per implementation.
    let o = compare(&[base().as_os_str(), opt.as_os_str()]);
    let md = text(&o.stdout);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let rows: Vec<&str> = md
        .lines()
        .filter(|l| l.starts_with("| Pavelor-512 — BASE ours: ") && l.contains("| 4096 B |"))
        .collect();
    assert_eq!(rows.len(), 2, "{md}");
    assert!(
        rows.iter()
            .any(|r| r.contains("/ NEW NICCS: the reference C |"))
    );
    assert!(
        rows.iter()
            .any(|r| r.contains("/ NEW NICCS: the optimized C |"))
    );
}

/// Reproduction 7: A dataset that passes the validator's rules but holds a
/// record of an instance Pavelor does not have: refused, without saying it
/// breaks the rules.
#[test]
fn a_dataset_past_the_validator_is_not_said_to_break_its_rules() {
    let Some(arm_1) = harness_arm_1("a_dataset_past_the_validator_is_not_said_to_break_its_rules")
    else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let copy = dir.path().join("arm_1");
    copy_dir(&arm_1, &copy);
    let build_path = copy.join("build.json");
    let mut build: Value = serde_json::from_slice(&std::fs::read(&build_path).unwrap()).unwrap();
    for e in build["instances"].as_object_mut().unwrap().values_mut() {
        if e["instance"] == "Pavelor-1024" {
            e["instance"] = serde_json::json!("Pavelor-2048");
        }
    }
    std::fs::write(&build_path, serde_json::to_string_pretty(&build).unwrap()).unwrap();
    let records = copy.join("records/hash-22");
    for e in std::fs::read_dir(&records).unwrap() {
        let path = e.unwrap().path();
        let mut v: Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
        if v["instance"] == "Pavelor-1024" {
            v["instance"] = serde_json::json!("Pavelor-2048");
            std::fs::write(&path, serde_json::to_string_pretty(&v).unwrap()).unwrap();
        }
    }
    let validator = pavelor_niccs::check(&copy);
    assert!(
        validator.is_ok(),
        "the edit must pass the rules: {validator:?}"
    );
    let o = compare(&[base().as_os_str(), copy.as_os_str()]);
    assert_refused(&o);
    let err = text(&o.stderr);
    assert!(!err.contains("is not a harness dataset"), "{err}");
    assert!(
        err.contains("passes the harness validator's rules, but pavelor cannot compare it"),
        "{err}"
    );
    assert!(err.contains("Pavelor-2048"), "{err}");
}
