//! The measured process: one trial of one operation at one message length.
//!
//! The parent ([`crate::campaign`]) starts this in a fresh process for every
//! trial (fresh address-space layout), passing a [`TrialSpec`] as JSON; the
//! worker prints a [`TrialResult`] as JSON. Between the two counter reads
//! the worker runs nothing but the library's hashing calls.

use std::hint::black_box;
use std::io::{Read, Write};

use crate::clock::{CycleCounter, monotonic_raw_ns};
use crate::ops::Operation;
use crate::protocol::{
    CallChecks, LibTarget, Messages, REPEATED_SLOTS, Sched, TrialResult, TrialSpec, WorkerError,
    distinct_message, message,
};

/// Why the worker could not set itself up: reading the CPUs it may run
/// on, pinning, or making its answer channel private.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The CPU number does not fit a CPU set.
    #[cfg(target_os = "linux")]
    #[error("cpu {cpu}: {source}")]
    CpuOutOfRange {
        /// The CPU asked for.
        cpu: usize,
        /// What `CpuSet::set` said.
        #[source]
        source: nix::Error,
    },
    /// `sched_setaffinity` failed.
    #[cfg(target_os = "linux")]
    #[error("pinning to cpu {cpu}: {source}")]
    Pin {
        /// The CPU asked for.
        cpu: usize,
        /// Why the call failed.
        #[source]
        source: nix::Error,
    },
    /// `sched_getaffinity` failed.
    #[cfg(target_os = "linux")]
    #[error("sched_getaffinity: {0}")]
    Affinity(#[source] nix::Error),
    /// This system has no pinning here.
    #[error("pinning is only implemented on Linux")]
    PinUnsupported,
    /// Descriptor 1 could not be duplicated for the answer.
    #[error("cannot duplicate stdout: {0}")]
    DuplicateStdout(#[source] std::io::Error),
    /// Descriptor 1 could not be pointed at standard error.
    #[cfg(unix)]
    #[error("cannot point stdout at stderr: {0}")]
    RedirectStdout(#[source] nix::Error),
}

fn status_kib(field: &str) -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with(field))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// Pins the calling thread to `cpu`.
pub fn pin(cpu: usize) -> Result<(), Error> {
    #[cfg(target_os = "linux")]
    {
        use nix::sched::{CpuSet, sched_setaffinity};
        use nix::unistd::Pid;
        let mut set = CpuSet::new();
        set.set(cpu)
            .map_err(|source| Error::CpuOutOfRange { cpu, source })?;
        sched_setaffinity(Pid::from_raw(0), &set).map_err(|source| Error::Pin { cpu, source })
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = cpu;
        Err(Error::PinUnsupported)
    }
}

/// The CPUs this process may run on (`sched_getaffinity`), ascending.
pub fn allowed_cpus() -> Result<Vec<usize>, Error> {
    #[cfg(target_os = "linux")]
    {
        use nix::sched::{CpuSet, sched_getaffinity};
        use nix::unistd::Pid;
        let set = sched_getaffinity(Pid::from_raw(0)).map_err(Error::Affinity)?;
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

/// Runs one trial as `spec` says; the answer carries `nonce`.
pub fn run(spec: &TrialSpec, nonce: u64) -> Result<TrialResult, WorkerError> {
    run_trial(spec).map(|mut r| {
        r.nonce = nonce;
        r
    })
}

fn run_trial(spec: &TrialSpec) -> Result<TrialResult, WorkerError> {
    if let Some(cpu) = spec.cpu {
        // The answer carries the failure as text across the process boundary.
        pin(cpu).map_err(|e| WorkerError::Failed(e.to_string()))?;
    }
    if let Some(target) = &spec.lib {
        return run_lib(spec, target);
    }
    let op = Operation::from_id(spec.op.as_str())
        .ok_or_else(|| format!("unknown operation '{}'", spec.op))?;
    let hasher = op.prepare().map_err(|e| e.to_string())?;
    let alg = match op {
        Operation::Pavelor(a, _) => Some(a),
        _ => None,
    };
    let slots = slot_count(spec);
    let mut out = vec![[0u8; 128]; slots];
    let mut result = timed(spec, slots, |m, slot| {
        hasher.hash(m, &mut out[slot]);
        black_box(&out[slot]);
        0
    });
    // Pavelor's own backends are checked like a library; the comparison
    // hashes have no second implementation here to check against.
    if let Some(alg) = alg {
        let len = alg.output_len();
        result.checks = check_digests(spec, alg, |i| &out[i % slots][..len], result.checks);
    }
    Ok(result)
}

/// Digest slots a trial's calls write into: one per call for the check
/// and control trials (all are checked), [`REPEATED_SLOTS`] in turn for a
/// figure's.
fn slot_count(spec: &TrialSpec) -> usize {
    let calls = spec.calls.max(1) as usize;
    if spec.messages.slot_per_call() {
        calls
    } else {
        calls.min(REPEATED_SLOTS)
    }
}

/// Compares the digests of the timed calls that `digest(i)` still holds
/// (call `i`; the last [`REPEATED_SLOTS`] calls of a figure's trial,
/// every call of a check or control trial) with pavelor's answers.
fn check_digests<'a>(
    spec: &TrialSpec,
    alg: pavelor::Algorithm,
    digest: impl Fn(usize) -> &'a [u8],
    mut checks: CallChecks,
) -> CallChecks {
    let calls = spec.calls.max(1);
    let base = message(spec.size);
    let nbits = 8 * spec.size as u64;
    let reference = |m: &[u8]| crate::library::reference(alg, m, nbits);
    let (first, repeated) = match spec.messages {
        Messages::Repeated => (
            calls.saturating_sub(REPEATED_SLOTS as u64),
            Some(reference(&base)),
        ),
        Messages::RepeatedControl => (0, Some(reference(&base))),
        Messages::Distinct => (0, None),
    };
    let mut msg = base.clone();
    let mut fresh;
    for i in first..calls {
        let want = match &repeated {
            Some(d) => d.as_slice(),
            None => {
                distinct_message(&base, i, &mut msg);
                fresh = reference(&msg);
                fresh.as_slice()
            }
        };
        checks.digests_checked += 1;
        if digest(i as usize) != want {
            checks.wrong_digests += 1;
            checks.first_wrong_call.get_or_insert(i);
        }
    }
    checks
}

/// One trial of a C library's `CryptHash`: every call through the C ABI
/// into a digest slot with guard bytes around it; after the timed calls
/// the slots still holding a digest are checked against pavelor's, and
/// every guard byte.
fn run_lib(spec: &TrialSpec, target: &LibTarget) -> Result<TrialResult, WorkerError> {
    use crate::cabi::{CLibrary, DigestSlots};
    let alg = pavelor::Algorithm::from_output_bits(target.bits)
        .ok_or_else(|| format!("{} is not a Pavelor digest length", target.bits))?;
    let lib = CLibrary::open(&target.path)?;
    progress("loaded");
    let slots = slot_count(spec);
    let mut out = DigestSlots::new(alg.output_len(), slots);
    let bits = target.bits as i32;
    let nbits = 8 * spec.size as u64;
    let mut result = timed(spec, slots, |m, slot| {
        let rc = lib.hash_into(bits, m, nbits, &mut out, slot);
        black_box(out.digest(slot));
        rc
    });
    result.checks.damage = out.damage();
    result.checks = check_digests(spec, alg, |i| out.digest(i % slots), result.checks);
    Ok(result)
}

/// A progress line on stderr (`pavelor trial progress: timing`), by which the
/// campaign tells where a worker that vanished stopped. Unbuffered and
/// written before the counter reads.
fn progress(stage: &str) {
    let _ = writeln!(std::io::stderr(), "pavelor trial progress: {stage}");
}

/// The scheduler's counters for this process now: (involuntary switches,
/// run delay ns, steal ns of `cpu`).
fn sched_now(cpu: Option<usize>) -> (Option<u64>, Option<u64>, Option<u64>) {
    let switches = status_kib("nonvoluntary_ctxt_switches:");
    let run_delay = std::fs::read_to_string("/proc/self/schedstat")
        .ok()
        .and_then(|s| s.split_whitespace().nth(1)?.parse().ok());
    let steal = cpu.and_then(|c| {
        let stat = std::fs::read_to_string("/proc/stat").ok()?;
        let name = format!("cpu{c}");
        let line = stat
            .lines()
            .find(|l| l.split_whitespace().next() == Some(&name))?;
        let ticks: u64 = line.split_whitespace().nth(8)?.parse().ok()?;
        // USER_HZ is 100 on every Linux architecture pavelor builds for.
        Some(ticks * 10_000_000)
    });
    (switches, run_delay, steal)
}

/// Times `call(message, slot)` as `spec` says: the warm-up calls, then
/// exactly `spec.calls` calls between the two counter reads, call `i`
/// writing slot `i mod slots`. Call `i` of a distinct-message trial gets
/// [`distinct_message`]`(i)`, made in place before the call (a store of 8
/// bytes); `call` returns `CryptHash`'s return value. The baseline RSS is
/// read before the warm-ups, as the harness's driver reads it.
fn timed(spec: &TrialSpec, slots: usize, mut call: impl FnMut(&[u8], usize) -> i32) -> TrialResult {
    let base = message(spec.size);
    let mut msg = base.clone();
    let mut counter = CycleCounter::open(spec.force_ticks);
    let baseline_rss_kib = status_kib("VmRSS:");
    for _ in 0..spec.warmups {
        call(black_box(&msg), 0);
    }
    let calls = spec.calls.max(1);
    let distinct = spec.messages == Messages::Distinct;
    let mut failed = 0u64;
    let before = sched_now(spec.cpu);
    let mut slot = 0usize;
    progress("timing");
    let (t0, c0) = (monotonic_raw_ns(), counter.read());
    for i in 0..calls {
        if distinct {
            distinct_message(&base, i, &mut msg);
        }
        failed += u64::from(call(black_box(&msg), slot) != 0);
        slot += 1;
        if slot == slots {
            slot = 0;
        }
    }
    let (t1, c1) = (monotonic_raw_ns(), counter.read());
    let after = sched_now(spec.cpu);
    let aes_per_round =
        crate::aes_probe::probe_aes_with(&mut counter, 3, 200_000).map(|r| r.per_round);
    let delta = |a: Option<u64>, b: Option<u64>| Some(b?.saturating_sub(a?));
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
        nonce: 0,
        messages: spec.messages,
        checks: CallChecks {
            failed_calls: failed,
            ..CallChecks::default()
        },
        sched: Sched {
            involuntary_switches: delta(before.0, after.0),
            run_delay_ns: delta(before.1, after.1),
            steal_ns: delta(before.2, after.2),
        },
        disturbed: None,
        reruns: 0,
    }
}

/// Makes the worker's standard output private before any library code
/// runs: a close-on-exec duplicate of descriptor 1 carries the answer, and
/// descriptor 1 itself then points at standard error. Whatever a loaded
/// library prints (a constructor's or `CryptHash`'s `printf`, flushed at
/// exit after our answer) goes to stderr and cannot corrupt the answer.
#[cfg(unix)]
fn answer_channel() -> Result<Box<dyn std::io::Write>, Error> {
    use std::os::fd::AsFd;
    let private = std::io::stdout()
        .as_fd()
        .try_clone_to_owned()
        .map_err(Error::DuplicateStdout)?;
    nix::unistd::dup2_stdout(std::io::stderr()).map_err(Error::RedirectStdout)?;
    Ok(Box::new(std::fs::File::from(private)))
}

#[cfg(not(unix))]
fn answer_channel() -> Result<Box<dyn std::io::Write>, Error> {
    Ok(Box::new(std::io::stdout()))
}

/// The worker's entry point: reads the spec from `arg` (JSON), writes the
/// result (JSON) on the stdout it was started with, which nothing else in
/// the process can write to (see `answer_channel`). Returns the process
/// exit status.
pub fn main_with_arg(arg: &str) -> i32 {
    main_with(arg, &|_, _| None)
}

/// A handler of requests this crate does not know (a layer above it
/// adds its own), given the request and the nonce read from stdin:
/// `None` when the request is not its own, else its answer as JSON
/// (carrying the nonce) or why there is none.
pub type Handler<'a> = &'a dyn Fn(&str, u64) -> Option<Result<String, WorkerError>>;

/// [`main_with_arg`] that first offers a request that is not a library
/// task to `other`, and reads it as a trial spec when `other` declines.
pub fn main_with(arg: &str, other: Handler<'_>) -> i32 {
    // The memory limit first, before a library is loaded.
    if let Err(e) = crate::isolate::apply_own_limits() {
        eprintln!("pavelor trial: {e}");
        return 1;
    }
    let mut answer = match answer_channel() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("pavelor trial: {e}");
            return 1;
        }
    };
    // The nonce comes on stdin, read to its end before any library is
    // loaded (gate tasks get /dev/null: no nonce).
    let mut input = String::new();
    if !std::io::IsTerminal::is_terminal(&std::io::stdin()) {
        let _ = std::io::stdin().take(4096).read_to_string(&mut input);
    }
    let nonce = crate::protocol::parse_nonce(&input);
    input.clear();
    // A request about a C library carries a `lib_task` tag; anything else
    // is a trial spec.
    let result: Result<String, WorkerError> =
        match serde_json::from_str::<crate::library::tasks::LibTask>(arg) {
            Ok(task) => crate::library::tasks::run(&task),
            Err(_) => other(arg, nonce).unwrap_or_else(|| {
                serde_json::from_str::<TrialSpec>(arg)
                    .map_err(|e| WorkerError::Failed(format!("bad trial spec: {e}")))
                    .and_then(|s| run(&s, nonce))
                    .and_then(|r| {
                        serde_json::to_string(&r).map_err(|e| WorkerError::Failed(e.to_string()))
                    })
            }),
        };
    let status = match result {
        Ok(json) => match writeln!(answer, "{json}").and_then(|()| answer.flush()) {
            Ok(()) => 0,
            Err(e) => {
                eprintln!("pavelor trial: cannot write the answer: {e}");
                crate::protocol::EXIT_NO_ANSWER_CHANNEL
            }
        },
        Err(e) => {
            eprintln!("pavelor trial: {e}");
            e.exit_status()
        }
    };
    // The library may have closed the answer's descriptor: closing it
    // again on drop would abort the process (the standard library's check
    // of owned descriptors), so it is left to the process's exit.
    std::mem::forget(answer);
    status
}
