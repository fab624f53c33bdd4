//! The rules about the dataset as a whole and its files (validate.py's
//! `check_dataset`, and pavelor's): the system, local absolute paths in any
//! file, absolute paths in JSON strings, and the schema [`Dataset::load`]
//! reads.

use super::CheckOptions;
use super::rule::{Problem, Rule, problem};
use crate::dataset::Dataset;
use crate::evidence::{Evidence, SYSTEM_ID_RULE, is_system_id};
use crate::json::Json;

/// [`Rule::SystemForm`] (pavelor): the system id is one that may name a
/// directory ([`is_system_id`]).
pub(super) fn system_form(sid: &str) -> Result<(), Problem> {
    if is_system_id(sid) {
        return Ok(());
    }
    Err(problem(
        "campaign.json",
        Rule::SystemForm,
        format!("the system id {sid:?} (the dataset directory's name) is not {SYSTEM_ID_RULE}"),
    ))
}

/// [`Rule::SystemRegistered`]: the system is one of the caller's known
/// systems (none given: every system is).
pub(super) fn system_registered(sid: &str, options: &CheckOptions) -> Result<(), Problem> {
    match &options.known_systems {
        Some(known) if !known.iter().any(|k| k == sid) => Err(problem(
            sid,
            Rule::SystemRegistered,
            "not registered in performance/systems.csv",
        )),
        _ => Ok(()),
    }
}

/// [`Rule::SystemId`]: `campaign.json`'s `system_id` is the directory's name.
pub(super) fn system_id(sid: &str, campaign: &Json) -> Result<(), Problem> {
    let system_id = campaign.get_or_null("system_id");
    if system_id.as_str() == Some(sid) {
        return Ok(());
    }
    Err(problem(
        "campaign.json",
        Rule::SystemId,
        format!(
            "campaign.json system_id is {} but the dataset directory is {sid}",
            system_id.py_repr()
        ),
    ))
}

/// [`Rule::AbsolutePath`]: no file (read as text) holds a local absolute
/// path.
pub(super) fn absolute_path(files: &[(&str, &[u8])]) -> Result<(), Problem> {
    for (rel, bytes) in files {
        let text = String::from_utf8_lossy(bytes);
        if let Some(found) = find_local_absolute_path(&text) {
            return Err(problem(
                rel,
                Rule::AbsolutePath,
                format!("contains a local absolute path ({found}…)"),
            ));
        }
    }
    Ok(())
}

/// validate.py's `ABSOLUTE`, `(?<![\w.])/(home|tmp|root|Users)/`: the
/// first match, if any.
pub fn find_local_absolute_path(text: &str) -> Option<&str> {
    for (i, _) in text.match_indices('/') {
        let before = text[..i].chars().next_back();
        if before.is_some_and(|c| c == '.' || c == '_' || c.is_alphanumeric()) {
            continue;
        }
        let rest = &text[i + 1..];
        for dir in ["home/", "tmp/", "root/", "Users/"] {
            if rest.starts_with(dir) {
                return Some(&text[i..i + 1 + dir.len()]);
            }
        }
    }
    None
}

/// Whether the harness reads `rel` as JSON: `campaign.json`, `build.json`,
/// `records/**.json`, `profile/**.json`.
pub(super) fn is_harness_json(rel: &str) -> bool {
    rel == "campaign.json"
        || rel == "build.json"
        || ((rel.starts_with("records/") || rel.starts_with("profile/")) && rel.ends_with(".json"))
}

/// The JSON files the harness reads ([`is_harness_json`]), each parsed
/// ([`Rule::Json`]) and checked by [`absolute_json_string`] before the next
/// is parsed; their paths. Each parsed value is dropped after its check, so
/// memory holds one file's value at a time; the rules that follow parse
/// again the files they read.
pub(super) fn harness_json<'a>(files: &[(&'a str, &[u8])]) -> Result<Vec<&'a str>, Problem> {
    let mut parsed = Vec::new();
    for &(rel, bytes) in files {
        if !is_harness_json(rel) {
            continue;
        }
        let value: Json =
            serde_json::from_slice(bytes).map_err(|e| problem(rel, Rule::Json, e.to_string()))?;
        absolute_json_string(rel, &value)?;
        parsed.push(rel);
    }
    Ok(parsed)
}

/// [`Rule::AbsoluteJsonString`] (pavelor): no string value starts with `/`.
fn absolute_json_string(rel: &str, value: &Json) -> Result<(), Problem> {
    match absolute_string(value, String::new()) {
        None => Ok(()),
        Some((pointer, s)) => Err(problem(
            rel,
            Rule::AbsoluteJsonString,
            format!("value at {pointer} is an absolute path ({s}); paths must be relative"),
        )),
    }
}

/// The first string value (not key) starting with `/`, with its JSON pointer.
fn absolute_string(value: &Json, pointer: String) -> Option<(String, String)> {
    match value {
        Json::String(s) if s.starts_with('/') => Some((
            if pointer.is_empty() {
                "/".to_string()
            } else {
                pointer
            },
            s.clone(),
        )),
        Json::Array(items) => items
            .iter()
            .enumerate()
            .find_map(|(i, v)| absolute_string(v, format!("{pointer}/{i}"))),
        Json::Object(map) => map
            .iter()
            .find_map(|(k, v)| absolute_string(v, format!("{pointer}/{k}"))),
        _ => None,
    }
}

/// [`Rule::Schema`] (pavelor), for the dataset as a whole: it loads with
/// the schema this crate reads.
pub(super) fn loads(ev: &Evidence, sid: &str) -> Result<(), Problem> {
    Dataset::from_evidence(ev)
        .map(|_| ())
        .map_err(|e| problem(sid, Rule::Schema, e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn absolute_paths_as_the_harness_sees_them() {
        assert_eq!(find_local_absolute_path("x /home/u/y"), Some("/home/"));
        assert_eq!(find_local_absolute_path("\"/tmp/x\""), Some("/tmp/"));
        assert_eq!(find_local_absolute_path("/Users/a"), Some("/Users/"));
        assert_eq!(find_local_absolute_path("performance/root/x"), None);
        assert_eq!(find_local_absolute_path("./tmp/x"), None);
        assert_eq!(find_local_absolute_path("a_/tmp/x"), None);
        assert_eq!(find_local_absolute_path("/usr/lib/x /homework/"), None);
    }

    #[test]
    fn system_rules() {
        let campaign: Json = serde_json::from_str(r#"{"system_id": "it's"}"#).expect("parse");
        let p = system_id("arm_1", &campaign).expect_err("another system");
        assert_eq!(
            p.to_string(),
            "campaign.json: campaign.json system_id is \"it's\" but the dataset directory is arm_1 [system-id]"
        );
        let options = CheckOptions {
            known_systems: Some(vec!["arm_1".into()]),
        };
        assert_eq!(system_registered("arm_1", &options), Ok(()));
        assert_eq!(
            system_registered("x86_9", &options).map_err(|p| p.rule),
            Err(Rule::SystemRegistered)
        );
        assert_eq!(system_registered("x86_9", &CheckOptions::default()), Ok(()));
    }
}
