#!/usr/bin/env bash
# Checks the KAT sections of a `pavelor report` (report.md): the verdict at
# the top is PASS; section 3 (the NICCS page's, one row per instance of the
# campaign's subject: all three for a backend, fewer for a library of one
# instance) has rows, all PASS;
# section 10 (pavelor's, one row per KAT file and backend or library) has
# KAT rows and every one is PASS (a KAT_2_33 row may be NOT RUN: --quick
# leaves the 3 x 1 GiB messages out). Prints the rows it counted; exits 1
# otherwise.
#
#   scripts/check-report-kat.sh report/report.md
set -euo pipefail
report=${1:?usage: scripts/check-report-kat.sh REPORT.md}
fail() { echo "check-report-kat: $report: $*" >&2; exit 1; }

[ -s "$report" ] || fail "missing or empty"
grep -q '^\*\*RESULT: PASS\*\*' "$report" || fail "the verdict at the top is not RESULT: PASS"

section() { awk -v n="$1" '$0 ~ "^## " n "\\." { in_s = 1; next } /^## / { in_s = 0 } in_s' "$report"; }

niccs=$(section 3 | grep '^| `Pavelor-' || true)
[ -n "$niccs" ] || fail "section 3 has no instance rows"
notpass=$(printf '%s\n' "$niccs" | grep -v '| PASS |$' || true)
[ -z "$notpass" ] || fail "section 3 rows that are not PASS:
$notpass"
ninst=$(printf '%s\n' "$niccs" | wc -l)

rows=$(section 10 | grep '^| Pavelor-' || true)
[ -n "$rows" ] || fail "section 10 has no KAT rows"
bad=$(printf '%s\n' "$rows" \
    | grep -v '| \*\*PASS\*\* |' \
    | grep -v '| KAT_2_33_[^|]*| [^|]*| \*\*NOT RUN\*\*' || true)
[ -z "$bad" ] || fail "KAT rows that did not pass:
$bad"
pass=$(printf '%s\n' "$rows" | grep -c '| \*\*PASS\*\* |')
# At least the nine default files (2_12, 2_23, Loop x 3 instances) must have passed.
[ "$pass" -ge 9 ] || fail "only $pass KAT rows passed"
echo "check-report-kat: $report: section 3 PASS for $ninst instance(s); section 10: $pass KAT rows PASS, $(printf '%s\n' "$rows" | grep -c 'NOT RUN' || true) NOT RUN (KAT_2_33)"
