//! Measuring Pavelor the way the NICCS assessment does: cycle counters
//! (`perf_event_open`, else the TSC, labelled as such), trials in separate
//! processes, one JSON record per figure, and the §3.5 report.
//!
//! * [`clock`] — cycle and time sources; [`hw`] — tick counter and AES
//!   chains; [`aes_probe`] — the AES-throughput bound.
//! * [`host`] — the NICCS harness's host checks (fixed clock, SMT, counter).
//! * [`ops`] — what is measured (Pavelor per backend, comparison hashes).
//! * [`protocol`] — what the campaign and a worker process tell each other.
//! * [`worker`] — the measured process (one trial).
//! * [`library`] — C `CryptHash` libraries: identity, gate, isolation
//!   ([`isolate`]); [`cabi`] is the binding.
//! * [`campaign`] — calibration, trials, aggregation.
//! * [`report`] — the report job: KATs, measurements, `report.md`, records, charts.
//! * [`quick`] — `pavelor bench`: everything side by side in one process.
//! * [`niccs`] — datasets in the NICCS harness's layout: schema, page, checks.

pub mod aes_probe;
pub mod cabi;
pub mod campaign;
pub mod chart;
pub mod clock;
pub mod elf;
pub mod env;
pub mod host;
pub mod html;
pub mod hw;
pub mod iccs_helpers;
pub mod isolate;
pub mod library;
pub mod niccs;
pub mod ops;
pub mod protocol;
pub mod quick;
pub mod report;
pub mod site;
pub mod worker;
