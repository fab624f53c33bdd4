#!/usr/bin/env bash
# Python package check: rustfmt and clippy on the extension crate, then
# build and install ./python (PyO3 + maturin, fetched from PyPI as the build
# backend) into a fresh virtualenv and run its pytest suite. Exits non-zero on any failure, including "no tests ran"
# (pytest exit 5).
#
#   scripts/ci-python.sh
#
# Environment:
#   PYTHON           interpreter to build the venv with (default: python3)
#   PAVELOR_KAT_DIR  official KAT directory; when set, the tests also check
#                    every KAT_2_12 record; the suite passes without it (it
#                    ships its own selection of official answers).
#   KEEP_VENV=1      keep the virtualenv (printed) instead of deleting it
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)

python=${PYTHON:-python3}
venv=$(mktemp -d "${TMPDIR:-/tmp}/pavelor-py-venv.XXXXXX")
cleanup() {
    if [ "${KEEP_VENV:-0}" = 1 ]; then
        echo "venv kept at $venv"
    else
        rm -rf "$venv"
    fi
}
trap cleanup EXIT

# The extension crate is outside the root workspace, so the workspace's
# fmt/clippy gates do not see it: check it here. (No --locked, as for
# fuzz/: its own Cargo.lock may lag a dependency added to crates/pavelor.)
echo "--- rustfmt + clippy (python/)"
cargo fmt --manifest-path python/Cargo.toml -- --check
PYO3_PYTHON="$(command -v "$python")" \
    cargo clippy --manifest-path python/Cargo.toml --all-targets -- -D warnings
PYO3_PYTHON="$(command -v "$python")" \
    cargo clippy --manifest-path python/Cargo.toml --all-targets --features abi3 -- -D warnings

echo "--- fresh venv ($("$python" --version 2>&1)) in $venv"
"$python" -m venv "$venv"
"$venv/bin/python" -m pip install --quiet --upgrade pip

echo "--- pip install ./python pytest numpy (builds the extension in release mode)"
"$venv/bin/python" -m pip install --quiet ./python pytest numpy
"$venv/bin/python" -c 'import pavelor; print("pavelor", pavelor.__version__, "backends:", pavelor.backends())'

echo "--- pytest (PAVELOR_KAT_DIR=${PAVELOR_KAT_DIR:-unset})"
# Run from outside the source tree so `import pavelor` is the installed
# package (python/pavelor has no native module).
cd "$venv"
set +e
"$venv/bin/python" -m pytest -p no:cacheprovider "$root/python/tests" -q -ra
status=$?
set -e
if [ "$status" -eq 5 ]; then
    echo "error: pytest collected no tests" >&2
    exit 1
fi
exit "$status"
