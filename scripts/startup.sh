#!/usr/bin/env bash
# Start-up cost of `pavelor sum` beside GNU sha512sum: both hash a 3-byte
# file, hyperfine runs each RUNS times (default 1000) after a warm-up, and
# the 10th percentile, median and mean wall times are printed with their
# ratio. Needs hyperfine and python3; PAVELOR (default
# target/release/pavelor) is the binary measured.
#
#   scripts/startup.sh [RUNS]
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${PAVELOR:-target/release/pavelor}
runs=${1:-1000}
command -v hyperfine >/dev/null || { echo "error: hyperfine is not installed" >&2; exit 2; }
[ -x "$bin" ] || { echo "error: $bin is not built (cargo build --release)" >&2; exit 2; }
dir=$(mktemp -d "${TMPDIR:-/tmp}/pavelor-startup.XXXXXX")
trap 'rm -rf "$dir"' EXIT
printf abc >"$dir/small"
hyperfine -N --warmup 50 --runs "$runs" --export-json "$dir/times.json" \
    "$bin sum -a 512 $dir/small" "sha512sum $dir/small" >/dev/null
python3 - "$dir/times.json" <<'PY'
import json, statistics, sys
ours, gnu = json.load(open(sys.argv[1]))["results"]
def stats(r):
    t = sorted(r["times"])
    return t[len(t) // 10], statistics.median(t), statistics.mean(t)
o, g = stats(ours), stats(gnu)
cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo")
            if l.startswith("model name")), "unknown")
print(f"CPU: {cpu}; {len(ours['times'])} runs each, a 3-byte file")
for name, (a, b) in zip(("p10", "median", "mean"), zip(o, g)):
    print(f"{name:>6}: pavelor sum {a * 1e6:6.0f} us, sha512sum {b * 1e6:6.0f} us, ratio {a / b:.2f}")
PY
