//! The harness's file schemas: `campaign.json`, `build.json` and the
//! schema-2 timing record (`ngcc-dev/ngcc-harness`, `performance/campaign.py`
//! writes all three).
//!
//! Fields are declared in the order the harness writes them, so a harness
//! file read and written again is byte-identical. Keys this schema does not
//! know are kept (`extra`, in document order) and written after the known
//! ones, so pavelor can add fields of its own (for example tick counts where
//! there is no cycle counter) without breaking the harness's tools, which
//! read records as plain dicts.
//!
//! Optional fields: `Option<T>` is a key that may be missing (`None` is not
//! written). Where the harness writes `null` for a missing value the field
//! is always written (`None` as `null`); where both happen, the field is
//! `Option<Option<T>>` (`None`: missing, `Some(None)`: `null`).

mod build;
mod campaign;
mod record;
mod statistics;

use serde::{Deserialize, Deserializer};

pub use build::{Build, BuildEntry};
pub use campaign::{Campaign, HostCheck, Planning};
pub use record::{Plan, Process, Record, Trial};
pub(crate) use statistics::{Derived, bytes_times, derive};

/// The record schema this module reads and writes.
pub const SCHEMA: u64 = 2;

/// The guide's minimum number of timed calls (`MIN_TOTAL` in campaign.py).
pub const GUIDE_MIN_MEASUREMENTS: u64 = 100;

/// Deserializes a key that is present (even as `null`) to `Some`; with
/// `#[serde(default)]` a missing key stays `None`.
fn present<'de, D: Deserializer<'de>, T: Deserialize<'de>>(d: D) -> Result<Option<T>, D::Error> {
    T::deserialize(d).map(Some)
}
