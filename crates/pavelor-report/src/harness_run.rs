//! A dataset the NICCS harness published (`performance/data/<system>/` of
//! `ngcc-dev/ngcc-harness`), read as a run beside pavelor's own: what
//! `pavelor site` and `pavelor compare` put next to a report directory.
//!
//! It is checked by the harness validator's rules first, as `pavelor
//! report --check` checks it, so every figure here is one the harness's own
//! tools accept. Its figures are the harness's: the `hash-22` records'
//! mean cycles per call (the harness reads a hardware cycle counter), their
//! trials, and MB/s of wall time. Nothing in it was measured by pavelor,
//! and everything that shows it says so.

use std::path::{Path, PathBuf};

use pavelor::Algorithm;
use pavelor_niccs::evidence::{Evidence, Limits};
use pavelor_niccs::{self as niccs, Dataset, Json, PageContext, Record};

/// The candidate whose records are read.
const CANDIDATE: &str = "hash-22";

/// Whether `dir` is a harness dataset (it holds something named
/// `campaign.json`) rather than a report directory (whose datasets are one
/// level down, under `niccs/`). Whatever that `campaign.json` is, the
/// reader then checks it, so a FIFO or a link in its place is refused as a
/// dataset's file, not mistaken for a report directory.
pub fn is_harness_dataset(dir: &Path) -> bool {
    std::fs::symlink_metadata(dir.join("campaign.json")).is_ok()
}

/// One `hash-22` figure of the dataset.
#[derive(Clone, Debug)]
pub struct HarnessFigure {
    /// The instance.
    pub alg: Algorithm,
    /// Message length, bytes.
    pub size: usize,
    /// The implementation's variant, as the record names it (`reference`).
    pub variant: String,
    /// Mean cycles per call over the timed calls.
    pub mean_cycles: f64,
    /// 10^6 bytes per second of wall time.
    pub mb_per_s: f64,
    /// Each trial's cycles per call.
    pub trial_cycles: Vec<f64>,
    /// Each trial's seconds per call.
    pub trial_seconds: Vec<f64>,
}

impl HarnessFigure {
    /// Cycles per message byte.
    pub fn cycles_per_byte(&self) -> f64 {
        self.mean_cycles / self.size as f64
    }

    /// The implementation in words, as Markdown text: "the reference C"
    /// for the harness's `reference` variant, else the variant's name.
    pub fn implementation(&self) -> String {
        implementation_words(&self.variant)
    }
}

/// The harness's variant name in words, as plain text: "the reference C"
/// for `reference`, else "the `variant` C".
pub fn implementation_plain(variant: &str) -> String {
    match variant {
        "reference" => "the reference C".to_string(),
        "optimized" => "the optimized C".to_string(),
        other => format!("the {other} C"),
    }
}

/// [`implementation_plain`] as Markdown text.
pub fn implementation_words(variant: &str) -> String {
    pavelor_pages::html::markdown_text(&implementation_plain(variant))
}

/// Why a directory is not a harness run pavelor can show.
#[derive(Debug, thiserror::Error)]
pub enum HarnessRefusal {
    /// It could not be read, or the harness validator's rules refuse it:
    /// one line naming the directory or file and the problem.
    #[error(transparent)]
    Rules(#[from] RulesRefusal),
    /// It passes the validator's rules, but a record is not one pavelor
    /// can show (an unknown instance, no cycles), or it has no `hash-22`
    /// figure.
    #[error("passes the harness validator's rules, but {file}: {problem}")]
    Pavelor {
        /// The record (dataset-relative), or the directory.
        file: String,
        /// What is wrong.
        #[source]
        problem: FigureRefusal,
    },
}

/// Why a directory is not a harness dataset by the harness validator's
/// rules.
#[derive(Debug, thiserror::Error)]
pub enum RulesRefusal {
    /// It could not be read within the reading limits (the message names
    /// the file).
    #[error(transparent)]
    Unreadable(#[from] niccs::Error),
    /// The harness validator's rules refuse it.
    #[error("{}: {problem}", dir.display())]
    Rule {
        /// The directory.
        dir: PathBuf,
        /// The first rule it breaks.
        problem: niccs::Problem,
    },
    /// It passes the rules but its files do not make a dataset.
    #[error("{}: {source}", dir.display())]
    Dataset {
        /// The directory.
        dir: PathBuf,
        /// Why.
        source: niccs::Error,
    },
}

/// Why pavelor cannot show a harness dataset that passes the validator's
/// rules: a record it cannot show, or no figure at all.
#[derive(Debug, thiserror::Error)]
pub enum FigureRefusal {
    /// A record's instance is not a Pavelor instance.
    #[error(
        "instance {label:?} is not a Pavelor instance (Pavelor-512, Pavelor-768 or Pavelor-1024)"
    )]
    NotAnInstance {
        /// The record's instance (or label).
        label: String,
    },
    /// A record's message length does not fit this machine's `usize`.
    #[error("{source}")]
    Size {
        /// The record's `input_bytes`.
        input_bytes: u64,
        /// Why.
        source: std::num::TryFromIntError,
    },
    /// A record has no mean cycles.
    #[error(
        "no mean_cycles (measured without a cycle counter); pavelor shows a harness dataset's figures in its cycles"
    )]
    NoMeanCycles,
    /// A record has no throughput.
    #[error("no throughput_MB_per_second")]
    NoThroughput,
    /// The dataset has no figure to show.
    #[error("no complete {CANDIDATE} hash record: nothing of Pavelor to show")]
    NoFigure,
}

/// Why a harness dataset's page could not be rendered.
#[derive(Debug, thiserror::Error)]
#[error("{}: {source}", dir.display())]
pub struct PageError {
    /// The dataset's directory.
    pub dir: PathBuf,
    /// Why.
    pub source: niccs::Error,
}

/// A checked harness dataset.
pub struct HarnessRun {
    /// The directory read.
    pub dir: PathBuf,
    /// The dataset.
    pub dataset: Dataset,
    /// The validator's summary line.
    pub summary: String,
    /// Its `hash-22` figures, by instance then length.
    pub figures: Vec<HarnessFigure>,
    /// The directory as it was read and checked: what the site copies.
    pub evidence: Evidence,
}

impl HarnessRun {
    /// Reads `dir` with the reading `limits` and checks it by the harness
    /// validator's rules. The error is one line naming the directory and
    /// the first problem.
    pub fn check(dir: &Path, limits: &Limits) -> Result<HarnessRun, HarnessRefusal> {
        let evidence = Evidence::read(dir, limits).map_err(RulesRefusal::Unreadable)?;
        let summary = niccs::validate::check_evidence(&evidence, &niccs::CheckOptions::default())
            .map_err(|problem| RulesRefusal::Rule {
            dir: dir.to_path_buf(),
            problem,
        })?;
        let dataset =
            Dataset::from_evidence(&evidence).map_err(|source| RulesRefusal::Dataset {
                dir: dir.to_path_buf(),
                source,
            })?;
        let mut figures = Vec::new();
        for (path, rec) in &dataset.records {
            // A hash of the empty message has no figure per byte.
            if rec.candidate != CANDIDATE
                || rec.operation != "hash"
                || rec.status != "complete"
                || rec.input_bytes == 0
            {
                continue;
            }
            figures.push(figure(rec).map_err(|problem| HarnessRefusal::Pavelor {
                file: path.clone(),
                problem,
            })?);
        }
        figures.sort_by_key(|f| (f.alg.output_bits(), f.size));
        if figures.is_empty() {
            return Err(HarnessRefusal::Pavelor {
                file: dir.display().to_string(),
                problem: FigureRefusal::NoFigure,
            });
        }
        Ok(HarnessRun {
            dir: dir.to_path_buf(),
            dataset,
            summary: summary.to_string(),
            figures,
            evidence,
        })
    }

    /// The system id (`campaign.json`).
    pub fn system_id(&self) -> &str {
        &self.dataset.campaign.system_id
    }

    fn environment(&self, key: &str) -> Option<&str> {
        self.dataset
            .campaign
            .environment_at_start
            .as_ref()
            .and_then(|e| e.get(key))
            .and_then(Json::as_str)
    }

    /// The processor (`environment_at_start.cpu_model`), as Markdown text.
    pub fn processor(&self) -> String {
        pavelor_pages::html::markdown_text(
            self.environment("cpu_model").unwrap_or("(not recorded)"),
        )
    }

    /// The machine (`environment_at_start.machine`), if recorded, as
    /// Markdown text.
    pub fn machine(&self) -> Option<String> {
        self.environment("machine")
            .map(pavelor_pages::html::markdown_text)
    }

    /// The architecture's wording (`AArch64`, `x86-64`), if recorded.
    pub fn architecture(&self) -> Option<&str> {
        self.environment("architecture")
            .map(pavelor_niccs::architecture_wording)
    }

    /// The campaign's start and end, UTC, as `campaign.json` has them.
    pub fn dates(&self) -> (String, String) {
        let c = &self.dataset.campaign;
        (
            c.started_utc.clone(),
            c.ended_utc
                .clone()
                .unwrap_or_else(|| "(not recorded)".into()),
        )
    }

    /// The figure of `alg` at `size`, if the dataset has one.
    pub fn figure(&self, alg: Algorithm, size: usize) -> Option<&HarnessFigure> {
        self.figures.iter().find(|f| f.alg == alg && f.size == size)
    }

    /// The dataset's implementations of `alg`, in words, each once, in
    /// the order the figures have them.
    pub fn implementations(&self, alg: Algorithm) -> Vec<String> {
        let mut v: Vec<String> = Vec::new();
        for f in self.figures.iter().filter(|f| f.alg == alg) {
            let i = f.implementation();
            if !v.contains(&i) {
                v.push(i);
            }
        }
        v
    }

    /// The harness's `hash-22` page for this dataset, as `pavelor report
    /// --render` prints it, with the summary and method links pointing to
    /// `summary` and `method` and the evidence intro `evidence`.
    pub fn page(&self, summary: &str, method: &str, evidence: &str) -> Result<String, PageError> {
        let mut ctx = PageContext::for_dataset(&self.dataset).map_err(|source| PageError {
            dir: self.dir.clone(),
            source,
        })?;
        ctx.summary_link = summary.to_string();
        ctx.method_link = method.to_string();
        ctx.evidence_intro = evidence.to_string();
        Ok(niccs::render_page(&self.dataset, &ctx))
    }
}

fn figure(rec: &Record) -> Result<HarnessFigure, FigureRefusal> {
    let label = rec.instance.as_deref().unwrap_or(&rec.label);
    let alg: Algorithm = label.parse().map_err(|_| FigureRefusal::NotAnInstance {
        label: label.to_string(),
    })?;
    let size = usize::try_from(rec.input_bytes).map_err(|source| FigureRefusal::Size {
        input_bytes: rec.input_bytes,
        source,
    })?;
    let trials = rec.trials.as_deref().unwrap_or_default();
    let per_call = |f: &dyn Fn(&niccs::Trial) -> f64| -> Vec<f64> {
        trials
            .iter()
            .map(|t| f(t) / t.measurements.max(1) as f64)
            .collect()
    };
    Ok(HarnessFigure {
        alg,
        size,
        variant: rec.variant.clone(),
        mean_cycles: rec.mean_cycles.ok_or(FigureRefusal::NoMeanCycles)?,
        mb_per_s: rec
            .throughput_mb_per_second
            .ok_or(FigureRefusal::NoThroughput)?,
        trial_cycles: per_call(&|t| t.cycles as f64),
        trial_seconds: per_call(&|t| t.seconds),
    })
}
