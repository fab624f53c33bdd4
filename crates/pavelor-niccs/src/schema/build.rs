//! `build.json`: the instances built, with their KAT outcome and library.

use serde::{Deserialize, Serialize};

use super::present;
use crate::json::{JsonObject, OrderedMap};

/// `build.json`: one entry per built instance, keyed `candidate/label`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Build {
    /// `"hash-22/Pavelor-512"` → entry.
    pub instances: OrderedMap<BuildEntry>,
    /// Keys this schema does not know (the x86 harness adds `optimized`).
    #[serde(flatten)]
    pub extra: JsonObject,
}

/// One instance of `build.json`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct BuildEntry {
    /// Candidate id, `hash-22`.
    pub candidate: String,
    /// Instance label, `Pavelor-512`.
    pub label: String,
    /// The instance named in the KAT log (`null` when there is none).
    #[serde(default)]
    pub instance: Option<String>,
    /// `reference`, `optimized-avx2`, …
    pub variant: String,
    /// `guide` or `harness-default`.
    pub flags: String,
    /// KAT outcome: `PASS`, `MISMATCH`, `BUILDFAIL`, …
    pub kat: String,
    /// The KAT outcome with the guide's flags, when the harness defaults
    /// were used instead.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub guide_result: Option<String>,
    /// The library, relative to the harness root.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub library: Option<String>,
    /// SHA-256 of the library (lower-case hex).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub library_sha256: Option<String>,
    /// Sum of the library's `PT_LOAD` memory sizes (`None`: missing,
    /// `Some(None)`: `null`, readelf failed).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "present"
    )]
    pub elf_load_bytes: Option<Option<u64>>,
    /// The KAT log, relative to the dataset (`kat/<candidate>/<label>.log`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kat_log: Option<String>,
    /// SHA-256 of the KAT log (lower-case hex).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kat_log_sha256: Option<String>,
    /// Keys this schema does not know.
    #[serde(flatten)]
    pub extra: JsonObject,
}
