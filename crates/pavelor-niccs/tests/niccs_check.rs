//! The NICCS dataset layer: the validator on a small dataset made here (its
//! numbers are this test's own), one tampering at a time; load/write round
//! trips; and, where the harness's own arm_1 data is present next to the
//! workspace (see `common::harness_data`), the validator and a byte-exact round trip
//! on it (`SKIPPED:` otherwise).

mod common;

use std::path::PathBuf;

use pavelor_niccs::{
    self as niccs, Build, BuildEntry, Campaign, Dataset, Json, JsonObject, OrderedMap, Plan,
    Process, Record, Rule, Trial,
};

const SYSTEM: &str = "test_1";
const CAND: &str = "hash-22";

fn environment(cpu: u64) -> JsonObject {
    let text = format!(
        r#"{{"hostname": "bench-box", "architecture": "x86_64", "cpu_model": "Example CPU 9000",
            "machine": null, "cpu_number": {cpu}, "memory_total_kib": 16318464,
            "os": "Example Linux 1.0", "kernel": "6.1.0-test", "compiler": "gcc 13.2.0",
            "cmake": "cmake version 3.28.3", "cpufreq_governor": "performance",
            "cpufreq_driver": "intel_pstate", "cpufreq_min_khz": "800000",
            "cpufreq_max_khz": "3000000", "intel_pstate_no_turbo": "1",
            "cpufreq_boost": null, "smt_control": "off", "core_clock_hz": 2999000000,
            "core_clock_mhz": 3000}}"#
    );
    serde_json::from_str(&text).expect("environment")
}

fn kat_log(label: &str) -> Vec<u8> {
    format!(
        "library     = lib/lib{label}.so\nid          = {CAND}\ninstance    = {label}\n\
         check KAT_2_12 ok\nRESULT {CAND} {label} PASS \n"
    )
    .into_bytes()
}

fn meta(label: &str, bytes: u64, peak: u64) -> OrderedMap<String> {
    [
        ("id", CAND.to_string()),
        ("instance", label.to_string()),
        ("operation", "hash".to_string()),
        ("input_bytes", bytes.to_string()),
        ("baseline_rss_bytes", "1200128".to_string()),
        ("digest_bytes", "64".to_string()),
        ("timing_scope", "loop".to_string()),
        ("peak_rss_bytes", peak.to_string()),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v))
    .collect()
}

/// Five one-trial processes per record; `base` seconds per call, cycles at
/// 3 GHz with a per-trial wobble.
fn record(
    label: &str,
    bytes: u64,
    per_call_s: f64,
    iterations: u64,
    kat: &(String, String),
) -> Record {
    let mut r = Record::new(CAND, label, "hash", bytes);
    r.instance = Some(label.to_string());
    r.variant = "reference".into();
    r.flags = "guide".into();
    r.plan = Plan {
        iterations_per_trial: iterations,
        warmups: 3,
        trials: 5,
        separate_processes: true,
        estimated_s: per_call_s * (5 * iterations) as f64 + 0.25,
        timeout_per_process_s: 301.5,
        calibration_seconds: Some(per_call_s * 1.07),
        calibration_setup_seconds: None,
        extra: JsonObject::new(),
    };
    r.kat = Some("PASS".into());
    r.library = format!("{CAND}/lib/lib{label}.so");
    r.library_sha256 = niccs::sha256_hex(label.as_bytes());
    r.kat_log = Some(kat.0.clone());
    r.kat_log_sha256 = Some(kat.1.clone());
    r.started_utc = "2030-01-02T03:04:05.000001+00:00".into();
    r.ended_utc = "2030-01-02T03:04:09.500002+00:00".into();
    r.load_average_start = vec![0.5, 0.25, 0.125];
    r.load_average_end = vec![0.75, 0.3125, 0.1875];
    r.environment = environment(3);
    r.processes = (0..5u64)
        .map(|i| {
            let seconds = per_call_s * iterations as f64 * (1.0 + 0.001 * i as f64);
            Process {
                status: "complete".into(),
                exit_code: Some(0),
                meta: Some(meta(label, bytes, 1_265_664 + 4096 * i)),
                trials: Some(vec![Trial {
                    measurements: iterations,
                    seconds,
                    cycles: (seconds * 3.0e9) as u64 + 17 * i,
                    extra: JsonObject::new(),
                }]),
                stderr: Some(String::new()),
                command: vec![
                    "taskset".into(),
                    "-c".into(),
                    "3".into(),
                    "performance/ngcc_perf".into(),
                    format!("{CAND}/lib/lib{label}.so"),
                    "hash".into(),
                    bytes.to_string(),
                    "1".into(),
                    "1".into(),
                    iterations.to_string(),
                    "3".into(),
                ],
                wall_s: seconds + 0.004,
                disturbed_retries: Some(0),
                ..Process::default()
            }
        })
        .collect();
    r.derive_from_processes().expect("derive");
    r
}

/// A small dataset of two instances and three sizes each (one with fewer
/// than 100 calls).
fn fixture() -> Dataset {
    let mut ds = Dataset {
        campaign: Campaign {
            system_id: SYSTEM.into(),
            started_utc: "2030-01-02T01:00:00.000000+00:00".into(),
            environment_at_start: Some(environment(3)),
            ended_utc: Some("2030-01-02T04:00:00.000000+00:00".into()),
            ..Campaign::default()
        },
        build: Build::default(),
        ..Dataset::default()
    };
    for (label, scale) in [("Pavelor-512", 1.0), ("Pavelor-1024", 2.1)] {
        let kat = ds.insert_kat_log(CAND, label, kat_log(label));
        ds.build.instances.insert(
            format!("{CAND}/{label}"),
            BuildEntry {
                candidate: CAND.into(),
                label: label.into(),
                instance: Some(label.into()),
                variant: "reference".into(),
                flags: "guide".into(),
                kat: "PASS".into(),
                library: Some(format!("{CAND}/lib/lib{label}.so")),
                library_sha256: Some(niccs::sha256_hex(label.as_bytes())),
                elf_load_bytes: Some(Some(14_001)),
                kat_log: Some(kat.0.clone()),
                kat_log_sha256: Some(kat.1.clone()),
                ..BuildEntry::default()
            },
        );
        for (bytes, per_call, iterations) in [
            (32, 9.1e-6, 20_000),
            (1024, 61.0e-6, 8000),
            (65536, 3.3e-3, 15),
        ] {
            ds.insert_record(record(label, bytes, per_call * scale, iterations, &kat));
        }
    }
    ds
}

/// A temporary directory holding `ds` under `test_1/`.
fn written(ds: &Dataset) -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().expect("tempdir");
    let dir = tmp.path().join(SYSTEM);
    ds.write(&dir).expect("write");
    (tmp, dir)
}

const R512: &str = "records/hash-22/Pavelor-512__hash_1024.json";

fn record_mut<'a>(ds: &'a mut Dataset, path: &str) -> &'a mut Record {
    ds.records.get_mut(path).expect("record")
}

/// Applies `tamper` to a fresh fixture and returns the check's problem.
fn problem_after(tamper: impl FnOnce(&mut Dataset)) -> niccs::Problem {
    let mut ds = fixture();
    tamper(&mut ds);
    let (_tmp, dir) = written(&ds);
    niccs::check(&dir).expect_err("the tampered dataset must fail")
}

#[test]
fn fixture_passes() {
    let ds = fixture();
    assert_eq!(ds.records.len(), 6);
    let r = &ds.records[R512];
    assert_eq!(r.measurements, Some(40_000));
    assert_eq!(r.guide_100_measurements_met, Some(true));
    let slow = &ds.records["records/hash-22/Pavelor-512__hash_65536.json"];
    assert_eq!(slow.guide_100_measurements_met, Some(false));
    let (_tmp, dir) = written(&ds);
    let summary = niccs::check(&dir).expect("check");
    assert_eq!(summary.system, SYSTEM);
    assert_eq!(summary.records, 6);
    assert_eq!(summary.kat_logs, 2);
    assert_eq!(summary.files, 10);
}

#[test]
fn changed_trial_cycles_fail() {
    let p = problem_after(|ds| {
        let r = record_mut(ds, R512);
        if let Some(t) = r.trials.as_mut().and_then(|t| t.get_mut(2)) {
            t.cycles += 1_000_000;
        }
    });
    assert_eq!(p.rule, Rule::Statistic);
    assert_eq!(p.file, R512);
    assert!(p.to_string().contains("mean_cycles"), "{p}");
    assert!(
        p.to_string().contains("does not follow from the trials"),
        "{p}"
    );
}

#[test]
fn changed_process_trial_fails() {
    let p = problem_after(|ds| {
        let r = record_mut(ds, R512);
        if let Some(t) = r.processes[1].trials.as_mut().and_then(|t| t.get_mut(0)) {
            t.cycles += 1;
        }
    });
    assert_eq!(p.rule, Rule::ProcessTrials, "{p}");
}

#[test]
fn changed_kat_log_byte_fails() {
    let p = problem_after(|ds| {
        if let Some(log) = ds.kat_logs.get_mut("kat/hash-22/Pavelor-1024.log") {
            log[3] ^= 0x20;
        }
    });
    assert_eq!(p.rule, Rule::KatLogDigest);
    assert_eq!(p.file, "kat/hash-22/Pavelor-1024.log");
    assert!(
        p.to_string()
            .contains("does not match its digest in build.json"),
        "{p}"
    );
}

#[test]
fn kat_log_with_another_result_fails() {
    let p = problem_after(|ds| {
        let log = b"RESULT hash-22 Pavelor-512 MISMATCH\n".to_vec();
        let digest = niccs::sha256_hex(&log);
        ds.kat_logs
            .insert("kat/hash-22/Pavelor-512.log".into(), log);
        if let Some(e) = ds.build.instances.get_mut("hash-22/Pavelor-512") {
            e.kat_log_sha256 = Some(digest);
        }
    });
    assert_eq!(p.rule, Rule::KatLogResult, "{p}");
    assert!(
        p.to_string().contains("result MISMATCH != build.json PASS"),
        "{p}"
    );
}

#[test]
fn missing_kat_log_fails() {
    let p = problem_after(|ds| {
        ds.kat_logs.remove("kat/hash-22/Pavelor-512.log");
    });
    assert_eq!(p.rule, Rule::KatLogMissing, "{p}");
}

#[test]
fn changed_mean_cycles_fails() {
    let p = problem_after(|ds| {
        let r = record_mut(ds, R512);
        r.mean_cycles = r.mean_cycles.map(|c| c * 1.000_001);
    });
    assert_eq!(p.rule, Rule::Statistic);
    assert!(
        p.to_string().starts_with(&format!("{R512}: mean_cycles ")),
        "{p}"
    );
}

#[test]
fn tiny_rounding_is_tolerated() {
    // validate.py's close(): relative tolerance 1e-9.
    let mut ds = fixture();
    let r = record_mut(&mut ds, R512);
    r.mean_seconds = r.mean_seconds.map(|s| s * (1.0 + 1e-12));
    let (_tmp, dir) = written(&ds);
    niccs::check(&dir).expect("within tolerance");
}

#[test]
fn changed_min_trial_seconds_fails() {
    let p = problem_after(|ds| {
        let r = record_mut(ds, R512);
        r.min_trial_seconds = r.max_trial_seconds;
    });
    assert_eq!(p.rule, Rule::Statistic);
    assert!(p.to_string().contains("min_trial_seconds"), "{p}");
}

#[test]
fn absolute_path_fails() {
    let p = problem_after(|ds| {
        let r = record_mut(ds, R512);
        r.processes[0].command[3] = "/home/alice/ngcc-harness/performance/ngcc_perf".into();
    });
    assert_eq!(p.rule, Rule::AbsolutePath);
    assert_eq!(p.file, R512);
    assert!(
        p.to_string().contains("contains a local absolute path"),
        "{p}"
    );
}

#[test]
fn absolute_path_in_a_kat_log_fails() {
    let p = problem_after(|ds| {
        let log = b"source_dir = /tmp/build/Pavelor\nRESULT hash-22 Pavelor-512 PASS\n".to_vec();
        let digest = niccs::sha256_hex(&log);
        ds.kat_logs
            .insert("kat/hash-22/Pavelor-512.log".into(), log);
        if let Some(e) = ds.build.instances.get_mut("hash-22/Pavelor-512") {
            e.kat_log_sha256 = Some(digest);
        }
    });
    assert_eq!(p.rule, Rule::AbsolutePath);
    assert_eq!(p.file, "kat/hash-22/Pavelor-512.log");
}

#[test]
fn other_absolute_json_string_fails() {
    let p = problem_after(|ds| {
        let r = record_mut(ds, R512);
        r.extra
            .insert("driver".into(), Json::from("/usr/local/bin/ngcc_perf"));
    });
    assert_eq!(p.rule, Rule::AbsoluteJsonString);
    assert!(p.to_string().contains("/driver"), "{p}");
}

#[test]
fn wrong_measurement_count_fails() {
    let p = problem_after(|ds| {
        let r = record_mut(ds, R512);
        r.measurements = r.measurements.map(|n| n + 1);
    });
    assert_eq!(p.rule, Rule::Measurements);
    assert!(
        p.to_string()
            .contains("measurements 40001 != sum of trials 40000"),
        "{p}"
    );
}

#[test]
fn wrong_guide_100_flag_fails() {
    let p = problem_after(|ds| {
        let r = record_mut(ds, "records/hash-22/Pavelor-1024__hash_65536.json");
        r.guide_100_measurements_met = Some(true);
    });
    assert_eq!(p.rule, Rule::Guide100);
    assert!(
        p.to_string()
            .contains("guide_100_measurements_met True inconsistent with 75 measurements"),
        "{p}"
    );
}

#[test]
fn wrong_throughput_fails() {
    let p = problem_after(|ds| {
        let r = record_mut(ds, R512);
        r.throughput_mb_per_second = r.throughput_mb_per_second.map(|t| t * 2.0);
    });
    assert_eq!(p.rule, Rule::Throughput, "{p}");
}

#[test]
fn trial_count_other_than_the_plan_fails() {
    let p = problem_after(|ds| {
        let r = record_mut(ds, R512);
        r.plan.trials = 6;
    });
    assert_eq!(p.rule, Rule::TrialCount);
    assert!(p.to_string().contains("5 trials, plan says 6"), "{p}");
}

#[test]
fn record_of_an_unbuilt_instance_fails() {
    let p = problem_after(|ds| {
        let mut r = ds.records[R512].clone();
        r.label = "Pavelor-768".into();
        ds.insert_record(r);
    });
    assert_eq!(p.rule, Rule::NotInBuild);
    assert!(
        p.to_string()
            .contains("hash-22/Pavelor-768 is not in build.json"),
        "{p}"
    );
}

#[test]
fn record_digest_other_than_build_json_fails() {
    let p = problem_after(|ds| {
        record_mut(ds, R512).kat_log_sha256 = Some("00".repeat(32));
    });
    assert_eq!(p.rule, Rule::RecordDigests, "{p}");
}

#[test]
fn system_id_other_than_the_directory_fails() {
    let p = problem_after(|ds| ds.campaign.system_id = "arm_9".into());
    assert_eq!(p.rule, Rule::SystemId);
    assert!(p.to_string().contains("system_id is 'arm_9'"), "{p}");
}

#[test]
fn unregistered_system_fails_when_systems_are_given() {
    let (_tmp, dir) = written(&fixture());
    let options = niccs::CheckOptions {
        known_systems: Some(vec!["arm_1".into(), "x86_1".into()]),
    };
    let p = niccs::check_with(&dir, &options).expect_err("unregistered");
    assert_eq!(p.rule, Rule::SystemRegistered);
}

#[test]
fn failed_records_are_not_recomputed() {
    // validate.py checks only the build entry of a record that did not complete.
    let mut ds = fixture();
    let r = record_mut(&mut ds, R512);
    r.status = "failed_or_partial".into();
    r.mean_cycles = Some(1.0);
    let (_tmp, dir) = written(&ds);
    niccs::check(&dir).expect("a failed record's figures are not checked");
}

#[test]
fn round_trip_keeps_everything_and_unknown_fields() {
    let mut ds = fixture();
    {
        let r = record_mut(&mut ds, R512);
        r.extra
            .insert("tick_source".into(), Json::from("cntvct_el0"));
        r.extra.insert(
            "tick_counts".into(),
            serde_json::from_str(
                r#"{"hz": 24000000, "per_trial": [1, 2.5, null], "z": {"b": 1, "a": 2}}"#,
            )
            .expect("json"),
        );
        // The first trial is process 0's: both carry the extra field.
        if let Some(t) = r.trials.as_mut().and_then(|t| t.first_mut()) {
            t.extra.insert("ticks".into(), Json::from(123_456u64));
        }
        if let Some(t) = r.processes[0].trials.as_mut().and_then(|t| t.first_mut()) {
            t.extra.insert("ticks".into(), Json::from(123_456u64));
        }
        r.processes[0]
            .extra
            .insert("pinned".into(), Json::from(true));
        r.plan.extra.insert("note".into(), Json::from("ünïcödé ✓"));
    }
    ds.campaign
        .extra
        .insert("pavelor_version".into(), Json::from("0.1.0"));
    if let Some(e) = ds.build.instances.get_mut("hash-22/Pavelor-512") {
        e.extra.insert("backend".into(), Json::from("aesni"));
    }
    let (_tmp, dir) = written(&ds);
    let loaded = Dataset::load(&dir).expect("load");
    assert_eq!(loaded, ds);
    let r = &loaded.records[R512];
    assert_eq!(r.extra.get("tick_source"), Some(&Json::from("cntvct_el0")));
    let keys: Vec<&str> = r
        .extra
        .get("tick_counts")
        .and_then(|v| match v {
            Json::Object(o) => o.get("z"),
            _ => None,
        })
        .map(|z| match z {
            Json::Object(o) => o.keys().map(String::as_str).collect(),
            _ => Vec::new(),
        })
        .unwrap_or_default();
    assert_eq!(keys, ["b", "a"], "object key order is kept");
    // Writing the loaded dataset again gives the same bytes.
    let tmp2 = tempfile::tempdir().expect("tempdir");
    let dir2 = tmp2.path().join(SYSTEM);
    loaded.write(&dir2).expect("write");
    for rel in [
        "campaign.json",
        "build.json",
        R512,
        "kat/hash-22/Pavelor-512.log",
    ] {
        assert_eq!(
            std::fs::read(dir.join(rel)).expect("read"),
            std::fs::read(dir2.join(rel)).expect("read"),
            "{rel}"
        );
    }
    let text = std::fs::read_to_string(dir.join(R512)).expect("read");
    assert!(
        text.contains("\"note\": \"\\u00fcn\\u00efc\\u00f6d\\u00e9 \\u2713\""),
        "ensure_ascii"
    );
    // Unknown fields do not disturb the harness's checks.
    niccs::check(&dir).expect("check with extra fields");
}

#[test]
fn no_cycle_counter_records_check() {
    let mut ds = fixture();
    let r = record_mut(&mut ds, R512);
    for p in &mut r.processes {
        for t in p.trials.iter_mut().flatten() {
            t.cycles = 0;
            t.extra.insert(
                "ticks".into(),
                Json::from(t.seconds.mul_add(24e6, 0.0).round() as u64),
            );
        }
    }
    r.derive_from_processes().expect("derive");
    assert_eq!(r.mean_cycles, None);
    let (_tmp, dir) = written(&ds);
    niccs::check(&dir).expect("null mean_cycles follows from zero cycles");
    let text = std::fs::read_to_string(dir.join(R512)).expect("read");
    assert!(text.contains("\"mean_cycles\": null,\n \"median_trial_cycles\": null,"));
}

#[test]
fn load_errors_name_the_file() {
    let (_tmp, dir) = written(&fixture());
    let bad = dir.join("records/hash-22/Pavelor-512__hash_32.json");
    std::fs::write(&bad, b"{\"schema\": 2,").expect("write");
    let e = Dataset::load(&dir).expect_err("truncated record");
    let msg = e.to_string();
    assert!(msg.starts_with(&bad.display().to_string()), "{msg}");
    assert!(!msg.contains('\n'));
    let p = niccs::check(&dir).expect_err("truncated record");
    assert_eq!(p.rule, Rule::Json);
    assert_eq!(p.file, "records/hash-22/Pavelor-512__hash_32.json");
}

#[test]
fn oversized_files_are_refused() {
    let (_tmp, dir) = written(&fixture());
    let big = std::fs::File::create(dir.join("kat/hash-22/huge.log")).expect("create");
    big.set_len(niccs::MAX_FILE_BYTES + 1).expect("sparse file");
    let e = Dataset::load(&dir).expect_err("too large");
    assert!(matches!(e, niccs::Error::Refused { .. }), "{e}");
    assert!(
        e.to_string().contains(
            "huge.log: larger than the limit of 4 MiB per file (--max-file-mib raises it)"
        ),
        "{e}"
    );
    let p = niccs::check(&dir).expect_err("too large");
    assert_eq!(p.rule, Rule::Read);
}

#[test]
fn bad_paths_are_not_written() {
    let mut ds = fixture();
    let r = ds.records[R512].clone();
    ds.records.insert("records/../../escape.json".into(), r);
    let tmp = tempfile::tempdir().expect("tempdir");
    let e = ds.write(&tmp.path().join(SYSTEM)).expect_err("bad path");
    assert!(matches!(e, niccs::Error::BadPath { .. }), "{e}");
    assert!(!tmp.path().join(SYSTEM).exists(), "nothing written");
}

#[test]
fn fixture_page_renders() {
    let ds = fixture();
    let mut ctx = niccs::PageContext::harness(SYSTEM, "x86-64");
    ctx.evidence_intro = "Paths are relative to this directory.".into();
    let page = niccs::render_page(&ds, &ctx);
    assert!(page.starts_with("# hash-22 Pavelor: A Highly Secure Hash Algorithm for Software Implementation — performance on x86-64 (system test_1)\n"));
    assert!(page.contains("following the structure of the NICCS x86 self-assessment guide"));
    assert!(page.contains("| processor | Example CPU 9000 (CPU 3, one core) |"));
    assert!(!page.contains("| machine |"), "a null machine has no row");
    assert!(page.contains("| clock | max 3.00 GHz, governor performance, turbo off, SMT off |"));
    assert!(page.contains("| memory | 15936 MiB |"));
    assert!(
        page.contains(
            "| `Pavelor-512` | 65536 B | 9.92 M | 151.4 | 3.31 ms | 19.8 | 75 (5 × 15) |"
        ),
        "{page}"
    );
    assert!(page.contains("| `Pavelor-1024` | hash_1024 | 14001 | 1172 KiB | 1252 KiB |"));
    assert!(page.ends_with("in the [harness](https://github.com/ngcc-dev/ngcc-harness).\n\n"));
}

/// The harness's own arm_1 dataset, if present (else `SKIPPED`).
fn golden() -> Option<PathBuf> {
    common::harness_data("niccs_check").map(|d| d.join("arm_1"))
}

#[test]
fn golden_dataset_passes_the_check() {
    let Some(dir) = golden() else { return };
    let summary = niccs::check(&dir).expect("the harness's own data passes");
    assert_eq!(summary.system, "arm_1");
    assert_eq!(summary.records, 24);
    assert_eq!(summary.kat_logs, 3);
    assert_eq!(summary.profiles, 0);
}

#[test]
fn golden_round_trip_is_byte_exact() {
    let Some(dir) = golden() else { return };
    let ds = Dataset::load(&dir).expect("load");
    assert_eq!(ds.records.len(), 24);
    assert_eq!(ds.kat_logs.len(), 3);
    let tmp = tempfile::tempdir().expect("tempdir");
    let out = tmp.path().join("arm_1");
    ds.write(&out).expect("write");
    let rels = ["campaign.json", "build.json"]
        .into_iter()
        .map(String::from)
        .chain(ds.records.keys().cloned())
        .chain(ds.kat_logs.keys().cloned());
    for rel in rels {
        let a = std::fs::read(dir.join(&rel)).expect("read golden");
        let b = std::fs::read(out.join(&rel)).expect("read written");
        assert!(a == b, "{rel} differs after load and write");
    }
    niccs::check(&out).expect("the copy passes too");
}

#[test]
fn golden_statistics_are_reproduced_bit_for_bit() {
    let Some(dir) = golden() else { return };
    let ds = Dataset::load(&dir).expect("load");
    for (path, stored) in &ds.records {
        let mut again = stored.clone();
        again.derive_from_processes().expect("derive");
        assert_eq!(&again, stored, "{path}");
        // Map equality ignores key order (as dict equality does); the
        // text shows it: `sizes` and `kex` in the processes' meta order.
        let text = niccs::to_harness_json(&again).expect("write");
        let stored_text = niccs::to_harness_json(stored).expect("write");
        assert!(text == stored_text, "{path}: derived record's text differs");
    }
}
