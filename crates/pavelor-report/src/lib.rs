//! What people read of a pavelor measurement: the report job and its
//! files, and the site that merges several machines' reports.
//!
//! The measuring itself (trials in separate processes, cycle counters,
//! C-library isolation) is [`pavelor_measure`]'s; the NICCS harness's
//! dataset format and page are [`pavelor_niccs`]'s. This crate puts them
//! together:
//!
//! * [`config`] — what a report runs and where ([`Config`]), the guide's
//!   message lengths; [`results`] — what a run found ([`RunResults`]).
//! * [`job`] — the report job, [`run`]: functional tests, then
//!   measurements, then the files.
//! * [`render`] — `report.md`, the charts and `report.html` from a run's
//!   results.
//! * [`validate`] — everything checkable before measuring (options, output
//!   directory, KAT data, libraries), in seconds.
//! * [`kat`] — the Rust backends' KATs; C libraries go through
//!   [`pavelor_measure::library::gate`].
//! * [`rows`] — the implementation-agnostic [`rows::Row`]: one per measured
//!   implementation (Rust backend, C library instance, comparison hash);
//!   every section reads rows.
//! * [`sections`] — one function per §3.5 section.
//! * [`niccs_dataset`] — the campaign as a dataset in the harness's layout.
//! * [`records`] — the JSON evidence, at the paths of [`record_files`];
//!   [`charts`] the report's SVG charts,
//!   drawn by `pavelor_pages::svg_chart`; `report.html` by
//!   `pavelor_pages::html`.
//! * [`reload`] — a report directory read back from its records, rendered
//!   again and compared with its files.
//! * [`harness_run`] — a dataset the NICCS harness published, checked by its
//!   validator's rules and read as a run beside ours.
//! * [`site`] — several report directories (and harness datasets) merged
//!   into one static site.
//! * [`sweep`] — `--sweep`: every length as eBASH measures, its records
//!   and charts ([`pavelor_sweep`] measures and draws).
//! * [`compare`](mod@compare) — two report directories' figures paired, with
//!   the 95% interval of each ratio and a verdict (`pavelor compare`).

#![forbid(unsafe_code)]

pub mod charts;
pub mod compare;
pub mod config;
pub mod harness_run;
pub mod job;
pub mod kat;
pub mod niccs_dataset;
pub mod record_files;
pub mod records;
pub mod reload;
pub mod render;
pub mod results;
pub mod rows;
pub mod sections;
pub mod site;
pub mod sweep;
pub mod validate;

pub use config::{ANCHORS_32B, ANCHORS_64K, Config, DEFAULT_LIB_BUDGET_S, Progress, SIZES};
pub use job::run;
pub use kat::KatResult;
pub use render::{markdown, page_context, rendered_files};
pub use results::{FigureFailure, RunResults};
