//! The AES-round probes: the two physical bounds every figure of one
//! message is set against (docs/method.md, "The roofline").
//!
//! - **Throughput:** a Paff is 456 AES rounds; no implementation rounds
//!   faster than the CPU's fastest AES form at full throughput.
//! - **Latency:** a Paff is 24 rounds, each made of AES rounds of the
//!   previous round's outputs; no implementation finishes a round sooner
//!   than one AES round's latency after the last.
//!
//! The larger of the two binds.

use pavelor::Algorithm;
use serde::{Deserialize, Serialize};

use crate::clock::{CounterKind, CycleCounter};
use crate::hw::{self, AesForm};

/// AES rounds in one Paff call.
pub const AES_ROUNDS_PER_PAFF: f64 = 456.0;

/// Dependent rounds in one Paff call: round `i + 1` reads only round `i`'s
/// outputs.
pub const DEPENDENT_ROUNDS_PER_PAFF: f64 = pavelor::paff::ROUNDS as f64;

/// The AES-round throughput probe.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct AesProbe {
    /// Counter units per lane-round (one AES round of one 128-bit block)
    /// at full throughput: the best run of the fastest form, lowered by
    /// the campaign's later probes (`reprobes`) where one was faster.
    /// (The key is the one records have always had.)
    #[serde(rename = "per_aesenc")]
    pub per_round: f64,
    /// The instruction form of the best run ([`AesForm::name`]); absent in
    /// records written before the probe timed more than one form, which
    /// timed `AESENC` (x86) or `AESE`+`AESMC` (AArch64) alone.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instruction: Option<String>,
    /// Independent chains.
    pub chains: usize,
    /// Instructions per run.
    pub instructions: u64,
    /// Every run's counter units per lane-round, of the fastest form.
    pub runs: Vec<f64>,
    /// The counter used.
    pub counter: CounterKind,
    /// The best per-round figure of each probe the campaign ran again
    /// before it called a figure IMPLAUSIBLE ([`AesBound::probe_again`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub reprobes: Vec<f64>,
    /// The latency probe: one dependent chain per form, the least time per
    /// step of all forms (absent in records written before it existed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub latency: Option<LatencyProbe>,
}

/// The AES-round latency probe's result.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LatencyProbe {
    /// Counter units per step of one dependent chain: the best run of the
    /// form with the least latency.
    pub per_round: f64,
    /// That form ([`AesForm::name`]).
    pub instruction: String,
    /// Every run of that form, in counter units per step.
    pub runs: Vec<f64>,
}

/// Which of the two bounds binds (is the larger).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Binding {
    /// The AES units' throughput.
    Throughput,
    /// The dependent rounds' latency.
    Latency,
}

impl Binding {
    /// The word the outputs print.
    pub fn name(self) -> &'static str {
        match self {
            Binding::Throughput => "throughput",
            Binding::Latency => "latency",
        }
    }
}

/// Both lower bounds of one call, in counter units.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Roofline {
    /// Its Paff calls' AES rounds at the fastest form's throughput.
    pub throughput: f64,
    /// Its Paff calls' dependent rounds at the least AES latency, if the
    /// latency was probed.
    pub latency: Option<f64>,
}

impl Roofline {
    /// The bounds of one call of `alg` on `size` bytes, from per-round
    /// figures of the two probes.
    pub fn of_call(
        throughput_per_round: f64,
        latency_per_round: Option<f64>,
        alg: Algorithm,
        size: usize,
    ) -> Roofline {
        let paffs = paffs_per_call(alg, size) as f64;
        Roofline {
            throughput: paffs * AES_ROUNDS_PER_PAFF * throughput_per_round,
            latency: latency_per_round.map(|l| paffs * DEPENDENT_ROUNDS_PER_PAFF * l),
        }
    }

    /// The binding bound: the larger of the two.
    pub fn bound(&self) -> f64 {
        self.latency
            .map_or(self.throughput, |l| l.max(self.throughput))
    }

    /// Which bound binds.
    pub fn binding(&self) -> Binding {
        match self.latency {
            Some(l) if l > self.throughput => Binding::Latency,
            _ => Binding::Throughput,
        }
    }

    /// Both bounds divided by `by` (e.g. the message length: per byte).
    pub fn scaled(&self, by: f64) -> Roofline {
        Roofline {
            throughput: self.throughput / by,
            latency: self.latency.map(|l| l / by),
        }
    }
}

impl AesProbe {
    /// Lower bound on counter units per byte for a long single message of
    /// `alg`: `456 × t / rate`.
    pub fn bound_per_byte(&self, alg: Algorithm) -> f64 {
        AES_ROUNDS_PER_PAFF * self.per_round / alg.rate_len() as f64
    }

    /// Lower bound on counter units for one hash of a `size`-byte message:
    /// its Paff calls (`size / rate + 1` absorbing, one more squeezing for
    /// Pavelor-1024) at full AES throughput.
    pub fn bound_per_call(&self, alg: Algorithm, size: usize) -> f64 {
        bound_per_call(self.per_round, alg, size)
    }

    /// Lower bound on counter units per byte for a long single message of
    /// `alg` from the dependent rounds: `24 × latency / rate` (None if the
    /// latency was not probed).
    pub fn latency_bound_per_byte(&self, alg: Algorithm) -> Option<f64> {
        self.latency
            .as_ref()
            .map(|l| DEPENDENT_ROUNDS_PER_PAFF * l.per_round / alg.rate_len() as f64)
    }

    /// Both bounds of one call of `alg` on `size` bytes.
    pub fn roofline(&self, alg: Algorithm, size: usize) -> Roofline {
        Roofline::of_call(
            self.per_round,
            self.latency.as_ref().map(|l| l.per_round),
            alg,
            size,
        )
    }

    /// The instruction the bound counts, as the report names it.
    pub fn instruction_name(&self) -> &str {
        self.instruction
            .as_deref()
            .unwrap_or("AES round instruction")
    }
}

/// [`AesProbe::bound_per_call`] for a probe result of `per_round` counter
/// units per AES round.
pub fn bound_per_call(per_round: f64, alg: Algorithm, size: usize) -> f64 {
    paffs_per_call(alg, size) as f64 * AES_ROUNDS_PER_PAFF * per_round
}

/// Paff calls of one hash of a `size`-byte message: `size / rate + 1`
/// absorbing, one more squeezing for Pavelor-1024.
fn paffs_per_call(alg: Algorithm, size: usize) -> usize {
    let squeeze = alg.output_len().div_ceil(alg.rate_len()) - 1;
    size / alg.rate_len() + 1 + squeeze
}

/// Steps of the chains per run of the campaign's probe.
const CAMPAIGN_ITERATIONS: u64 = 2_000_000;
/// Runs per form of the campaign's probe.
const CAMPAIGN_RUNS: usize = 7;

/// Measures the AES-round throughput with the given counter, every form
/// the CPU has (`AESENC`, `VAESENC` on `ymm` and `zmm` on x86;
/// `AESE`+`AESMC` pairs on AArch64). None without AES instructions.
pub fn aes_probe(force_ticks: bool) -> Option<AesProbe> {
    let mut counter = CycleCounter::open(force_ticks);
    let best = probe_aes_with(&mut counter, CAMPAIGN_RUNS, CAMPAIGN_ITERATIONS)?;
    Some(AesProbe {
        per_round: best.per_round,
        instruction: Some(best.form.name().to_string()),
        chains: hw::AES_CHAINS,
        instructions: CAMPAIGN_ITERATIONS * hw::AES_CHAINS as u64,
        runs: best.runs,
        counter: counter.kind(),
        reprobes: Vec::new(),
        latency: probe_latency_with(&mut counter, CAMPAIGN_RUNS, CAMPAIGN_LATENCY_STEPS),
    })
}

/// Steps of the chain per run of the campaign's latency probe.
const CAMPAIGN_LATENCY_STEPS: u64 = 1_000_000;

/// `runs` runs of one dependent chain of `steps` steps per available form,
/// timed with `counter`: the form with the least time per step. `None`
/// without AES instructions.
pub fn probe_latency_with(
    counter: &mut CycleCounter,
    runs: usize,
    steps: u64,
) -> Option<LatencyProbe> {
    AesForm::available()
        .into_iter()
        .map(|supported| {
            let runs = timed_runs(counter, runs, steps, steps as f64, |n| {
                hw::aes_latency_chain(supported, n)
            });
            LatencyProbe {
                per_round: runs.iter().copied().fold(f64::MAX, f64::min),
                instruction: supported.form().name().to_string(),
                runs,
            }
        })
        .min_by(|a, b| a.per_round.total_cmp(&b.per_round))
}

/// The fastest form of a probe: its best run's counter units per
/// lane-round, and every run of that form.
#[derive(Clone, Debug, PartialEq)]
pub struct ProbeResult {
    /// The best run's counter units per lane-round.
    pub per_round: f64,
    /// The form of that run.
    pub form: AesForm,
    /// Every run of that form, in counter units per lane-round.
    pub runs: Vec<f64>,
}

/// `runs` runs of each available form, of `iterations` steps of the
/// independent AES chains, timed with `counter`: the fastest form. `None`
/// without AES instructions.
pub fn probe_aes_with(
    counter: &mut CycleCounter,
    runs: usize,
    iterations: u64,
) -> Option<ProbeResult> {
    AesForm::available()
        .into_iter()
        .map(|supported| {
            let form = supported.form();
            let rounds = iterations as f64 * (hw::AES_CHAINS * form.lanes()) as f64;
            let runs = timed_runs(counter, runs, iterations, rounds, |n| {
                hw::aes_chains(supported, n)
            });
            let per_round = runs.iter().copied().fold(f64::MAX, f64::min);
            ProbeResult {
                per_round,
                form,
                runs,
            }
        })
        .min_by(|a, b| a.per_round.total_cmp(&b.per_round))
}

/// `runs` runs of `chain(steps)` after a warm-up of 1000 steps, each timed
/// on `counter`: counter units per `per` (what one run does).
fn timed_runs(
    counter: &mut CycleCounter,
    runs: usize,
    steps: u64,
    per: f64,
    chain: impl Fn(u64) -> u64,
) -> Vec<f64> {
    std::hint::black_box(chain(1000));
    (0..runs)
        .map(|_| {
            let c0 = counter.read();
            std::hint::black_box(chain(std::hint::black_box(steps)));
            counter.read().wrapping_sub(c0) as f64 / per
        })
        .collect()
}

/// The campaign probe's best per-round figure again, with a fresh counter
/// (what [`AesBound`] runs in a campaign).
pub fn probe_again(force_ticks: bool) -> Option<f64> {
    let mut counter = CycleCounter::open(force_ticks);
    probe_aes_with(&mut counter, CAMPAIGN_RUNS, CAMPAIGN_ITERATIONS).map(|r| r.per_round)
}

/// What figures are held to: the campaign's probe, and a way to probe
/// again. Another task, or the core's other hardware thread, can slow a
/// probe down but never speed it up, so before a figure is called
/// IMPLAUSIBLE the campaign probes again and the bound is the best of all
/// its probes (the re-probes are kept in the probe's record).
pub struct AesBound<'a> {
    probe: &'a mut AesProbe,
    again: &'a mut dyn FnMut() -> Option<f64>,
}

impl<'a> AesBound<'a> {
    /// The bound of `probe`, which `again` probes anew.
    pub fn new(probe: &'a mut AesProbe, again: &'a mut dyn FnMut() -> Option<f64>) -> Self {
        AesBound { probe, again }
    }

    /// Counter units per lane-round: the best of every probe so far.
    pub fn per_round(&self) -> f64 {
        self.probe.per_round
    }

    /// Probes again and keeps the result; the best per-round figure of all
    /// probes so far (unchanged if the probe could not run).
    pub fn probe_again(&mut self) -> f64 {
        if let Some(t) = (self.again)() {
            self.probe.reprobes.push(t);
            self.probe.per_round = self.probe.per_round.min(t);
        }
        self.probe.per_round
    }

    /// Probes the campaign ran again so far.
    pub fn reprobes(&self) -> usize {
        self.probe.reprobes.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_larger_bound_binds() {
        // Pavelor-512, 64 KiB: 65536 / 192 + 1 = 342 Paff calls.
        let r = Roofline::of_call(0.2, Some(2.0), Algorithm::Pavelor512, 65536);
        assert_eq!(r.throughput, 342.0 * 456.0 * 0.2);
        assert_eq!(r.latency, Some(342.0 * 24.0 * 2.0));
        assert_eq!(r.binding(), Binding::Throughput);
        assert_eq!(r.bound(), r.throughput);
        // A slow chain: 24 × 5 > 456 × 0.2.
        let r = Roofline::of_call(0.2, Some(5.0), Algorithm::Pavelor512, 65536);
        assert_eq!(r.binding(), Binding::Latency);
        assert_eq!(r.bound(), 342.0 * 24.0 * 5.0);
        // Not probed: the throughput bound alone.
        let r = Roofline::of_call(0.2, None, Algorithm::Pavelor512, 65536);
        assert_eq!(r.binding(), Binding::Throughput);
        assert_eq!(r.bound(), r.throughput);
    }

    #[test]
    fn both_bounds_count_the_squeeze_paff() {
        // Pavelor-1024, empty message: one absorbing Paff, one squeezing.
        let r = Roofline::of_call(1.0, Some(1.0), Algorithm::Pavelor1024, 0);
        assert_eq!(r.throughput, 2.0 * 456.0);
        assert_eq!(r.latency, Some(2.0 * 24.0));
        assert_eq!(r.scaled(2.0).latency, Some(24.0));
    }

    #[test]
    fn records_without_a_latency_probe_still_read() {
        let old =
            r#"{"per_aesenc":0.3,"chains":12,"instructions":1,"runs":[0.3],"counter":"ticks"}"#;
        let p: AesProbe = serde_json::from_str(old).expect("an old record reads");
        assert_eq!(p.latency, None);
        assert_eq!(p.latency_bound_per_byte(Algorithm::Pavelor512), None);
    }

    #[test]
    fn the_latency_probe_times_a_chain() {
        let mut counter = CycleCounter::open(true);
        match probe_latency_with(&mut counter, 2, 10_000) {
            // A dependent chain takes at least as long per step as the
            // independent chains take per instruction (half of it: room
            // for a disturbed run).
            Some(l) => {
                let t = probe_aes_with(&mut counter, 2, 10_000)
                    .expect("the throughput probe runs where the latency probe does");
                let per_instruction = t.per_round * t.form.lanes() as f64;
                assert!(l.per_round > 0.0);
                assert!(l.per_round >= 0.5 * per_instruction, "{l:?} {t:?}");
                assert_eq!(l.runs.len(), 2);
            }
            None => println!("SKIPPED: this CPU has no AES instructions"),
        }
    }
}
