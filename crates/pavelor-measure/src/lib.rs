//! Measuring Pavelor the way the NICCS assessment does: cycle counters
//! (`perf_event_open`, else the TSC, labelled as such), trials in separate
//! pinned processes, every answer checked, and C `CryptHash` libraries each
//! in their own bounded, supervised process.
//!
//! * [`clock`] — cycle and time sources; [`hw`] — tick counter and AES
//!   chains; [`aes_probe`] — the AES bounds (throughput and latency).
//! * [`env`](mod@env) — the machine and the build; [`host`] — the NICCS harness's
//!   host checks (fixed clock, SMT, counter).
//! * [`ops`] — what is measured (Pavelor per backend, comparison hashes,
//!   the ICCS baselines of `pavelor-iccs-helpers`).
//! * [`protocol`] — what the campaign and a worker process tell each other.
//! * [`worker`] — the measured process (one trial).
//! * [`campaign`] — calibration, trials, aggregation; [`utc`] — one
//!   reading of the clock in the records' two UTC forms.
//! * [`library`] — C `CryptHash` libraries: identity (its ELF file read with
//!   `pavelor-elf`),
//!   gate, isolation ([`isolate`]); [`cabi`] is the binding.
//!
//! * [`page_end`] — a message whose end is a page boundary (the placement
//!   `pavelor bench` checks its first figure on).
//!
//! All of the evaluation's `unsafe` is here, in [`hw`] and [`cabi`] (each
//! block with its `// SAFETY:` note); the other modules deny it.

pub mod aes_probe;
pub mod cabi;
pub mod campaign;
pub mod clock;
pub mod env;
pub mod error;
pub mod host;
pub mod hw;
pub use pavelor_isolate as isolate;
pub mod library;
pub mod ops;
pub mod page_end;
pub mod protocol;
pub mod utc;
pub mod worker;

pub use error::Error;
