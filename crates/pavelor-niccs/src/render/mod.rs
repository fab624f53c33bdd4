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
//!
//! [`render_page`] calls one function per section (`sections.rs`), each
//! reading the same `Page`: the records as report.py indexes them
//! (`index.rs`) and report.py's number formats (`format.rs`). Every string
//! from the dataset or the context's system and architecture goes into the
//! page as literal Markdown (`text.rs`): unchanged where it has nothing
//! that Markdown reads as markup, as on the harness's own pages.

mod format;
mod index;
mod sections;
mod text;

use crate::dataset::Dataset;
use crate::error::Error;
use crate::json::{Json, JsonObject, NULL};
use crate::schema::BuildEntry;

pub use format::{clock_text, fmt_int, fmt_time};
use index::{Index, Indexed};
pub use text::{md_code, md_dest, md_text};

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
                "Paths are relative to {} in the [harness]({HARNESS_URL}); \
                 each JSON file records its commands, environment and trials.",
                md_code(&format!("performance/data/{system}/"))
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
    pub fn for_dataset(ds: &Dataset) -> Result<PageContext, Error> {
        let system = &ds.campaign.system_id;
        let machine = ds
            .campaign
            .environment_at_start
            .as_ref()
            .and_then(|e| e.get("architecture"))
            .and_then(Json::as_str)
            .ok_or(Error::Incomplete {
                file: "campaign.json",
                problem: "environment_at_start has no architecture",
            })?;
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

/// `env.get(key)`: a missing key reads as `None`.
fn get<'a>(env: &'a JsonObject, key: &str) -> &'a Json {
    env.get(key).unwrap_or(&NULL)
}

/// What every section of the page reads: the dataset, the context, and
/// what report.py's `candidate_page` works out once.
struct Page<'a> {
    ds: &'a Dataset,
    ctx: &'a PageContext,
    /// The candidate id, `hash-22`.
    cand: &'a str,
    /// Its category, the id before the first `-`: `hash`, `kem`, `sign`, `kex`.
    cat: &'a str,
    index: Index<'a>,
    /// The environment §2 describes.
    env: &'a JsonObject,
    /// The candidate's instances, in natural order.
    labels: Vec<String>,
}

impl<'a> Page<'a> {
    fn new(ds: &'a Dataset, ctx: &'a PageContext) -> Page<'a> {
        let cand = ctx.candidate.as_str();
        let index = Index::new(ds);
        let env = index.env(ds);
        let labels = index::instances_of(ds, &index, cand);
        Page {
            ds,
            ctx,
            cand,
            cat: cand.split('-').next().unwrap_or(cand),
            index,
            env,
            labels,
        }
    }

    /// The build.json entry of `label`.
    fn entry(&self, label: &str) -> Option<&'a BuildEntry> {
        self.ds
            .build
            .instances
            .get(&format!("{}/{label}", self.cand))
    }

    /// The records of `label`, in report.py's `op_order`.
    fn records_in_op_order(&self, label: &str) -> Vec<&Indexed<'a>> {
        let mut recs: Vec<&Indexed<'a>> = self.index.records(self.cand, label).iter().collect();
        recs.sort_by(|a, b| index::op_order(&a.key).cmp(&index::op_order(&b.key)));
        recs
    }
}

/// The candidate page, as report.py's `candidate_page` writes it: lines
/// joined by newlines, ending in an empty line.
pub fn render_page(ds: &Dataset, ctx: &PageContext) -> String {
    let page = Page::new(ds, ctx);
    let sections: [fn(&Page<'_>, &mut Vec<String>); 7] = [
        sections::title,
        sections::basic_information,
        sections::environment,
        sections::functional_testing,
        sections::performance,
        sections::resources,
        sections::evidence,
    ];
    let mut lines = Vec::new();
    for section in sections {
        section(&page, &mut lines);
    }
    let mut text = lines.join("\n");
    text.push('\n');
    text
}
