//! The AES-round throughput probe: the physical bound every figure is set
//! against (docs/method.md).

use pavelor::Algorithm;
use serde::{Deserialize, Serialize};

use crate::clock::{CounterKind, CycleCounter};
use crate::hw::{self, AesForm};

/// AES rounds in one Paff call.
pub const AES_ROUNDS_PER_PAFF: f64 = 456.0;

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
    let squeeze = alg.output_len().div_ceil(alg.rate_len()) - 1;
    let paffs = size / alg.rate_len() + 1 + squeeze;
    paffs as f64 * AES_ROUNDS_PER_PAFF * per_round
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
    })
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
            std::hint::black_box(hw::aes_chains(supported, 1000));
            let form = supported.form();
            let rounds = iterations as f64 * (hw::AES_CHAINS * form.lanes()) as f64;
            let runs: Vec<f64> = (0..runs)
                .map(|_| {
                    let c0 = counter.read();
                    std::hint::black_box(hw::aes_chains(
                        supported,
                        std::hint::black_box(iterations),
                    ));
                    let c1 = counter.read();
                    c1.wrapping_sub(c0) as f64 / rounds
                })
                .collect();
            let per_round = runs.iter().copied().fold(f64::MAX, f64::min);
            ProbeResult {
                per_round,
                form,
                runs,
            }
        })
        .min_by(|a, b| a.per_round.total_cmp(&b.per_round))
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
