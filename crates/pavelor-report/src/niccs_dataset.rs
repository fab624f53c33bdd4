//! The campaign as a dataset in the NICCS harness's own layout and schema
//! (`--out DIR` → `DIR/niccs/<system id>/`, as the harness keeps
//! `performance/data/<system id>/`): `campaign.json`, `build.json`, one schema-2
//! record per instance and message length, and a KAT log per instance, for
//! one implementation per instance, the campaign's *subject*. Paths in it
//! are relative; the harness's tools (and `pavelor report --check`) read it.

use std::path::Path;

use pavelor::{Algorithm, Backend};

use crate::config::Config;
use crate::results::RunResults;
use crate::rows::{Ctx, Row};
use pavelor_measure::{
    campaign::Measurement,
    clock::CounterKind,
    ops::{Operation, Subject},
};
use pavelor_niccs::{
    self as niccs, Build, BuildEntry, Dataset, Json, JsonObject, OrderedMap, Planning, Process,
    Record, Trial, stats,
};

/// The candidate id of Pavelor in the NGCC tables.
pub const CANDIDATE: &str = "hash-22";

/// Why the NICCS dataset of a campaign could not be made.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// `--niccs-subject` (or `--baseline`) names neither a `--lib` nor a
    /// backend.
    #[error("--niccs-subject {0}: neither a --lib NAME nor a backend")]
    UnknownSubject(String),
    /// A value of the machine's description is not JSON the schema takes.
    #[error("environment {key}: {source}")]
    Environment {
        /// The description's key.
        key: String,
        /// Why.
        source: serde_json::Error,
    },
    /// The measured file could not be read for its SHA-256.
    #[error("{}: {source}", path.display())]
    Unreadable {
        /// The file.
        path: std::path::PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The subject is a `--lib` the campaign did not gate.
    #[error("--lib {name} is not in this campaign")]
    LibraryNotInCampaign {
        /// The library's `--lib` NAME.
        name: String,
    },
    /// The subject is a `--lib` whose file could not be read for its
    /// identity.
    #[error("--lib {name}: the library could not be read")]
    LibraryUnread {
        /// The library's `--lib` NAME.
        name: String,
    },
    /// A record's statistics could not be derived from its processes.
    #[error("{source}")]
    Statistics {
        /// The record's instance.
        instance: &'static str,
        /// The record's message length, bytes.
        size: usize,
        /// Why.
        source: niccs::Error,
    },
}

/// What the dataset describes: a Rust backend, or a `--lib` library.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NiccsSubject {
    /// One of this build's backends.
    Backend(Backend),
    /// A library by its `--lib` NAME.
    Library(String),
}

impl NiccsSubject {
    /// The subject a configuration names: `--niccs-subject`, else
    /// `--baseline`, else the first `--lib`, else the default backend. A
    /// name is a `--lib` NAME or a backend name.
    pub fn of(config: &Config, best: Backend) -> Result<Self, Error> {
        let named = config
            .niccs_subject
            .as_ref()
            .or(config.baseline.as_ref())
            .or(config.libs.first().map(|l| &l.name));
        match named {
            None => Ok(NiccsSubject::Backend(best)),
            Some(n) if config.libs.iter().any(|l| &l.name == n) => {
                Ok(NiccsSubject::Library(n.clone()))
            }
            Some(n) => match Backend::from_name(n) {
                Some(b) => Ok(NiccsSubject::Backend(b)),
                None => Err(Error::UnknownSubject(n.clone())),
            },
        }
    }

    /// Whether `subject` is this one's implementation of `alg`.
    pub fn is(&self, subject: &Subject, alg: Algorithm) -> bool {
        match (self, subject) {
            (NiccsSubject::Backend(b), Subject::Op(Operation::Pavelor(a, ob))) => {
                *a == alg && ob == b
            }
            (NiccsSubject::Library(n), Subject::Lib { name, alg: a, .. }) => n == name && *a == alg,
            _ => false,
        }
    }

    /// This subject's row of `alg` in `ctx`.
    pub fn row<'c, 'a>(&self, ctx: &'c Ctx<'a>, alg: Algorithm) -> Option<&'c Row<'a>> {
        ctx.rows.iter().find(|r| self.is(r.subject, alg))
    }

    /// What the page's §1 says was measured.
    pub fn describe(&self) -> String {
        match self {
            NiccsSubject::Backend(b) => {
                format!("pavelor's Rust `{}` backend (its one-shot API)", b.name())
            }
            NiccsSubject::Library(n) => format!(
                "the ICCS `CryptHash` library {} (`--lib`)",
                pavelor_pages::html::markdown_code(n)
            ),
        }
    }

    /// The record's `variant`.
    fn variant(&self) -> String {
        match self {
            NiccsSubject::Backend(b) => format!("rust-{}", b.name()),
            NiccsSubject::Library(n) => format!("library-{n}"),
        }
    }
}

/// The machine's description as a JSON object of the schema.
fn json_obj(pairs: Vec<(String, serde_json::Value)>) -> Result<JsonObject, Error> {
    let mut o = OrderedMap::new();
    for (k, v) in pairs {
        let v: Json = match serde_json::from_value(v) {
            Ok(v) => v,
            Err(source) => return Err(Error::Environment { key: k, source }),
        };
        o.insert(k, v);
    }
    Ok(o)
}

/// SHA-256 of a file, streamed.
fn file_sha256(path: &Path) -> Result<String, Error> {
    use sha2::Digest;
    use std::io::Read;
    let err = |source: std::io::Error| Error::Unreadable {
        path: path.to_path_buf(),
        source,
    };
    let mut f = std::fs::File::open(path).map_err(err)?;
    let mut h = sha2::Sha256::new();
    let mut buf = vec![0u8; 1 << 16];
    loop {
        match f.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => h.update(&buf[..n]),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(err(e)),
        }
    }
    Ok(h.finalize().iter().map(|b| format!("{b:02x}")).collect())
}

/// A path's last component, for a dataset that names no absolute path.
fn file_name(path: &Path) -> String {
    path.file_name()
        .map_or_else(|| "unknown".into(), |n| n.to_string_lossy().into_owned())
}

/// The harness's status of an instance's KATs from pavelor's verdicts
/// (`PASS` when every file that ran passed, `MISMATCH` when one failed,
/// `NOKAT` when none ran).
fn kat_status<'a>(mut statuses: impl Iterator<Item = &'a str>) -> &'static str {
    let mut ran = false;
    for s in statuses.by_ref() {
        match s {
            "PASS" => ran = true,
            "FAIL" => return "MISMATCH",
            _ => {}
        }
    }
    if ran { "PASS" } else { "NOKAT" }
}

/// One instance's KAT log in the harness's form: `key = value` header
/// lines, a line per file, and the closing `RESULT <candidate> <label>
/// <STATUS> ` line (with the harness's trailing space).
fn kat_log(
    alg: Algorithm,
    library: &str,
    variant: &str,
    compiler: &str,
    files: &[(String, String, usize, usize)],
    status: &str,
) -> Vec<u8> {
    let mut s = String::new();
    let label = alg.name();
    for (k, v) in [
        ("library", library.to_string()),
        ("id", CANDIDATE.to_string()),
        ("type", "hash".to_string()),
        ("algorithm", "Pavelor".to_string()),
        ("instance", label.to_string()),
        ("variant", variant.to_string()),
        ("compiler", compiler.to_string()),
        ("digest_bits", alg.output_bits().to_string()),
        ("digest_len", alg.output_len().to_string()),
    ] {
        s.push_str(&format!("{k:<11} = {v}\n"));
    }
    for (file, st, passed, total) in files {
        s.push_str(&format!(
            "verify  {file} {st} {passed}/{total} records (pavelor strict verifier)\n"
        ));
    }
    s.push_str(&format!("RESULT {CANDIDATE} {label} {status} \n"));
    s.into_bytes()
}

/// The campaign's dataset for its subject.
pub fn dataset(config: &Config, c: &RunResults) -> Result<Dataset, Error> {
    let subject = NiccsSubject::of(config, c.best_backend)?;
    let variant = subject.variant();
    // The file that holds the measured code, with what the campaign already
    // learnt of it: for a backend the executable (its static size was read
    // for the report), for a library its identity from the gate.
    let (library_path, flags, compiler, library_sha256, elf_load_bytes) = match &subject {
        NiccsSubject::Backend(_) => (
            config.measured_exe.clone(),
            "pavelor-release",
            pavelor_measure::env::BUILD_RUSTC,
            file_sha256(&config.measured_exe)?,
            c.static_size.as_ref().map(|s| s.loadable_bytes),
        ),
        NiccsSubject::Library(n) => {
            let gate = c
                .libs
                .iter()
                .find(|g| &g.spec.name == n)
                .ok_or_else(|| Error::LibraryNotInCampaign { name: n.clone() })?;
            let id = gate
                .identity
                .as_ref()
                .ok_or_else(|| Error::LibraryUnread { name: n.clone() })?;
            (
                gate.spec.path.clone(),
                "as-given",
                // Not known for a library given as a file.
                "unknown (a library given with --lib)",
                id.sha256.clone(),
                Some(id.static_bytes),
            )
        }
    };
    let library = file_name(&library_path);
    let environment = json_obj(c.niccs_environment_start.clone())?;
    let mut ds = Dataset::default();
    for alg in Algorithm::ALL {
        let label = alg.name();
        let files: Vec<(String, String, usize, usize)> = match &subject {
            NiccsSubject::Backend(b) => c
                .kat
                .iter()
                .filter(|k| k.instance == label && k.backend == b.name())
                .map(|k| (k.file.clone(), k.status.clone(), k.passed, k.total))
                .collect(),
            NiccsSubject::Library(n) => c
                .libs
                .iter()
                .filter(|g| &g.spec.name == n)
                .flat_map(|g| g.kat.iter().filter(|k| k.instance == label))
                .map(|k| (k.file.clone(), k.status.clone(), k.passed, k.total))
                .collect(),
        };
        let measured: Vec<&Measurement> = c
            .measurements
            .iter()
            .filter(|m| {
                c.subjects
                    .iter()
                    .any(|s| s.id() == m.op && subject.is(s, alg))
            })
            .collect();
        if files.is_empty() && measured.is_empty() {
            continue;
        }
        let status = kat_status(files.iter().map(|f| f.1.as_str()));
        let (kat_log_path, kat_log_sha256) = ds.insert_kat_log(
            CANDIDATE,
            label,
            kat_log(alg, &library, &variant, compiler, &files, status),
        );
        ds.build.instances.insert(
            format!("{CANDIDATE}/{label}"),
            BuildEntry {
                candidate: CANDIDATE.into(),
                label: label.into(),
                instance: Some(label.into()),
                variant: variant.clone(),
                flags: flags.into(),
                kat: status.into(),
                library: Some(library.clone()),
                library_sha256: Some(library_sha256.clone()),
                elf_load_bytes: Some(elf_load_bytes),
                kat_log: Some(kat_log_path.clone()),
                kat_log_sha256: Some(kat_log_sha256.clone()),
                ..BuildEntry::default()
            },
        );
        for m in measured {
            let mut r = Record::new(CANDIDATE, label, "hash", m.size as u64);
            r.instance = Some(label.into());
            r.variant = variant.clone();
            r.flags = flags.into();
            r.plan = m.plan.clone();
            r.kat = Some(status.into());
            r.library = library.clone();
            r.library_sha256 = library_sha256.clone();
            r.kat_log = Some(kat_log_path.clone());
            r.kat_log_sha256 = Some(kat_log_sha256.clone());
            r.started_utc = m.started_utc.clone();
            r.ended_utc = m.ended_utc.clone();
            r.load_average_start = m.load_average_start.clone();
            r.load_average_end = m.load_average_end.clone();
            r.environment = environment.clone();
            r.processes = m
                .trials
                .iter()
                .zip(m.trial_wall_s.iter().copied().chain(std::iter::repeat(0.0)))
                .map(|(t, wall)| process(alg, &variant, m, t, wall))
                .collect();
            r.derive_from_processes()
                .map_err(|source| Error::Statistics {
                    instance: label,
                    size: m.size,
                    source,
                })?;
            ds.insert_record(r);
        }
    }
    ds.campaign = niccs::Campaign {
        system_id: config.system_id.clone(),
        started_utc: c.started_iso.clone(),
        environment_at_start: Some(environment),
        host_checks: Some(
            c.host_checks
                .iter()
                .map(|h| niccs::HostCheck {
                    phase: h.phase.clone(),
                    cpu: h.cpu as i64,
                    utc: h.utc.clone(),
                    problems: h.problems.clone(),
                    ..niccs::HostCheck::default()
                })
                .collect(),
        ),
        planning: Some(Planning {
            trials: config.method.trials as u64,
            trial_target_s: config.method.trial_target_s,
            min_total: config.method.min_total,
            max_iters_per_trial: config.method.max_iters_per_trial,
            op_budget_s: config.method.op_budget_s,
            separate_process_setup_s: config.method.separate_process_setup_s,
            ..Planning::default()
        }),
        ended_utc: Some(c.finished_iso.clone()),
        environment_at_end: Some(json_obj(c.niccs_environment_end.clone())?),
        host_problems: Some({
            let mut p: Vec<String> = c.host_problems.iter().map(|p| p.text.clone()).collect();
            p.sort();
            p
        }),
        ..niccs::Campaign::default()
    };
    if ds.build.instances.is_empty() {
        ds.build = Build::default();
    }
    Ok(ds)
}

/// A trial spec (JSON) with its library path reduced to the file name; any
/// other argument as it is.
fn relative_spec(arg: &str) -> String {
    let Ok(mut v) = serde_json::from_str::<serde_json::Value>(arg) else {
        return arg.to_string();
    };
    if let Some(path) = v.pointer_mut("/lib/path")
        && let Some(p) = path.as_str()
    {
        *path = serde_json::Value::from(file_name(Path::new(p)));
    }
    v.to_string()
}

/// One trial process as the harness's driver reports it (`META` lines in
/// its order, all values strings; one `TRIAL`). Without a cycle counter its
/// `cycles` are 0 and `cpu_cycles_available` is `no`, as the driver writes
/// them; the TSC ticks go in a field of their own, `ticks`.
fn process(
    alg: Algorithm,
    variant: &str,
    m: &Measurement,
    t: &pavelor_measure::protocol::TrialResult,
    wall_s: f64,
) -> Process {
    let cycles_available = t.counter == CounterKind::PerfCycles;
    let kib = |v: Option<u64>| v.map_or_else(|| "0".to_string(), |k| (k * 1024).to_string());
    let mut meta = OrderedMap::new();
    for (k, v) in [
        ("id", CANDIDATE.to_string()),
        ("instance", alg.name().to_string()),
        ("variant", variant.to_string()),
        ("operation", "hash".to_string()),
        ("input_bytes", m.size.to_string()),
        ("build_flags", "pavelor-release".to_string()),
        ("baseline_rss_bytes", kib(t.baseline_rss_kib)),
        ("pk_bytes", "0".to_string()),
        ("sk_bytes", "0".to_string()),
        ("ct_bytes", "0".to_string()),
        ("ss_bytes", "0".to_string()),
        ("signature_bytes", "0".to_string()),
        ("digest_bytes", alg.output_len().to_string()),
        ("mode", "fixed_iterations".to_string()),
        (
            "cpu_cycles_available",
            if cycles_available { "yes" } else { "no" }.to_string(),
        ),
        ("timing_scope", "loop".to_string()),
        ("warmups", m.plan.warmups.to_string()),
        ("peak_rss_bytes", kib(t.peak_rss_kib)),
        ("measurement_count", t.calls.to_string()),
        (
            "guide_100_measurements",
            if t.calls >= 100 { "met" } else { "not_met" }.to_string(),
        ),
    ] {
        meta.insert(k.into(), v);
    }
    let mut trial = Trial {
        measurements: t.calls,
        seconds: stats::seconds(t.ns),
        cycles: if cycles_available { t.cycles } else { 0 },
        ..Trial::default()
    };
    if !cycles_available {
        trial.extra.insert("ticks".into(), Json::from(t.cycles));
    }
    // The program by its file name, and a library in the trial spec by its
    // file name: the dataset names no absolute path.
    let command = m
        .command_line
        .iter()
        .enumerate()
        .map(|(i, a)| {
            if i == 0 {
                file_name(Path::new(a))
            } else {
                relative_spec(a)
            }
        })
        .collect();
    Process {
        status: "complete".into(),
        exit_code: Some(0),
        meta: Some(meta),
        trials: Some(vec![trial]),
        stderr: Some(String::new()),
        command,
        wall_s,
        disturbed_retries: Some(t.reruns),
        ..Process::default()
    }
}
