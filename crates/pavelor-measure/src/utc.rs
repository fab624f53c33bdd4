//! One reading of the system clock, written in the UTC forms the records
//! use: RFC 3339 to the second or the microsecond, and the NICCS harness's
//! `isoformat()`. A report stamps `started` and `started_iso` (likewise
//! `finished`) from one [`UtcTime`], so the two name the same instant.

use std::time::SystemTime;

/// An instant of the system clock, read once.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UtcTime(SystemTime);

impl UtcTime {
    /// Now.
    pub fn now() -> Self {
        UtcTime(SystemTime::now())
    }

    /// RFC 3339 to the second: `2026-09-28T15:05:46Z`.
    pub fn rfc3339_seconds(self) -> String {
        humantime::format_rfc3339_seconds(self.0).to_string()
    }

    /// RFC 3339 to the microsecond: `2026-09-28T15:05:46.790099Z` (the
    /// host checks' `utc`).
    pub fn rfc3339_micros(self) -> String {
        humantime::format_rfc3339_micros(self.0).to_string()
    }

    /// The harness's form, Python's `isoformat()` of an aware datetime:
    /// `2026-09-28T15:05:46.790099+00:00`, always with six digits of
    /// microseconds (Python leaves them out at a whole second).
    pub fn isoformat(self) -> String {
        let t = self.rfc3339_micros();
        match t.strip_suffix('Z') {
            Some(base) => format!("{base}+00:00"),
            None => t,
        }
    }
}

impl From<SystemTime> for UtcTime {
    fn from(t: SystemTime) -> Self {
        UtcTime(t)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::{Duration, UNIX_EPOCH};

    #[test]
    fn both_forms_of_one_instant() {
        let t = UtcTime::from(UNIX_EPOCH + Duration::new(1_790_607_946, 790_099_123));
        assert_eq!(t.rfc3339_seconds(), "2026-09-28T15:05:46Z");
        assert_eq!(t.isoformat(), "2026-09-28T15:05:46.790099+00:00");
        // A whole second keeps its six zeros (Python's would not).
        let t = UtcTime::from(UNIX_EPOCH + Duration::from_secs(1_790_607_946));
        assert_eq!(t.isoformat(), "2026-09-28T15:05:46.000000+00:00");
    }
}
