//! Directories from strangers: `report --check`, `report --render`,
//! `compare` and `site` on a real report directory and on the harness
//! dataset it holds (`niccs/<id>/`, the harness's own layout), each with
//! one hostile change. Every case ends in a one-line refusal within
//! seconds, or in a correct result; nothing is written outside `--out`,
//! and memory stays bounded.
//!
//! One quick report is made per test binary and copied for each case; the
//! harness dataset is its `niccs/<id>/`, so no case needs the NICCS data.

#![allow(clippy::unwrap_used, clippy::panic)] // tests may fail loudly

mod common;

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Output;
use std::sync::OnceLock;
use std::time::Duration;

use assert_cmd::Command;
use serde_json::Value;

/// No case may take longer: a hang is a failure.
const LIMIT: Duration = Duration::from_secs(60);

fn pavelor() -> Command {
    let mut c = Command::cargo_bin("pavelor").unwrap();
    c.timeout(LIMIT);
    c
}

const SYSTEM: &str = "hostile_base";

/// The report every case starts from (Pavelor-512 at 32 and 1024 B, the
/// Rust backends, 2 trials), made once.
fn base() -> &'static Path {
    static BASE: OnceLock<(tempfile::TempDir, PathBuf)> = OnceLock::new();
    &BASE
        .get_or_init(|| {
            let dir = tempfile::tempdir().unwrap();
            let out = dir.path().join("base");
            common::quick_report(
                &out,
                "2",
                "32,1024",
                &["--no-ct-audit", "--no-baselines", "--system-id", SYSTEM],
            );
            (dir, out)
        })
        .1
}

/// A fresh copy of the base report at `dir/name`.
fn report_copy(dir: &Path, name: &str) -> PathBuf {
    let to = dir.join(name);
    common::copy_dir(base(), &to);
    to
}

/// A fresh copy of the base report's harness dataset at `dir/<SYSTEM>`
/// (its directory's name is its system id).
fn dataset_copy(dir: &Path) -> PathBuf {
    let to = dir.join(SYSTEM);
    common::copy_dir(&base().join("niccs").join(SYSTEM), &to);
    to
}

fn read_json(path: &Path) -> Value {
    serde_json::from_slice(&fs::read(path).unwrap()).unwrap()
}

fn write_json(path: &Path, v: &Value) {
    fs::write(path, serde_json::to_vec_pretty(v).unwrap()).unwrap();
}

/// The first figure record of a report directory (`records/<op>.S…json`).
fn a_figure_record(rep: &Path) -> PathBuf {
    let mut v: Vec<PathBuf> = fs::read_dir(rep.join("records"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            let n = p.file_name().unwrap().to_string_lossy().into_owned();
            n.starts_with("pavelor-512.") && n.ends_with("-1024.json")
        })
        .collect();
    v.sort();
    v.into_iter()
        .next()
        .expect("a Pavelor-512 record at 1024 B")
}

/// The harness record of Pavelor-512 at `size` bytes in a dataset.
fn harness_record(ds: &Path, size: usize) -> PathBuf {
    ds.join(format!("records/hash-22/Pavelor-512__hash_{size}.json"))
}

/// Asserts a refusal: non-zero exit, one line on stderr holding `needle`.
fn refused(o: &Output, needle: &str) {
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success(), "succeeded: {err}");
    assert_eq!(err.trim_end().lines().count(), 1, "one line: {err}");
    assert!(err.contains(needle), "{needle:?} not in: {err}");
}

fn check(dir: &Path) -> Output {
    pavelor()
        .arg("report")
        .arg("--check")
        .arg(dir)
        .output()
        .unwrap()
}

fn render(dir: &Path) -> Output {
    pavelor()
        .arg("report")
        .arg("--render")
        .arg(dir)
        .output()
        .unwrap()
}

fn compare(a: &Path, b: &Path) -> Output {
    pavelor().arg("compare").arg(a).arg(b).output().unwrap()
}

fn site(cwd: &Path, out: &str, runs: &[&Path]) -> Output {
    pavelor()
        .current_dir(cwd)
        .arg("site")
        .arg("--out")
        .arg(out)
        .args(runs)
        .output()
        .unwrap()
}

/// Every command that reads evidence refuses `dir` with `needle`.
fn all_refuse(dir: &Path, needle: &str) {
    refused(&check(dir), needle);
    refused(&compare(base(), dir), needle);
    let cwd = tempfile::tempdir().unwrap();
    refused(&site(cwd.path(), "site", &[dir]), needle);
    assert!(!cwd.path().join("site").exists(), "a refused site is made");
}

/// The names of the entries of `dir`, sorted.
fn entries(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

#[test]
fn the_base_report_and_its_dataset_pass() {
    let tmp = tempfile::tempdir().unwrap();
    let rep = report_copy(tmp.path(), "r");
    assert!(check(&rep).status.success());
    let ds = dataset_copy(tmp.path());
    let o = check(&ds);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

#[test]
fn a_system_id_that_is_a_path_is_refused_and_nothing_is_written_outside() {
    for id in ["../escape", "/tmp/pavelor-hostile-x", "a\"><img src=x>"] {
        let tmp = tempfile::tempdir().unwrap();
        let rep = report_copy(tmp.path(), "r");
        let run = rep.join("records/report.json");
        let mut v = read_json(&run);
        v["config"]["system_id"] = Value::from(id);
        write_json(&run, &v);
        // The dataset where a path-like id would lead.
        common::copy_dir(&rep.join("niccs").join(SYSTEM), &tmp.path().join("escape"));
        refused(&render(&rep), "is not a system id");
        all_refuse(&rep, "is not a system id");
        assert_eq!(entries(tmp.path()), ["escape", "r"], "{id}");
        assert!(!Path::new("/tmp/pavelor-hostile-x").exists());
    }
}

#[test]
fn a_dataset_whose_name_is_not_a_system_id_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let ds = dataset_copy(tmp.path());
    let bad = tmp.path().join("a b");
    fs::rename(&ds, &bad).unwrap();
    let campaign = bad.join("campaign.json");
    let mut v = read_json(&campaign);
    v["system_id"] = Value::from("a b");
    write_json(&campaign, &v);
    all_refuse(&bad, "[system-form]");
}

#[cfg(unix)]
fn mkfifo(path: &Path) {
    let _ = fs::remove_file(path);
    nix::unistd::mkfifo(path, nix::sys::stat::Mode::S_IRWXU).unwrap();
}

#[cfg(unix)]
#[test]
fn a_fifo_anywhere_is_refused_at_once_never_waited_on_or_skipped() {
    let tmp = tempfile::tempdir().unwrap();
    for rel in ["records/report.json", "report.md"] {
        let rep = report_copy(tmp.path(), &format!("r{}", rel.len()));
        mkfifo(&rep.join(rel));
        all_refuse(&rep, "a FIFO, not a regular file");
    }
    let rep = report_copy(tmp.path(), "figure");
    mkfifo(&a_figure_record(&rep));
    all_refuse(&rep, "a FIFO, not a regular file");
    // In a harness dataset: a record, and campaign.json itself (which must
    // not make the directory pass for a report directory).
    let ds = dataset_copy(tmp.path());
    mkfifo(&harness_record(&ds, 32));
    all_refuse(&ds, "Pavelor-512__hash_32.json: a FIFO");
    fs::remove_dir_all(&ds).unwrap();
    let ds = dataset_copy(tmp.path());
    mkfifo(&ds.join("campaign.json"));
    all_refuse(&ds, "campaign.json: a FIFO");
}

#[cfg(unix)]
#[test]
fn links_out_of_the_directory_are_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let rep = report_copy(tmp.path(), "r");
    let rec = a_figure_record(&rep);
    fs::remove_file(&rec).unwrap();
    std::os::unix::fs::symlink("/dev/zero", &rec).unwrap();
    all_refuse(&rep, "a symbolic link that leads out of the directory");
    let ds = dataset_copy(tmp.path());
    fs::remove_file(ds.join("campaign.json")).unwrap();
    std::os::unix::fs::symlink("/dev/zero", ds.join("campaign.json")).unwrap();
    all_refuse(&ds, "campaign.json: a symbolic link that leads out");
}

#[test]
fn a_time_that_is_not_positive_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    // The report's own record: a trial of 0 ns.
    let rep = report_copy(tmp.path(), "r");
    let rec = a_figure_record(&rep);
    let mut v = read_json(&rec);
    v["trials"][0]["ns"] = Value::from(0);
    write_json(&rec, &v);
    all_refuse(&rep, "a figure needs calls in a positive time");
    // A harness record: seconds 0, then -0.1.
    for seconds in [0.0, -0.1] {
        let ds = dataset_copy(tmp.path());
        let rec = harness_record(&ds, 1024);
        let mut v = read_json(&rec);
        v["trials"][0]["seconds"] = Value::from(seconds);
        v["processes"][0]["trials"][0]["seconds"] = Value::from(seconds);
        write_json(&rec, &v);
        all_refuse(&ds, "is not a positive finite number");
        fs::remove_dir_all(&ds).unwrap();
    }
}

#[test]
fn a_record_that_disagrees_with_its_name_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    // The report's own record: its length is not its file name's.
    let rep = report_copy(tmp.path(), "r");
    let rec = a_figure_record(&rep);
    let mut v = read_json(&rec);
    v["size"] = Value::from(32);
    write_json(&rec, &v);
    all_refuse(&rep, "holds the figure of");
    // A harness record whose input_bytes is not its name's.
    let ds = dataset_copy(tmp.path());
    let rec = harness_record(&ds, 1024);
    let mut v = read_json(&rec);
    v["input_bytes"] = Value::from(32);
    write_json(&rec, &v);
    all_refuse(&ds, "[record-path]");
    fs::remove_dir_all(&ds).unwrap();
    // A harness record that names another instance than its build entry.
    let ds = dataset_copy(tmp.path());
    let rec = harness_record(&ds, 1024);
    let mut v = read_json(&rec);
    v["instance"] = Value::from("Pavelor-1024");
    write_json(&rec, &v);
    all_refuse(&ds, "[record-identity]");
}

#[test]
fn a_second_record_of_a_figure_is_refused_on_both_kinds() {
    let tmp = tempfile::tempdir().unwrap();
    let rep = report_copy(tmp.path(), "r");
    let rec = a_figure_record(&rep);
    fs::copy(&rec, rep.join("records/copy.json")).unwrap();
    all_refuse(&rep, "records/copy.json: not a record this run names");
    fs::remove_file(rep.join("records/copy.json")).unwrap();
    fs::create_dir(rep.join("records/sub")).unwrap();
    fs::copy(&rec, rep.join("records/sub/x.json")).unwrap();
    all_refuse(&rep, "records/sub/x.json: not a record this run names");
    for copy in [
        "records/hash-22/Pavelor-512__hash_1024_copy.json",
        "records/hash-22/sub/Pavelor-512__hash_1024.json",
    ] {
        let ds = dataset_copy(tmp.path());
        let to = ds.join(copy);
        fs::create_dir_all(to.parent().unwrap()).unwrap();
        fs::copy(harness_record(&ds, 1024), &to).unwrap();
        all_refuse(&ds, "[record-path]");
        fs::remove_dir_all(&ds).unwrap();
    }
}

/// The other counter than `theirs` (`ticks` or `perf-cycles`).
fn other_counter(theirs: &Value) -> Value {
    Value::from(if theirs == "perf-cycles" {
        "ticks"
    } else {
        "perf-cycles"
    })
}

#[test]
fn a_run_has_one_counter() {
    let tmp = tempfile::tempdir().unwrap();
    // A record that says another counter than its trials counted with.
    let rep = report_copy(tmp.path(), "r");
    let rec = a_figure_record(&rep);
    let mut v = read_json(&rec);
    v["counter"] = other_counter(&v["counter"]);
    write_json(&rec, &v);
    all_refuse(&rep, ": counter is");
    // Trials counted with another counter than the rest of the run's.
    let rep = report_copy(tmp.path(), "r2");
    let rec = a_figure_record(&rep);
    let mut v = read_json(&rec);
    let other = other_counter(&v["counter"]);
    v["counter"] = other.clone();
    for t in v["trials"].as_array_mut().unwrap() {
        t["counter"] = other.clone();
    }
    write_json(&rec, &v);
    all_refuse(&rep, "a run has one counter");
}

#[test]
fn a_record_must_describe_what_the_run_measured() {
    let tmp = tempfile::tempdir().unwrap();
    for (field, value) in [
        ("algorithm", Value::from("Pavelor-1024")),
        ("implementation", Value::from("the reference C")),
        ("backend", Value::from("portable")),
    ] {
        let rep = report_copy(tmp.path(), field);
        let rec = a_figure_record(&rep);
        let mut v = read_json(&rec);
        v[field] = value;
        write_json(&rec, &v);
        all_refuse(&rep, &format!(": {field} is"));
    }
}

/// A copy of the harness's published arm_1 dataset at `dir/arm_1`, if the
/// NICCS data is here (a dataset made on a machine without a cycle counter
/// has no cycles, and pavelor shows a harness dataset's figures in cycles).
fn arm_1_copy(dir: &Path, test: &str) -> Option<PathBuf> {
    let from = common::harness_arm_1(test)?;
    let to = dir.join("arm_1");
    common::copy_dir(&from, &to);
    Some(to)
}

#[test]
fn an_unknown_instance_is_named_as_such() {
    let tmp = tempfile::tempdir().unwrap();
    let Some(ds) = arm_1_copy(tmp.path(), "an_unknown_instance_is_named_as_such") else {
        return;
    };
    // Pavelor-512 renamed Pavelor-2048 everywhere the harness names it: a
    // dataset the harness's rules accept, of an instance Pavelor has not.
    let build = ds.join("build.json");
    let mut b = read_json(&build);
    let instances = b["instances"].as_object_mut().unwrap();
    let mut entry = instances.remove("hash-22/Pavelor-512").unwrap();
    entry["label"] = Value::from("Pavelor-2048");
    entry["instance"] = Value::from("Pavelor-2048");
    instances.insert("hash-22/Pavelor-2048".into(), entry);
    write_json(&build, &b);
    for size in [32, 128, 512, 1024, 4096, 8192, 16384, 65536] {
        let from = harness_record(&ds, size);
        let mut v = read_json(&from);
        v["label"] = Value::from("Pavelor-2048");
        v["instance"] = Value::from("Pavelor-2048");
        fs::remove_file(&from).unwrap();
        write_json(
            &ds.join(format!("records/hash-22/Pavelor-2048__hash_{size}.json")),
            &v,
        );
    }
    let o = check(&ds);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    refused(
        &compare(base(), &ds),
        "passes the harness validator's rules, but pavelor cannot compare it: records/hash-22/Pavelor-2048__hash_1024.json: instance \"Pavelor-2048\" is not a Pavelor instance",
    );
}

#[test]
fn limits_are_refusals_that_name_their_option() {
    let tmp = tempfile::tempdir().unwrap();
    let rep = report_copy(tmp.path(), "r");
    let o = pavelor()
        .args(["report", "--max-trials", "3", "--check"])
        .arg(&rep)
        .output()
        .unwrap();
    refused(&o, "(--max-trials raises it)");
    let o = pavelor()
        .args(["compare", "--max-file-mib", "1", "--max-files", "5"])
        .arg(&rep)
        .arg(&rep)
        .output()
        .unwrap();
    refused(&o, "(--max-files raises it)");
}

#[test]
fn huge_directories_are_refused_in_bounded_memory() {
    let tmp = tempfile::tempdir().unwrap();
    // Sparse junk beside a harness dataset: 120 files of 16 MiB.
    let ds = dataset_copy(tmp.path());
    fs::create_dir(ds.join("junk")).unwrap();
    for i in 0..120 {
        let f = fs::File::create(ds.join(format!("junk/{i:03}"))).unwrap();
        f.set_len(16 << 20).unwrap();
    }
    for args in [
        vec![
            "report".into(),
            "--check".into(),
            ds.clone().into_os_string(),
        ],
        vec!["compare".into(), base().into(), ds.clone().into_os_string()],
    ] {
        let mut cmd = std::process::Command::new(assert_cmd::cargo::cargo_bin("pavelor"));
        cmd.args(&args);
        let (o, peak_kib) = common::run_measuring_memory(cmd);
        refused(
            &o,
            "larger than the limit of 4 MiB per file (--max-file-mib raises it)",
        );
        assert!(peak_kib < 200 * 1024, "peak {peak_kib} KiB");
    }
    // Records of many trials, each under the per-file limit: the directory
    // limit refuses them before they are parsed.
    let rep = report_copy(tmp.path(), "r");
    let rec = a_figure_record(&rep);
    let mut v = read_json(&rec);
    let trial = v["trials"][0].clone();
    let mut big = Vec::new();
    let per_trial = serde_json::to_vec(&trial).unwrap().len();
    big.resize((3 << 20) / per_trial, trial);
    v["trials"] = Value::from(big);
    fs::write(&rec, serde_json::to_vec(&v).unwrap()).unwrap();
    for i in 0..8 {
        fs::copy(&rec, rep.join(format!("records/big{i}.json"))).unwrap();
    }
    let mut cmd = std::process::Command::new(assert_cmd::cargo::cargo_bin("pavelor"));
    cmd.arg("report").arg("--check").arg(&rep);
    let (o, peak_kib) = common::run_measuring_memory(cmd);
    refused(&o, "(--max-dir-mib raises it)");
    assert!(peak_kib < 200 * 1024, "peak {peak_kib} KiB");
}

#[test]
fn the_site_copies_only_the_evidence_it_checked() {
    let tmp = tempfile::tempdir().unwrap();
    let rep = report_copy(tmp.path(), "r");
    fs::write(rep.join("notes.txt"), "not evidence").unwrap();
    fs::write(rep.join("niccs").join(SYSTEM).join("junk.bin"), "x").unwrap();
    let mut runs = vec![rep.clone()];
    let harness = arm_1_copy(
        tmp.path(),
        "the_site_copies_only_the_evidence_it_checked (arm_1 part)",
    );
    if let Some(ds) = &harness {
        fs::create_dir(ds.join("junk")).unwrap();
        fs::write(ds.join("junk/big.txt"), "junk").unwrap();
        runs.push(ds.clone());
    }
    let runs: Vec<&Path> = runs.iter().map(PathBuf::as_path).collect();
    let o = site(tmp.path(), "site", &runs);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let s = tmp.path().join("site");
    assert!(s.join(SYSTEM).join("report.html").is_file());
    assert!(s.join(SYSTEM).join("records/report.json").is_file());
    assert!(
        s.join(SYSTEM)
            .join("niccs")
            .join(SYSTEM)
            .join("campaign.json")
            .is_file()
    );
    assert!(!s.join(SYSTEM).join("notes.txt").exists());
    assert!(
        !s.join(SYSTEM)
            .join("niccs")
            .join(SYSTEM)
            .join("junk.bin")
            .exists()
    );
    if harness.is_some() {
        assert!(s.join("arm_1/niccs/arm_1/campaign.json").is_file());
        assert!(!s.join("arm_1/niccs/arm_1/junk").exists());
    }
    let mut want = vec!["r", "site"];
    if harness.is_some() {
        want.insert(0, "arm_1");
    }
    assert_eq!(entries(tmp.path()), want, "nothing beside the site");
}
