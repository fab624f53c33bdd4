//! `assets/pavelor.h` and the library agree: every constant the header
//! defines has the library's value, and the functions it declares are
//! exactly the ones the crate exports.

#![allow(clippy::unwrap_used, clippy::panic)] // tests may fail loudly

use std::collections::BTreeSet;

const HEADER: &str = include_str!("../assets/pavelor.h");
const SOURCE: &str = include_str!("../src/lib.rs");

fn define(name: &str) -> String {
    HEADER
        .lines()
        .find_map(|l| l.strip_prefix(&format!("#define {name} ")))
        .unwrap_or_else(|| panic!("pavelor.h has no {name}"))
        .trim()
        .to_string()
}

fn number(name: &str) -> i64 {
    define(name).parse().unwrap()
}

#[test]
fn constants_match() {
    use pavelor_capi as c;
    for (name, value) in [
        ("PAVELOR_OK", c::OK),
        ("PAVELOR_ERR_NULL", c::ERR_NULL),
        ("PAVELOR_ERR_INSTANCE", c::ERR_INSTANCE),
        ("PAVELOR_ERR_OUTPUT_LEN", c::ERR_OUTPUT_LEN),
        ("PAVELOR_ERR_NOT_INITIALIZED", c::ERR_NOT_INITIALIZED),
        ("PAVELOR_ERR_AFTER_PARTIAL_BYTE", c::ERR_AFTER_PARTIAL_BYTE),
        ("PAVELOR_ERR_TOO_LONG", c::ERR_TOO_LONG),
    ] {
        assert_eq!(number(name), i64::from(value), "{name}");
        assert!(!c::status_message(value).is_empty());
    }
    assert_eq!(number("PAVELOR_HASHER_WORDS"), c::HASHER_WORDS as i64);
    for alg in pavelor::Algorithm::ALL {
        let name = format!("PAVELOR_{}_BYTES", alg.output_bits());
        assert_eq!(number(&name), alg.output_len() as i64, "{name}");
    }
    let max = pavelor::Algorithm::ALL.iter().map(|a| a.output_len()).max();
    assert_eq!(Some(number("PAVELOR_MAX_DIGEST_BYTES") as usize), max);
    assert_eq!(
        define("PAVELOR_VERSION_STRING"),
        format!("\"{}\"", env!("CARGO_PKG_VERSION"))
    );
}

#[test]
fn declared_functions_are_the_exported_ones() {
    // The identifier before each `(` outside comments.
    let code: String = HEADER
        .split("/*")
        .map(|part| part.split_once("*/").map_or(part, |(_, after)| after))
        .collect();
    let declared: BTreeSet<&str> = code
        .match_indices('(')
        .filter_map(|(i, _)| {
            let before = code[..i].trim_end();
            let start = before
                .rfind(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .map_or(0, |j| j + 1);
            Some(&before[start..]).filter(|w| w.starts_with("pavelor_"))
        })
        .collect();
    let exported: BTreeSet<&str> = SOURCE
        .split("#[unsafe(no_mangle)]")
        .skip(1)
        .map(|rest| {
            let after = rest.split("fn ").nth(1).unwrap();
            after.split('(').next().unwrap().trim()
        })
        .collect();
    assert_eq!(declared, exported);
    assert_eq!(declared.len(), 13, "{declared:?}");
}
