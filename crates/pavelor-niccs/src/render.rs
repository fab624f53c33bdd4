//! The harness's candidate page for one system (`ngcc-dev/ngcc-harness`,
//! `performance/report.py`, `candidate_page`), rendered from a [`Dataset`].
//!
//! The page: title, breadcrumb and intro lines, then §1 basic information,
//! §2 assessment environment, §3 functional testing (KAT), §4 performance,
//! §5 resource consumption and §7 raw evidence index, every number
//! formatted as report.py formats it. What report.py takes from harness
//! files outside the dataset (`downloads.csv`, `systems.csv`,
//! `kat_issues.csv`, the page locations) comes from a [`PageContext`].
//!
//! Not rendered: §6 and the symmetric-primitives section, which report.py
//! writes only for public-key candidates (they need hash profiles, not part
//! of a [`Dataset`]); for the same reason §7 has no "hash profile" rows.

use std::cmp::Ordering;

use crate::dataset::Dataset;
use crate::json::{self, Json, JsonObject, NULL};
use crate::schema::{BuildEntry, Record};

/// The candidate the harness's own pages of this project are about.
pub const HASH22: &str = "hash-22";
/// hash-22's full name, as in the harness's `downloads.csv`.
pub const HASH22_NAME: &str = "Pavelor: A Highly Secure Hash Algorithm for Software Implementation";
/// hash-22's NICCS submission page, as in the harness's `downloads.csv`.
pub const HASH22_NICCS_URL: &str =
    "https://www.niccs.org.cn/niccs/Round1Submissions4/pc/content/content_2101536571221692416.html";
/// The harness repository, as linked from its pages.
pub const HARNESS_URL: &str = "https://github.com/ngcc-dev/ngcc-harness";

/// One row of the harness's `performance/kat_issues.csv`: a known KAT
/// problem of some instances of a candidate.
#[derive(Clone, Debug)]
pub struct KatIssue {
    /// Candidate id (`ID`).
    pub id: String,
    /// The labels it concerns (`Label`, a regular expression searched in
    /// the label, as Python's `re.search`).
    pub label: regex::Regex,
    /// `measure` (timed anyway) or `exclude` (not timed) (`Action`).
    pub action: String,
    /// The explanation (`Cause`).
    pub cause: String,
}

/// What the page needs besides the dataset.
#[derive(Clone, Debug)]
pub struct PageContext {
    /// Candidate id, `hash-22`.
    pub candidate: String,
    /// The algorithm's full name (`downloads.csv` `Algorithm`).
    pub algorithm_name: String,
    /// The system id in the title and breadcrumb (report.py's `--system`,
    /// by default the campaign's `system_id`).
    pub system: String,
    /// Architecture wording: `AArch64`, `x86-64` (see [`architecture_wording`]).
    pub architecture: String,
    /// Link target of "Performance `system`" in the breadcrumb.
    pub summary_link: String,
    /// Link target of "method" in the breadcrumb.
    pub method_link: String,
    /// The NICCS page (`downloads.csv` `PageURL`).
    pub niccs_url: String,
    /// §7's first paragraph: where the listed paths are relative to.
    pub evidence_intro: String,
    /// The last paragraph of the page (`Scripts: …`).
    pub scripts_line: String,
    /// Known KAT issues (only those with `id == candidate` apply).
    pub kat_issues: Vec<KatIssue>,
    /// §1's "Implementation versions measured", where report.py's rule
    /// (a label ending in `-avx2` is "optimized (AVX2)", any other
    /// "reference") does not describe the implementation: pavelor's pages
    /// name their subject. `None`: report.py's rule.
    pub versions: Option<String>,
    /// §3's first sentence, where the KATs were checked otherwise than by
    /// the harness's manifest. `None`: the harness's sentence.
    pub kat_intro: Option<String>,
}

impl PageContext {
    /// The context of the harness's own hash-22 page for `system`
    /// (`arm_1`), stored at `hash-22/perf_<system>.md` in the harness, with
    /// `architecture` as report.py words it (`AArch64`).
    pub fn harness(system: &str, architecture: &str) -> PageContext {
        PageContext {
            candidate: HASH22.to_string(),
            algorithm_name: HASH22_NAME.to_string(),
            system: system.to_string(),
            architecture: architecture.to_string(),
            summary_link: format!("../performance/summary_{system}.md"),
            method_link: format!("../performance/method_{system}.md"),
            niccs_url: HASH22_NICCS_URL.to_string(),
            evidence_intro: format!(
                "Paths are relative to `performance/data/{system}/` in the [harness]({HARNESS_URL}); \
                 each JSON file records its commands, environment and trials."
            ),
            scripts_line: format!(
                "Scripts: `performance/campaign.py`, `performance/ngcc_perf.c`, \
                 `performance/hashprof/` in the [harness]({HARNESS_URL})."
            ),
            kat_issues: Vec::new(),
            versions: None,
            kat_intro: None,
        }
    }

    /// The harness's context for a dataset of its own: the system id from
    /// `campaign.json`, the architecture from its `environment_at_start`.
    pub fn for_dataset(ds: &Dataset) -> Result<PageContext, String> {
        let system = &ds.campaign.system_id;
        let machine = ds
            .campaign
            .environment_at_start
            .as_ref()
            .and_then(|e| e.get("architecture"))
            .and_then(Json::as_str)
            .ok_or("campaign.json: environment_at_start has no architecture")?;
        Ok(PageContext::harness(system, architecture_wording(machine)))
    }
}

/// report.py's architecture wording for a machine name (`platform.machine()`
/// or systems.csv `Arch`): `x86_64` → `x86-64`, `aarch64` → `AArch64`,
/// anything else unchanged.
pub fn architecture_wording(machine: &str) -> &str {
    match machine {
        "x86_64" => "x86-64",
        "aarch64" => "AArch64",
        other => other,
    }
}

/// The guide named in the intro: `x86` for x86-64, `ARM` for AArch64.
fn guide_name(architecture: &str) -> &str {
    match architecture {
        "x86-64" => "x86",
        "AArch64" => "ARM",
        other => other,
    }
}

/// A record as report.py indexes it: its op key and dataset path.
struct Indexed<'a> {
    key: String,
    path: &'a str,
    record: &'a Record,
}

/// report.py's `Run.records`: (candidate, label) → op key → record, in the
/// order the record files are met (sorted by path components); a later
/// file with the same key replaces the earlier one in place.
struct Index<'a> {
    groups: Vec<(&'a str, &'a str, Vec<Indexed<'a>>)>,
}

impl<'a> Index<'a> {
    fn new(ds: &'a Dataset) -> Index<'a> {
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

    fn records(&self, cand: &str, label: &str) -> &[Indexed<'a>] {
        self.groups
            .iter()
            .find(|g| g.0 == cand && g.1 == label)
            .map_or(&[], |g| g.2.as_slice())
    }

    /// report.py's `Run.env`: the environment of the first complete record
    /// measured on CPU 2 (`str(cpu_number) == "2"`), else of the first
    /// complete record, else the campaign's start environment.
    fn env(&self, ds: &'a Dataset) -> &'a JsonObject {
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

/// `env.get(key)`: a missing key reads as `None`.
fn get<'a>(env: &'a JsonObject, key: &str) -> &'a Json {
    env.get(key).unwrap_or(&NULL)
}

/// report.py's `instances_of`: the labels of the candidate's records and
/// build entries, in natural order (digit runs compared as numbers).
fn instances_of(ds: &Dataset, index: &Index<'_>, cand: &str) -> Vec<String> {
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
fn op_order(key: &str) -> (usize, u128, &str) {
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

/// report.py's `fmt_int`: `2.30 G`, `12.29 M`, `36.9 k`, `9876`; `–` for none.
pub fn fmt_int(x: Option<f64>) -> String {
    match x {
        None => "–".to_string(),
        Some(x) if x >= 1e9 => format!("{:.2} G", x / 1e9),
        Some(x) if x >= 1e6 => format!("{:.2} M", x / 1e6),
        Some(x) if x >= 1e4 => format!("{:.1} k", x / 1e3),
        Some(x) => format!("{x:.0}"),
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
            return format!("{} {unit}", fmt_g3(s * f));
        }
    }
    format!("{} ns", fmt_g3(s * 1e9))
}

/// Python's `format(x, ".3g")`.
pub fn fmt_g3(x: f64) -> String {
    fmt_g(x, 3)
}

/// Python's `format(x, ".<p>g")`: `p` significant digits, fixed notation
/// for decimal exponents from -4 to `p - 1`, trailing zeros removed.
fn fmt_g(x: f64, p: usize) -> String {
    let p = p.max(1);
    if x.is_nan() {
        return "nan".to_string();
    }
    if x.is_infinite() {
        return if x > 0.0 { "inf" } else { "-inf" }.to_string();
    }
    if x == 0.0 {
        return if x.is_sign_negative() { "-0" } else { "0" }.to_string();
    }
    // The exponent after rounding to p digits decides the notation.
    let sci = format!("{:.*e}", p - 1, x);
    let (mantissa, exp) = sci.split_once('e').unwrap_or((sci.as_str(), "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    if exp >= -4 && exp < p as i32 {
        let decimals = (p as i32 - 1 - exp).max(0) as usize;
        strip_zeros(&format!("{x:.decimals$}"))
    } else {
        let sign = if exp < 0 { '-' } else { '+' };
        format!("{}e{sign}{:02}", strip_zeros(mantissa), exp.abs())
    }
}

fn strip_zeros(s: &str) -> String {
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s.to_string()
    }
}

/// Python's `int(x or 0)` for an environment value; a value Python's
/// `int()` would reject (report.py would stop) counts as 0.
fn int_or_zero(v: &Json) -> i128 {
    if v.truthy() {
        json::py_int(v).unwrap_or(0)
    } else {
        0
    }
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
        let ghz = int_or_zero(get(env, "core_clock_mhz")) as f64 / 1000.0;
        return format!(
            "measured {ghz:.2} GHz, set by firmware (no OS frequency scaling or boost), SMT {}",
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
    let ghz = int_or_zero(get(env, "cpufreq_max_khz")) as f64 / 1e6;
    let governor = get(env, "cpufreq_governor").py_str();
    let aarch64 = get(env, "architecture").as_str() == Some("aarch64");
    if aarch64 && get(env, "cpufreq_min_khz").py_eq(get(env, "cpufreq_max_khz")) {
        return format!(
            "fixed {ghz:.2} GHz (governor {governor}, minimum = maximum), boost {turbo}, SMT {}",
            smt_text(env)
        );
    }
    format!(
        "max {ghz:.2} GHz, governor {governor}, turbo {turbo}, SMT {}",
        get(env, "smt_control").py_str()
    )
}

/// The first `n` characters (Python's `s[:n]`).
fn prefix(s: &str, n: usize) -> &str {
    s.char_indices().nth(n).map_or(s, |(i, _)| &s[..i])
}

fn opt_u64(v: Option<u64>) -> String {
    v.map_or_else(|| "None".to_string(), |n| n.to_string())
}

/// The candidate page, as report.py's `candidate_page` writes it: lines
/// joined by newlines, ending in an empty line.
pub fn render_page(ds: &Dataset, ctx: &PageContext) -> String {
    let cand = ctx.candidate.as_str();
    let cat = cand.split('-').next().unwrap_or(cand);
    let index = Index::new(ds);
    let env = index.env(ds);
    let labels = instances_of(ds, &index, cand);
    let entry =
        |label: &str| -> Option<&BuildEntry> { ds.build.instances.get(&format!("{cand}/{label}")) };
    let mut lines: Vec<String> = vec![
        format!(
            "# {cand} {} — performance on {} (system {})",
            ctx.algorithm_name, ctx.architecture, ctx.system
        ),
        String::new(),
        format!(
            "[Performance {}]({}) › `{cand}` · [method]({}) · [NICCS page]({})",
            ctx.system, ctx.summary_link, ctx.method_link, ctx.niccs_url
        ),
        String::new(),
        format!(
            "Independent measurement following the structure of the NICCS {} self-assessment \
             guide, §3.5 (1)–(7). Not a submitter self-assessment.",
            guide_name(&ctx.architecture)
        ),
        String::new(),
    ];

    // (1)
    let function = match cat {
        "kem" => "key encapsulation",
        "sign" => "digital signature",
        "kex" => "key exchange",
        _ => "hash",
    };
    let category = if cat == "hash" {
        "cryptographic hash"
    } else {
        "public-key"
    };
    let mut versions: Vec<&str> = labels
        .iter()
        .map(|l| {
            if l.ends_with("-avx2") {
                "optimized (AVX2)"
            } else {
                "reference"
            }
        })
        .collect();
    versions.sort_unstable();
    versions.dedup();
    let params: Vec<String> = labels.iter().map(|l| format!("`{l}`")).collect();
    lines.extend([
        "## 1. Basic information".to_string(),
        String::new(),
        format!("- Category: {category} algorithm; function: {function}"),
        format!("- Algorithm: {}", ctx.algorithm_name),
        format!(
            "- Implementation versions measured: {}",
            ctx.versions.clone().unwrap_or_else(|| versions.join(", "))
        ),
        format!("- Parameter sets: {}", params.join(", ")),
        String::new(),
    ]);

    // (2)
    lines.extend([
        "## 2. Assessment environment".to_string(),
        String::new(),
        "| item | value |".to_string(),
        "|---|---|".to_string(),
        format!(
            "| processor | {} (CPU {}, one core) |",
            get(env, "cpu_model").py_str(),
            get(env, "cpu_number").py_str()
        ),
    ]);
    if get(env, "machine").truthy() {
        lines.push(format!("| machine | {} |", get(env, "machine").py_str()));
    }
    let started = prefix(&ds.campaign.started_utc, 19);
    let ended = prefix(ds.campaign.ended_utc.as_deref().unwrap_or(""), 19);
    lines.extend([
        format!("| clock | {} |", clock_text(env)),
        format!(
            "| memory | {} MiB |",
            int_or_zero(get(env, "memory_total_kib")).div_euclid(1024)
        ),
        format!(
            "| OS / kernel | {} / {} |",
            get(env, "os").py_str(),
            get(env, "kernel").py_str()
        ),
        format!(
            "| compiler / build tool | {} / {} |",
            get(env, "compiler").py_str(),
            get(env, "cmake").py_str()
        ),
        format!("| campaign start / end (UTC) | {started} / {ended} |"),
        String::new(),
    ]);

    // (3)
    lines.extend([
        "## 3. Functional testing (KAT)".to_string(),
        String::new(),
        ctx.kat_intro.clone().unwrap_or_else(|| {
            format!(
                "Each library was checked against the submitted KAT vectors (SHA-256 manifest \
                 `{cand}/kat.sha256` in the harness) before timing."
            )
        }),
        String::new(),
        "| instance | build flags | KAT |".to_string(),
        "|---|---|---|".to_string(),
    ]);
    let mut notes: Vec<&KatIssue> = Vec::new();
    for l in &labels {
        let e = entry(l);
        let passed = e.is_some_and(|e| e.kat == "PASS");
        let issue = ctx.kat_issues.iter().find(|i| {
            i.id == cand && i.label.is_match(l) && !(passed && i.cause.starts_with("KAT TIMEOUT"))
        });
        let mut mark = String::new();
        if let Some(issue) = issue {
            let n = match notes.iter().position(|n| std::ptr::eq(*n, issue)) {
                Some(i) => i + 1,
                None => {
                    notes.push(issue);
                    notes.len()
                }
            };
            mark = format!(" [{n}]");
            if issue.action == "exclude" {
                mark.push_str(" (not timed)");
            }
        }
        lines.push(format!(
            "| `{l}` | {} | {}{mark} |",
            e.map_or("–", |e| e.flags.as_str()),
            e.map_or("–", |e| e.kat.as_str())
        ));
    }
    lines.push(String::new());
    for (n, issue) in notes.iter().enumerate() {
        let tail = if issue.action == "measure" {
            " These instances are timed anyway; their output is not validated."
        } else {
            ""
        };
        lines.push(format!("[{}] {}{tail}", n + 1, issue.cause));
        lines.push(String::new());
    }

    // (4)
    lines.extend(["## 4. Performance".to_string(), String::new()]);
    if cat == "hash" {
        lines.push(
            "| instance | message | mean cycles | cycles/byte | mean time | MB/s | n |".into(),
        );
    } else {
        lines.push(
            "| instance | operation | mean cycles | mean time | ops/s | median trial | n (trials × iters) |"
                .into(),
        );
    }
    lines.push("|---|---|---|---|---|---|---|".into());
    for l in &labels {
        let mut recs: Vec<&Indexed<'_>> = index.records(cand, l).iter().collect();
        recs.sort_by(|a, b| op_order(&a.key).cmp(&op_order(&b.key)));
        for e in recs {
            let r = e.record;
            if r.status != "complete" {
                lines.push(format!("| `{l}` | {} | failed | | | | |", e.key));
                continue;
            }
            let mut n = format!(
                "{} ({} × {})",
                opt_u64(r.measurements),
                r.plan.trials,
                r.plan.iterations_per_trial
            );
            if cat == "hash" {
                let mbs = r.throughput_mb_per_second.unwrap_or(0.0);
                let time = fmt_time(r.mean_seconds);
                let row = match r.mean_cycles.filter(|c| *c != 0.0) {
                    Some(c) => format!(
                        "| `{l}` | {} B | {} | {:.1} | {time} | {mbs:.1} | {n} |",
                        r.input_bytes,
                        fmt_int(Some(c)),
                        c / r.input_bytes as f64
                    ),
                    None => format!(
                        "| `{l}` | {} B | – | – | {time} | {mbs:.1} | {n} |",
                        r.input_bytes
                    ),
                };
                lines.push(row);
            } else {
                let retries: i128 = r
                    .processes
                    .iter()
                    .filter_map(|p| p.meta.as_ref()?.get("sign_failures_retried"))
                    .map(|v| {
                        let v = Json::from(v.as_str());
                        int_or_zero(&v)
                    })
                    .sum();
                if retries != 0 {
                    n.push_str(&format!("; {retries} failed signing attempts retried"));
                }
                lines.push(format!(
                    "| `{l}` | {} | {} | {} | {} | {} | {n} |",
                    e.key,
                    fmt_int(r.mean_cycles),
                    fmt_time(r.mean_seconds),
                    r.operations_per_second.map_or("None".to_string(), fmt_g3),
                    fmt_time(r.median_trial_seconds)
                ));
            }
        }
    }
    lines.push(String::new());

    // (5)
    lines.extend([
        "## 5. Resource consumption".to_string(),
        String::new(),
        "Static memory is approximated by the library's loadable ELF segments; peak memory is \
         the process high-water mark (VmHWM) including the benchmark driver and libc, so both are \
         upper-bound proxies rather than isolated algorithm memory."
            .to_string(),
        String::new(),
        "| instance | operation | static: ELF image (bytes) | baseline RSS | peak RSS |"
            .to_string(),
        "|---|---|---|---|---|".to_string(),
    ]);
    for l in &labels {
        let elf = entry(l)
            .and_then(|e| e.elf_load_bytes.flatten())
            .map_or("–".to_string(), |b| b.to_string());
        let mut recs: Vec<&Indexed<'_>> = index.records(cand, l).iter().collect();
        recs.sort_by(|a, b| op_order(&a.key).cmp(&op_order(&b.key)));
        for e in recs {
            let r = e.record;
            if r.peak_rss_bytes.is_some_and(|b| b != 0) {
                let kib = |b: Option<u64>| b.map_or("–".to_string(), |b| (b / 1024).to_string());
                lines.push(format!(
                    "| `{l}` | {} | {elf} | {} KiB | {} KiB |",
                    e.key,
                    kib(r.baseline_rss_bytes),
                    kib(r.peak_rss_bytes)
                ));
            }
        }
    }
    lines.push(String::new());

    // (7)
    lines.extend([
        "## 7. Raw evidence index".to_string(),
        String::new(),
        ctx.evidence_intro.clone(),
        String::new(),
        "| instance | item | file |".to_string(),
        "|---|---|---|".to_string(),
    ]);
    for l in &labels {
        if let Some(e) = entry(l)
            && let Some(log) = e.kat_log.as_deref().filter(|s| !s.is_empty())
        {
            let digest = prefix(e.kat_log_sha256.as_deref().unwrap_or(""), 16);
            lines.push(format!(
                "| `{l}` | KAT log (sha256 `{digest}…`) | `{log}` |"
            ));
        }
        let mut recs: Vec<&Indexed<'_>> = index.records(cand, l).iter().collect();
        recs.sort_by(|a, b| a.key.cmp(&b.key));
        for e in recs {
            lines.push(format!("| `{l}` | timing {} | `{}` |", e.key, e.path));
        }
    }
    lines.extend([String::new(), ctx.scripts_line.clone(), String::new()]);
    let mut page = lines.join("\n");
    page.push('\n');
    page
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
        assert_eq!(fmt_g3(0.000123456), "0.000123");
        assert_eq!(fmt_g3(0.0000123456), "1.23e-05");
        assert_eq!(fmt_g3(99.96), "100");
        assert_eq!(fmt_g3(999.6), "1e+03");
        assert_eq!(fmt_g3(73138.3), "7.31e+04");
    }

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
