//! The KAT log rules (validate.py's `check_dataset`): every KAT log
//! build.json names is a plain relative path, is there, has build.json's
//! digest, and ends with build.json's outcome.

use super::rule::{Problem, Rule, problem};
use crate::dataset::{relative_components, sha256_hex};
use crate::evidence::Evidence;
use crate::json::{Json, JsonObject, NULL};
use crate::python::py_isspace;

/// Checks the KAT log of every build.json instance that names one, in
/// sorted key order; returns how many were checked.
pub(super) fn check_kat_logs(ev: &Evidence, instances: &JsonObject) -> Result<usize, Problem> {
    let mut checked = 0;
    let mut keys: Vec<&str> = instances.keys().map(String::as_str).collect();
    keys.sort_unstable();
    for key in keys {
        let e = instances.get(key).unwrap_or(&NULL);
        if !matches!(e, Json::Object(_)) {
            return Err(problem(
                "build.json",
                Rule::Json,
                format!("{key} is not an object"),
            ));
        }
        let kat_log = e.get_or_null("kat_log");
        if !kat_log.truthy() {
            continue;
        }
        let rel = kat_log_path(key, kat_log)?;
        let bytes = kat_log_missing(ev, key, rel)?;
        checked += 1;
        kat_log_digest(rel, bytes, e)?;
        kat_log_result(rel, bytes, e)?;
    }
    Ok(checked)
}

/// [`Rule::KatLogPath`] (pavelor): the `kat_log` of `key` is a plain
/// relative path.
fn kat_log_path<'a>(key: &str, kat_log: &'a Json) -> Result<&'a str, Problem> {
    let Some(rel) = kat_log.as_str() else {
        return Err(problem(
            "build.json",
            Rule::KatLogPath,
            format!("{key} kat_log is not a string"),
        ));
    };
    relative_components(rel)
        .map(|_| rel)
        .map_err(|err| problem("build.json", Rule::KatLogPath, format!("{key}: {err}")))
}

/// [`Rule::KatLogMissing`]: the KAT log is a file; its bytes (another
/// failure to read it is a [`Rule::Read`] problem).
fn kat_log_missing<'a>(ev: &'a Evidence, key: &str, rel: &str) -> Result<&'a [u8], Problem> {
    ev.get(rel).ok_or_else(|| {
        let detail = if ev.has_dir(rel) {
            format!("{key} KAT log {rel} missing (not a file)")
        } else {
            format!("{key} KAT log {rel} missing")
        };
        problem("build.json", Rule::KatLogMissing, detail)
    })
}

/// [`Rule::KatLogDigest`]: the log's SHA-256 is the entry's `kat_log_sha256`.
fn kat_log_digest(rel: &str, bytes: &[u8], entry: &Json) -> Result<(), Problem> {
    let digest = sha256_hex(bytes);
    let stored = entry.get_or_null("kat_log_sha256");
    if Json::from(digest.as_str()).py_eq(stored) {
        return Ok(());
    }
    Err(problem(
        rel,
        Rule::KatLogDigest,
        format!(
            "{rel} does not match its digest in build.json (sha256 {digest}, build.json {})",
            stored.py_str()
        ),
    ))
}

/// [`Rule::KatLogResult`]: the log's last `RESULT` line gives the entry's `kat`.
fn kat_log_result(rel: &str, bytes: &[u8], entry: &Json) -> Result<(), Problem> {
    let text = String::from_utf8_lossy(bytes);
    let results = kat_results(&text);
    let kat = entry.get_or_null("kat");
    if results
        .last()
        .is_some_and(|last| Json::from(*last).py_eq(kat))
    {
        return Ok(());
    }
    Err(problem(
        rel,
        Rule::KatLogResult,
        format!(
            "{rel} result {} != build.json {}",
            results.last().copied().unwrap_or("-"),
            kat.py_str()
        ),
    ))
}

/// A maximal run of non-space characters at the start of `s` (at least one).
fn token(s: &str) -> Option<(&str, &str)> {
    let end = s.find(py_isspace).unwrap_or(s.len());
    (end > 0).then(|| s.split_at(end))
}

/// validate.py's `re.findall(r"^RESULT \S+ \S+ (\S+)", text, re.M)`.
pub fn kat_results(text: &str) -> Vec<&str> {
    text.split('\n')
        .filter_map(|line| {
            let rest = line.strip_prefix("RESULT ")?;
            let (_, rest) = token(rest)?;
            let (_, rest) = token(rest.strip_prefix(' ')?)?;
            let (result, _) = token(rest.strip_prefix(' ')?)?;
            Some(result)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn result_lines() {
        let log = "RESULT hash-22 Pavelor-512 PASS \nRESULT x y\nRESULT  a b C\n\
                   xRESULT a b D\nRESULT a b FAIL\r\n";
        assert_eq!(kat_results(log), ["PASS", "FAIL"]);
    }
}
