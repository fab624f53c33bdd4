#!/usr/bin/env bash
# Constant-time verification (see SECURITY.md):
#  1. builds the ct harness (release profile, the code that ships),
#  2. checks that memcheck flags the harness's deliberately leaky toys,
#  3. runs every scenario under valgrind memcheck, once per backend that
#     this CPU *and* valgrind support, with message and state marked secret,
#  4. runs the static machine-code check of every x86 kernel (the VAES and
#     AVX-512 ones valgrind cannot execute),
#  5. cross-builds the harness for aarch64 and runs the AArch64 static check
#     of the armv8-aes kernels (when the cross toolchain is installed).
# Exits non-zero on any memcheck report, any functional mismatch, a toy
# that goes unreported, or a kernel violation.
#
# Usage: scripts/ct.sh            (CARGO_TARGET_DIR is honoured)
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v valgrind >/dev/null; then
    echo "ct.sh: valgrind is not installed (apt-get install valgrind)" >&2
    exit 1
fi
target_dir="${CARGO_TARGET_DIR:-target}"
# The README's build (the whole workspace), which CI has done already.
cargo build --locked --release
bin="$target_dir/release/pavelor-ct"
vg=(valgrind --tool=memcheck --error-exitcode=99 --track-origins=yes -q)

echo "== harness self-test: the leaky toys must be reported"
for toy in table branch vector-table; do
    if "${vg[@]}" "$bin" --toy "$toy" >/dev/null 2>"$target_dir/ct-toy-$toy.log"; then
        echo "FAIL: memcheck did not report the leaky toy '$toy'" >&2
        exit 1
    fi
    grep -q "uninitialised" "$target_dir/ct-toy-$toy.log" || {
        echo "FAIL: toy '$toy' failed for another reason:" >&2
        cat "$target_dir/ct-toy-$toy.log" >&2
        exit 1
    }
    echo "toy $toy: reported ($(grep -c 'uninitialised' "$target_dir/ct-toy-$toy.log") memcheck report lines)"
done
"${vg[@]}" "$bin" --toy ct-eq

echo "== scenarios under memcheck"
mapfile -t backends < <("${vg[@]}" "$bin" --list)
native=$("$bin" --list | tr '\n' ' ')
echo "backends on this CPU: $native"
echo "backends valgrind can run: ${backends[*]}"
status=0
for b in "${backends[@]}"; do
    "${vg[@]}" "$bin" --backend "$b" || status=1
done
for b in $native; do
    case " ${backends[*]} " in
        *" $b "*) ;;
        *) echo "NOTE: backend $b is not run under valgrind (valgrind 3.19 lacks VAES/AVX-512); see the static check below" ;;
    esac
done

echo "== static check of the SIMD kernels (objdump)"
"$bin" --static-check "$bin" | grep -v '^    scalar load' || status=1

echo "== static check of the armv8-aes kernels (aarch64 cross build, aarch64 objdump)"
if command -v aarch64-linux-gnu-objdump >/dev/null && command -v aarch64-linux-gnu-gcc >/dev/null &&
    rustup target list --installed 2>/dev/null | grep -qx aarch64-unknown-linux-gnu; then
    bash scripts/cross-build-aarch64.sh
    "$bin" --static-check-aarch64 "$target_dir/aarch64-unknown-linux-gnu/release/pavelor-ct" |
        grep -v '^    scalar load' || status=1
else
    echo "NOTE: armv8-aes kernels NOT checked: needs gcc-aarch64-linux-gnu," \
        "binutils-aarch64-linux-gnu and 'rustup target add aarch64-unknown-linux-gnu'"
fi

if [ "$status" -ne 0 ]; then
    echo "ct.sh: FAIL" >&2
    exit 1
fi
echo "ct.sh: PASS"
