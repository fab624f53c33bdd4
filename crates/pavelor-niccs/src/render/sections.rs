//! One function per part of report.py's `candidate_page`, in page order:
//! the title lines, §1 basic information, §2 assessment environment,
//! §3 functional testing (KAT), §4 performance, §5 resource consumption,
//! §7 raw evidence index. Each appends its lines, the blank line after it
//! included, to the page's lines.

use super::format::{clock_text, fmt_int, fmt_time, opt_u64};
use super::index::Indexed;
use super::text::{md_code, md_dest, md_text};
use super::{KatIssue, Page, get};
use crate::json::Json;
use crate::python::{py_format_f, py_format_g, py_int_or_zero, py_prefix};

/// The title, the breadcrumb and the intro sentence.
pub(super) fn title(p: &Page<'_>, lines: &mut Vec<String>) {
    let (ctx, cand) = (p.ctx, p.cand);
    lines.extend([
        format!(
            "# {cand} {} — performance on {} (system {})",
            md_text(&ctx.algorithm_name),
            md_text(&ctx.architecture),
            md_text(&ctx.system)
        ),
        String::new(),
        format!(
            "[Performance {}]({}) › `{cand}` · [method]({}) · [NICCS page]({})",
            md_text(&ctx.system),
            md_dest(&ctx.summary_link),
            md_dest(&ctx.method_link),
            md_dest(&ctx.niccs_url)
        ),
        String::new(),
        format!(
            "Independent measurement following the structure of the NICCS {} self-assessment \
             guide, §3.5 (1)–(7). Not a submitter self-assessment.",
            md_text(guide_name(&ctx.architecture))
        ),
        String::new(),
    ]);
}

/// The guide named in the intro: `x86` for x86-64, `ARM` for AArch64.
fn guide_name(architecture: &str) -> &str {
    match architecture {
        "x86-64" => "x86",
        "AArch64" => "ARM",
        other => other,
    }
}

/// §1: category, function, algorithm, versions and parameter sets.
pub(super) fn basic_information(p: &Page<'_>, lines: &mut Vec<String>) {
    let function = match p.cat {
        "kem" => "key encapsulation",
        "sign" => "digital signature",
        "kex" => "key exchange",
        _ => "hash",
    };
    let category = if p.cat == "hash" {
        "cryptographic hash"
    } else {
        "public-key"
    };
    let mut versions: Vec<&str> = p
        .labels
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
    let params: Vec<String> = p.labels.iter().map(|l| md_code(l)).collect();
    lines.extend([
        "## 1. Basic information".to_string(),
        String::new(),
        format!("- Category: {category} algorithm; function: {function}"),
        format!("- Algorithm: {}", md_text(&p.ctx.algorithm_name)),
        format!(
            "- Implementation versions measured: {}",
            p.ctx
                .versions
                .clone()
                .unwrap_or_else(|| versions.join(", "))
        ),
        format!("- Parameter sets: {}", params.join(", ")),
        String::new(),
    ]);
}

/// §2: the host (report.py's `Run.env`) and the
/// campaign's times.
pub(super) fn environment(p: &Page<'_>, lines: &mut Vec<String>) {
    let env = p.env;
    lines.extend([
        "## 2. Assessment environment".to_string(),
        String::new(),
        "| item | value |".to_string(),
        "|---|---|".to_string(),
        format!(
            "| processor | {} (CPU {}, one core) |",
            md_text(&get(env, "cpu_model").py_str()),
            md_text(&get(env, "cpu_number").py_str())
        ),
    ]);
    if get(env, "machine").truthy() {
        lines.push(format!(
            "| machine | {} |",
            md_text(&get(env, "machine").py_str())
        ));
    }
    let campaign = &p.ds.campaign;
    let started = md_text(py_prefix(&campaign.started_utc, 19));
    let ended = md_text(py_prefix(campaign.ended_utc.as_deref().unwrap_or(""), 19));
    lines.extend([
        format!("| clock | {} |", md_text(&clock_text(env))),
        format!(
            "| memory | {} MiB |",
            py_int_or_zero(get(env, "memory_total_kib")).div_euclid(1024)
        ),
        format!(
            "| OS / kernel | {} / {} |",
            md_text(&get(env, "os").py_str()),
            md_text(&get(env, "kernel").py_str())
        ),
        format!(
            "| compiler / build tool | {} / {} |",
            md_text(&get(env, "compiler").py_str()),
            md_text(&get(env, "cmake").py_str())
        ),
        format!("| campaign start / end (UTC) | {started} / {ended} |"),
        String::new(),
    ]);
}

/// §3: each instance's build flags and KAT outcome, with the known KAT
/// issues as numbered notes.
pub(super) fn functional_testing(p: &Page<'_>, lines: &mut Vec<String>) {
    let cand = p.cand;
    lines.extend([
        "## 3. Functional testing (KAT)".to_string(),
        String::new(),
        p.ctx.kat_intro.clone().unwrap_or_else(|| {
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
    for l in &p.labels {
        let e = p.entry(l);
        let passed = e.is_some_and(|e| e.kat == "PASS");
        let issue = p.ctx.kat_issues.iter().find(|i| {
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
            "| {} | {} | {}{mark} |",
            md_code(l),
            md_text(e.map_or("–", |e| e.flags.as_str())),
            md_text(e.map_or("–", |e| e.kat.as_str()))
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
}

/// §4: one row per record, in the guide's operation order; hash
/// candidates per message length, the others per operation.
pub(super) fn performance(p: &Page<'_>, lines: &mut Vec<String>) {
    lines.extend(["## 4. Performance".to_string(), String::new()]);
    if p.cat == "hash" {
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
    for l in &p.labels {
        for e in p.records_in_op_order(l) {
            lines.push(performance_row(p, l, e));
        }
    }
    lines.push(String::new());
}

/// One row of §4.
fn performance_row(p: &Page<'_>, l: &str, e: &Indexed<'_>) -> String {
    let r = e.record;
    let (l, key) = (md_code(l), md_text(&e.key));
    if r.status != "complete" {
        return format!("| {l} | {key} | failed | | | | |");
    }
    let mut n = format!(
        "{} ({} × {})",
        opt_u64(r.measurements),
        r.plan.trials,
        r.plan.iterations_per_trial
    );
    if p.cat == "hash" {
        let mbs = py_format_f(r.throughput_mb_per_second.unwrap_or(0.0), 1);
        let time = fmt_time(r.mean_seconds);
        return match r.mean_cycles.filter(|c| *c != 0.0) {
            Some(c) => format!(
                "| {l} | {} B | {} | {} | {time} | {mbs} | {n} |",
                r.input_bytes,
                fmt_int(Some(c)),
                py_format_f(c / r.input_bytes as f64, 1)
            ),
            None => format!(
                "| {l} | {} B | – | – | {time} | {mbs} | {n} |",
                r.input_bytes
            ),
        };
    }
    let retries: i128 = r
        .processes
        .iter()
        .filter_map(|process| process.meta.as_ref()?.get("sign_failures_retried"))
        .map(|v| py_int_or_zero(&Json::from(v.as_str())))
        .sum();
    if retries != 0 {
        n.push_str(&format!("; {retries} failed signing attempts retried"));
    }
    format!(
        "| {l} | {key} | {} | {} | {} | {} | {n} |",
        fmt_int(r.mean_cycles),
        fmt_time(r.mean_seconds),
        r.operations_per_second
            .map_or("None".to_string(), |x| py_format_g(x, 3)),
        fmt_time(r.median_trial_seconds)
    )
}

/// §5: the library's loadable ELF size and each record's RSS.
pub(super) fn resources(p: &Page<'_>, lines: &mut Vec<String>) {
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
    let kib = |b: Option<u64>| b.map_or("–".to_string(), |b| (b / 1024).to_string());
    for l in &p.labels {
        let elf = p
            .entry(l)
            .and_then(|e| e.elf_load_bytes.flatten())
            .map_or("–".to_string(), |b| b.to_string());
        for e in p.records_in_op_order(l) {
            let r = e.record;
            if r.peak_rss_bytes.is_some_and(|b| b != 0) {
                lines.push(format!(
                    "| {} | {} | {elf} | {} KiB | {} KiB |",
                    md_code(l),
                    md_text(&e.key),
                    kib(r.baseline_rss_bytes),
                    kib(r.peak_rss_bytes)
                ));
            }
        }
    }
    lines.push(String::new());
}

/// §7: each instance's KAT log and timing records, then the scripts line
/// that ends the page.
pub(super) fn evidence(p: &Page<'_>, lines: &mut Vec<String>) {
    lines.extend([
        "## 7. Raw evidence index".to_string(),
        String::new(),
        p.ctx.evidence_intro.clone(),
        String::new(),
        "| instance | item | file |".to_string(),
        "|---|---|---|".to_string(),
    ]);
    for l in &p.labels {
        let code = md_code(l);
        if let Some(e) = p.entry(l)
            && let Some(log) = e.kat_log.as_deref().filter(|s| !s.is_empty())
        {
            let digest = py_prefix(e.kat_log_sha256.as_deref().unwrap_or(""), 16);
            lines.push(format!(
                "| {code} | KAT log (sha256 {}) | {} |",
                md_code(&format!("{digest}…")),
                md_code(log)
            ));
        }
        let mut recs: Vec<&Indexed<'_>> = p.index.records(p.cand, l).iter().collect();
        recs.sort_by(|a, b| a.key.cmp(&b.key));
        for e in recs {
            lines.push(format!(
                "| {code} | timing {} | {} |",
                md_text(&e.key),
                md_code(e.path)
            ));
        }
    }
    lines.extend([String::new(), p.ctx.scripts_line.clone(), String::new()]);
}
