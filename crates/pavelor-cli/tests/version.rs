//! `--version` on the top level and on every subcommand.

#![allow(clippy::unwrap_used, clippy::panic)] // tests may fail loudly

use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_pavelor");

#[test]
fn every_command_prints_its_version() {
    let version = env!("CARGO_PKG_VERSION");
    let mut commands = vec![
        (&[][..], "pavelor"),
        (&["sum"][..], "pavelor-sum"),
        (&["kat"][..], "pavelor-kat"),
        (&["kat", "verify"][..], "pavelor-kat-verify"),
        (&["kat", "gen"][..], "pavelor-kat-gen"),
    ];
    if cfg!(feature = "measure") {
        commands.extend([
            (&["bench"][..], "pavelor-bench"),
            (&["report"][..], "pavelor-report"),
            (&["site"][..], "pavelor-site"),
        ]);
    }
    for (args, name) in commands {
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

/// Without the `measure` feature the measuring commands are not there: a
/// usage error that names them, not a crash or a silent success.
#[cfg(not(feature = "measure"))]
#[test]
fn the_lean_binary_has_no_measuring_commands() {
    for sub in ["bench", "report", "site", "__trial"] {
        let out = Command::new(BIN).arg(sub).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{sub}");
        let stderr = String::from_utf8(out.stderr).unwrap();
        assert!(
            stderr.contains(&format!("unrecognized subcommand '{sub}'")),
            "{sub}: {stderr}"
        );
        assert!(out.stdout.is_empty(), "{sub}");
    }
}
