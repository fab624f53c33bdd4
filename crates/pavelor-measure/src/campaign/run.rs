//! Running the trials: the worker conversation (a nonce in, an answer out,
//! checked against what the campaign knows itself), and [`measure`], which
//! runs the calibration, the planned trials and the reruns of disturbed
//! ones, then the checks.

use std::process::Command;

use super::checks::{check_bound, check_consistency, disturbance};
use super::plan::{Budget, trial_limit_s};
use super::stats::timed_seconds;
use super::{Answer, Fault, FaultKind, Measurement, Method};
use crate::aes_probe::AesBound;
use crate::isolate::{self, Ended};
use crate::ops::Subject;
use crate::protocol::{Messages, TrialResult, TrialSpec, WorkerCommand, stage};
use crate::utc::UtcTime;

/// The 1, 5 and 15 minute load averages (`/proc/loadavg`; empty where
/// there is none).
pub fn load_average() -> Vec<f64> {
    std::fs::read_to_string("/proc/loadavg")
        .map(|s| {
            s.split_whitespace()
                .take(3)
                .filter_map(|v| v.parse().ok())
                .collect()
        })
        .unwrap_or_default()
}

/// Processes left behind by workers and killed, since this process
/// started ([`leftovers_killed`]).
static LEFTOVERS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// How many processes that workers left behind were found and killed
/// after them so far.
pub fn leftovers_killed() -> usize {
    LEFTOVERS.load(std::sync::atomic::Ordering::Relaxed)
}

/// A random number (a worker's nonce, a seed drawn for a run), from the
/// standard library's per-process random hash keys and the time.
pub fn nonce() -> u64 {
    use std::hash::{BuildHasher, Hasher};
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u128(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos()),
    );
    h.finish()
}

/// Runs one worker and checks its answer against what the campaign knows
/// itself: the nonce and the call count it asked for, the process it
/// started, and the time that process lived.
fn run_worker(
    worker: &WorkerCommand,
    spec: &TrialSpec,
    limit: std::time::Duration,
    memory: u64,
) -> Result<Answer, Fault> {
    let spec_json =
        serde_json::to_string(spec).map_err(|e| Fault::new(FaultKind::Error, e.to_string()))?;
    let mut cmd = Command::new(&worker.program);
    cmd.args(&worker.args).arg(&spec_json);
    if memory > 0 {
        isolate::set_memory_limit(&mut cmd, memory);
    }
    let mut command_line = vec![worker.program.display().to_string()];
    command_line.extend(worker.args.iter().cloned());
    command_line.push(spec_json);
    let nonce = nonce();
    let input = crate::protocol::nonce_line(nonce);
    let out = isolate::run_with_input(cmd, limit, Some(input.as_bytes()))
        .map_err(|e| Fault::new(FaultKind::Error, e.to_string()))?;
    LEFTOVERS.fetch_add(out.leftovers_killed, std::sync::atomic::Ordering::Relaxed);
    let wall_s = out.wall.as_secs_f64();
    let what = format!("trial of {} at {} B", spec.op, spec.size);
    let untrusted = |why: String| Fault::new(FaultKind::Untrusted, format!("{what}: {why}"));
    match out.ended {
        Ended::Exited { code: 0 } if !out.stdout.is_empty() => {}
        Ended::Exited { code } => {
            return Err(Fault::new(
                FaultKind::Error,
                format!(
                    "{what}: {}",
                    crate::protocol::missing_answer(code, &out.stderr, stage(&out.stderr))
                ),
            ));
        }
        Ended::Signaled { .. } => {
            return Err(Fault::new(
                FaultKind::Crash,
                format!("{what}: {} {}", out.ended.describe(), stage(&out.stderr)),
            ));
        }
        Ended::TimedOut { .. } => {
            return Err(Fault::new(
                FaultKind::Hang,
                format!("{what}: {}", out.ended.describe()),
            ));
        }
    }
    if out.stdout_truncated {
        return Err(untrusted(
            "an answer longer than 16 MiB, or a pipe left open".into(),
        ));
    }
    let mut result: TrialResult = serde_json::from_slice(&out.stdout)
        .map_err(|e| untrusted(format!("an answer that is not a trial result ({e})")))?;
    // The peak RSS is the kernel's count for the process, not the worker's
    // word.
    if out.peak_rss_kib.is_some() {
        result.peak_rss_kib = out.peak_rss_kib;
    }
    if result.nonce != nonce {
        return Err(untrusted(
            "the answer lacks the campaign's nonce: it was not written by the worker".into(),
        ));
    }
    if out.pid != result.pid {
        return Err(untrusted(format!(
            "the answer names process {}, but the worker was {}",
            result.pid, out.pid
        )));
    }
    if result.calls != spec.calls.max(1) {
        return Err(untrusted(format!(
            "the answer counts {} calls; {} were asked for",
            result.calls,
            spec.calls.max(1)
        )));
    }
    let timed_s = timed_seconds(&result);
    if timed_s > wall_s {
        return Err(untrusted(format!(
            "the answer claims {timed_s:.6} s of timed calls in a process that lived {wall_s:.6} s"
        )));
    }
    let c = &result.checks;
    if c.damage.any() {
        return Err(Fault::new(
            FaultKind::WritesOutside,
            format!("{what}: {}", c.damage.describe()),
        ));
    }
    if c.wrong_digests > 0 {
        return Err(Fault::new(
            FaultKind::WrongDigest,
            format!(
                "{what}: {} of {} checked timed calls returned a wrong digest (first: call {})",
                c.wrong_digests,
                c.digests_checked,
                c.first_wrong_call.unwrap_or_default()
            ),
        ));
    }
    if c.failed_calls > 0 {
        return Err(Fault::new(
            FaultKind::WrongDigest,
            format!("{what}: {} timed calls returned non-zero", c.failed_calls),
        ));
    }
    Ok((result, command_line, wall_s))
}

/// One planned trial: run it (`run`), and while it is disturbed
/// ([`disturbance`], against `fixed_clock_hz` too) run it again, at most
/// `reruns` times, keeping each disturbed run in `disturbed_reruns`; the
/// last run stands, marked disturbed if it still is, with the number of
/// reruns it took (the harness: three attempts at most, the third one
/// kept whatever it reads).
pub(super) fn trial_with_reruns(
    mut run: impl FnMut() -> Result<Answer, Fault>,
    reruns: usize,
    fixed_clock_hz: Option<f64>,
    disturbed_reruns: &mut Vec<TrialResult>,
) -> Result<Answer, Fault> {
    let mut done = 0;
    let (mut t, mut cl, mut wall) = run()?;
    while let Some(why) = disturbance(&t, fixed_clock_hz) {
        t.disturbed = Some(why);
        if done == reruns {
            break;
        }
        disturbed_reruns.push(t);
        done += 1;
        (t, cl, wall) = run()?;
    }
    t.reruns = done as u64;
    Ok((t, cl, wall))
}

/// Measures `subject` at `size` bytes as the NICCS harness does: a
/// calibration process times one cold call (`t1`), [`Method::plan`] turns
/// it into calls per trial, warm-ups and trials, and each trial runs in a
/// fresh process: its warm-up calls, then exactly the planned calls between
/// the two counter reads.
///
/// Beyond the harness: every answer is checked (`run_worker`); a
/// disturbed trial is run again up to [`Method::disturbed_reruns`] times
/// (the harness's rule: below 95% of `fixed_clock_hz`, see
/// [`disturbance`]; pavelor's: waiting for the CPU); a
/// Pavelor figure faster than half the AES bound (the campaign's, probed
/// again before it condemns a figure; else its own trial's) is
/// IMPLAUSIBLE; a library's figure must agree with a check trial on
/// distinct messages ([`CACHED_FACTOR`](super::CACHED_FACTOR)); and the
/// whole operation must end within [`Method::op_limit_s`].
pub fn measure(
    worker: &WorkerCommand,
    method: &Method,
    subject: &Subject,
    size: usize,
    aes_bound: Option<&mut AesBound<'_>>,
    fixed_clock_hz: Option<f64>,
) -> Result<Measurement, Fault> {
    let what = || format!("{} at {size} B", subject.id());
    let budget = Budget::start(method.op_limit_s);
    let started_utc = UtcTime::now().isoformat();
    let load_average_start = load_average();
    let mut spec = TrialSpec {
        op: subject.id(),
        size,
        calls: 1,
        warmups: 0,
        force_ticks: method.force_ticks,
        cpu: method.cpu,
        lib: subject.lib_target(),
        messages: Messages::Repeated,
    };
    let memory = method.worker_memory_bytes;
    let run = |spec: &TrialSpec, limit_s: f64| {
        let (limit, by_budget) = budget.limit(limit_s, &what)?;
        run_worker(worker, spec, limit, memory).map_err(|f| budget.classify(f, by_budget))
    };
    let (calibration, cal_command, cal_wall) = run(&spec, method.timeout_s.max(0.1))?;
    let t1 = timed_seconds(&calibration);
    let plan = method.plan(t1, (cal_wall - t1).max(0.0));
    let mut m = Measurement {
        op: subject.id(),
        size,
        trials: Vec::new(),
        calibration: calibration.clone(),
        plan: plan.clone(),
        command_line: cal_command,
        trial_wall_s: Vec::new(),
        started_utc,
        ended_utc: String::new(),
        load_average_start,
        load_average_end: Vec::new(),
        disturbed_reruns: Vec::new(),
        check_trials: Vec::new(),
    };
    if Method::reuses_calibration(&plan) {
        let mut t = calibration;
        t.disturbed = disturbance(&t, fixed_clock_hz);
        m.trials.push(t);
        m.trial_wall_s.push(cal_wall);
    } else {
        spec.calls = plan.iterations_per_trial;
        spec.warmups = plan.warmups;
        let limit = trial_limit_s(&plan, t1);
        let mut command_line = Vec::new();
        for _ in 0..plan.trials {
            let (t, cl, wall) = trial_with_reruns(
                || run(&spec, limit),
                method.disturbed_reruns,
                fixed_clock_hz,
                &mut m.disturbed_reruns,
            )?;
            if command_line.is_empty() {
                command_line = cl;
            }
            m.trials.push(t);
            m.trial_wall_s.push(wall);
        }
        m.command_line = command_line;
    }
    if let Some(alg) = subject.algorithm() {
        check_bound(&m, alg, aes_bound)
            .map_err(|f| Fault::new(f.kind, format!("{}: {}", what(), f.message)))?;
    }
    if spec.lib.is_some() {
        check_consistency(&mut m, &spec, &run, &what(), fixed_clock_hz)?;
    }
    m.ended_utc = UtcTime::now().isoformat();
    m.load_average_end = load_average();
    Ok(m)
}

#[cfg(test)]
mod tests {
    use super::super::fixtures::trial;
    use super::*;
    use crate::clock::CounterKind;

    /// Runs one trial against a 3 GHz fixed clock whose attempts read
    /// `ghz` in turn (0.1 s each): (attempts made, the trial that stands,
    /// the disturbed runs kept).
    fn attempts(ghz: &[f64]) -> (usize, TrialResult, Vec<TrialResult>) {
        let next = std::cell::Cell::new(0usize);
        let run = || -> Result<Answer, Fault> {
            let mut t = trial(None);
            t.counter = CounterKind::PerfCycles;
            t.ns = 100_000_000;
            t.cycles = (ghz[next.get()] * 1e8) as u64;
            next.set(next.get() + 1);
            Ok((t, Vec::new(), 0.2))
        };
        let mut kept = Vec::new();
        let (t, _, _) = trial_with_reruns(run, 2, Some(3.0e9), &mut kept).expect("no fault");
        (next.get(), t, kept)
    }

    #[test]
    fn a_slow_trial_is_run_again_up_to_twice_and_marked_if_it_stays_slow() {
        // 2.82 GHz is 94% of 3 GHz: disturbed; 2.88 GHz is 96%: not.
        let (n, t, kept) = attempts(&[2.88]);
        assert_eq!((n, t.reruns, kept.len()), (1, 0, 0));
        assert_eq!(t.disturbed, None);
        let (n, t, kept) = attempts(&[2.82, 2.88]);
        assert_eq!((n, t.reruns, kept.len()), (2, 1, 1));
        assert_eq!(t.disturbed, None);
        assert!(kept[0].disturbed.is_some());
        let (n, t, kept) = attempts(&[2.82, 2.82, 2.82]);
        assert_eq!((n, t.reruns, kept.len()), (3, 2, 2));
        assert!(
            t.disturbed
                .as_deref()
                .is_some_and(|w| w.contains("below 95%"))
        );
    }
}
