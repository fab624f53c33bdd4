//! The timing record rules: validate.py's `check_record`, then pavelor's
//! additions, each rule its own function, applied in validate.py's order.

use super::rule::{Problem, Rule, problem};
use super::{close, json_object};
use crate::json::{Json, JsonObject};
use crate::python::{float_equals_int, py_int, py_str_float};
use crate::schema::{self, Derived, GUIDE_MIN_MEASUREMENTS, SCHEMA};

/// Checks the record `r` (file `name`) against build.json's `instances`.
/// A record that did not complete is checked only against its build entry.
pub(super) fn check_record(name: &str, r: &Json, build: &JsonObject) -> Result<(), Problem> {
    json_object(name, r)?;
    let entry = not_in_build(name, r, build)?;
    library_or_kat_log(name, r, entry)?;
    schema_version(name, r)?;
    record_digests(name, r, entry)?;
    record_identity(name, r, entry)?;
    record_path(name, r)?;
    if r.get_or_null("status").as_str() != Some("complete") {
        return Ok(());
    }
    let trials = trial_list(name, r)?;
    trial_count(name, r, trials)?;
    let d = trial_values(name, r, trials)?;
    measurements(name, r, d.measurements)?;
    statistic(name, r, "mean_seconds", d.mean_seconds)?;
    statistic(name, r, "median_trial_seconds", d.median_trial_seconds)?;
    statistic(name, r, "mean_cycles", d.mean_cycles)?;
    statistic(name, r, "operations_per_second", d.operations_per_second)?;
    guide_100(name, r, d.measurements)?;
    throughput(name, r, &d)?;
    environment(name, r)?;
    // pavelor: the other figures campaign.py derives, and the processes.
    statistic(name, r, "min_trial_seconds", d.min_trial_seconds)?;
    statistic(name, r, "max_trial_seconds", d.max_trial_seconds)?;
    statistic(name, r, "median_trial_cycles", d.median_trial_cycles)?;
    process_trials(name, r, trials)
}

/// [`Rule::NotInBuild`]: build.json has the record's `candidate/label`;
/// its entry.
fn not_in_build<'a>(name: &str, r: &Json, build: &'a JsonObject) -> Result<&'a Json, Problem> {
    let key = format!(
        "{}/{}",
        r.get_or_null("candidate").py_str(),
        r.get_or_null("label").py_str()
    );
    match build.get(&key) {
        Some(e) if e.truthy() => Ok(e),
        _ => Err(problem(
            name,
            Rule::NotInBuild,
            format!("{key} is not in build.json"),
        )),
    }
}

/// `rule`: each of `fields` has build.json's value in the record (Python's
/// `==`); else the problem `detail(field, ours, build.json's)` of the first
/// that differs.
fn as_in_build(
    name: &str,
    r: &Json,
    entry: &Json,
    rule: Rule,
    fields: &[&str],
    detail: impl Fn(&str, String, String) -> String,
) -> Result<(), Problem> {
    for &field in fields {
        let (ours, theirs) = (r.get_or_null(field), entry.get_or_null(field));
        if !ours.py_eq(theirs) {
            return Err(problem(
                name,
                rule,
                detail(field, ours.py_str(), theirs.py_str()),
            ));
        }
    }
    Ok(())
}

/// [`Rule::LibraryOrKatLog`]: `library` and `kat_log` are build.json's.
fn library_or_kat_log(name: &str, r: &Json, entry: &Json) -> Result<(), Problem> {
    as_in_build(
        name,
        r,
        entry,
        Rule::LibraryOrKatLog,
        &["library", "kat_log"],
        |field, ours, theirs| {
            format!("library or KAT log differs from build.json ({field} {ours} != {theirs})")
        },
    )
}

/// [`Rule::RecordDigests`] (pavelor): `library_sha256` and
/// `kat_log_sha256` are build.json's (campaign.py copies them).
fn record_digests(name: &str, r: &Json, entry: &Json) -> Result<(), Problem> {
    as_in_build(
        name,
        r,
        entry,
        Rule::RecordDigests,
        &["library_sha256", "kat_log_sha256"],
        |field, ours, theirs| format!("{field} {ours} differs from build.json's {theirs}"),
    )
}

/// [`Rule::RecordIdentity`] (pavelor): `instance`, `variant` and `flags`
/// are build.json's (campaign.py copies them), so a record cannot say it
/// measured another instance or variant than its build entry's.
fn record_identity(name: &str, r: &Json, entry: &Json) -> Result<(), Problem> {
    as_in_build(
        name,
        r,
        entry,
        Rule::RecordIdentity,
        &["instance", "variant", "flags"],
        |field, ours, theirs| format!("{field} {ours} differs from build.json's {theirs}"),
    )
}

/// [`Rule::RecordPath`] (pavelor): the record lies where campaign.py writes
/// it, `records/<candidate>/<label>__<op_key>.json`, so its file name says
/// what it holds and no two records hold the same figure.
fn record_path(name: &str, r: &Json) -> Result<(), Problem> {
    let operation = r.get_or_null("operation").py_str();
    let op_key = match r.get_or_null("input_bytes").as_u64() {
        Some(0) => operation,
        Some(n) => format!("{operation}_{n}"),
        None => {
            return Err(problem(
                name,
                Rule::RecordPath,
                "input_bytes is not a byte count",
            ));
        }
    };
    let expected = format!(
        "records/{}/{}__{op_key}.json",
        r.get_or_null("candidate").py_str(),
        r.get_or_null("label").py_str()
    );
    if name == expected {
        return Ok(());
    }
    Err(problem(
        name,
        Rule::RecordPath,
        format!("holds the record of {expected}, and a record lies only there"),
    ))
}

/// [`Rule::Schema`] (pavelor): the record is schema 2.
fn schema_version(name: &str, r: &Json) -> Result<(), Problem> {
    let schema = r.get_or_null("schema");
    if schema.py_eq(&Json::from(SCHEMA)) {
        return Ok(());
    }
    Err(problem(
        name,
        Rule::Schema,
        format!("schema {} is not {SCHEMA}", schema.py_str()),
    ))
}

/// `trials` as a list (missing: none); [`Rule::TrialValues`] if it is
/// something else.
fn trial_list<'a>(name: &str, r: &'a Json) -> Result<&'a [Json], Problem> {
    match r.get("trials") {
        None => Ok(&[]),
        Some(Json::Array(items)) => Ok(items),
        Some(_) => Err(problem(name, Rule::TrialValues, "trials is not a list")),
    }
}

/// [`Rule::TrialCount`]: as many trials as `plan.trials`.
fn trial_count(name: &str, r: &Json, trials: &[Json]) -> Result<(), Problem> {
    let planned = r
        .get("plan")
        .and_then(|p| p.get("trials"))
        .ok_or_else(|| problem(name, Rule::TrialCount, "no plan.trials"))?;
    if Json::from(trials.len() as u64).py_eq(planned) {
        return Ok(());
    }
    Err(problem(
        name,
        Rule::TrialCount,
        format!("{} trials, plan says {}", trials.len(), planned.py_str()),
    ))
}

/// [`Rule::TrialValues`]: every trial has a count, seconds and cycles
/// validate.py can compute with (where it would raise, a problem); the
/// figures campaign.py derives from them.
fn trial_values(name: &str, r: &Json, trials: &[Json]) -> Result<Derived, Problem> {
    let values = trials
        .iter()
        .enumerate()
        .map(|(i, t)| trial(name, i, t))
        .collect::<Result<Vec<_>, _>>()?;
    let input_bytes = r.get_or_null("input_bytes").as_u64().unwrap_or(0);
    schema::derive(&values, input_bytes).map_err(|i| {
        problem(
            name,
            Rule::TrialValues,
            format!("trial {i} has no measurements"),
        )
    })
}

/// One trial as validate.py uses it: (measurements, seconds, cycles); a
/// negative cycle count counts as none (it fails `cycles > 0` either way).
fn trial(name: &str, i: usize, t: &Json) -> Result<(u64, f64, u64), Problem> {
    let bad = |what: &str| problem(name, Rule::TrialValues, format!("trial {i}: {what}"));
    let m = t.get_or_null("measurements");
    let measurements = m
        .as_u64()
        .ok_or_else(|| bad(&format!("measurements {} is not a count", m.py_str())))?;
    if measurements == 0 {
        return Err(bad(
            "no measurements (the per-call time would divide by zero)",
        ));
    }
    let s = t.get_or_null("seconds");
    let seconds = match s {
        Json::Number(n) => n.as_f64(),
        _ => None,
    }
    .ok_or_else(|| bad(&format!("seconds {} is not a number", s.py_str())))?;
    // pavelor: a time that is not a positive finite number is no figure.
    if !(seconds.is_finite() && seconds > 0.0) {
        return Err(bad(&format!(
            "seconds {} is not a positive finite number",
            s.py_str()
        )));
    }
    let c = t.get_or_null("cycles");
    let cycles = match c {
        Json::Number(n) if n.as_u64().is_some() => n.as_u64().unwrap_or(0),
        Json::Number(n) if n.as_i64().is_some() => 0,
        _ => return Err(bad(&format!("cycles {} is not an integer", c.py_str()))),
    };
    Ok((measurements, seconds, cycles))
}

/// [`Rule::Measurements`]: `measurements` is Σ trial measurements, exactly.
fn measurements(name: &str, r: &Json, n: u128) -> Result<(), Problem> {
    let stored = r.get_or_null("measurements");
    let matches = match stored {
        Json::Number(x) if x.as_u64().is_some() => x.as_u64().map(u128::from) == Some(n),
        Json::Number(x) => x.as_f64().is_some_and(|f| float_equals_int(f, n as i128)),
        _ => false,
    };
    if matches {
        return Ok(());
    }
    Err(problem(
        name,
        Rule::Measurements,
        format!("measurements {} != sum of trials {n}", stored.py_str()),
    ))
}

/// [`Rule::Statistic`]: the derived figure `field` is `expected`, within
/// validate.py's tolerance.
fn statistic(name: &str, r: &Json, field: &str, expected: Option<f64>) -> Result<(), Problem> {
    let stored = r.get_or_null(field);
    if close(stored, expected) {
        return Ok(());
    }
    Err(problem(
        name,
        Rule::Statistic,
        format!(
            "{field} {} does not follow from the trials ({})",
            stored.py_str(),
            py_str_float(expected)
        ),
    ))
}

/// [`Rule::Guide100`]: `guide_100_measurements_met` is `n >= 100`.
fn guide_100(name: &str, r: &Json, n: u128) -> Result<(), Problem> {
    let met = r.get_or_null("guide_100_measurements_met");
    if met.py_eq(&Json::Bool(n >= u128::from(GUIDE_MIN_MEASUREMENTS))) {
        return Ok(());
    }
    Err(problem(
        name,
        Rule::Guide100,
        format!(
            "guide_100_measurements_met {} inconsistent with {n} measurements",
            met.py_str()
        ),
    ))
}

/// [`Rule::Throughput`]: for a record with a message length,
/// `throughput_MB_per_second` is bytes × calls / seconds / 10⁶.
fn throughput(name: &str, r: &Json, d: &Derived) -> Result<(), Problem> {
    let input_bytes = r.get_or_null("input_bytes");
    if !input_bytes.truthy() {
        return Ok(());
    }
    let size = py_int(input_bytes)
        .and_then(|b| u128::try_from(b).ok())
        .ok_or_else(|| problem(name, Rule::Throughput, "input_bytes is not a byte count"))?;
    if d.seconds == 0.0 {
        return Err(problem(name, Rule::Throughput, "the trials took no time"));
    }
    let expected = schema::bytes_times(size, d.measurements) / d.seconds / 1e6;
    let stored = r.get_or_null("throughput_MB_per_second");
    if close(stored, Some(expected)) {
        return Ok(());
    }
    Err(problem(
        name,
        Rule::Throughput,
        format!(
            "throughput_MB_per_second {} does not follow from the trials ({})",
            stored.py_str(),
            py_str_float(Some(expected))
        ),
    ))
}

/// [`Rule::Environment`]: a complete record has an environment.
fn environment(name: &str, r: &Json) -> Result<(), Problem> {
    if r.get_or_null("environment").truthy() {
        return Ok(());
    }
    Err(problem(name, Rule::Environment, "no environment recorded"))
}

/// [`Rule::ProcessTrials`] (pavelor): `trials` are the processes' trials,
/// in order.
fn process_trials(name: &str, r: &Json, trials: &[Json]) -> Result<(), Problem> {
    let from_processes: Vec<Json> = match r.get("processes") {
        Some(Json::Array(ps)) => ps
            .iter()
            .flat_map(|p| match p.get("trials") {
                Some(Json::Array(ts)) => ts.clone(),
                _ => Vec::new(),
            })
            .collect(),
        _ => Vec::new(),
    };
    if Json::Array(from_processes).py_eq(&Json::Array(trials.to_vec())) {
        return Ok(());
    }
    Err(problem(
        name,
        Rule::ProcessTrials,
        "trials are not the processes' trials in order",
    ))
}
