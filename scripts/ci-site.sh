#!/usr/bin/env bash
# The HTML pages in a real browser: two quick runs with different system
# ids (on this one machine), merged by `pavelor site`; then every page of
# the site, a run's own report.html and `pavelor compare`'s compare.html
# of the two runs rendered by Debian's headless
# Chromium (installed here if missing), with screenshots saved next to the
# pages and the rendered DOM checked (tables, charts, links, no network
# request) by scripts/check-pages-in-browser.py; and the report printed to
# PDF. When PAVELOR_NICCS_DIR names the NICCS harness's data (.ci/run sets
# it from ../shared/niccs), its published arm_1 dataset joins the site as a
# third system, and its pages are checked the same way.
#
#   scripts/ci-site.sh [OUT]      # default OUT: target/ci-site
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-target/ci-site}

if ! command -v chromium >/dev/null; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium
fi
chromium --version

# The whole workspace, as the README's build: the same features, so a
# build after it finds nothing to do.
cargo build --locked --release
rm -rf "$out"
mkdir -p "$out"
for id in x86_here arm_like; do
    ./target/release/pavelor report --quick --sweep --skip-2-33 --system-id "$id" --out "$out/run-$id" >/dev/null
    ./target/release/pavelor report --check "$out/run-$id" | tail -n 1
done
harness=()
if [ -n "${PAVELOR_NICCS_DIR:-}" ] && [ -f "$PAVELOR_NICCS_DIR/arm_1/campaign.json" ]; then
    harness=("$PAVELOR_NICCS_DIR/arm_1")
    echo "ci-site: the NICCS harness's arm_1 dataset joins the site"
else
    echo "ci-site: no NICCS harness data (PAVELOR_NICCS_DIR): the site without a harness dataset; its pages NOT CHECKED"
fi
./target/release/pavelor site --out "$out/site" "$out/run-x86_here" "$out/run-arm_like" ${harness[@]+"${harness[@]}"}
if [ ${#harness[@]} -gt 0 ]; then
    for want in "Qualcomm Oryon" "187.5 cycles/byte" "published by NICCS"; do
        grep -q "$want" "$out/site/index.html" || { echo "ci-site: the index lacks '$want'" >&2; exit 1; }
    done
    grep -q '>187.5</td>' "$out/site/compare.html" || { echo "ci-site: compare.html lacks arm_1's 187.5" >&2; exit 1; }
fi
# The two runs side by side: compare pairs every figure (exit 0: no
# --fail-above).
./target/release/pavelor compare --out "$out/compare" "$out/run-x86_here" "$out/run-arm_like" >"$out/compare.txt"
grep -q 'figures compared' "$out/compare.txt" || { echo "ci-site: compare paired no figure" >&2; cat "$out/compare.txt" >&2; exit 1; }
grep -q '^## Every length (the eBASH sweep)' "$out/compare/compare.md" || { echo "ci-site: compare paired no length sweep" >&2; exit 1; }
python3 scripts/check-pages-in-browser.py "$out/site" "$out/run-x86_here/report.html" "$out/compare/compare.html"
# The sweep's charts as Chromium draws them, from a run that sweeps every
# length (the full plan; its NICCS part as small as it goes): the
# staircase must be there, a rise at the block boundaries in the
# screenshot's pixels.
./target/release/pavelor report --sweep --sizes 65536 --trials 1 --trial-seconds 0.05 \
    --skip-2-33 --no-compare --no-baselines --no-ct-audit --out "$out/run-full-sweep" >/dev/null
python3 scripts/check-sweep-chart.py "$out/sweep-shots" "$out"/run-full-sweep/sweep-pavelor-*.svg
# Printable: Chromium prints the report to PDF, many pages of it.
profile=$(mktemp -d)
chromium --headless --no-sandbox --disable-gpu --disable-background-networking \
    --disable-component-update --disable-sync --no-first-run --user-data-dir="$profile" \
    --no-pdf-header-footer --print-to-pdf="$out/report.pdf" "file://$(realpath "$out/run-x86_here/report.html")" 2>/dev/null
rm -rf "$profile"
# The page tree's root counts every page: the largest /Count.
pages=$(python3 -c 'import re,sys; print(max(map(int, re.findall(rb"/Count (\d+)", open(sys.argv[1], "rb").read())), default=0))' "$out/report.pdf")
echo "ci-site: report.html printed to $out/report.pdf: $pages pages"
[ "${pages:-0}" -ge 5 ] || { echo "ci-site: the printed report has ${pages:-0} pages" >&2; exit 1; }
# The checker must catch what it claims to: a page that fetches, and broken links.
bad="$out/hostile"
mkdir -p "$bad"
printf '<!DOCTYPE html><html><body><table><tr><td>x</td></tr></table><img src="http://127.0.0.1:9/x.png"><a href="gone.html">x</a><a href="#none">y</a></body></html>\n' >"$bad/bad.html"
if python3 scripts/check-pages-in-browser.py "$bad" 2>"$bad/said.txt"; then
    echo "ci-site: the browser check passed a page that fetches from the network" >&2
    exit 1
fi
for want in "requested http://127.0.0.1:9/x.png" "broken link gone.html" "link #none: no element"; do
    grep -q "$want" "$bad/said.txt" || { echo "ci-site: the browser check missed: $want" >&2; cat "$bad/said.txt" >&2; exit 1; }
done
echo "ci-site: screenshots under $out/site (*.png, *.narrow.png)"
