//! Functional testing of the Rust backends (report sections 3 and 10).

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;

use pavelor::{Algorithm, Available};
use pavelor_kat::official;
use pavelor_kat::suite::KatKind;
use serde::{Deserialize, Serialize};

use crate::config::Config;
use crate::config::Progress;
use pavelor_measure::library::gate::{KAT_2_33_SKIPPED, KAT_LOOP_EMULATED};

/// Result of one KAT file.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct KatResult {
    /// Instance name.
    pub instance: String,
    /// File name.
    pub file: String,
    /// Backend used.
    pub backend: String,
    /// "PASS", "FAIL" or "NOT RUN".
    pub status: String,
    /// Records that verified.
    pub passed: usize,
    /// Records in the file.
    pub total: usize,
    /// Failure or reason not run.
    pub detail: Option<String>,
}

/// Verifies the KAT files (best backend: all four files, `KAT_2_33` only if
/// asked; every other backend: `KAT_2_12` and `KAT_2_23`).
pub fn run_kat(config: &Config, progress: &mut dyn FnMut(Progress<'_>)) -> Vec<KatResult> {
    let best = Available::best();
    let mut jobs: Vec<(Algorithm, KatKind, Available)> = Vec::new();
    for alg in Algorithm::ALL {
        for kind in KatKind::ALL {
            jobs.push((alg, kind, best));
        }
        for b in Available::all().filter(|b| *b != best) {
            jobs.push((alg, KatKind::Kat2_12, b));
            jobs.push((alg, KatKind::Kat2_23, b));
        }
    }
    progress(Progress::Phase("functional tests (KAT)", jobs.len() as u64));
    // The files are independent: they are checked on every CPU this
    // process may use (the phase comes before any figure is timed), and
    // the results keep the order of `jobs`.
    let workers = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(jobs.len());
    let emulated = pavelor_measure::env::emulation().is_some();
    let next = AtomicUsize::new(0);
    let mut results: Vec<Option<KatResult>> = vec![None; jobs.len()];
    std::thread::scope(|scope| {
        let (done, finished) = mpsc::channel();
        for _ in 0..workers {
            let done = done.clone();
            let (jobs, next) = (&jobs, &next);
            scope.spawn(move || {
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(&(alg, kind, backend)) = jobs.get(i) else {
                        return;
                    };
                    let r = check_one(config, emulated, alg, kind, backend);
                    if done.send((i, r)).is_err() {
                        return;
                    }
                }
            });
        }
        drop(done);
        for (i, r) in finished {
            progress(Progress::Step(&format!("{} ({})", r.file, r.backend)));
            results[i] = Some(r);
        }
    });
    results.into_iter().flatten().collect()
}

/// One KAT file on one backend.
fn check_one(
    config: &Config,
    emulated: bool,
    alg: Algorithm,
    kind: KatKind,
    backend: Available,
) -> KatResult {
    let file = kind.file_name(alg);
    let mut r = KatResult {
        instance: alg.name().into(),
        file: file.clone(),
        backend: backend.name().into(),
        status: "NOT RUN".into(),
        passed: 0,
        total: 0,
        detail: None,
    };
    if kind == KatKind::Kat2_33 && !config.kat_2_33 {
        r.detail = Some(KAT_2_33_SKIPPED.into());
        return r;
    }
    if kind == KatKind::Loop && emulated {
        r.detail = Some(KAT_LOOP_EMULATED.into());
        return r;
    }
    let mut imp = backend;
    let report = match &config.kat_dir {
        Some(dir) => official::check_file(&mut imp, alg, kind, &dir.join(&file), &mut |_, _| {}),
        None => official::check_embedded(&mut imp, alg, kind, &mut |_, _| {}),
    };
    r.passed = report.passed;
    r.total = report.total;
    r.status = if report.is_pass() { "PASS" } else { "FAIL" }.into();
    r.detail = report.failure.map(|f| f.to_string());
    r
}
