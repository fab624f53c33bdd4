//! `pavelor site`: report directories from several machines, and datasets
//! the NICCS harness published, as one static site.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;

use crate::terminal::{errln, outln};

/// `pavelor site --out SITE RUN...`.
#[derive(Args)]
pub(crate) struct SiteArgs {
    /// The site's directory: made, or replaced if an earlier `pavelor site` made it.
    #[arg(long, value_name = "SITE")]
    out: PathBuf,
    /// Report directories (`pavelor report --out DIR`) or NICCS harness datasets (a directory holding campaign.json, like performance/data/arm_1 of ngcc-dev/ngcc-harness), one per system id; each is checked as `pavelor report --check` checks it, and one that fails is refused.
    #[arg(value_name = "RUN", required = true)]
    runs: Vec<PathBuf>,
    #[command(flatten)]
    limits: crate::options::EvidenceLimits,
}

/// Builds the site.
pub(crate) fn run(args: &SiteArgs) -> ExitCode {
    match pavelor_report::site::build(&args.out, &args.runs, &args.limits.limits()) {
        Ok(built) => crate::terminal::finish(
            outln!(
                "site written to {}: {} system(s) ({}), {} pages; open {}",
                args.out.display(),
                built.systems.len(),
                built.systems.join(", "),
                built.pages.len(),
                args.out.join("index.html").display()
            )
            .map(|()| ExitCode::SUCCESS),
        ),
        Err(e) => {
            errln!("site: {e}");
            ExitCode::FAILURE
        }
    }
}
