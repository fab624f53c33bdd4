//! `pavelor manpages DIR` and `pavelor completions SHELL`: what packagers
//! install (the Debian package ships both).

#![allow(clippy::unwrap_used, clippy::panic)] // tests may fail loudly

use assert_cmd::Command;

fn pavelor() -> Command {
    Command::cargo_bin("pavelor").unwrap()
}

#[test]
fn manpages_cover_every_visible_command_and_its_options() {
    let dir = tempfile::tempdir().unwrap();
    let out = pavelor().arg("manpages").arg(dir.path()).output().unwrap();
    assert!(out.status.success(), "{out:?}");
    let mut names: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    let mut want = vec![
        "pavelor-completions.1",
        "pavelor-kat-gen.1",
        "pavelor-kat-verify.1",
        "pavelor-kat.1",
        "pavelor-manpages.1",
        "pavelor-sum.1",
        "pavelor.1",
    ];
    if cfg!(feature = "measure") {
        want.extend([
            "pavelor-bench.1",
            "pavelor-compare.1",
            "pavelor-report.1",
            "pavelor-site.1",
        ]);
        want.sort_unstable();
    }
    assert_eq!(names, want, "the hidden trial command must have no page");
    // Each path written is printed, one per line.
    assert_eq!(
        String::from_utf8(out.stdout).unwrap().lines().count(),
        want.len()
    );
    let sum = std::fs::read_to_string(dir.path().join("pavelor-sum.1")).unwrap();
    assert!(
        sum.starts_with(".ie") || sum.contains(".TH pavelor-sum 1"),
        "{sum}"
    );
    assert!(sum.contains(".TH pavelor-sum 1"), "title: {sum}");
    for option in ["check", "algorithm", "bits", "tag", "zero"] {
        assert!(
            sum.contains(&format!("\\-\\-{option}")),
            "sum page lacks --{option}"
        );
    }
    // Deferred subcommand arguments are built for the pages too.
    if cfg!(feature = "measure") {
        let report = std::fs::read_to_string(dir.path().join("pavelor-report.1")).unwrap();
        assert!(report.contains("\\-\\-lib\\-budget"), "{report}");
    }
}

#[test]
fn manpages_refuse_a_missing_directory_and_write_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("no/such/dir");
    let out = pavelor().arg("manpages").arg(&missing).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("not a directory"), "{err}");
    assert!(!missing.exists());
}

#[test]
fn completions_for_each_shell_name_the_subcommands() {
    for (shell, marker) in [
        ("bash", "_pavelor()"),
        ("zsh", "#compdef pavelor"),
        ("fish", "complete -c pavelor"),
    ] {
        let out = pavelor().args(["completions", shell]).output().unwrap();
        assert!(out.status.success(), "{shell}: {out:?}");
        let script = String::from_utf8(out.stdout).unwrap();
        assert!(script.contains(marker), "{shell}: {script}");
        let measuring: &[&str] = if cfg!(feature = "measure") {
            &["report"]
        } else {
            &[]
        };
        for sub in ["sum", "verify"].iter().chain(measuring) {
            assert!(script.contains(sub), "{shell} lacks {sub}");
        }
        assert!(
            !script.contains("__trial"),
            "{shell} completes the hidden command"
        );
    }
    let out = pavelor().args(["completions", "tcsh"]).output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(2),
        "an unknown shell is a usage error"
    );
}
