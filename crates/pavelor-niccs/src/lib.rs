//! Datasets in the NICCS harness's own layout and schema
//! (`ngcc-dev/ngcc-harness`, `performance/data/<system>/`), the harness's
//! candidate page rendered from one, and the harness validator's checks.
//!
//! * [`schema`] — serde types of `campaign.json` ([`Campaign`]),
//!   `build.json` ([`Build`], [`BuildEntry`]) and the schema-2 timing record
//!   ([`Record`], with [`Plan`], [`Process`], [`Trial`]); keys they do not
//!   know are kept. [`Record::derive_statistics`] and
//!   [`Record::derive_from_processes`] compute the derived figures as the
//!   harness's `performance/campaign.py` does, bit for bit.
//! * [`dataset`] — [`Dataset`]: [`Dataset::load`] a directory,
//!   [`Dataset::write`] one (the harness's `json.dumps(indent=1)` form, each
//!   file through a temporary file and a rename).
//! * [`render`] — [`render_page`]: the harness's candidate page
//!   (`performance/report.py`) for one system, given a [`PageContext`]
//!   ([`PageContext::harness`] for the harness's own hash-22 pages).
//! * [`validate`] — [`check`]: the rules of the harness's
//!   `performance/validate.py` (5a17c23) for one dataset, stopping at the
//!   first [`Problem`]; [`check_page`] compares a stored page.
//! * [`value`] — JSON values whose objects keep document order ([`Json`],
//!   [`JsonObject`], [`OrderedMap`], an `indexmap::IndexMap`); [`json`] —
//!   reading them, and the harness's JSON text form ([`to_harness_json`]).
//! * [`python`] — Python's semantics the harness's figures and texts depend
//!   on, in one place: `repr(float)`, `format(x, ".3g")`, `f"{x:.1f}"`,
//!   `sum`, `int / int`, `statistics.median` ([`py_median`]),
//!   `math.isclose`, `int()`, and `str()`, `==` and truthiness of a value.
//! * [`stats`] — every figure derived from trials: per call, per byte, MB/s,
//!   medians, means and variances, Student and Welch intervals.
//!
//! ```no_run
//! use pavelor_niccs::{self as niccs, Dataset, PageContext};
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let dir = std::path::Path::new("performance/data/arm_1");
//! let ds = Dataset::load(dir)?;
//! let page = niccs::render_page(&ds, &PageContext::harness("arm_1", "AArch64"));
//! let summary = niccs::check(dir)?;
//! println!("{summary}\n{page}");
//! # Ok(()) }
//! ```
//!
//! Errors: loading, writing and deriving give [`Error`] (so does
//! [`PageContext::for_dataset`]), checking gives [`Problem`]; both display
//! as one line naming the file and what is wrong.

#![forbid(unsafe_code)]

pub mod dataset;
mod error;
pub mod evidence;
pub mod json;
pub mod python;
pub mod render;
pub mod schema;
pub mod stats;
pub mod validate;
pub mod value;

pub use dataset::{Dataset, MAX_FILE_BYTES, sha256_hex};
pub use error::Error;
pub use evidence::{Evidence, Limits};
pub use json::{Json, JsonObject, OrderedMap, to_harness_json};
pub use python::py_median;
pub use render::{KatIssue, PageContext, architecture_wording, render_page};
pub use schema::{
    Build, BuildEntry, Campaign, HostCheck, Plan, Planning, Process, Record, SCHEMA, Trial,
};
pub use validate::{CheckOptions, CheckSummary, Problem, Rule, check, check_page, check_with};
