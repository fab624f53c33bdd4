//! `pavelor completions SHELL` and `pavelor manpages DIR`: the shell
//! completion scripts (clap_complete) and the man pages (clap_mangen) of
//! the command as it is built, for packagers and users.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Args, Command};

use crate::terminal;

/// Arguments of `pavelor completions`.
#[derive(Args)]
pub(crate) struct CompletionsArgs {
    /// The shell to complete for.
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}

/// Arguments of `pavelor manpages`.
#[derive(Args)]
pub(crate) struct ManpagesArgs {
    /// Directory to write pavelor.1 and one page per subcommand
    /// (pavelor-sum.1, pavelor-kat-verify.1, ...) into; it must exist.
    pub dir: PathBuf,
}

/// Writes the completion script for `args.shell` on stdout.
pub(crate) fn completions(args: &CompletionsArgs, mut cmd: Command) -> ExitCode {
    cmd.build();
    let mut cmd = without_hidden(&cmd);
    let name = cmd.get_name().to_string();
    let mut out = Vec::new();
    clap_complete::generate(args.shell, &mut cmd, name, &mut out);
    emit(&out)
}

/// Writes one man page per visible command into `args.dir`, each through a
/// temporary file and a rename; prints the paths written.
pub(crate) fn manpages(args: &ManpagesArgs, mut cmd: Command) -> ExitCode {
    if !args.dir.is_dir() {
        terminal::errln!("{}: not a directory", args.dir.display());
        return ExitCode::FAILURE;
    }
    cmd.build();
    let mut pages = Vec::new();
    collect(&cmd, cmd.get_name(), &mut pages);
    let mut written = String::new();
    for (name, page) in pages {
        let path = args.dir.join(format!("{name}.1"));
        let mut roff = Vec::new();
        if let Err(e) = clap_mangen::Man::new(page).render(&mut roff) {
            terminal::errln!("{name}.1: {e}");
            return ExitCode::FAILURE;
        }
        if let Err(e) = write(&path, &roff) {
            terminal::errln!("{}: {e}", path.display());
            return ExitCode::FAILURE;
        }
        written.push_str(&format!("{}\n", path.display()));
    }
    emit(written.as_bytes())
}

/// `cmd` without its hidden subcommands, at every level (some shells'
/// generators offer hidden subcommands). Only what completion uses is
/// kept: names, arguments, about texts.
fn without_hidden(cmd: &Command) -> Command {
    let mut pruned = Command::new(cmd.get_name().to_string())
        .disable_help_subcommand(true)
        .disable_help_flag(true)
        .disable_version_flag(true)
        .args(cmd.get_arguments().cloned());
    if let Some(about) = cmd.get_about() {
        pruned = pruned.about(about.clone());
    }
    if let Some(version) = cmd.get_version() {
        pruned = pruned.version(version.to_string());
    }
    for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()) {
        pruned = pruned.subcommand(without_hidden(sub));
    }
    pruned
}

/// `cmd` under the page name `name`, then its visible subcommands as
/// `name-sub`, depth first.
fn collect(cmd: &Command, name: &str, pages: &mut Vec<(String, Command)>) {
    pages.push((name.to_string(), cmd.clone().name(name.to_string())));
    for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()) {
        if sub.get_name() == "help" {
            continue;
        }
        collect(sub, &format!("{name}-{}", sub.get_name()), pages);
    }
}

fn write(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    pavelor_kat::atomic_file::atomic_write(path, bytes)
}

/// `bytes` on stdout; a write error is the exit status ([`terminal::finish`]).
fn emit(bytes: &[u8]) -> ExitCode {
    use std::io::Write;
    let written = (|| {
        let mut out = std::io::stdout().lock();
        out.write_all(bytes)?;
        out.flush()?;
        Ok(ExitCode::SUCCESS)
    })();
    terminal::finish(written)
}
