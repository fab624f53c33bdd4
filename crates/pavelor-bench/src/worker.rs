//! The measured process: one trial of one operation at one message length.
//!
//! The parent ([`crate::campaign`]) starts this in a fresh process for every
//! trial (fresh address-space layout), passing a [`TrialSpec`] as JSON; the
//! worker prints a [`TrialResult`] as JSON. Between the two counter reads
//! the worker runs nothing but the library's hashing calls.

use std::hint::black_box;
use std::io::Write;

use serde::{Deserialize, Serialize};

use crate::clock::{CounterKind, CycleCounter, monotonic_raw_ns};
use crate::ops::Operation;

/// What a worker is asked to do.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct TrialSpec {
    /// [`Operation::id`].
    pub op: String,
    /// Message length in bytes.
    pub size: usize,
    /// Timed calls: exactly this many between the two counter reads
    /// (1 with no warm-up: a calibration run, one cold call).
    pub calls: u64,
    /// Untimed calls before the timed ones.
    #[serde(default)]
    pub warmups: u64,
    /// Use the tick counter even if the cycle counter is available.
    pub force_ticks: bool,
    /// Pin to this CPU.
    pub cpu: Option<usize>,
    /// Time this C library's `CryptHash` instead of a built-in operation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lib: Option<LibTarget>,
}

/// A C library instance to time through the ICCS ABI.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct LibTarget {
    /// The shared library.
    pub path: std::path::PathBuf,
    /// `digest_len_bits` of each call.
    pub bits: u32,
}

/// What one trial measured.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct TrialResult {
    /// Timed calls.
    pub calls: u64,
    /// Counter delta over all timed calls.
    pub cycles: u64,
    /// `CLOCK_MONOTONIC_RAW` nanoseconds over all timed calls.
    pub ns: u64,
    /// The counter `cycles` came from.
    pub counter: CounterKind,
    /// Why the hardware cycle counter was not used, if it was not.
    pub counter_note: Option<String>,
    /// VmRSS after setup, before the warm-up calls, KiB.
    pub baseline_rss_kib: Option<u64>,
    /// VmHWM (peak RSS) at the end, KiB.
    pub peak_rss_kib: Option<u64>,
    /// The CPU the trial was pinned to.
    pub cpu: Option<usize>,
    /// Process id of the trial.
    pub pid: u32,
    /// Counter units per AES round at full throughput, probed in this
    /// process right after the timed calls (the bound the figure is set
    /// against, measured on the same core at the same moment; `None`
    /// without hardware AES).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub aes_per_round: Option<f64>,
}

/// The measured message of `size` bytes, as the NICCS harness's driver
/// makes it: byte `i` is `(131 * i + size) mod 256`.
pub fn message(size: usize) -> Vec<u8> {
    (0..size)
        .map(|i| (i.wrapping_mul(131).wrapping_add(size) & 0xff) as u8)
        .collect()
}

fn status_kib(field: &str) -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with(field))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// Pins the calling thread to `cpu`.
pub fn pin(cpu: usize) -> Result<(), String> {
    #[cfg(target_os = "linux")]
    {
        use nix::sched::{CpuSet, sched_setaffinity};
        use nix::unistd::Pid;
        let mut set = CpuSet::new();
        set.set(cpu).map_err(|e| format!("cpu {cpu}: {e}"))?;
        sched_setaffinity(Pid::from_raw(0), &set).map_err(|e| format!("pinning to cpu {cpu}: {e}"))
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = cpu;
        Err("pinning is only implemented on Linux".into())
    }
}

/// The CPUs this process may run on (`sched_getaffinity`), ascending.
pub fn allowed_cpus() -> Result<Vec<usize>, String> {
    #[cfg(target_os = "linux")]
    {
        use nix::sched::{CpuSet, sched_getaffinity};
        use nix::unistd::Pid;
        let set =
            sched_getaffinity(Pid::from_raw(0)).map_err(|e| format!("sched_getaffinity: {e}"))?;
        Ok((0..CpuSet::count())
            .filter(|&c| set.is_set(c).unwrap_or(false))
            .collect())
    }
    #[cfg(not(target_os = "linux"))]
    {
        let n = std::thread::available_parallelism().map_or(1, |n| n.get());
        Ok((0..n).collect())
    }
}

/// `0-3,6` for a sorted list of CPUs.
pub fn cpu_list(cpus: &[usize]) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut i = 0;
    while i < cpus.len() {
        let mut j = i;
        while j + 1 < cpus.len() && cpus[j + 1] == cpus[j] + 1 {
            j += 1;
        }
        parts.push(if i == j {
            cpus[i].to_string()
        } else {
            format!("{}-{}", cpus[i], cpus[j])
        });
        i = j + 1;
    }
    parts.join(",")
}

/// Runs one trial as `spec` says.
pub fn run(spec: &TrialSpec) -> Result<TrialResult, String> {
    if let Some(cpu) = spec.cpu {
        pin(cpu)?;
    }
    let msg = message(spec.size);
    if let Some(target) = &spec.lib {
        return run_lib(spec, target, &msg);
    }
    let op =
        Operation::from_id(&spec.op).ok_or_else(|| format!("unknown operation '{}'", spec.op))?;
    let hasher = op.prepare()?;
    let mut out = [0u8; 128];
    Ok(timed(spec, &msg, |m| {
        hasher.hash(m, &mut out);
        black_box(&out);
    }))
}

/// One trial of a C library's `CryptHash`: every call through the C ABI
/// into a guarded digest buffer; the first and the last digest of the trial
/// are checked against ours, the guard bytes after every trial.
fn run_lib(spec: &TrialSpec, target: &LibTarget, msg: &[u8]) -> Result<TrialResult, String> {
    use crate::cabi::{CLibrary, GuardedDigest};
    let alg = pavelor::Algorithm::from_output_bits(target.bits)
        .ok_or_else(|| format!("{} is not a Pavelor digest length", target.bits))?;
    let lib = CLibrary::open(&target.path)?;
    let expected = crate::library::tasks::reference(alg, msg, 8 * msg.len() as u64);
    let mut out = GuardedDigest::new(alg.output_len());
    let bits = target.bits as i32;
    let nbits = 8 * msg.len() as u64;
    let mut rc = 0;
    let check = |rc: i32, out: &GuardedDigest| -> Result<(), String> {
        match out.overwritten() {
            0 if rc != 0 => Err(format!("CryptHash returned {rc}")),
            0 if out.digest() != expected.as_slice() => Err("wrong digest".into()),
            0 => Ok(()),
            n => Err(format!("wrote at least {n} bytes past the digest")),
        }
    };
    let result = timed(spec, msg, |m| {
        rc |= lib.hash(bits, m, nbits, &mut out);
        black_box(out.digest());
    });
    check(rc, &out)?;
    Ok(result)
}

/// Times `call` on `msg` as `spec` says: the warm-up calls, then exactly
/// `spec.calls` calls between the two counter reads. The baseline RSS is
/// read before the warm-ups, as the harness's driver reads it.
fn timed(spec: &TrialSpec, msg: &[u8], mut call: impl FnMut(&[u8])) -> TrialResult {
    let mut counter = CycleCounter::open(spec.force_ticks);
    let baseline_rss_kib = status_kib("VmRSS:");
    for _ in 0..spec.warmups {
        call(black_box(msg));
    }
    let calls = spec.calls.max(1);
    let (t0, c0) = (monotonic_raw_ns(), counter.read());
    for _ in 0..calls {
        call(black_box(msg));
    }
    let (t1, c1) = (monotonic_raw_ns(), counter.read());
    let aes_per_round =
        crate::report::probe_aes_with(&mut counter, 3, 200_000).map(|(best, _)| best);

    TrialResult {
        calls,
        cycles: c1.wrapping_sub(c0),
        ns: t1 - t0,
        counter: counter.kind(),
        counter_note: counter.fallback_reason.clone(),
        baseline_rss_kib,
        peak_rss_kib: status_kib("VmHWM:"),
        cpu: spec.cpu,
        pid: std::process::id(),
        aes_per_round,
    }
}

/// Makes the worker's standard output private before any library code
/// runs: a close-on-exec duplicate of descriptor 1 carries the answer, and
/// descriptor 1 itself then points at standard error. Whatever a loaded
/// library prints (a constructor's or `CryptHash`'s `printf`, flushed at
/// exit after our answer) goes to stderr and cannot corrupt the answer.
#[cfg(unix)]
fn answer_channel() -> Result<Box<dyn std::io::Write>, String> {
    use std::os::fd::AsFd;
    let private = std::io::stdout()
        .as_fd()
        .try_clone_to_owned()
        .map_err(|e| format!("cannot duplicate stdout: {e}"))?;
    nix::unistd::dup2_stdout(std::io::stderr())
        .map_err(|e| format!("cannot point stdout at stderr: {e}"))?;
    Ok(Box::new(std::fs::File::from(private)))
}

#[cfg(not(unix))]
fn answer_channel() -> Result<Box<dyn std::io::Write>, String> {
    Ok(Box::new(std::io::stdout()))
}

/// The worker's entry point: reads the spec from `arg` (JSON), writes the
/// result (JSON) on the stdout it was started with, which nothing else in
/// the process can write to (see [`answer_channel`]). Returns the process
/// exit status.
pub fn main_with_arg(arg: &str) -> i32 {
    // First, before a library is loaded.
    let mut answer = match answer_channel() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("pavelor trial: {e}");
            return 1;
        }
    };
    // A request about a C library carries a `lib_task` tag; anything else
    // is a trial spec.
    let result = match serde_json::from_str::<crate::library::tasks::LibTask>(arg) {
        Ok(task) => crate::library::tasks::run(&task),
        Err(_) => serde_json::from_str::<TrialSpec>(arg)
            .map_err(|e| format!("bad trial spec: {e}"))
            .and_then(|s| run(&s))
            .and_then(|r| serde_json::to_string(&r).map_err(|e| e.to_string())),
    };
    match result {
        Ok(json) => match writeln!(answer, "{json}").and_then(|()| answer.flush()) {
            Ok(()) => 0,
            Err(e) => {
                eprintln!("pavelor trial: cannot write the answer: {e}");
                1
            }
        },
        Err(e) => {
            eprintln!("pavelor trial: {e}");
            1
        }
    }
}
