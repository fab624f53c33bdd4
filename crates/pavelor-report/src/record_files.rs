//! Where each record lives in a report directory, and the schemas they
//! carry.

use pavelor_measure::{campaign::Measurement, protocol::TaskId};

use crate::config::SIZES;

/// The `schema` of a figure's record.
pub const FIGURE_SCHEMA: &str = "pavelor-report-record/3";

/// The `schema` of `records/report.json`.
pub const RUN_SCHEMA: &str = "pavelor-report-run/1";

/// The file of the run's settings and campaign-wide facts.
pub const RUN_RECORD: &str = "records/report.json";

/// The record file of the figure of `op` at `size` bytes, relative to the
/// output directory.
pub fn figure_record_name(op: &TaskId, size: usize) -> String {
    let k = SIZES
        .iter()
        .position(|&s| s == size)
        .map_or(String::new(), |i| format!("S{}-", i + 1));
    format!("records/{op}.{k}{size}.json")
}

/// The figures that could not be measured (only when there are some).
pub const FAILURES: &str = "records/failures.json";
/// The Rust backends' KAT results.
pub const KAT: &str = "records/kat.json";
/// The machine and the build.
pub const ENVIRONMENT: &str = "records/environment.json";
/// The host checks.
pub const HOST_CHECKS: &str = "records/host-checks.json";
/// The AES probe (only where the CPU has AES instructions).
pub const AES_PROBE: &str = "records/aes-probe.json";
/// The measured executable's static size (only where it could be read).
pub const STATIC_SIZE: &str = "records/static-size.json";

/// The record file of a measurement, relative to the output directory.
pub fn record_name(m: &Measurement) -> String {
    figure_record_name(&m.op, m.size)
}

/// The record file of a library's gate.
pub fn library_record_name(name: &str) -> String {
    format!("records/library-{name}.json")
}
