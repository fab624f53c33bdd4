//! Build script of `pavelor`: sets `cfg(pavelor_split)` where the target
//! runs the generated Paff assembly of the 16-register x86 kernels
//! (`src/backend/x86/generated/`, written by `cargo xtask codegen`): x86-64
//! with 64-bit pointers (16 vector registers, and the `asm!` address
//! operands are full 64-bit registers; not 32-bit x86, not x32).

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo::rustc-check-cfg=cfg(pavelor_split)");
    let arch = std::env::var("CARGO_CFG_TARGET_ARCH").unwrap_or_default();
    let width = std::env::var("CARGO_CFG_TARGET_POINTER_WIDTH").unwrap_or_default();
    if arch == "x86_64" && width == "64" {
        println!("cargo::rustc-cfg=pavelor_split");
    }
}
