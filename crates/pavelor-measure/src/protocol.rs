//! The worker protocol: what the campaign asks a worker process to do
//! ([`TrialSpec`]), how it starts one ([`WorkerCommand`]), what the worker
//! answers ([`TrialResult`]), and the measured message. Both sides use this
//! module and nothing else of each other.

use std::fmt;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use crate::clock::CounterKind;

/// How to start a worker process: `program args... <spec JSON>`.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct WorkerCommand {
    /// The executable.
    pub program: PathBuf,
    /// Arguments before the spec.
    pub args: Vec<String>,
}

/// The worker's exit status when it cannot write its answer (the
/// library closed or took over its descriptors).
pub const EXIT_NO_ANSWER_CHANNEL: i32 = 3;

/// The worker's exit status when the library cannot be loaded or does not
/// export `CryptHash` (its message is on stderr, as for any error).
pub const EXIT_LOAD_ERROR: i32 = 4;

/// A C library that cannot be used at all: `dlopen` failed, or it does not
/// export `CryptHash`. The message names the file and the reason.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LoadError(pub String);

impl std::fmt::Display for LoadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for LoadError {}

impl From<LoadError> for String {
    fn from(e: LoadError) -> String {
        e.0
    }
}

/// Why a worker gives no answer: the library could not be loaded (the
/// worker exits with [`EXIT_LOAD_ERROR`]), or anything else (status 1).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum WorkerError {
    /// See [`LoadError`].
    Load(LoadError),
    /// Any other failure, as a message.
    Failed(String),
}

impl WorkerError {
    /// The worker's exit status for this error.
    pub fn exit_status(&self) -> i32 {
        match self {
            WorkerError::Load(_) => EXIT_LOAD_ERROR,
            WorkerError::Failed(_) => 1,
        }
    }
}

impl std::fmt::Display for WorkerError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            WorkerError::Load(e) => e.fmt(f),
            WorkerError::Failed(m) => f.write_str(m),
        }
    }
}

impl From<LoadError> for WorkerError {
    fn from(e: LoadError) -> Self {
        WorkerError::Load(e)
    }
}

impl From<String> for WorkerError {
    fn from(m: String) -> Self {
        WorkerError::Failed(m)
    }
}

/// How a worker's error line on stderr starts.
pub const ERROR_PREFIX: &str = "pavelor trial:";

/// How a worker's progress line on stderr starts.
pub const PROGRESS_PREFIX: &str = "pavelor trial progress:";

/// The worker's error message on stderr (its last `pavelor trial: …`
/// line), if it wrote one.
pub fn worker_error(stderr: &str) -> Option<&str> {
    stderr
        .lines()
        .rev()
        .find(|l| l.starts_with(ERROR_PREFIX))
        .map(|l| l.trim_start_matches(ERROR_PREFIX).trim())
}

/// Where a trial worker was when it stopped, from its progress lines.
pub fn stage(stderr: &str) -> &'static str {
    let reached = |s: &str| {
        stderr.lines().any(|l| {
            l.strip_prefix(PROGRESS_PREFIX)
                .is_some_and(|r| r.trim() == s)
        })
    };
    if reached("timing") {
        "during the timed CryptHash calls"
    } else if reached("loaded") {
        "during the warm-up calls"
    } else {
        "while loading the library (in a constructor)"
    }
}

/// One line on a worker that exited with `code` but gave no answer (or,
/// for a non-zero code, no error line); `during` says where it was.
pub fn missing_answer(code: i32, stderr: &str, during: &str) -> String {
    match code {
        0 => format!(
            "the worker exited (status 0) without an answer {during}: the library called exit()"
        ),
        EXIT_NO_ANSWER_CHANNEL => {
            "the worker could not write its answer: the library closed the worker's descriptors"
                .into()
        }
        code => worker_error(stderr).map_or_else(
            || format!("the worker exited with status {code} without a word {during}: the library ended the process"),
            str::to_string,
        ),
    }
}

/// What the campaign writes to a trial worker's standard input: the
/// nonce, as `nonce=<decimal>` and a newline.
pub fn nonce_line(nonce: u64) -> String {
    format!("nonce={nonce}\n")
}

/// The nonce of a [`nonce_line`] (0 when there is none).
pub fn parse_nonce(input: &str) -> u64 {
    input
        .lines()
        .find_map(|l| l.strip_prefix("nonce=")?.trim().parse().ok())
        .unwrap_or(0)
}

/// The identifier of a measured subject: the name of its figure records
/// and of a worker's task (`pavelor-512.aesni`, `sha-512`,
/// `lib-NAME.pavelor-512`). Made by [`Subject::id`](crate::ops::Subject::id), or read back from a
/// record; code compares identifiers and never takes one apart: a
/// subject's library and instance are asked of the [`Subject`](crate::ops::Subject).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
pub struct TaskId(String);

impl TaskId {
    /// The identifier `id` (only [`Subject::id`](crate::ops::Subject::id) makes one from parts).
    pub(crate) fn new(id: String) -> Self {
        TaskId(id)
    }

    /// The identifier as text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// An identifier read as text (a record's, a test's).
impl From<&str> for TaskId {
    fn from(id: &str) -> Self {
        TaskId(id.to_string())
    }
}

impl fmt::Display for TaskId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// What a worker is asked to do.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct TrialSpec {
    /// [`Subject::id`](crate::ops::Subject::id).
    pub op: TaskId,
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
    /// The messages of the timed calls.
    #[serde(default)]
    pub messages: Messages,
}

/// The messages of a trial's timed calls.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Messages {
    /// Every call hashes [`message`]`(size)`, as the NICCS driver does:
    /// the trials of a figure.
    #[default]
    Repeated,
    /// Call `i` hashes [`distinct_message`]`(size, i)`: pavelor's check
    /// trial, which a library that remembers answers cannot shortcut.
    /// Every call writes a digest slot of its own, and every digest is
    /// checked.
    Distinct,
    /// Every call hashes [`message`]`(size)` into a digest slot of its own,
    /// as a [`Messages::Distinct`] trial stores them, and every digest is
    /// checked: the control trial run right after a slow check trial, so
    /// that the two differ in their messages alone.
    RepeatedControl,
}

impl Messages {
    /// Whether every call writes (and the worker checks) a digest slot of
    /// its own, rather than a ring of [`REPEATED_SLOTS`].
    pub fn slot_per_call(self) -> bool {
        match self {
            Messages::Repeated => false,
            Messages::Distinct | Messages::RepeatedControl => true,
        }
    }
}

/// How many digest slots the calls of a [`Messages::Repeated`] trial cycle
/// through: the digests of the last this-many calls are checked (the
/// other trials keep and check every call's).
pub const REPEATED_SLOTS: usize = 64;

/// Writes a call made outside its digest: how far before a digest and how
/// far past one the furthest changed guard byte is.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Damage {
    /// Bytes before a digest's first byte (0: none).
    pub before: usize,
    /// Bytes past a digest's last byte (0: none).
    pub after: usize,
}

impl Damage {
    /// Whether any guard byte changed.
    pub fn any(&self) -> bool {
        self.before > 0 || self.after > 0
    }

    /// One line: "wrote 16 bytes before the digest", "wrote 100 bytes
    /// past the digest", or both.
    pub fn describe(&self) -> String {
        let mut parts = Vec::new();
        if self.before > 0 {
            parts.push(format!("wrote {} bytes before the digest", self.before));
        }
        if self.after > 0 {
            parts.push(format!("wrote {} bytes past the digest", self.after));
        }
        parts.join(" and ")
    }
}

/// What the worker's checks of its own timed calls found.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CallChecks {
    /// Timed calls whose digest was compared with pavelor's.
    pub digests_checked: u64,
    /// How many of them differed.
    pub wrong_digests: u64,
    /// The first timed call (0-based) whose digest differed.
    pub first_wrong_call: Option<u64>,
    /// Timed calls that returned non-zero.
    pub failed_calls: u64,
    /// Guard bytes changed around the digests.
    pub damage: Damage,
}

/// What the scheduler did to the trial process during its timed calls
/// (Linux; `None` where the kernel does not say).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Sched {
    /// Involuntary context switches (`/proc/self/status`).
    pub involuntary_switches: Option<u64>,
    /// Nanoseconds spent runnable but waiting for the CPU
    /// (`/proc/self/schedstat`, second field).
    pub run_delay_ns: Option<u64>,
    /// Nanoseconds the hypervisor ran something else on the trial's CPU
    /// (`/proc/stat` steal of that CPU).
    pub steal_ns: Option<u64>,
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
    /// The nonce the campaign wrote to the worker's standard input (never
    /// on its command line), repeated: an answer without it is not the
    /// worker's.
    #[serde(default)]
    pub nonce: u64,
    /// The messages the calls hashed.
    #[serde(default)]
    pub messages: Messages,
    /// The worker's checks of the timed calls' digests and guard bytes.
    #[serde(default)]
    pub checks: CallChecks,
    /// The scheduler's view of the timed calls.
    #[serde(default)]
    pub sched: Sched,
    /// Why the campaign counts this trial as disturbed (set by the
    /// campaign, not by the worker).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub disturbed: Option<String>,
    /// How many times the campaign ran this trial again because it was
    /// disturbed before this run stood (the harness's `disturbed_retries`
    /// of its process; set by the campaign).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub reruns: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// The message of call `i` of a [`Messages::Distinct`] trial: [`message`]
/// with its first (up to) 8 bytes XOR the little-endian bytes of `i`.
pub fn distinct_message(base: &[u8], i: u64, out: &mut [u8]) {
    let k = base.len().min(8);
    let x = i.to_le_bytes();
    for j in 0..k {
        out[j] = base[j] ^ x[j];
    }
}

/// The measured message of `size` bytes, as the NICCS harness's driver
/// makes it: byte `i` is `(131 * i + size) mod 256`.
pub fn message(size: usize) -> Vec<u8> {
    (0..size)
        .map(|i| (i.wrapping_mul(131).wrapping_add(size) & 0xff) as u8)
        .collect()
}
