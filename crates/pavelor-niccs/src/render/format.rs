//! report.py's number and host formats: `fmt_int`, `fmt_time`,
//! `clock_text`, `smt_text`, each built on Python's own formats
//! ([`crate::python`]).

use super::get;
use crate::json::JsonObject;
use crate::python::{py_format_f, py_format_g, py_int_or_zero};

/// report.py's `fmt_int`: `2.30 G`, `12.29 M`, `36.9 k`, `9876`; `–` for none.
pub fn fmt_int(x: Option<f64>) -> String {
    match x {
        None => "–".to_string(),
        Some(x) if x >= 1e9 => format!("{} G", py_format_f(x / 1e9, 2)),
        Some(x) if x >= 1e6 => format!("{} M", py_format_f(x / 1e6, 2)),
        Some(x) if x >= 1e4 => format!("{} k", py_format_f(x / 1e3, 1)),
        Some(x) => py_format_f(x, 0),
    }
}

/// report.py's `fmt_time`: three significant digits in the largest unit
/// that gives at least 1 (`1.15 ms`, `13.7 µs`, `295 µs`); `–` for none.
pub fn fmt_time(s: Option<f64>) -> String {
    let Some(s) = s else {
        return "–".to_string();
    };
    for (unit, f) in [("s", 1.0), ("ms", 1e3), ("µs", 1e6), ("ns", 1e9)] {
        if s * f >= 1.0 {
            return format!("{} {unit}", py_format_g(s * f, 3));
        }
    }
    format!("{} ns", py_format_g(s * 1e9, 3))
}

/// report.py's `smt_text`.
fn smt_text(env: &JsonObject) -> String {
    match get(env, "smt_control").as_str() {
        Some("notsupported") | Some("notimplemented") => "none".to_string(),
        _ => get(env, "smt_control").py_str(),
    }
}

/// report.py's `clock_text`: `fixed 2.71 GHz (governor performance,
/// minimum = maximum), boost off, SMT none` and its variants.
pub fn clock_text(env: &JsonObject) -> String {
    if !get(env, "cpufreq_driver").truthy() && get(env, "core_clock_hz").truthy() {
        let ghz = py_int_or_zero(get(env, "core_clock_mhz")) as f64 / 1000.0;
        return format!(
            "measured {} GHz, set by firmware (no OS frequency scaling or boost), SMT {}",
            py_format_f(ghz, 2),
            smt_text(env)
        );
    }
    let boost = match get(env, "cpufreq_boost").as_str() {
        Some("0") => "off",
        Some("1") => "on",
        _ => "unknown",
    };
    let turbo = match get(env, "intel_pstate_no_turbo").as_str() {
        Some("1") => "off",
        Some("0") => "on",
        _ => boost,
    };
    let ghz = py_format_f(py_int_or_zero(get(env, "cpufreq_max_khz")) as f64 / 1e6, 2);
    let governor = get(env, "cpufreq_governor").py_str();
    let aarch64 = get(env, "architecture").as_str() == Some("aarch64");
    if aarch64 && get(env, "cpufreq_min_khz").py_eq(get(env, "cpufreq_max_khz")) {
        return format!(
            "fixed {ghz} GHz (governor {governor}, minimum = maximum), boost {turbo}, SMT {}",
            smt_text(env)
        );
    }
    format!(
        "max {ghz} GHz, governor {governor}, turbo {turbo}, SMT {}",
        get(env, "smt_control").py_str()
    )
}

/// An optional count as Python's `str()` shows it (`None` or the number).
pub(super) fn opt_u64(v: Option<u64>) -> String {
    v.map_or_else(|| "None".to_string(), |n| n.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn number_formats() {
        assert_eq!(fmt_int(Some(36850.94964)), "36.9 k");
        assert_eq!(fmt_int(Some(12_290_000.0)), "12.29 M");
        assert_eq!(fmt_int(Some(2.3e9)), "2.30 G");
        assert_eq!(fmt_int(Some(9876.4)), "9876");
        assert_eq!(fmt_int(None), "–");
        assert_eq!(fmt_time(Some(1.3672721879999998e-05)), "13.7 µs");
        assert_eq!(fmt_time(Some(0.00115)), "1.15 ms");
        assert_eq!(fmt_time(Some(0.000295)), "295 µs");
        assert_eq!(fmt_time(Some(12.0)), "12 s");
        assert_eq!(fmt_time(Some(1234.0)), "1.23e+03 s");
        assert_eq!(fmt_time(Some(2e-10)), "0.2 ns");
        assert_eq!(fmt_time(Some(0.0)), "0 ns");
    }

    #[test]
    fn clock_variants() {
        let env: JsonObject = serde_json::from_str(
            r#"{"architecture": "x86_64", "cpufreq_driver": "intel_pstate", "cpufreq_max_khz": "3200000",
                "cpufreq_governor": "performance", "intel_pstate_no_turbo": "1", "smt_control": "off"}"#,
        )
        .expect("parse");
        assert_eq!(
            clock_text(&env),
            "max 3.20 GHz, governor performance, turbo off, SMT off"
        );
        let env: JsonObject = serde_json::from_str(
            r#"{"architecture": "aarch64", "cpufreq_driver": null, "core_clock_hz": 3400000000,
                "core_clock_mhz": 3400, "smt_control": "notsupported"}"#,
        )
        .expect("parse");
        assert_eq!(
            clock_text(&env),
            "measured 3.40 GHz, set by firmware (no OS frequency scaling or boost), SMT none"
        );
    }
}
