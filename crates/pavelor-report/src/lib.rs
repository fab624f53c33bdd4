//! What people read of a pavelor measurement: the report job and its
//! files, the site that merges several machines' reports, and
//! `pavelor bench`.
//!
//! The measuring itself (trials in separate processes, cycle counters,
//! C-library isolation) is [`pavelor_measure`]'s; the NICCS harness's
//! dataset format and page are [`pavelor_niccs`]'s. This crate puts them
//! together:
//!
//! * [`job`] — the report job: [`Config`], [`run`] (functional tests, then
//!   measurements) and the files made from a [`RunResults`].
//! * [`validate`] — everything checkable before measuring (options, output
//!   directory, KAT data, libraries), in seconds.
//! * [`kat`] — the Rust backends' KATs; C libraries go through
//!   [`pavelor_measure::library::gate`].
//! * [`rows`] — the implementation-agnostic [`rows::Row`]: one per measured
//!   implementation (Rust backend, C library instance, comparison hash);
//!   every section reads rows.
//! * [`sections`] — one function per §3.5 section.
//! * [`niccs_dataset`] — the campaign as a dataset in the harness's layout.
//! * [`records`] — the JSON evidence; [`charts`] the report's SVG charts,
//!   drawn by [`svg_chart`]; [`html`] — `report.html`.
//! * [`reload`] — a report directory read back from its records, rendered
//!   again and compared with its files.
//! * [`site`] — several report directories merged into one static site.
//! * [`bench`] — `pavelor bench`: everything side by side in one process.

#![forbid(unsafe_code)]

pub mod bench;
pub mod charts;
pub mod html;
pub mod job;
pub mod kat;
pub mod niccs_dataset;
pub mod records;
pub mod reload;
pub mod rows;
pub mod sections;
pub mod site;
pub mod svg_chart;
pub mod validate;

pub use job::{
    ANCHORS_32B, ANCHORS_64K, Config, DEFAULT_LIB_BUDGET_S, FigureFailure, Progress, RunResults,
    SIZES, markdown, page_context, rendered_files, run, subjects,
};
pub use kat::KatResult;
