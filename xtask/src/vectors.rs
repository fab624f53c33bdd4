//! `cargo xtask vectors`: the workspace's one file of test vectors,
//! `test-vectors/pavelor.json`, and the files derived from it.
//!
//! * `--from DIR` derives the JSON from the official KAT files in `DIR`
//!   (selected `KAT_2_12` records, the two fill records of `KAT_2_23`, and
//!   edge cases built from official records) and writes it, then the
//!   derived files.
//! * Without `--from`, the derived files are rewritten from the JSON.
//! * `--check` writes nothing and fails if any file differs from what would
//!   be written; it also checks every answer in the JSON against the
//!   official answers embedded in `pavelor-kat` (the first bytes of each
//!   `KAT_2_12` digest, the whole `KAT_2_23` digests), which needs no KAT
//!   files.
//!
//! Derived: two C tables of official records, `kat_vectors.h` of the
//! provider's C test (byte-aligned records: EVP takes bytes) and
//! `vectors.h` of the C library's test (bit lengths too). The Rust and
//! Python tests read the JSON itself. Nothing is hashed with Pavelor here:
//! every answer is copied from an official file.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use clap::Args;
use pavelor_ffi::Algorithm;
use pavelor_kat::KatKind;
use pavelor_kat::format::{self, Record};
use pavelor_kat::official::{max_file_bytes, read_limited};
use serde_json::{Value, json};

/// The vector file, relative to the workspace root.
pub(crate) const VECTORS: &str = "test-vectors/pavelor.json";
/// The C headers derived from it, relative to the workspace root, each
/// with the `KAT_2_12` bit lengths it carries.
const C_HEADERS: [(&str, &[u64]); 2] = [
    (
        "crates/pavelor-openssl/tests/c/kat_vectors.h",
        &[0, 8, 1024, 4096],
    ),
    (
        "crates/pavelor-capi/tests/c/vectors.h",
        &[0, 1, 5, 8, 63, 1527, 3081, 4095, 4096],
    ),
];
/// `KAT_2_12` has one record per bit length `0..=MAX_BITS`.
const MAX_BITS: u64 = 4096;
/// How many pseudo-random `KAT_2_12` lengths are kept beside the fixed ones.
const RANDOM_LENGTHS: usize = 16;

#[derive(Args)]
pub(crate) struct VectorsArgs {
    /// Directory holding the official KAT_2_12_* and KAT_2_23_* files;
    /// without it the JSON is taken as it is.
    #[arg(long, value_name = "DIR")]
    from: Option<PathBuf>,

    /// Do not write: exit non-zero unless every file already holds exactly
    /// what would be written (and the JSON agrees with the embedded answers).
    #[arg(long)]
    check: bool,
}

pub(crate) fn run(args: &VectorsArgs) -> Result<(), String> {
    let root = crate::workspace_root();
    let json_path = root.join(VECTORS);
    let json_text = match &args.from {
        Some(dir) => to_text(&derive(dir)?)?,
        None => std::fs::read_to_string(&json_path)
            .map_err(|e| format!("cannot read {}: {e}", json_path.display()))?,
    };
    let data: Value = serde_json::from_str(&json_text)
        .map_err(|e| format!("{}: not valid JSON: {e}", json_path.display()))?;
    check_embedded(&data)?;
    let mut files = Vec::new();
    for (path, lengths) in C_HEADERS {
        files.push((root.join(path), c_header(&data, lengths)?));
    }
    if args.from.is_some() {
        files.insert(0, (json_path, json_text));
    }
    for (path, text) in &files {
        if args.check {
            let current = std::fs::read_to_string(path).unwrap_or_default();
            if &current != text {
                return Err(format!(
                    "{} is stale: run `cargo xtask vectors{}`",
                    path.display(),
                    if args.from.is_some() {
                        " --from DIR"
                    } else {
                        ""
                    }
                ));
            }
            eprintln!("xtask: {} is up to date", path.display());
        } else {
            crate::write_atomically(path, text.as_bytes())?;
            eprintln!("xtask: wrote {}", path.display());
        }
    }
    Ok(())
}

/// The JSON name of an instance, e.g. `pavelor-512`.
fn key(alg: Algorithm) -> String {
    alg.name().to_ascii_lowercase()
}

fn read_records(path: &Path, kind: KatKind) -> Result<Vec<Record>, String> {
    let text = read_limited(path, max_file_bytes(kind)).map_err(|e| e.to_string())?;
    let records = format::parse(&text).map_err(|e| format!("{}: {e:?}", path.display()))?;
    Ok(records.into_iter().map(|l| l.record).collect())
}

/// The `KAT_2_12` bit lengths kept: every length up to 64, every length
/// within 9 bits of one and two rate blocks of each instance, every
/// multiple of 128, 4095, and [`RANDOM_LENGTHS`] more from a fixed
/// xorshift sequence.
fn selected_lengths() -> Vec<u64> {
    let mut set: std::collections::BTreeSet<u64> = (0..=64).collect();
    for alg in Algorithm::ALL {
        let rate = 8 * alg.rate_len() as u64;
        for centre in [rate, 2 * rate] {
            set.extend((centre - 9..=centre + 9).filter(|&b| b <= MAX_BITS));
        }
    }
    set.extend((128..=MAX_BITS).step_by(128));
    set.insert(MAX_BITS - 1);
    let fixed = set.len();
    let mut x: u64 = 0x2212_2212_2212_2212;
    while set.len() < fixed + RANDOM_LENGTHS {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        set.insert(65 + x % (MAX_BITS - 65));
    }
    set.into_iter().collect()
}

/// The JSON value, from the official files in `dir`.
fn derive(dir: &Path) -> Result<Value, String> {
    let lengths = selected_lengths();
    let mut records: BTreeMap<u64, serde_json::Map<String, Value>> = BTreeMap::new();
    let mut fills = serde_json::Map::new();
    let mut edges = Vec::new();
    for alg in Algorithm::ALL {
        let name = alg.name();
        let all = read_records(&dir.join(KatKind::Kat2_12.file_name(alg)), KatKind::Kat2_12)?;
        if all.len() as u64 != MAX_BITS + 1 {
            return Err(format!(
                "KAT_2_12_{name}: {} records, expected {}",
                all.len(),
                MAX_BITS + 1
            ));
        }
        let by_len: BTreeMap<u64, &format::FullRecord> = all
            .iter()
            .filter_map(|r| match r {
                Record::Full(f) => Some((f.msg_len, f)),
                Record::Long(_) => None,
            })
            .collect();
        for &n in &lengths {
            let r = by_len
                .get(&n)
                .ok_or(format!("KAT_2_12_{name}: no record of {n} bits"))?;
            let entry = records.entry(n).or_default();
            entry.insert("bits".into(), json!(n));
            let msg = hex::encode(&r.msg);
            if let Some(prev) = entry.get("msg")
                && prev != &json!(msg)
            {
                return Err(format!(
                    "KAT_2_12: the {n}-bit message differs between instances"
                ));
            }
            entry.insert("msg".into(), json!(msg));
            entry.insert(key(alg), json!(hex::encode(&r.dst)));
        }
        // Edge cases from official records whose last byte is partial: the
        // padding cases around the rate (|M| = r-2, r-1, r+1, r+3, 2r-1
        // bits), each with the unused low bits of the last byte set, which
        // must be ignored whatever they hold.
        let rate = 8 * alg.rate_len() as u64;
        for n in [rate - 2, rate - 1, rate + 1, rate + 3, 2 * rate - 1] {
            let r = by_len
                .get(&n)
                .ok_or(format!("KAT_2_12_{name}: no record of {n} bits"))?;
            let mut msg = r.msg.clone();
            if let Some(last) = msg.last_mut() {
                *last |= 0xFF >> (n % 8);
            }
            edges.push(json!({
                "instance": key(alg),
                "bits": n,
                "msg": hex::encode(&msg),
                "digest": hex::encode(&r.dst),
                "case": "unused low bits of the last byte set",
            }));
        }
        let mut fill = serde_json::Map::new();
        for r in read_records(&dir.join(KatKind::Kat2_23.file_name(alg)), KatKind::Kat2_23)? {
            let Record::Long(l) = r else { continue };
            if !l.seed.is_empty() {
                continue; // needs the DRNG
            }
            let which = if l.exp_head == [0; 8] {
                "zero"
            } else if l.exp_head == [0xFF; 8] {
                "ff"
            } else {
                return Err(format!("KAT_2_23_{name}: unexpected unseeded record"));
            };
            fill.insert("bits".into(), json!(l.msg_len));
            fill.insert(which.into(), json!(hex::encode(&l.dst)));
        }
        if !(fill.contains_key("zero") && fill.contains_key("ff")) {
            return Err(format!(
                "KAT_2_23_{name}: missing the all-zero or all-0xFF record"
            ));
        }
        fills.insert(key(alg), Value::Object(fill));
    }
    Ok(json!({
        "about": "Test vectors of Pavelor: selected official ICCS answers and edge cases built from them; made by `cargo xtask vectors --from DIR`",
        "kat_2_12": {"records": records.into_values().map(Value::Object).collect::<Vec<_>>()},
        "kat_2_23": Value::Object(fills),
        "edge_cases": edges,
    }))
}

/// The JSON text: one record per line, so diffs stay readable.
fn to_text(data: &Value) -> Result<String, String> {
    let mut s = String::from("{\n");
    let obj = data.as_object().ok_or("not an object")?;
    let n = obj.len();
    for (i, (k, v)) in obj.iter().enumerate() {
        let sep = if i + 1 < n { "," } else { "" };
        let line = |v: &Value| serde_json::to_string(v).map_err(|e| e.to_string());
        match (k.as_str(), v) {
            ("kat_2_12", Value::Object(o)) => {
                let recs = o
                    .get("records")
                    .and_then(Value::as_array)
                    .ok_or("no records")?;
                s.push_str(" \"kat_2_12\": {\"records\": [\n");
                let lines: Result<Vec<String>, String> = recs
                    .iter()
                    .map(|r| line(r).map(|l| format!("  {l}")))
                    .collect();
                s.push_str(&lines?.join(",\n"));
                let _ = writeln!(s, "\n ]}}{sep}");
            }
            ("edge_cases", Value::Array(a)) => {
                s.push_str(" \"edge_cases\": [\n");
                let lines: Result<Vec<String>, String> = a
                    .iter()
                    .map(|r| line(r).map(|l| format!("  {l}")))
                    .collect();
                s.push_str(&lines?.join(",\n"));
                let _ = writeln!(s, "\n ]{sep}");
            }
            _ => {
                let _ = writeln!(s, " {}: {}{sep}", line(&json!(k))?, line(v)?);
            }
        }
    }
    s.push_str("}\n");
    Ok(s)
}

/// Every answer in the JSON begins with the official answer's first bytes
/// embedded in `pavelor-kat` (a cross-check that needs no KAT files).
fn check_embedded(data: &Value) -> Result<(), String> {
    let recs = data["kat_2_12"]["records"]
        .as_array()
        .ok_or("no kat_2_12 records")?;
    let mut checked = 0;
    for alg in Algorithm::ALL {
        let answers = pavelor_kat::embedded::Answers::of(alg);
        for r in recs {
            let bits = r["bits"].as_u64().ok_or("a record without bits")?;
            let digest = r[key(alg)].as_str().ok_or("a record without a digest")?;
            let want = answers
                .prefix_2_12(bits)
                .ok_or("a length beyond KAT_2_12")?;
            if !digest.starts_with(&hex::encode(want)) {
                return Err(format!(
                    "{VECTORS}: {} of {bits} bits disagrees with the embedded official answer",
                    alg.name()
                ));
            }
            checked += 1;
        }
        let fills = &data["kat_2_23"][key(alg)];
        for which in ["zero", "ff"] {
            let digest = fills[which]
                .as_str()
                .ok_or("a KAT_2_23 fill without a digest")?;
            let embedded = (0..3).filter_map(|i| answers.full_dst(KatKind::Kat2_23, i));
            if !embedded.map(hex::encode).any(|d| d == digest) {
                return Err(format!(
                    "{VECTORS}: the {which} KAT_2_23 digest of {} is not an embedded official answer",
                    alg.name()
                ));
            }
            checked += 1;
        }
    }
    for e in data["edge_cases"].as_array().ok_or("no edge_cases")? {
        let alg: Algorithm = e["instance"]
            .as_str()
            .and_then(|s| s.parse().ok())
            .ok_or("an edge case without an instance")?;
        let bits = e["bits"].as_u64().ok_or("an edge case without bits")?;
        let digest = e["digest"]
            .as_str()
            .ok_or("an edge case without a digest")?;
        let want = pavelor_kat::embedded::Answers::of(alg)
            .prefix_2_12(bits)
            .ok_or("an edge case beyond KAT_2_12")?;
        if !digest.starts_with(&hex::encode(want)) {
            return Err(format!(
                "{VECTORS}: the edge case {} of {bits} bits disagrees with the embedded official answer",
                alg.name()
            ));
        }
        checked += 1;
    }
    eprintln!("xtask: {checked} answers in {VECTORS} agree with the embedded official answers");
    Ok(())
}

/// The C table of the `KAT_2_12` records of `lengths` bits, per instance.
fn c_header(data: &Value, lengths: &[u64]) -> Result<String, String> {
    let recs = data["kat_2_12"]["records"]
        .as_array()
        .ok_or("no kat_2_12 records")?;
    let list = lengths
        .iter()
        .map(u64::to_string)
        .collect::<Vec<_>>()
        .join(", ");
    let mut s = format!(
        "/*\n * @generated by `cargo xtask vectors` from test-vectors/pavelor.json: do not edit.\n \
         * Official answers (KAT_2_12 records Msg_Len = {list}).\n \
         * Format, one vector per line (the Rust test parses these lines too):\n \
         *   {{\"NAME\", MSG_LEN_BITS, \"MSG_HEX\", \"DIGEST_HEX\"}},\n */\n\
         struct kat_vector {{\n    const char *name;\n    unsigned msg_bits;\n    \
         const char *msg_hex;\n    const char *digest_hex;\n}};\n\n\
         static const struct kat_vector KAT_VECTORS[] = {{\n",
    );
    for alg in Algorithm::ALL {
        let _ = writeln!(s, "    /* {} */", alg.name());
        for &bits in lengths {
            let r = recs
                .iter()
                .find(|r| r["bits"].as_u64() == Some(bits))
                .ok_or(format!("no record of {bits} bits"))?;
            let msg = r["msg"].as_str().ok_or("no msg")?.to_ascii_uppercase();
            let dst = r[key(alg)]
                .as_str()
                .ok_or("no digest")?
                .to_ascii_uppercase();
            let _ = writeln!(
                s,
                "    {{\"{}\", {bits}, \"{msg}\", \"{dst}\"}},",
                alg.name().to_ascii_uppercase()
            );
        }
    }
    s.push_str("};\n");
    Ok(s)
}
