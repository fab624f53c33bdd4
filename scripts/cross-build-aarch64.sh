#!/usr/bin/env bash
# The one release build for aarch64-unknown-linux-gnu that the aarch64
# checks share: `pavelor` (the report under qemu-user in
# scripts/test-aarch64.sh, and inside the VM of scripts/pmu-vm.sh), our
# libCryptHash.so (the VM's `--lib`) and `pavelor-ct` (the static check of
# the armv8-aes kernels in scripts/ct.sh). One cargo command with one set
# of packages, so that whichever script runs first builds it and the others
# find it built (a different set would unify features differently and build
# the shared dependencies again).
#
# Needs the rustup target and gcc-aarch64-linux-gnu (the callers install
# them). Honours CARGO_TARGET_DIR; the outputs are in
# ${CARGO_TARGET_DIR:-target}/aarch64-unknown-linux-gnu/release/.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_LINKER=aarch64-linux-gnu-gcc
exec cargo build --locked --release --target aarch64-unknown-linux-gnu \
    -p pavelor-cli -p pavelor-ffi -p pavelor-ct
