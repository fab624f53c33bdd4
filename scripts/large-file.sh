#!/usr/bin/env bash
# Whole-process throughput of `pavelor sum` on one large file in the page
# cache, beside the AES-throughput bound measured in the same run (before
# and after the timed runs), with the peak RSS and GNU sha512sum for scale.
#
#   scripts/large-file.sh [SIZE_MIB] [ALGORITHM]     (defaults: 512, 512)
#
# Needs hyperfine and python3; PAVELOR (default target/release/pavelor) is
# the binary measured. MB/s are 10^6 bytes per second of wall time of the
# whole process (start-up, reading and hashing).
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${PAVELOR:-target/release/pavelor}
size_mib=${1:-512}
alg=${2:-512}
command -v hyperfine >/dev/null || { echo "error: hyperfine is not installed" >&2; exit 2; }
[ -x "$bin" ] || { echo "error: $bin is not built (cargo build --release)" >&2; exit 2; }

dir=$(mktemp -d "${TMPDIR:-/tmp}/pavelor-large.XXXXXX")
trap 'rm -rf "$dir"' EXIT
file="$dir/input"
head -c "$((size_mib << 20))" /dev/urandom >"$file"
cat "$file" >/dev/null # into the page cache

# The bound, in MB/s, of the fastest Pavelor-$alg row: its MB/s over its
# fraction of the bound (the probe `pavelor bench` runs right after it).
bound() {
    "$bin" bench --json --sizes 65536 --seconds 0.1 | python3 -c '
import json, sys
alg = sys.argv[1]
rows = [r for r in json.load(sys.stdin)["rows"]
        if r["name"].startswith(f"Pavelor-{alg} (") and "hash_many" not in r["name"]
        and r.get("of_bound")]
best = max(rows, key=lambda r: r["mb_per_s"])
print("%.1f" % (best["mb_per_s"] / best["of_bound"]))' "$alg"
}

before=$(bound)
hyperfine -N --warmup 3 --runs 15 --export-json "$dir/times.json" \
    "$bin sum -a $alg $file" "sha512sum $file" >"$dir/hyperfine.txt"
after=$(bound)
rss=$(/usr/bin/time -f %M "$bin" sum -a "$alg" "$file" 2>&1 >/dev/null | tail -1)

python3 - "$dir/times.json" "$((size_mib << 20))" "$before" "$after" "$rss" "$alg" <<'EOF'
import json, sys
times, size, before, after, rss, alg = sys.argv[1:]
size, before, after = int(size), float(before), float(after)
res = json.load(open(times))["results"]
ours, gnu = res[0], res[1]
mbps = size / ours["mean"] / 1e6
best = size / ours["min"] / 1e6
bound = (before + after) / 2
cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo")
            if l.startswith("model name")), "unknown")
print(f"CPU: {cpu}")
print(f"file: {size} bytes ({size >> 20} MiB) in the page cache; Pavelor-{alg}")
print(f"pavelor sum: {ours['mean'] * 1e3:.1f} ms mean ({mbps:.0f} MB/s), "
      f"{ours['min'] * 1e3:.1f} ms best ({best:.0f} MB/s), peak RSS {rss} KiB")
print(f"sha512sum:   {gnu['mean'] * 1e3:.1f} ms mean ({size / gnu['mean'] / 1e6:.0f} MB/s)")
print(f"AES bound:   {before:.0f} MB/s before, {after:.0f} MB/s after the timed runs")
print(f"whole process: {mbps / bound:.0%} of the bound (mean), {best / bound:.0%} (best)")
EOF
