//! One system of a site: a run of `pavelor report`, or a dataset the NICCS
//! harness published. Both give the same view to the pages that put
//! systems side by side ([`System::line`]): each figure labelled with the
//! implementation, the counter and who measured it.

use std::path::PathBuf;

use pavelor::Algorithm;

/// The unit of the harness's figures, the one `compare` gives a harness
/// side.
pub use crate::compare::HARNESS_UNIT;
use crate::harness_run::HarnessRun;
use crate::niccs_dataset::NiccsSubject;
use crate::reload::Reloaded;
use crate::rows::Ctx;
use crate::sections::baselines::times_xof;

/// What a system is made from.
pub enum Kind {
    /// A report directory, checked as `pavelor report --check` checks it.
    Report {
        /// The report directory.
        dir: PathBuf,
        /// The run, read back.
        run: Box<Reloaded>,
    },
    /// A harness dataset, checked by the harness validator's rules.
    Harness(Box<HarnessRun>),
}

/// One system on the site.
pub struct System {
    /// The system id (`pavelor report --system-id`, or the dataset's).
    pub id: String,
    /// Its run.
    pub kind: Kind,
}

/// Who measured a figure.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Source {
    /// `pavelor report`, on the machine the run names.
    Pavelor,
    /// The NICCS harness: published, not measured by pavelor.
    Niccs,
}

impl Source {
    /// The source in a table cell.
    pub fn words(self) -> &'static str {
        match self {
            Source::Pavelor => "measured by pavelor",
            Source::Niccs => "published by NICCS, not measured by pavelor",
        }
    }
}

/// One message length of a [`Line`].
#[derive(Clone, Copy, Debug)]
pub struct Point {
    /// Message length, bytes.
    pub size: usize,
    /// Counter units per byte.
    pub per_byte: f64,
    /// 10^6 bytes per second of wall time.
    pub mb_per_s: f64,
    /// The figure over the same system's `pseudoXOF` of the same output
    /// width at the same length, where the system measured it.
    pub times_xof: Option<f64>,
}

/// A system's figures of one instance.
#[derive(Clone, Debug)]
pub struct Line {
    /// The implementation, in words.
    pub implementation: String,
    /// The counter's unit (`cycles`, `TSC ticks`).
    pub unit: &'static str,
    /// Who measured it.
    pub source: Source,
    /// The figures, by increasing length.
    pub points: Vec<Point>,
}

impl Line {
    /// The figure at `size`, if measured.
    pub fn at(&self, size: usize) -> Option<&Point> {
        self.points.iter().find(|p| p.size == size)
    }
}

impl System {
    /// The processor, as Markdown text.
    pub fn processor(&self) -> String {
        match &self.kind {
            Kind::Report { run, .. } => {
                pavelor_pages::html::markdown_text(&run.campaign.environment.cpu_model)
            }
            Kind::Harness(h) => h.processor(),
        }
    }

    /// The counter's unit.
    pub fn unit(&self) -> &'static str {
        match &self.kind {
            Kind::Report { run, .. } => Ctx::new(&run.config, &run.campaign).unit,
            Kind::Harness(_) => HARNESS_UNIT,
        }
    }

    /// Who measured the system's figures.
    pub fn source(&self) -> Source {
        match self.kind {
            Kind::Report { .. } => Source::Pavelor,
            Kind::Harness(_) => Source::Niccs,
        }
    }

    /// Start and end of the measurements, UTC, as Markdown text.
    pub fn dates(&self) -> (String, String) {
        let (start, end) = match &self.kind {
            Kind::Report { run, .. } => {
                (run.campaign.started.clone(), run.campaign.finished.clone())
            }
            Kind::Harness(h) => h.dates(),
        };
        (
            pavelor_pages::html::markdown_literal(&start),
            pavelor_pages::html::markdown_literal(&end),
        )
    }

    /// The figures of `alg`: a run's NICCS subject (what its hash-22 page
    /// shows), or the dataset's records.
    pub fn line(&self, alg: Algorithm) -> Option<Line> {
        match &self.kind {
            Kind::Report { run, .. } => {
                let ctx = Ctx::new(&run.config, &run.campaign);
                let subject = NiccsSubject::of(&run.config, run.campaign.best_backend).ok()?;
                let row = subject.row(&ctx, alg)?;
                let points = row
                    .measurements
                    .iter()
                    .map(|m| Point {
                        size: m.size,
                        per_byte: m.cycles_per_byte(),
                        mb_per_s: m.mb_per_s(),
                        times_xof: times_xof(&ctx, alg, row, m.size),
                    })
                    .collect();
                Some(Line {
                    implementation: subject.describe(),
                    unit: ctx.unit,
                    source: Source::Pavelor,
                    points,
                })
            }
            Kind::Harness(h) => {
                let figures: Vec<_> = h.figures.iter().filter(|f| f.alg == alg).collect();
                let first = figures.first()?;
                Some(Line {
                    implementation: first.implementation(),
                    unit: HARNESS_UNIT,
                    source: Source::Niccs,
                    // One variant per line: the first the dataset has.
                    points: figures
                        .iter()
                        .filter(|f| f.variant == first.variant)
                        .map(|f| Point {
                            size: f.size,
                            per_byte: f.cycles_per_byte(),
                            mb_per_s: f.mb_per_s,
                            times_xof: None,
                        })
                        .collect(),
                })
            }
        }
    }
}
