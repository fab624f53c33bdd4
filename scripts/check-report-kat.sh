#!/usr/bin/env bash
# Checks the KAT section of a `pavelor report` (report.md, section 3):
# the verdict at the top is PASS, the section has KAT rows, and every row
# is PASS (a KAT_2_33 row may be NOT RUN: --quick leaves the 3 x 1 GiB
# messages out). Prints the rows it counted; exits 1 otherwise.
#
#   scripts/check-report-kat.sh report/report.md
set -euo pipefail
report=${1:?usage: scripts/check-report-kat.sh REPORT.md}
fail() { echo "check-report-kat: $report: $*" >&2; exit 1; }

[ -s "$report" ] || fail "missing or empty"
grep -q '^\*\*RESULT: PASS\*\*' "$report" || fail "the verdict at the top is not RESULT: PASS"
rows=$(awk '/^## 3\./ { in3 = 1; next } /^## / { in3 = 0 } in3 && /^\| Pavelor-/' "$report")
[ -n "$rows" ] || fail "section 3 has no KAT rows"
bad=$(printf '%s\n' "$rows" \
    | grep -v '| \*\*PASS\*\* |' \
    | grep -v '| KAT_2_33_[^|]*| [^|]*| \*\*NOT RUN\*\*' || true)
[ -z "$bad" ] || fail "KAT rows that did not pass:
$bad"
pass=$(printf '%s\n' "$rows" | grep -c '| \*\*PASS\*\* |')
# At least the nine default files (2_12, 2_23, Loop x 3 instances) must have passed.
[ "$pass" -ge 9 ] || fail "only $pass KAT rows passed"
echo "check-report-kat: $report: $pass KAT rows PASS, $(printf '%s\n' "$rows" | grep -c 'NOT RUN' || true) NOT RUN (KAT_2_33)"
