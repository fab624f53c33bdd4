#!/usr/bin/env bash
# What must hold on aarch64, proved under qemu-user:
#
#   * the armv8-aes and portable backends are bit-exact at every path: the
#     tests of `pavelor` (against the separately written reference at every
#     length, bit lengths, block boundaries, page edges, batches, saved
#     states, every instance) and of `pavelor-kat` (every KAT_2_12 and
#     KAT_2_23 record on every backend the CPU has), cross-built once in
#     the test profile and run once per CPU model:
#       1. `-cpu max` (ARMv8 Cryptographic Extension present): the
#          `armv8-aes` backend must be detected and be the one in use;
#       2. `-cpu cortex-a72` with the crypto extension hidden: the portable
#          backend must be the one in use. (No CPU model of Debian 12's
#          qemu 7.2 lacks AES, and qemu has no option to remove it, so the
#          run preloads a small getauxval() wrapper that clears the
#          AES/PMULL/SHA/SM hwcaps, the way a Cortex-A72 without the
#          optional extension, e.g. a Raspberry Pi 4, reports itself.
#          Detection reads exactly these hwcaps.)
#   * the report runs there: `pavelor report --quick` from the shared
#     aarch64 release build (scripts/cross-build-aarch64.sh, which
#     scripts/pmu-vm.sh and scripts/ct.sh use too) must say it is emulated
#     and pass its KATs on armv8-aes.
#
# The other crates' tests have no aarch64 code of their own and ran
# natively; the release build compiles every crate the report uses for
# aarch64. The #[ignore]d KAT_Loop / KAT_2_33 checks are not run under
# emulation.
#
# Installs what it needs (Debian packages, the rustup target) and is
# idempotent. Exit status: 0 all passed; 1 a build or a test failed;
# 3 prerequisites could not be installed, nothing was tested (the last line
# then reads "aarch64: NOT TESTED (reason)").
set -euo pipefail
cd "$(dirname "$0")/.."

TARGET=aarch64-unknown-linux-gnu
SYSROOT=/usr/aarch64-linux-gnu
START=$SECONDS

say() { printf '\n--- aarch64: %s (%ss)\n' "$*" "$((SECONDS - START))"; }
not_tested() {
    echo "aarch64: NOT TESTED ($*)" >&2
    exit 3
}
fail() {
    echo "aarch64: FAILED ($*)" >&2
    exit 1
}

# --- prerequisites -----------------------------------------------------------
say "prerequisites"
missing=()
command -v qemu-aarch64 >/dev/null || missing+=(qemu-user)
command -v aarch64-linux-gnu-gcc >/dev/null || missing+=(gcc-aarch64-linux-gnu)
[ -e "$SYSROOT/lib/libc.so" ] && [ -e "$SYSROOT/include/stdio.h" ] ||
    missing+=(libc6-dev-arm64-cross)
if [ ${#missing[@]} -gt 0 ]; then
    echo "installing: ${missing[*]}"
    if [ "$(id -u)" -eq 0 ]; then
        SUDO=()
    elif command -v sudo >/dev/null && sudo -n true 2>/dev/null; then
        SUDO=(sudo -n)
    else
        not_tested "cannot install ${missing[*]}: not root and no sudo"
    fi
    command -v apt-get >/dev/null || not_tested "cannot install ${missing[*]}: no apt-get"
    export DEBIAN_FRONTEND=noninteractive
    # Try with the current package lists first; update them only if needed.
    if ! "${SUDO[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null 2>&1; then
        "${SUDO[@]}" apt-get update -q >/dev/null 2>&1 ||
            not_tested "apt-get update failed (no network?)"
        "${SUDO[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null ||
            not_tested "apt-get could not install ${missing[*]}"
    fi
fi
if ! [ -d "$(rustc --print target-libdir --target "$TARGET" 2>/dev/null)/" ] ||
    ! ls "$(rustc --print target-libdir --target "$TARGET")"/libstd-* >/dev/null 2>&1; then
    command -v rustup >/dev/null ||
        not_tested "the $TARGET standard library is missing and there is no rustup"
    timeout 900 rustup target add "$TARGET" ||
        not_tested "rustup could not install the $TARGET standard library (no network?)"
fi
qemu-aarch64 --version | head -n 1

# --- environment for cargo -----------------------------------------------------
export CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_LINKER=aarch64-linux-gnu-gcc
TARGET_DIR=${CARGO_TARGET_DIR:-target}
mkdir -p "$TARGET_DIR"
TARGET_DIR=$(cd "$TARGET_DIR" && pwd)
export CARGO_TARGET_DIR=$TARGET_DIR
WORK=$TARGET_DIR/aarch64-qemu
mkdir -p "$WORK"

# The getauxval() wrapper that hides the crypto extension (see the header).
cat >"$WORK/nocrypto.c" <<'EOF'
/* Preloaded into an emulated AArch64 process: the program sees a CPU
 * without the ARMv8 Cryptographic Extension. Only the hwcaps change; the
 * emulator would still execute the instructions, so the test asserts that
 * the library does not select a backend that uses them. */
#define _GNU_SOURCE
#include <asm/hwcap.h>
#include <dlfcn.h>
#include <sys/auxv.h>

unsigned long getauxval(unsigned long type)
{
    static unsigned long (*real)(unsigned long);
    if (!real)
        real = (unsigned long (*)(unsigned long))dlsym(RTLD_NEXT, "getauxval");
    unsigned long value = real ? real(type) : 0;
    if (type == AT_HWCAP)
        value &= ~(unsigned long)(HWCAP_AES | HWCAP_PMULL | HWCAP_SHA1 | HWCAP_SHA2 |
                                  HWCAP_SHA3 | HWCAP_SHA512 | HWCAP_SM3 | HWCAP_SM4);
    if (type == AT_HWCAP2)
        value &= ~(unsigned long)(HWCAP2_SVEAES | HWCAP2_SVEPMULL | HWCAP2_SVESHA3 |
                                  HWCAP2_SVESM4);
    return value;
}
EOF
aarch64-linux-gnu-gcc -O2 -shared -fPIC -o "$WORK/nocrypto.so" "$WORK/nocrypto.c" -ldl ||
    fail "cannot build the hwcap wrapper"

QEMU=(qemu-aarch64 -L "$SYSROOT")
CPU_CRYPTO=(-cpu max)
CPU_PLAIN=(-cpu cortex-a72 -E "LD_PRELOAD=$WORK/nocrypto.so")

# --- cross-build -----------------------------------------------------------------
say "cross-build: the tests of pavelor and pavelor-kat (test profile); the shared release build"
cargo test --locked --no-run -p pavelor -p pavelor-kat --target "$TARGET" ||
    fail "cross-build of the tests"
bash scripts/cross-build-aarch64.sh || fail "cross-build of pavelor, libCryptHash.so and pavelor-ct"

# --- the two test passes -----------------------------------------------------------
# run_pass NAME LABEL EXPECTED_BACKEND QEMU_CPU_ARGS...
run_pass() {
    local name=$1 label=$2 expect=$3
    shift 3
    local log="$WORK/test-$name.log" rc=0
    say "tests under qemu, $label: expecting backend $expect"
    CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_RUNNER="${QEMU[*]} $*" \
        PAVELOR_EXPECT_BEST="$expect" \
        cargo test --locked -p pavelor -p pavelor-kat --target "$TARGET" -- --show-output \
        >"$log" 2>&1 || rc=$?
    grep -E '^( +Running|test result|KAT_.*: PASS [0-9]+/[0-9]+ on |best backend|std reports)' "$log" || true
    if [ "$rc" -ne 0 ] || grep -q 'test result: FAILED' "$log"; then
        grep -E -A 15 '^failures:|panicked' "$log" | head -n 60 || true
        fail "tests failed on $label (log: $log)"
    fi
    grep -q "best backend is $expect, as expected" "$log" ||
        fail "$label: the backend check did not run or did not find $expect (log: $log)"
    local b n
    for b in "$expect" portable; do
        n=$(grep -cE "^KAT_2_12_Pavelor-[0-9]+\.txt: PASS 4097/4097 on $b \(embedded answers\)$" "$log" || true)
        [ "$n" -eq 3 ] || fail "$label: KAT_2_12 passed on $b for $n of the 3 instances"
    done
    local passed failed
    passed=$(grep -oE 'test result: ok\. [0-9]+ passed' "$log" | awk '{s += $4} END {print s + 0}')
    failed=$(grep -oE 'ok\. [0-9]+ passed; [0-9]+ failed' "$log" | awk '{s += $4} END {print s + 0}')
    echo "aarch64 $label: backend $expect, $passed passed, $failed failed"
    SUMMARY+=("$label: backend $expect in use; $passed passed, $failed failed")
}

SUMMARY=()
run_pass crypto "-cpu max (crypto extension)" armv8-aes "${CPU_CRYPTO[@]}"
run_pass no-crypto "-cpu cortex-a72 without the crypto extension" portable "${CPU_PLAIN[@]}"

# --- pavelor report under emulation ----------------------------------------------------
say "pavelor report --quick under qemu (the release build)"
REPORT=$(mktemp -d)
trap 'rm -rf "$REPORT"' EXIT
"${QEMU[@]}" "${CPU_CRYPTO[@]}" "$TARGET_DIR/$TARGET/release/pavelor" report --quick \
    --sizes 32,4096 --skip-2-33 --no-baselines --out "$REPORT" >"$WORK/report.log" 2>&1 ||
    {
        tail -n 20 "$WORK/report.log"
        fail "pavelor report under qemu"
    }
grep -q 'This run is emulated' "$REPORT/report.md" ||
    fail "the report does not say that the run is emulated"
grep -q 'KAT_2_12_Pavelor-512.txt | Rust armv8-aes | \*\*PASS\*\*' "$REPORT/report.md" ||
    fail "the report's KAT_2_12 on armv8-aes did not pass"
grep -m 1 '^| cycle source' "$REPORT/report.md"
SUMMARY+=("pavelor report --quick: ran, says emulated, KATs PASS")

say "done"
printf 'aarch64: %s\n' "${SUMMARY[@]}"
echo "aarch64: PASS ($((SECONDS - START)) s)"
