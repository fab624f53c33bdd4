#!/usr/bin/env bash
# The Python wheels and the sdist as users install them:
#  1. maturin, ziglang, auditwheel and abi3audit from PyPI (pinned in
#     scripts/ci-py-tools.txt) in a tools virtualenv; `cargo xtask wheels`
#     (or `cargo xtask dist`, whose output .ci/run passes as PAVELOR_DIST)
#     builds the manylinux2014 wheels (cp311-abi3 x86-64 and aarch64,
#     cp39/cp310 where those interpreters are present) and the sdist;
#  2. every wheel through `auditwheel show` (its platform tag must be
#     manylinux_2_17) and every abi3 wheel through `abi3audit --strict`;
#  3. each x86-64 wheel installed in a fresh virtualenv of its interpreter
#     (the abi3 one in 3.11 and in the newest CPython here), and the sdist
#     built and installed in a fresh 3.11 virtualenv, each then running
#     python/tests against the installed package.
# The aarch64 wheel is built and audited but not run (no Arm CPython).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
work=$(mktemp -d "${TMPDIR:-/tmp}/pavelor-wheels.XXXXXX")
trap 'rm -rf "$work"' EXIT

python=${PYTHON:-python3}
# The tools venv: .ci/run's cached one (PAVELOR_PY_TOOLS, pinned in
# scripts/ci-py-tools.txt), else one in target/.
tools=${PAVELOR_PY_TOOLS:-$root/target/py-tools}
echo "--- tools: maturin, ziglang, auditwheel, abi3audit in $tools ($("$python" --version 2>&1))"
if [ ! -x "$tools/bin/maturin" ]; then
    "$python" -m venv "$tools"
    "$tools/bin/python" -m pip install --quiet --upgrade pip
    "$tools/bin/python" -m pip install --quiet --no-deps -r scripts/ci-py-tools.txt
fi
export PATH=$tools/bin:$PATH
command -v rustup >/dev/null && { rustup target add aarch64-unknown-linux-gnu || true; }

# The wheels `cargo xtask dist` made (PAVELOR_DIST/python, as .ci/run sets
# it), else `cargo xtask wheels` here.
if [ -n "${PAVELOR_DIST:-}" ]; then
    wheels=$PAVELOR_DIST/python
    echo "--- the wheels and sdist of cargo xtask dist: $wheels"
else
    wheels=$work/dist
    echo "--- cargo xtask wheels"
    cargo xtask wheels --out "$wheels"
fi
ls -l "$wheels"

echo "--- auditwheel show, abi3audit"
for whl in "$wheels"/*.whl; do
    name=$(basename "$whl")
    report=$(auditwheel show "$whl")
    echo "$report"
    case "$report" in
        *'"manylinux_2_17_'*) ;;
        *) echo "error: $name is not manylinux_2_17 (manylinux2014)" >&2; exit 1 ;;
    esac
    case "$name" in
        *-abi3-*) abi3audit --strict --report "$whl" ;;
    esac
done

# A fresh virtualenv of interpreter $1 with package $2 (a wheel or the
# sdist) and the test tools, then the suite from outside the source tree.
test_in() {
    local interp=$1 package=$2 venv
    venv=$(mktemp -d "$work/venv.XXXXXX")
    echo "--- $(basename "$package") in a fresh $("$interp" --version 2>&1) virtualenv"
    "$interp" -m venv "$venv"
    "$venv/bin/python" -m pip install --quiet --upgrade pip
    "$venv/bin/python" -m pip install --quiet "$package" pytest numpy
    (cd "$venv" && "$venv/bin/python" -c 'import pavelor; print("pavelor", pavelor.__version__, pavelor.__file__)')
    local status=0
    (cd "$venv" && "$venv/bin/python" -m pytest -p no:cacheprovider "$root/python/tests" -q) || status=$?
    if [ "$status" -ne 0 ]; then
        echo "error: tests of $(basename "$package") failed (exit $status; 5 = no tests)" >&2
        exit 1
    fi
}

# pythonX.Y on PATH or under pyenv, as the xtask finds it.
find_python() {
    if "python$1" --version >/dev/null 2>&1; then
        command -v "python$1"
        return
    fi
    local p
    for p in $(ls -d "${PYENV_ROOT:-$HOME/.pyenv}"/versions/"$1".* 2>/dev/null | sort -V -r); do
        if "$p/bin/python$1" --version >/dev/null 2>&1; then
            echo "$p/bin/python$1"
            return
        fi
    done
}

abi3=$(echo "$wheels"/pavelor-*-cp311-abi3-*x86_64*.whl)
test_in "$python" "$abi3"
newest=
for v in 3.13 3.12; do
    newest=$(find_python "$v")
    [ -n "$newest" ] && break
done
if [ -n "$newest" ]; then
    test_in "$newest" "$abi3"
else
    echo "NOT RUN: the abi3 wheel on a CPython newer than 3.11 (none here)"
fi
for v in 3.9 3.10; do
    tag=cp${v/./}
    whl=$(ls "$wheels"/pavelor-*-"$tag"-"$tag"-*x86_64*.whl 2>/dev/null || true)
    if [ -n "$whl" ]; then
        test_in "$(find_python "$v")" "$whl"
    else
        echo "NOT RUN: no $tag wheel (no python$v here)"
    fi
done
test_in "$python" "$(echo "$wheels"/pavelor-*.tar.gz)"
echo "wheels: every wheel audited; x86-64 wheels and the sdist tested installed; aarch64 built and audited, not run"
