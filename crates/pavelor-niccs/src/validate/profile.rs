//! The hash profile rule, [`Rule::Profile`] (validate.py's
//! `check_profile`): a complete profile's shares follow from its calls.

use super::close;
use super::rule::{Problem, Rule, problem};
use crate::json::{Json, NULL, OrderedMap};
use crate::python::{py_add, py_div};

/// Checks the profile `p` (file `name`): each function's `share` is its
/// ticks over the total's, `hash_share` the ticks of all but `drng` over
/// the total's.
pub(super) fn check_profile(name: &str, p: &Json) -> Result<(), Problem> {
    if p.get_or_null("status").as_str() != Some("complete") || !p.get_or_null("total").truthy() {
        return Ok(());
    }
    let bad = |detail: String| problem(name, Rule::Profile, detail);
    let total = p
        .get_or_null("total")
        .get("ticks")
        .ok_or_else(|| bad("total has no ticks".to_string()))?;
    let by_fn = ticks_by_function(p).map_err(|e| bad(e.to_string()))?;
    let share_of = |ticks: &Json| {
        if total.truthy() {
            py_div(ticks, total)
        } else {
            None
        }
    };
    let share = p.get("share");
    if share.is_some_and(|s| !matches!(s, Json::Object(_))) {
        return Err(bad("share is not an object".to_string()));
    }
    for (f, ticks) in &by_fn {
        let stored = share.and_then(|s| s.get(f)).unwrap_or(&NULL);
        if !close(stored, share_of(ticks)) {
            return Err(bad(format!("share of {f} does not follow from its calls")));
        }
    }
    if by_fn.is_empty() {
        return Ok(());
    }
    let mut hash_ticks = Json::from(0u64);
    for (f, ticks) in &by_fn {
        if f != "drng" {
            hash_ticks =
                py_add(&hash_ticks, ticks).ok_or_else(|| bad("tick sum overflows".to_string()))?;
        }
    }
    if !close(p.get_or_null("hash_share"), share_of(&hash_ticks)) {
        return Err(bad("hash_share does not follow from its calls".to_string()));
    }
    Ok(())
}

/// The ticks of the profile's `calls`, summed per function (`fn`), in the
/// order the functions first appear.
fn ticks_by_function(p: &Json) -> Result<OrderedMap<Json>, CallsError> {
    let calls: &[Json] = match p.get("calls") {
        None => &[],
        Some(Json::Array(items)) => items,
        Some(_) => return Err(CallsError::NotAList),
    };
    let mut by_fn: OrderedMap<Json> = OrderedMap::new();
    for c in calls {
        let f = c.get_or_null("fn").py_str();
        let ticks = c
            .get("ticks")
            .filter(|t| t.as_f64().is_some())
            .ok_or_else(|| CallsError::NoTicks(f.clone()))?;
        let sum = match by_fn.get(&f) {
            Some(prev) => py_add(prev, ticks).ok_or(CallsError::Overflow)?,
            None => ticks.clone(),
        };
        by_fn.insert(f, sum);
    }
    Ok(by_fn)
}

/// Why a profile's `calls` give no ticks per function.
#[derive(Debug, thiserror::Error)]
enum CallsError {
    #[error("calls is not a list")]
    NotAList,
    #[error("a call of {0} has no ticks")]
    NoTicks(String),
    #[error("tick sum overflows")]
    Overflow,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn profile_shares() {
        let p: Json = serde_json::from_str(
            r#"{"status": "complete", "total": {"operations": 1, "ticks": 400},
                "calls": [{"fn": "pseudoXOF", "ticks": 100}, {"fn": "drng", "ticks": 100},
                          {"fn": "pseudoXOF", "ticks": 100}],
                "share": {"pseudoXOF": 0.5, "drng": 0.25}, "hash_share": 0.5}"#,
        )
        .expect("parse");
        assert_eq!(check_profile("p.json", &p), Ok(()));
        let mut q = p.clone();
        if let Json::Object(m) = &mut q {
            m.insert("hash_share".into(), Json::from(0.75));
        }
        let e = check_profile("p.json", &q).expect_err("wrong share");
        assert_eq!(
            e.to_string(),
            "p.json: hash_share does not follow from its calls [profile]"
        );
    }
}
