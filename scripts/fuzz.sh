#!/usr/bin/env bash
# Bounded fuzz campaign (cargo fuzz / libFuzzer, stable toolchain): see
# SECURITY.md. Runs each target for SECONDS (default 60) and exits non-zero
# on the first crash, panic, timeout or out-of-memory; the input that did it
# is left in fuzz/artifacts/<target>/.
#
# Usage: scripts/fuzz.sh [SECONDS] [TARGET...]
#   targets: stream kat_parse sums_line evidence (default: all four)
# The evidence target is seeded with the report directory of a quick run
# and the harness dataset inside it: $PAVELOR_FUZZ_REPORT, else ./report of
# the repository root when it holds one (the README's main job makes it).
# Longer campaigns: scripts/fuzz.sh 3600, or directly
#   cd fuzz && cargo fuzz run -s none -a -O kat_parse -- -dict=dict/kat.dict
# (add -jobs=N -workers=N for parallel runs). The corpus grows in
# fuzz/corpus/<target>/ across runs, or in $PAVELOR_FUZZ_CORPUS/<target>/
# when that is set (.ci/run keeps it in its cache: sealed after each run
# with the SHA-256 of every input, and started again from the seeds if a
# file no longer matches).
#
# Stable Rust works because `-s none` (no sanitizer) needs no -Z flag:
# libFuzzer's coverage comes from `-Cpasses=sancov-module`, a stable flag.
# Memory errors are not the concern (the code under test has no unsafe
# outside the SIMD backends); panics, wrong results and unbounded memory
# are, and those are caught without ASan.
set -euo pipefail
cd "$(dirname "$0")/../fuzz"

seconds="${1:-60}"
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(stream kat_parse sums_line evidence)

if ! cargo fuzz --version >/dev/null 2>&1; then
    echo "fuzz.sh: installing cargo-fuzz (crates.io)"
    cargo install cargo-fuzz --version 0.13.2 --locked
fi
target_dir="${CARGO_TARGET_DIR:-target}/fuzz"
fuzz=(cargo fuzz run --sanitizer none --debug-assertions --release --target-dir "$target_dir")
cargo fuzz build --sanitizer none --debug-assertions --release --target-dir "$target_dir"

# Seeds: excerpts of the official KAT files (in PAVELOR_KAT_DIR, if set) and a few sums
# lines, written to a scratch seed directory (the corpus dirs are ignored by
# git; libFuzzer adds what it finds to the first directory).
seeds="$target_dir/seeds"
rm -rf "$seeds" && mkdir -p "$seeds"/{stream,kat_parse,sums_line,evidence}
kat=${PAVELOR_KAT_DIR:-}
if [ -n "$kat" ] && [ -d "$kat" ]; then
    for f in "$kat"/KAT_2_23_*.txt "$kat"/KAT_Loop_*.txt; do cp "$f" "$seeds/kat_parse/"; done
    for f in "$kat"/KAT_2_12_*.txt; do head -n 40 "$f" > "$seeds/kat_parse/head-$(basename "$f")"; done
fi
printf 'Msg_Len = 3\nMsg = A0\nDst_Len = 512\nDst = %0128d\n\n' 0 > "$seeds/kat_parse/tiny.txt"
hex512=$(printf '%0128d' 0)
hex768=$(printf 'ab%.0s' $(seq 96))
printf '\000%s  file\n%s *bin\n\\%s  a\\\\b\\nc\n' "$hex512" "$hex512" "$hex512" > "$seeds/sums_line/plain"
printf '\001Pavelor-768 (x (y)) = %s\r\n# comment\n\nPavelor-512 (z) = %s\n' "$hex768" "$hex512" > "$seeds/sums_line/tagged"
printf '\000\001\003\047abc' > "$seeds/stream/abc"
head -c 700 /dev/urandom > "$seeds/stream/random" 2>/dev/null || true
# evidence: a directory as the target's archive (kind 0, a file: path and
# contents); a report directory, and its NICCS dataset alone.
archive() {
    python3 - "$1" <<'PY'
import os, struct, sys
root = sys.argv[1]
out = bytearray()
for d, _, files in sorted(os.walk(root)):
    for f in sorted(files):
        p = os.path.join(d, f)
        rel = os.path.relpath(p, root).encode()
        data = open(p, "rb").read()
        if len(rel) > 255 or len(data) > 65535 or p.endswith(".html") or p.endswith(".svg"):
            continue
        out += bytes([0, len(rel)]) + rel + struct.pack("<H", len(data)) + data
sys.stdout.buffer.write(out)
PY
}
report=${PAVELOR_FUZZ_REPORT:-../report}
if [ -f "$report/records/report.json" ]; then
    archive "$report" > "$seeds/evidence/report"
    for ds in "$report"/niccs/*/; do archive "$ds" > "$seeds/evidence/dataset-$(basename "$ds")"; done
fi
printf '\000\015campaign.json\002\000{}' > "$seeds/evidence/tiny"
# a FIFO, then a file at the same path (the harness must not write into it)
printf '\002\015campaign.json\000\000\000\015campaign.json\002\000{}' > "$seeds/evidence/fifo-then-file"

corpus_root=${PAVELOR_FUZZ_CORPUS:-corpus}
if [ -n "${PAVELOR_FUZZ_CORPUS:-}" ]; then
    # shellcheck source=scripts/ci-lib.sh
    . ../scripts/ci-lib.sh
    for t in "${targets[@]}"; do
        c=$corpus_root/$t
        if [ -d "$c" ] && ! cache_valid "$c"; then
            echo "fuzz corpus $c is corrupt or unfinished: starting again from the seeds"
            rm -rf "$c"
        elif [ -d "$c" ]; then
            echo "fuzz corpus $c: $(find "$c" -type f ! -name .pavelor-cache | wc -l) inputs kept from earlier runs"
        fi
    done
fi

# One target: its campaign, then a summary in $target_dir/fuzz-$t.summary
# and exit status 0 (no failure) or 1.
run_target() {
    local t=$1 dict=() log="$target_dir/fuzz-$t.log" rc=0
    case "$t" in
        kat_parse) dict=(-dict=dict/kat.dict) ;;
        sums_line) dict=(-dict=dict/sums.dict) ;;
    esac
    mkdir -p "$corpus_root/$t"
    if "${fuzz[@]}" "$t" "$corpus_root/$t" "$seeds/$t" -- \
        -max_total_time="$seconds" -timeout=20 -rss_limit_mb=2048 \
        -malloc_limit_mb=512 -max_len=1100000 -print_final_stats=1 "${dict[@]}" \
        >"$log" 2>&1; then
        { grep -E '^stat::number_of_executed_units|^Done' "$log" | tr '\n' ' '
          echo "-> $t: no failure"; } >"$target_dir/fuzz-$t.summary"
    else
        rc=1
        { tail -n 60 "$log"
          echo "-> $t: FAILURE (log: $log; input: fuzz/artifacts/$t/)"; } >"$target_dir/fuzz-$t.summary"
    fi
    if [ -n "${PAVELOR_FUZZ_CORPUS:-}" ]; then cache_seal "$corpus_root/$t"; fi
    return $rc
}

# The targets run side by side, one per CPU (each campaign is one
# single-threaded libFuzzer process), each for the full SECONDS.
jobs=$(nproc 2>/dev/null || echo 1)
echo "== fuzz ${targets[*]} for ${seconds}s each, $jobs at a time"
status=0
pids=()
names=()
for t in "${targets[@]}"; do
    if [ "${#pids[@]}" -ge "$jobs" ]; then
        wait "${pids[0]}" || status=1
        cat "$target_dir/fuzz-${names[0]}.summary"
        pids=("${pids[@]:1}")
        names=("${names[@]:1}")
    fi
    run_target "$t" &
    pids+=("$!")
    names+=("$t")
done
for i in "${!pids[@]}"; do
    wait "${pids[$i]}" || status=1
    cat "$target_dir/fuzz-${names[$i]}.summary"
done
exit $status
