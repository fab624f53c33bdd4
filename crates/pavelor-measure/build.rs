//! Records how this crate was built, for the report's environment section.

use std::process::Command;

fn main() {
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    let version = Command::new(&rustc)
        .arg("--version")
        .output()
        .ok()
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .map(|s| s.trim().to_string())
        .unwrap_or_else(|| "unknown".into());
    println!("cargo:rustc-env=PAVELOR_BUILD_RUSTC={version}");
    for (var, name) in [
        ("PROFILE", "PAVELOR_BUILD_PROFILE"),
        ("OPT_LEVEL", "PAVELOR_BUILD_OPT_LEVEL"),
        ("TARGET", "PAVELOR_BUILD_TARGET"),
        ("DEBUG", "PAVELOR_BUILD_DEBUG"),
    ] {
        println!(
            "cargo:rustc-env={name}={}",
            std::env::var(var).unwrap_or_default()
        );
    }
    let flags = std::env::var("CARGO_ENCODED_RUSTFLAGS")
        .unwrap_or_default()
        .replace('\x1f', " ");
    println!("cargo:rustc-env=PAVELOR_BUILD_RUSTFLAGS={flags}");
    println!("cargo:rerun-if-env-changed=RUSTFLAGS");
    println!("cargo:rerun-if-env-changed=CARGO_ENCODED_RUSTFLAGS");
}
