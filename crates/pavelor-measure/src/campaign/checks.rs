//! What a figure must pass beyond the harness: a plan that is the
//! method's ([`Measurement::check_plan`]), trials that did not wait for
//! their CPU ([`disturbance`]), times per call above the AES-throughput
//! bound, and for a library, check trials on distinct messages about as
//! fast as the figure (the cache check).

use super::plan::DISTURBED_RERUNS;
use super::stats::{cycles_per_call, timed_seconds};
use super::{Answer, Fault, FaultKind, Measurement, Method};
use crate::aes_probe::{AesBound, bound_per_call};
use crate::clock::CounterKind;
use crate::protocol::{Messages, TrialResult, TrialSpec};

/// A trial is disturbed when its process waited for the CPU (run delay
/// plus the hypervisor's steal) for more than this share of its timed
/// calls' time.
pub const DISTURBED_WAIT_SHARE: f64 = 0.02;

/// A figure is IMPLAUSIBLE when a trial's time per call is below this
/// share of the AES-throughput bound. The bound counts the AES rounds of a
/// hash at the throughput of 128-bit `AESENC` chains; honest figures seen
/// here come within 0.98x of it (the submitted AES-NI C at 64 KiB), so
/// the factor 2 is room for the probe's noise and for a CPU whose wider
/// AES units beat the 128-bit rate, and still far above what a library
/// that skips the hashing reaches (a few percent).
pub const IMPLAUSIBLE_BELOW_BOUND: f64 = 0.5;

/// A library's figure is CACHED when its check trials on distinct
/// messages are more than this factor slower than its fastest figure
/// trial and than the control trial run right after each of them
/// ([`CHECK_TRIALS`] undisturbed pairs).
pub const CACHED_FACTOR: f64 = 1.5;

/// Check trials on distinct messages that may count against a library
/// before it is CACHED.
pub const CHECK_TRIALS: usize = 3;

impl Measurement {
    /// Checks that the plan is what `method` makes of the calibration and
    /// that the trials followed it: `t1` is the calibration's time, the
    /// plan is [`Method::plan`]'s, and there are `trials` trials of
    /// `iterations_per_trial` calls each. The error says what differs.
    pub fn check_plan(&self, method: &Method) -> Result<(), PlanMismatch> {
        let t1 = timed_seconds(&self.calibration);
        let p = &self.plan;
        if p.calibration_seconds != Some(t1) {
            return Err(PlanMismatch::CalibrationSeconds {
                recorded: p.calibration_seconds.unwrap_or(f64::NAN),
                timed: t1,
            });
        }
        let want = method.plan(t1, p.calibration_setup_seconds.unwrap_or(0.0));
        if *p != want {
            return Err(PlanMismatch::NotTheMethods {
                calibration_s: t1,
                planned: (want.trials, want.iterations_per_trial),
                recorded: (p.trials, p.iterations_per_trial),
            });
        }
        if self.trials.len() as u64 != p.trials {
            return Err(PlanMismatch::TrialCount {
                recorded: self.trials.len(),
                planned: p.trials,
            });
        }
        if let Some(t) = self
            .trials
            .iter()
            .find(|t| t.calls != p.iterations_per_trial)
        {
            return Err(PlanMismatch::TrialCalls {
                calls: t.calls,
                planned: p.iterations_per_trial,
            });
        }
        Ok(())
    }
}

/// How a measurement's trials differ from its method's plan
/// ([`Measurement::check_plan`]).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum PlanMismatch {
    /// The plan's calibration time is not the calibration's.
    #[error("plan.calibration_seconds is {recorded} but the calibration took {timed} s")]
    CalibrationSeconds {
        /// `plan.calibration_seconds` (NaN when there is none).
        recorded: f64,
        /// The calibration's timed seconds.
        timed: f64,
    },
    /// The plan is not [`Method::plan`]'s for the calibration.
    #[error(
        "the plan is not the method's for a {calibration_s} s calibration ({} x {} calls planned, {} x {} recorded)",
        planned.0, planned.1, recorded.0, recorded.1
    )]
    NotTheMethods {
        /// The calibration's timed seconds.
        calibration_s: f64,
        /// The method's trials and calls per trial.
        planned: (u64, u64),
        /// The recorded plan's trials and calls per trial.
        recorded: (u64, u64),
    },
    /// The number of trials is not the plan's.
    #[error("{recorded} trials recorded, {planned} planned")]
    TrialCount {
        /// Trials recorded.
        recorded: usize,
        /// Trials planned.
        planned: u64,
    },
    /// A trial made another number of calls than planned.
    #[error("a trial of {calls} calls, {planned} planned")]
    TrialCalls {
        /// The trial's calls.
        calls: u64,
        /// Calls per trial planned.
        planned: u64,
    },
}

/// A trial that ran below this share of the fixed clock lost the CPU to
/// another task (the harness's 95%).
pub(super) const DISTURBED_CLOCK_SHARE: f64 = 0.95;

/// A trial shorter than this, seconds, is not held to the fixed clock (the
/// harness's 0.01 s).
pub(super) const DISTURBED_CLOCK_MIN_S: f64 = 0.01;

/// Why `t` counts as disturbed, if it does: its process waited for the CPU
/// (run delay, and the hypervisor's steal) for more than
/// [`DISTURBED_WAIT_SHARE`] of its timed calls' time (pavelor's own rule),
/// or its cycles per second fell below the fixed clock (the harness's).
///
/// The harness's rule (`ngcc-dev/ngcc-harness`, `performance/campaign.py`,
/// `disturbed()` in `phase_measure`), in other words: with a fixed clock
/// known for the run (`fixed_clock`: cpufreq's `scaling_max_freq`, else
/// the clock probe's median; [`crate::host::fixed_clock_hz`]), a trial
/// that counted cycles and took more than 0.01 s is disturbed when its
/// cycles divided by its seconds are under 95% of that clock, because its
/// core was taken by another task for part of the time. Its driver process
/// is run again, at most twice (three attempts, `range(3)`); the third
/// attempt stands whatever it reads, and pavelor marks it disturbed if it
/// still is. Without a cycle counter there are no cycles (the driver
/// writes 0, pavelor has ticks, not cycles) and the rule does not apply.
pub fn disturbance(t: &TrialResult, fixed_clock_hz: Option<f64>) -> Option<String> {
    // Both rules are read, so that a record says each that holds.
    match (waited_for_the_cpu(t), below_the_clock(t, fixed_clock_hz)) {
        (Some(w), Some(c)) => Some(format!("{w}; {c}")),
        (w, c) => w.or(c),
    }
}

/// pavelor's rule: the trial's process waited for the CPU too long.
fn waited_for_the_cpu(t: &TrialResult) -> Option<String> {
    let waited = t.sched.run_delay_ns.unwrap_or(0) + t.sched.steal_ns.unwrap_or(0);
    (t.ns > 0 && waited as f64 > DISTURBED_WAIT_SHARE * t.ns as f64).then(|| {
        format!(
            "waited {:.1} ms for the CPU in {:.1} ms of timed calls",
            waited as f64 / 1e6,
            t.ns as f64 / 1e6
        )
    })
}

/// The harness's rule: the trial's cycles per second fell below 95% of the
/// fixed clock.
fn below_the_clock(t: &TrialResult, fixed_clock_hz: Option<f64>) -> Option<String> {
    let clock = fixed_clock_hz.filter(|&hz| hz > 0.0)?;
    let seconds = t.ns as f64 / 1e9;
    if t.counter != CounterKind::PerfCycles || t.cycles == 0 || seconds <= DISTURBED_CLOCK_MIN_S {
        return None;
    }
    let hz = t.cycles as f64 / seconds;
    (hz < DISTURBED_CLOCK_SHARE * clock).then(|| {
        format!(
            "ran at {:.3} GHz, below 95% of the fixed clock {:.3} GHz ({:.1}%)",
            hz / 1e9,
            clock / 1e9,
            100.0 * hz / clock
        )
    })
}

/// Probes of the AES throughput the campaign runs again, at most, before
/// it calls a figure IMPLAUSIBLE ([`AesBound::probe_again`]).
pub const BOUND_REPROBES: usize = 2;

/// Every trial's time per call against the AES bound
/// ([`IMPLAUSIBLE_BELOW_BOUND`]): the bound of the campaign's own probe
/// where there is one (the trial's probe is the worker's word), else the
/// trial's. A trial below the campaign's bound has the campaign probe
/// again, up to [`BOUND_REPROBES`] times, and is held to the best of all
/// its probes: a slowed-down probe must not make an honest figure
/// implausible. A trial without a probe on a machine where the campaign
/// probed is not the worker's answer.
pub(super) fn check_bound(
    m: &Measurement,
    alg: pavelor::Algorithm,
    mut campaign: Option<&mut AesBound<'_>>,
) -> Result<(), Fault> {
    for (k, t) in m.trials.iter().enumerate() {
        let per_call = cycles_per_call(t);
        let below = |per_round: f64| {
            per_call < IMPLAUSIBLE_BELOW_BOUND * bound_per_call(per_round, alg, m.size)
        };
        let per_round = match (campaign.as_deref_mut(), t.aes_per_round) {
            (Some(c), Some(_)) => {
                let mut r = c.per_round();
                for _ in 0..BOUND_REPROBES {
                    if !below(r) {
                        break;
                    }
                    r = c.probe_again();
                }
                r
            }
            (Some(_), None) => {
                return Err(Fault::new(
                    FaultKind::Untrusted,
                    format!("trial {} has no AES probe of its own", k + 1),
                ));
            }
            (None, Some(p)) => p,
            (None, None) => continue,
        };
        if below(per_round) {
            let bound = bound_per_call(per_round, alg, m.size);
            let probes = match campaign.as_deref() {
                Some(c) => format!("the best of the campaign's {} probes", c.reprobes() + 1),
                None => "the trial's own probe".to_string(),
            };
            return Err(Fault::new(
                FaultKind::Implausible,
                format!(
                    "trial {} took {per_call:.0} {} per call, {:.2}x the AES-throughput bound of {bound:.0} ({probes}; no correct implementation is below 1x)",
                    k + 1,
                    t.counter.unit(),
                    per_call / bound
                ),
            ));
        }
    }
    Ok(())
}

/// A library's check trials on distinct messages. A check trial within
/// [`CACHED_FACTOR`] of the figure's fastest trial ends the check. After a
/// slower one a control trial runs at once: the repeated message, stored
/// as the check trial stores its digests (a slot per call), so that the
/// pair differs in its messages alone and whatever slowed the machine down
/// meanwhile slows both. A check trial within the factor of its control
/// also ends the check. A slow pair counts against the library only if
/// neither trial was disturbed ([`disturbance`]): waiting for the CPU makes
/// a trial slower, never faster, so a disturbed slow pair says nothing and
/// is run again. After [`CHECK_TRIALS`] undisturbed slow pairs the library
/// is CACHED; if the attempts ([`CHECK_TRIALS`] plus [`DISTURBED_RERUNS`])
/// run out first, it is CACHED with at least one undisturbed slow pair and
/// UNVERIFIED (not accused and not passed) with none.
pub(super) fn check_consistency(
    m: &mut Measurement,
    spec: &TrialSpec,
    run: &dyn Fn(&TrialSpec, f64) -> Result<Answer, Fault>,
    what: &str,
    fixed_clock_hz: Option<f64>,
) -> Result<(), Fault> {
    let fastest = m
        .trials
        .iter()
        .map(cycles_per_call)
        .fold(f64::MAX, f64::min);
    let mut check = spec.clone();
    check.messages = Messages::Distinct;
    let mut control = spec.clone();
    control.messages = Messages::RepeatedControl;
    let limit = m
        .plan
        .timeout_per_process_s
        .max(timed_seconds(&m.calibration) * 3.0 + 60.0);
    // The slowest ratio of an undisturbed pair, with its two figures.
    let mut clean: Option<(f64, f64, f64)> = None;
    let mut clean_pairs = 0;
    let mut best_disturbed = f64::MAX;
    let timed = |spec: &TrialSpec, m: &mut Measurement| -> Result<(f64, bool), Fault> {
        let (mut t, _, _) = run(spec, limit)?;
        let this = cycles_per_call(&t);
        t.disturbed = disturbance(&t, fixed_clock_hz);
        let disturbed = t.disturbed.is_some();
        m.check_trials.push(t);
        Ok((this, disturbed))
    };
    for _ in 0..CHECK_TRIALS + DISTURBED_RERUNS {
        let (distinct, check_disturbed) = timed(&check, m)?;
        if fastest * CACHED_FACTOR >= distinct {
            return Ok(());
        }
        let (repeated, control_disturbed) = timed(&control, m)?;
        if repeated * CACHED_FACTOR >= distinct {
            return Ok(());
        }
        if check_disturbed || control_disturbed {
            best_disturbed = best_disturbed.min(distinct);
            continue;
        }
        let ratio = distinct / repeated;
        if clean.is_none_or(|(r, _, _)| ratio < r) {
            clean = Some((ratio, repeated, distinct));
        }
        clean_pairs += 1;
        if clean_pairs == CHECK_TRIALS {
            break;
        }
    }
    let Some((ratio, repeated, distinct)) = clean else {
        return Err(Fault::new(
            FaultKind::Unverified,
            format!(
                "{what}: every check trial on distinct messages was slower ({best_disturbed:.0} per call against {fastest:.0}), and it or its control trial waited for the CPU; the figure cannot be checked"
            ),
        ));
    };
    Err(Fault::new(
        FaultKind::Cached,
        format!(
            "{what}: {repeated:.0} per call on the repeated message but {distinct:.0} on distinct messages, back to back ({ratio:.1}x, the closest of {clean_pairs} undisturbed pairs of trials; the figure's fastest trial: {fastest:.0}): it answers repeated calls without hashing"
        ),
    ))
}

#[cfg(test)]
mod tests {
    use super::super::fixtures::{measurement, trial};
    use super::*;
    use crate::protocol::Sched;

    #[test]
    fn a_trial_that_waited_for_its_cpu_is_disturbed() {
        let mut t = trial(None);
        t.ns = 1_000_000;
        t.sched.run_delay_ns = Some(19_000);
        assert_eq!(disturbance(&t, None), None);
        t.sched.steal_ns = Some(2_000);
        assert!(disturbance(&t, None).is_some_and(|w| w.contains("0.0 ms") || w.contains("ms")));
        t.sched = Sched::default();
        assert_eq!(
            disturbance(&t, None),
            None,
            "no scheduler figures: not disturbed"
        );
    }

    /// A trial of `seconds` of timed calls at `hz` cycles per second.
    fn at(hz: f64, seconds: f64, counter: CounterKind) -> TrialResult {
        let mut t = trial(None);
        t.counter = counter;
        t.ns = (seconds * 1e9) as u64;
        t.cycles = (hz * seconds) as u64;
        t
    }

    #[test]
    fn a_trial_below_95_percent_of_the_fixed_clock_is_disturbed() {
        let clock = Some(3.0e9);
        let cycles = CounterKind::PerfCycles;
        // 0.94 x 3 GHz = 2.82 GHz over 0.1 s: 282 000 000 cycles.
        let t = at(2.82e9, 0.1, cycles);
        assert_eq!(t.cycles, 282_000_000);
        let why = disturbance(&t, clock).expect("disturbed");
        assert!(
            why.contains("2.820 GHz") && why.contains("3.000 GHz"),
            "{why}"
        );
        // 0.96 x 3 GHz = 2.88 GHz: not disturbed.
        assert_eq!(disturbance(&at(2.88e9, 0.1, cycles), clock), None);
        // Ticks are not cycles; no clock, no rule; 0.01 s or less is not
        // held to it.
        assert_eq!(
            disturbance(&at(2.82e9, 0.1, CounterKind::Ticks), clock),
            None
        );
        assert_eq!(disturbance(&at(2.82e9, 0.1, cycles), None), None);
        assert_eq!(disturbance(&at(2.82e9, 0.01, cycles), clock), None);
        assert!(disturbance(&at(2.82e9, 0.011, cycles), clock).is_some());
        // A trial that waited and ran slow says both.
        let mut both = at(1.5e9, 0.1, cycles);
        both.sched.run_delay_ns = Some(50_000_000);
        let why = disturbance(&both, clock).expect("disturbed");
        assert!(
            why.contains("waited 50.0 ms") && why.contains("below 95% of the fixed clock"),
            "{why}"
        );
    }

    /// A campaign probe of `per_round` whose probes again return `again` in
    /// turn (None once they run out): the check's outcome and the probes
    /// run again.
    fn bound_check(
        m: &Measurement,
        per_round: f64,
        again: &[f64],
    ) -> (Result<(), FaultKind>, Vec<f64>) {
        let mut probe = crate::aes_probe::AesProbe {
            per_round,
            instruction: Some("AESENC".into()),
            chains: 12,
            instructions: 1,
            runs: vec![per_round],
            counter: CounterKind::Ticks,
            reprobes: Vec::new(),
            latency: None,
        };
        let mut next = again.iter().copied();
        let mut f = || next.next();
        let r = check_bound(
            m,
            pavelor::Algorithm::Pavelor512,
            Some(&mut AesBound::new(&mut probe, &mut f)),
        );
        (r.map_err(|f| f.kind), probe.reprobes)
    }

    fn figure(per_call: f64, aes: Option<f64>) -> Measurement {
        let mut t = trial(aes);
        t.calls = 10;
        t.cycles = (per_call * 10.0) as u64;
        measurement(vec![t])
    }

    #[test]
    fn the_aes_bound_uses_the_campaign_s_probe_and_needs_the_trial_s() {
        let alg = pavelor::Algorithm::Pavelor512;
        // 65536 B of Pavelor-512 (rate 192 B): 341 + 1 Paff calls of 456
        // rounds.
        let bound = bound_per_call(0.3, alg, 65536);
        assert_eq!(bound, 342.0 * 456.0 * 0.3);
        assert_eq!(
            bound_check(&figure(bound, Some(0.3)), 0.3, &[]),
            (Ok(()), vec![])
        );
        // Below half the bound, and the probes again agree: IMPLAUSIBLE.
        assert_eq!(
            bound_check(&figure(0.1 * bound, Some(0.3)), 0.3, &[0.31, 0.29, 0.1]),
            (Err(FaultKind::Implausible), vec![0.31, 0.29])
        );
        // A trial claiming a tiny probe of its own is held to the
        // campaign's.
        assert_eq!(
            bound_check(&figure(0.1 * bound, Some(0.001)), 0.3, &[0.3, 0.3]).0,
            Err(FaultKind::Implausible)
        );
        let none = bound_check(&figure(bound, None), 0.3, &[]);
        assert_eq!(none, (Err(FaultKind::Untrusted), vec![]));
        // Without a campaign probe, the trial's own.
        assert!(check_bound(&figure(0.1 * bound, None), alg, None).is_ok());
        let own = check_bound(&figure(0.1 * bound, Some(0.3)), alg, None);
        assert_eq!(own.map_err(|f| f.kind), Err(FaultKind::Implausible));
    }

    #[test]
    fn a_slowed_down_campaign_probe_is_probed_again_before_a_figure_is_implausible() {
        let alg = pavelor::Algorithm::Pavelor512;
        let honest = bound_per_call(0.3, alg, 65536);
        // The campaign's probe ran at 0.8 (another thread shared the AES
        // units): the honest figure is 0.375x of it. The first probe again
        // reads 0.3 and the figure stands, without a second.
        assert_eq!(
            bound_check(&figure(honest, Some(0.3)), 0.8, &[0.3, 0.3]),
            (Ok(()), vec![0.3])
        );
        // Still slowed down once, then quiet: two probes again.
        assert_eq!(
            bound_check(&figure(honest, Some(0.3)), 0.8, &[0.9, 0.3]),
            (Ok(()), vec![0.9, 0.3])
        );
        // Slowed down every time: the figure stays IMPLAUSIBLE, after
        // BOUND_REPROBES probes again, and the message says so.
        let m = figure(honest, Some(0.3));
        let mut probe = crate::aes_probe::AesProbe {
            per_round: 0.8,
            instruction: None,
            chains: 12,
            instructions: 1,
            runs: vec![0.8],
            counter: CounterKind::Ticks,
            reprobes: Vec::new(),
            latency: None,
        };
        let mut slow = || Some(0.7);
        let f = check_bound(&m, alg, Some(&mut AesBound::new(&mut probe, &mut slow)))
            .expect_err("held to a slowed-down bound");
        assert_eq!(f.kind, FaultKind::Implausible);
        assert_eq!(probe.reprobes.len(), BOUND_REPROBES);
        assert!(
            f.message.contains("the best of the campaign's 3 probes"),
            "{}",
            f.message
        );
        // A probe that cannot run again leaves the bound as it was.
        assert_eq!(
            bound_check(&figure(honest, Some(0.3)), 0.8, &[]),
            (Err(FaultKind::Implausible), vec![])
        );
    }

    /// The check and control trials' outcomes `(ticks per call,
    /// disturbed)` in the order they run, against a figure of 100 ticks
    /// per call: what the check decides and how many trials it ran.
    fn consistency(outcomes: &[(u64, bool)]) -> (Result<(), FaultKind>, usize) {
        let mut figure = trial(None);
        figure.cycles = 100 * figure.calls;
        let mut m = measurement(vec![figure]);
        let spec = TrialSpec {
            op: "x".into(),
            size: 65536,
            calls: 10,
            warmups: 0,
            force_ticks: true,
            cpu: None,
            lib: None,
            messages: Messages::Repeated,
        };
        let next = std::cell::Cell::new(0usize);
        let run = |s: &TrialSpec, _: f64| -> Result<Answer, Fault> {
            // Check and control trials alternate, a check trial first.
            let want = if next.get().is_multiple_of(2) {
                Messages::Distinct
            } else {
                Messages::RepeatedControl
            };
            assert_eq!(s.messages, want);
            let (per_call, disturbed) = outcomes[next.get()];
            next.set(next.get() + 1);
            let mut t = trial(None);
            t.cycles = per_call * t.calls;
            t.ns = 1_000_000;
            t.sched.run_delay_ns = Some(if disturbed { 500_000 } else { 0 });
            Ok((t, Vec::new(), 0.0))
        };
        let r = check_consistency(&mut m, &spec, &run, "x", None).map_err(|f| f.kind);
        assert_eq!(m.check_trials.len(), next.get());
        (r, next.get())
    }

    #[test]
    fn only_undisturbed_slow_pairs_count_against_a_library() {
        let clean = |t| (t, false);
        let busy = |t| (t, true);
        // Within 1.5x of the figure: done after one, disturbed or not.
        assert_eq!(consistency(&[clean(150)]), (Ok(()), 1));
        assert_eq!(consistency(&[busy(120)]), (Ok(()), 1));
        // Slower than the figure but as fast as the control trial right
        // after it: the machine slowed down, not the library.
        assert_eq!(consistency(&[clean(300), clean(250)]), (Ok(()), 2));
        // A slow pair with a disturbed trial says nothing: run again.
        assert_eq!(
            consistency(&[busy(300), clean(100), clean(110)]),
            (Ok(()), 3)
        );
        assert_eq!(
            consistency(&[clean(300), busy(100), clean(140)]),
            (Ok(()), 3)
        );
        // Three undisturbed slow pairs: CACHED.
        let slow = [
            clean(151),
            clean(100),
            busy(900),
            clean(100),
            clean(200),
            clean(100),
            clean(400),
            clean(100),
        ];
        assert_eq!(consistency(&slow), (Err(FaultKind::Cached), 8));
        // The attempts run out with one undisturbed slow pair: CACHED.
        let mut few = [busy(300), clean(100)].repeat(CHECK_TRIALS + DISTURBED_RERUNS);
        few[5] = clean(100);
        few[4] = clean(300);
        assert_eq!(consistency(&few), (Err(FaultKind::Cached), few.len()));
        // Every pair disturbed: neither accused nor passed.
        let all = [busy(300), clean(100)].repeat(CHECK_TRIALS + DISTURBED_RERUNS);
        assert_eq!(consistency(&all), (Err(FaultKind::Unverified), all.len()));
    }
}
