//! Terminal output of every subcommand: stdout lines whose write errors are
//! handled (never a `println!` panic), messages on stderr, the exit status
//! for a failed stdout, and progress bars.

use std::fmt;
use std::io::{self, Write};
use std::process::ExitCode;

use indicatif::{ProgressBar, ProgressStyle};

/// Writes one line (`args` and `\n`) to stdout and flushes it, so that
/// stdout and stderr stay in order and a write error shows at once.
pub(crate) fn out_line(args: fmt::Arguments<'_>) -> io::Result<()> {
    let mut out = io::stdout().lock();
    out.write_fmt(args)?;
    out.write_all(b"\n")?;
    out.flush()
}

/// Writes `text` as it is to stdout and flushes it (the measuring commands' pages and tables).
#[cfg(feature = "measure")]
pub(crate) fn out_text(text: &str) -> io::Result<()> {
    let mut out = io::stdout().lock();
    out.write_all(text.as_bytes())?;
    out.flush()
}

/// `outln!(...)`: [`out_line`] with `format!` arguments; an `io::Result`.
macro_rules! outln {
    ($($arg:tt)*) => {
        $crate::terminal::out_line(format_args!($($arg)*))
    };
}
pub(crate) use outln;

/// Writes `pavelor: MSG` on stderr. A failing stderr is ignored: there is
/// nowhere left to report it.
pub(crate) fn report(msg: fmt::Arguments<'_>) {
    let _ = writeln!(io::stderr().lock(), "pavelor: {msg}");
}

/// `errln!(...)`: [`report`] with `format!` arguments.
macro_rules! errln {
    ($($arg:tt)*) => {
        $crate::terminal::report(format_args!($($arg)*))
    };
}
pub(crate) use errln;

/// An I/O error's message without Rust's " (os error N)" suffix, as the C
/// tools print it.
pub(crate) fn io_msg(e: &io::Error) -> String {
    let s = e.to_string();
    if let Some(code) = e.raw_os_error()
        && let Some(stripped) = s.strip_suffix(&format!(" (os error {code})"))
    {
        return stripped.to_owned();
    }
    s
}

/// The exit status of a subcommand whose stdout writes may have failed:
/// a reader that went away (`| head -1`) ends the run quietly with status
/// 1; any other write error (`>/dev/full`) is reported in one line.
pub(crate) fn finish(result: io::Result<ExitCode>) -> ExitCode {
    match result {
        Ok(code) => code,
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => ExitCode::FAILURE,
        Err(e) => {
            report(format_args!("write error: {}", io_msg(&e)));
            ExitCode::FAILURE
        }
    }
}

/// A progress bar on stderr (hidden when stderr is not a terminal).
pub(crate) fn progress_bar(total: u64, prefix: &str) -> ProgressBar {
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
