//! Writing result files so that a reader never sees half of one.

use indicatif::{ProgressBar, ProgressStyle};

pub use pavelor_bench::output::atomic_write;

/// A progress bar on stderr (hidden when stderr is not a terminal).
pub fn progress_bar(total: u64, prefix: &str) -> ProgressBar {
    let bar = ProgressBar::new(total);
    let style = ProgressStyle::with_template(
        "{prefix:>28} [{bar:30}] {percent:>3}% {elapsed_precise} eta {eta}",
    )
    .map(|s| s.progress_chars("=> "))
    .unwrap_or_else(|_| ProgressStyle::default_bar());
    bar.set_style(style);
    bar.set_prefix(prefix.to_string());
    bar
}
