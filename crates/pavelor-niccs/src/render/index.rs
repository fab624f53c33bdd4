//! report.py's view of a dataset's records: indexed by candidate, label
//! and operation (`Run.records`), the environment the page describes
//! (`Run.env`), a candidate's instances in natural order
//! (`instances_of`) and the operations in the guide's order (`op_order`).

use std::cmp::Ordering;

use super::get;
use crate::dataset::Dataset;
use crate::json::JsonObject;
use crate::schema::Record;

/// A record as report.py indexes it: its op key and dataset path.
pub(super) struct Indexed<'a> {
    pub(super) key: String,
    pub(super) path: &'a str,
    pub(super) record: &'a Record,
}

/// report.py's `Run.records`: (candidate, label) → op key → record, in the
/// order the record files are met (sorted by path components); a later
/// file with the same key replaces the earlier one in place.
pub(super) struct Index<'a> {
    groups: Vec<(&'a str, &'a str, Vec<Indexed<'a>>)>,
}

impl<'a> Index<'a> {
    pub(super) fn new(ds: &'a Dataset) -> Index<'a> {
        let mut paths: Vec<(&'a String, &'a Record)> = ds.records.iter().collect();
        paths.sort_by(|a, b| a.0.split('/').cmp(b.0.split('/')));
        let mut groups: Vec<(&'a str, &'a str, Vec<Indexed<'a>>)> = Vec::new();
        for (path, record) in paths {
            let entry = Indexed {
                key: record.op_key(),
                path: path.as_str(),
                record,
            };
            let cand = record.candidate.as_str();
            let label = record.label.as_str();
            let pos = groups.iter().position(|g| g.0 == cand && g.1 == label);
            let group = match pos {
                Some(i) => &mut groups[i].2,
                None => {
                    groups.push((cand, label, Vec::new()));
                    let last = groups.len() - 1;
                    &mut groups[last].2
                }
            };
            match group.iter_mut().find(|e| e.key == entry.key) {
                Some(slot) => *slot = entry,
                None => group.push(entry),
            }
        }
        Index { groups }
    }

    pub(super) fn records(&self, cand: &str, label: &str) -> &[Indexed<'a>] {
        self.groups
            .iter()
            .find(|g| g.0 == cand && g.1 == label)
            .map_or(&[], |g| g.2.as_slice())
    }

    /// report.py's `Run.env`: the environment of the first complete record
    /// measured on CPU 2 (`str(cpu_number) == "2"`), else of the first
    /// complete record, else the campaign's start environment.
    pub(super) fn env(&self, ds: &'a Dataset) -> &'a JsonObject {
        let envs: Vec<&'a JsonObject> = self
            .groups
            .iter()
            .flat_map(|g| g.2.iter())
            .filter(|e| e.record.status == "complete" && !e.record.environment.is_empty())
            .map(|e| &e.record.environment)
            .collect();
        let on_cpu2 = envs
            .iter()
            .find(|e| get(e, "cpu_number").py_str() == "2")
            .copied();
        static EMPTY: std::sync::OnceLock<JsonObject> = std::sync::OnceLock::new();
        on_cpu2
            .or_else(|| envs.first().copied())
            .or(ds.campaign.environment_at_start.as_ref())
            .unwrap_or_else(|| EMPTY.get_or_init(JsonObject::new))
    }
}

/// report.py's `instances_of`: the labels of the candidate's records and
/// build entries, in natural order (digit runs compared as numbers).
pub(super) fn instances_of(ds: &Dataset, index: &Index<'_>, cand: &str) -> Vec<String> {
    let mut labels: Vec<String> = index
        .groups
        .iter()
        .filter(|g| g.0 == cand)
        .map(|g| g.1.to_string())
        .chain(
            ds.build
                .instances
                .iter()
                .filter(|(_, e)| e.candidate == cand)
                .map(|(_, e)| e.label.clone()),
        )
        .collect();
    // sorted(set(...)) first, then a stable sort by the natural key.
    labels.sort();
    labels.dedup();
    labels.sort_by(|a, b| natural_cmp(a, b));
    labels
}

/// Compares `re.split(r"(\d+)", label)` keys with digit runs as integers.
fn natural_cmp(a: &str, b: &str) -> Ordering {
    let ka = natural_key(a);
    let kb = natural_key(b);
    for (x, y) in ka.iter().zip(&kb) {
        let o = match (x, y) {
            (Token::Text(x), Token::Text(y)) => x.cmp(y),
            (Token::Number(x), Token::Number(y)) => {
                // Compare the values: strip leading zeros, then by length.
                let x = x.trim_start_matches('0');
                let y = y.trim_start_matches('0');
                x.len().cmp(&y.len()).then_with(|| x.cmp(y))
            }
            // The split alternates text and numbers from a text start, so
            // the kinds always line up; keep a total order anyway.
            (Token::Text(_), Token::Number(_)) => Ordering::Greater,
            (Token::Number(_), Token::Text(_)) => Ordering::Less,
        };
        if o != Ordering::Equal {
            return o;
        }
    }
    ka.len().cmp(&kb.len())
}

enum Token<'a> {
    Text(&'a str),
    Number(&'a str),
}

fn natural_key(s: &str) -> Vec<Token<'_>> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut in_digits = false;
    for (i, c) in s.char_indices() {
        let d = c.is_ascii_digit();
        if d != in_digits {
            out.push(if in_digits {
                Token::Number(&s[start..i])
            } else {
                Token::Text(&s[start..i])
            });
            start = i;
            in_digits = d;
        }
    }
    out.push(if in_digits {
        Token::Number(&s[start..])
    } else {
        Token::Text(&s[start..])
    });
    if in_digits {
        // re.split ends with the (empty) text after a final number.
        out.push(Token::Text(""));
    }
    out
}

/// report.py's `op_order`: operations in the guide's order, hash sizes by
/// value, then the key.
pub(super) fn op_order(key: &str) -> (usize, u128, &str) {
    const ORDER: [&str; 8] = [
        "keygen", "enc", "dec", "sign", "verify", "exchange", "init_a", "init_b",
    ];
    let (base, size) = if key.starts_with("hash") {
        key.split_once('_').unwrap_or((key, ""))
    } else {
        (key, "")
    };
    let rank = ORDER
        .iter()
        .position(|o| *o == base)
        .or_else(|| {
            base.strip_prefix("pass")
                .and_then(|k| k.parse::<usize>().ok())
                .filter(|k| (1..=16).contains(k) && base == format!("pass{k}"))
                .map(|k| ORDER.len() + k - 1)
        })
        .or(match base {
            "derive_a" => Some(ORDER.len() + 16),
            "derive_b" => Some(ORDER.len() + 17),
            _ => None,
        })
        .unwrap_or(ORDER.len() + 18);
    (rank, size.parse().unwrap_or(0), key)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn natural_order() {
        let mut labels = vec!["Pavelor-768", "Pavelor-1024", "Pavelor-512", "Pavelor-512a"];
        labels.sort_by(|a, b| natural_cmp(a, b));
        assert_eq!(
            labels,
            ["Pavelor-512", "Pavelor-512a", "Pavelor-768", "Pavelor-1024"]
        );
    }

    #[test]
    fn operation_order() {
        let mut keys = vec![
            "hash_1024",
            "hash_128",
            "hash_65536",
            "hash_32",
            "verify",
            "keygen",
            "pass2",
            "derive_a",
        ];
        keys.sort_by(|a, b| op_order(a).cmp(&op_order(b)));
        assert_eq!(
            keys,
            [
                "keygen",
                "verify",
                "pass2",
                "derive_a",
                "hash_32",
                "hash_128",
                "hash_1024",
                "hash_65536"
            ]
        );
    }
}
