//! What a report runs and where it writes it: [`Config`] (kept in
//! `records/report.json`), the NICCS guide's message lengths, the
//! reference campaigns' anchors, and the progress events of a run.

use std::path::PathBuf;

use pavelor::Algorithm;
use pavelor_measure::{
    campaign::Method, library::LibSpec, ops::Operation, protocol::WorkerCommand,
};

/// The message lengths S1..S8 of the NICCS guide, in bytes.
pub const SIZES: [usize; 8] = [32, 128, 512, 1024, 4096, 8192, 16384, 65536];

/// Anchor figures of the reference campaigns: (instance, arm_1, x86_1)
/// cycles per byte at 64 KiB for the submitted reference C.
pub const ANCHORS_64K: [(Algorithm, f64, f64); 3] = [
    (Algorithm::Pavelor512, 187.5, 192.9),
    (Algorithm::Pavelor768, 280.6, 290.2),
    (Algorithm::Pavelor1024, 563.3, 576.5),
];

/// Anchor mean cycles for 32-byte messages: (instance, arm_1, x86_1).
pub const ANCHORS_32B: [(Algorithm, f64, f64); 3] = [
    (Algorithm::Pavelor512, 36_900.0, 37_800.0),
    (Algorithm::Pavelor768, 36_700.0, 37_900.0),
    (Algorithm::Pavelor1024, 72_600.0, 74_500.0),
];

/// What to run and where to write it (kept in `records/report.json`, so
/// that `report.md` can be rendered again from a report directory).
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct Config {
    /// Output directory (`report.md`, `records/`, charts).
    pub out_dir: PathBuf,
    /// Directory of KAT files to check strictly; `None`: check against the
    /// official answers embedded in `pavelor-kat`.
    pub kat_dir: Option<PathBuf>,
    /// The measurement method.
    pub method: Method,
    /// Message lengths, bytes.
    pub sizes: Vec<usize>,
    /// Built-in operations to measure.
    pub ops: Vec<Operation>,
    /// C libraries to check and measure beside them.
    pub libs: Vec<LibSpec>,
    /// The implementation the ratio columns compare with: a library name,
    /// or a Rust backend name [default: the first library, else the best
    /// backend].
    pub baseline: Option<String>,
    /// How to start a trial process.
    pub worker: WorkerCommand,
    /// Also verify KAT_2_33 (3 x 1 GiB per instance).
    pub kat_2_33: bool,
    /// The command line that started the report.
    pub command_line: Vec<String>,
    /// The executable whose code is measured (for static memory).
    pub measured_exe: PathBuf,
    /// Refuse to measure when the host checks find a problem, as the NICCS
    /// harness does (by default pavelor measures and lists the problems at
    /// the top of the report).
    pub require_fixed_host: bool,
    /// The system id of the NICCS dataset (`campaign.json` `system_id`).
    pub system_id: String,
    /// The implementation the NICCS dataset describes: a `--lib` NAME or a
    /// backend [default: the `--baseline`, else the first `--lib`, else the
    /// best backend].
    pub niccs_subject: Option<String>,
    /// Wall-time budget of one library's figures, seconds: a library still
    /// being measured then is a TIMEOUT and the campaign goes on.
    #[serde(default = "default_lib_budget")]
    pub lib_budget_s: f64,
    /// Audit our backends and each `--lib` library for constant time under
    /// valgrind memcheck (false in a record written before the audit existed).
    #[serde(default)]
    pub ct_audit: bool,
    /// Also sweep every length as eBASH does (`--sweep`), with these
    /// settings.
    #[serde(default)]
    pub sweep: Option<pavelor_sweep::record::Settings>,
}

/// [`Config::lib_budget_s`] by default: an hour.
pub const DEFAULT_LIB_BUDGET_S: f64 = 3600.0;

fn default_lib_budget() -> f64 {
    DEFAULT_LIB_BUDGET_S
}

/// Progress events for a front end.
pub enum Progress<'a> {
    /// A new phase with this many steps.
    Phase(&'a str, u64),
    /// One step of the phase done, with a short description.
    Step(&'a str),
}
