//! Section 3: functional testing — the Rust backends' KATs, then each C
//! library's gate (probe, KATs through the C ABI, behaviour on bad input).

use std::fmt::Write as _;

use pavelor_pages::html::{markdown_code, markdown_dest, markdown_literal};

use pavelor::Algorithm;
use pavelor_measure::library::{api::ApiVerdict, audit::AuditVerdict};

use crate::kat::KatResult;
use crate::record_files::library_record_name;
use crate::rows::Ctx;

/// Section 3.
pub fn write(s: &mut String, ctx: &Ctx<'_>) {
    let c = ctx.c;
    let _ = writeln!(
        s,
        "## 10. Functional testing of every backend and library (beyond the guide)\n"
    );
    let _ = match &ctx.config.kat_dir {
        Some(dir) => writeln!(
            s,
            "Official ICCS KAT files from {}, checked strictly against the embedded official answers.\n",
            markdown_code(&dir.display().to_string())
        ),
        None => writeln!(
            s,
            "Official ICCS KAT answers embedded in `pavelor-kat` (derived from the 12 official files; \
             every file regenerated and compared with the NICCS strict-form SHA-256 manifest).\n"
        ),
    };
    let _ = writeln!(
        s,
        "| instance | file | implementation | result | records |\n|---|---|---|---|---|"
    );
    for k in &c.kat {
        let detail = k
            .detail
            .as_ref()
            .map_or(String::new(), |d| format!(" — {}", markdown_literal(d)));
        let _ = writeln!(
            s,
            "| {} | {} | Rust {} | **{}**{} | {}/{} |",
            markdown_literal(&k.instance),
            markdown_literal(&k.file),
            markdown_literal(&k.backend),
            markdown_literal(&k.status),
            detail,
            k.passed,
            k.total
        );
    }
    for g in &c.libs {
        for k in &g.kat {
            let detail = k
                .detail
                .as_ref()
                .map_or(String::new(), |d| format!(" — {}", markdown_literal(d)));
            let _ = writeln!(
                s,
                "| {} | {} | C {} | **{}**{} | {}/{} |",
                markdown_literal(&k.instance),
                markdown_literal(&k.file),
                markdown_code(&g.spec.name),
                markdown_literal(&k.status),
                detail,
                k.passed,
                k.total
            );
        }
    }
    for alg in Algorithm::ALL {
        let mine: Vec<&KatResult> = c.kat.iter().filter(|k| k.instance == alg.name()).collect();
        let failed = mine.iter().any(|k| k.status == "FAIL");
        let not_run = mine.iter().any(|k| k.status == "NOT RUN");
        let verdict = if failed {
            "FAIL"
        } else if not_run {
            "PASS (files run)"
        } else {
            "PASS"
        };
        let records: usize = mine
            .iter()
            .filter(|k| k.status == "PASS")
            .map(|k| k.passed)
            .sum();
        let _ = writeln!(
            s,
            "\n{alg} (Rust): **{verdict}** ({records} records verified)."
        );
    }
    let _ = writeln!(s, "\nEvidence: `records/kat.json`.\n");
    libraries(s, ctx);
    ct_audits(s, ctx);
}

/// Each library's verdict, and how it treats bad input.
fn libraries(s: &mut String, ctx: &Ctx<'_>) {
    let c = ctx.c;
    if c.libs.is_empty() {
        return;
    }
    let _ = writeln!(s, "### C libraries\n");
    let _ = writeln!(
        s,
        "Each library is loaded only in worker processes (`dlopen`); every call gets a digest buffer followed by 64 guard bytes, so an over-write is seen. A worker killed by a signal, or still running at its time limit, is recorded and the campaign goes on. A library is timed only if every instance it computes passes the same KAT files as the Rust backends (through the C ABI, one worker per file).\n"
    );
    let _ = writeln!(
        s,
        "| library | verdict | instances computed | what happened | evidence |\n|---|---|---|---|---|"
    );
    for g in &c.libs {
        let _ = writeln!(
            s,
            "| {} | **{}** | {} | {} | [{}](./{}) |",
            markdown_code(&g.spec.name),
            g.status.label(),
            if g.instances.is_empty() {
                "none".to_string()
            } else {
                markdown_literal(&g.instances.join(", "))
            },
            markdown_literal(&g.detail),
            markdown_code(&library_record_name(&g.spec.name)),
            markdown_dest(&library_record_name(&g.spec.name))
        );
    }
    let with_behaviour: Vec<_> = c.libs.iter().filter(|g| !g.behaviour.is_empty()).collect();
    if !with_behaviour.is_empty() {
        let _ = writeln!(
            s,
            "\nBehaviour on bad input (information only; not part of the verdict):\n"
        );
        let _ = writeln!(
            s,
            "| library | call | ICCS contract | observed | conforms |\n|---|---|---|---|---|"
        );
        for g in with_behaviour {
            for b in &g.behaviour {
                let _ = writeln!(
                    s,
                    "| {} | {} | {} | {} | {} |",
                    markdown_code(&g.spec.name),
                    markdown_code(&b.call),
                    markdown_literal(&b.expected),
                    markdown_literal(&b.observed),
                    if b.conforms { "yes" } else { "**no**" }
                );
            }
        }
    }
    api_checks(s, ctx);
    s.push('\n');
}

/// The constant-time audit of each implementation: the verdict per
/// instance, then each finding (beyond the NICCS method, as ctgrind and
/// TIMECOP do it).
fn ct_audits(s: &mut String, ctx: &Ctx<'_>) {
    let audits = ctx.c.audits();
    if audits.is_empty() {
        return;
    }
    let _ = writeln!(
        s,
        "\n#### Constant-time audit (beyond the NICCS method)\n\nEach instance runs under valgrind memcheck with every message's bits marked secret (its length is public): 0 bits, every tail of 1 to 7 bits, just below, at and above the first two block edges, and several blocks. Memcheck reports each branch and each memory address computed from a secret bit; every digest is checked. It sees only the paths these messages take and only code valgrind can run, and it cannot see an instruction whose time depends on its operands. The audit never changes RESULT.\n"
    );
    let _ = writeln!(
        s,
        "| implementation | instances | verdict | seconds |\n|---|---|---|---|"
    );
    for (who, a) in &audits {
        let _ = writeln!(
            s,
            "| {} | {} | {} | {:.1} |",
            markdown_code(who),
            markdown_literal(&a.instances.join(", ")),
            markdown_literal(&a.line()),
            a.seconds
        );
    }
    let findings: Vec<_> = audits
        .iter()
        .flat_map(|(who, a)| match &a.verdict {
            AuditVerdict::Findings { findings, .. } => {
                findings.iter().map(move |f| (who, f)).collect::<Vec<_>>()
            }
            _ => Vec::new(),
        })
        .collect();
    if findings.is_empty() {
        s.push('\n');
        return;
    }
    let _ = writeln!(
        s,
        "\n| implementation | finding | function | where | times seen |\n|---|---|---|---|---|"
    );
    for (who, f) in findings {
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} | {} |",
            markdown_code(who),
            f.kind.label(),
            markdown_code(&f.function),
            markdown_code(&f.place),
            f.count
        );
    }
    s.push('\n');
}

/// Each library's API checks, per instance: one line per check (beyond
/// the NICCS method, in the manner of SUPERCOP's `try.c`).
fn api_checks(s: &mut String, ctx: &Ctx<'_>) {
    let with_api: Vec<_> = ctx.c.libs.iter().filter(|g| !g.api.is_empty()).collect();
    if with_api.is_empty() {
        return;
    }
    let _ = writeln!(
        s,
        "\nAPI checks (beyond the NICCS method, as SUPERCOP's `crypto_hash/try.c` checks a hash; a failed check other than the overlap fails the library, as a wrong KAT answer does):\n"
    );
    let _ = writeln!(
        s,
        "| library | instance | check | calls | verdict | observed |\n|---|---|---|---|---|---|"
    );
    for g in with_api {
        for a in &g.api {
            for k in &a.checks {
                let verdict = match k.verdict {
                    ApiVerdict::Pass => "PASS",
                    ApiVerdict::Fail => "**FAIL**",
                    ApiVerdict::Info => "information",
                };
                let _ = writeln!(
                    s,
                    "| {} | {} | {} | {} | {verdict} | {} |",
                    markdown_code(&g.spec.name),
                    markdown_literal(&a.instance),
                    markdown_literal(k.kind.what()),
                    k.calls,
                    markdown_literal(&k.observed)
                );
            }
            let _ = writeln!(
                s,
                "| {} | {} | seed | | | {} |",
                markdown_code(&g.spec.name),
                markdown_literal(&a.instance),
                markdown_code(&a.seed)
            );
        }
    }
}
