//! `--version` on the top level and on every subcommand.

#![allow(clippy::unwrap_used, clippy::panic)] // tests may fail loudly

use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_pavelor");

#[test]
fn every_command_prints_its_version() {
    let version = env!("CARGO_PKG_VERSION");
    for (args, name) in [
        (&[][..], "pavelor"),
        (&["sum"][..], "pavelor-sum"),
        (&["kat"][..], "pavelor-kat"),
        (&["kat", "verify"][..], "pavelor-kat-verify"),
        (&["kat", "gen"][..], "pavelor-kat-gen"),
        (&["bench"][..], "pavelor-bench"),
        (&["report"][..], "pavelor-report"),
    ] {
        let out = Command::new(BIN)
            .args(args)
            .arg("--version")
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{args:?}");
        assert_eq!(
            String::from_utf8(out.stdout).unwrap(),
            format!("{name} {version}\n"),
            "{args:?}"
        );
        assert!(out.stderr.is_empty(), "{args:?}");
    }
    // `-V` too, and nothing else is done: no file is hashed or written.
    let out = Command::new(BIN)
        .args(["sum", "-V", "/nonexistent"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
}
