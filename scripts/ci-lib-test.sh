#!/usr/bin/env bash
# Tests of the CI cache (scripts/ci-lib.sh) in a scratch cache: a miss
# builds, a sealed entry is a hit, a changed, removed or added-then-changed
# file and an unsealed (stopped) build are found and rebuilt, a changed
# input is a new key and prune removes the old one; the time table names
# the sections over their budgets, and a section without a budget is
# refused. Prints
# "N passed, 0 failed"; exits 1 on the first failure.
set -euo pipefail
cd "$(dirname "$0")/.."
scratch=$(mktemp -d "${TMPDIR:-/tmp}/pavelor-ci-lib-test.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
PAVELOR_CI_CACHE=$scratch/cache
# shellcheck source=scripts/ci-lib.sh
. scripts/ci-lib.sh

passed=0
ok() { passed=$((passed + 1)); }
fail() {
    echo "ci-lib-test: FAIL: $*" >&2
    exit 1
}

# build NAME KEY: looks the entry up, "builds" it on a miss (two files),
# and prints hit or built.
build() {
    local dir
    if dir=$(cache_lookup "$1" "$2" 2>/dev/null); then
        echo hit
    else
        mkdir -p "$dir/sub"
        echo "one $2" >"$dir/a"
        echo "two $2" >"$dir/sub/b"
        cache_seal "$dir"
        echo built
    fi
}

key=$(cache_key v1 "--flag")
[ "${#key}" -eq 16 ] && ok || fail "a key is 16 hex digits: $key"
[ "$(cache_key v1 "--flag")" = "$key" ] && ok || fail "a key is not stable"
[ "$(cache_key v2 "--flag")" != "$key" ] && ok || fail "another input gave the same key"

[ "$(build tool "$key")" = built ] && ok || fail "a miss did not build"
[ "$(build tool "$key")" = hit ] && ok || fail "a sealed entry was not a hit"

entry=$(cache_entry tool "$key")
echo "one changed" >"$entry/a"
[ "$(build tool "$key")" = built ] && ok || fail "a changed file was not found"
[ "$(build tool "$key")" = hit ] && ok || fail "the rebuilt entry was not a hit"

rm "$entry/sub/b"
[ "$(build tool "$key")" = built ] && ok || fail "a removed file was not found"

printf 'x' | dd of="$entry/sub/b" bs=1 seek=2 conv=notrunc status=none
[ "$(build tool "$key")" = built ] && ok || fail "a flipped byte was not found"

rm "$entry/.pavelor-cache"
said=$(cache_lookup tool "$key" 2>&1 >/dev/null || true)
case "$said" in
    *"corrupt or unfinished"*) ok ;;
    *) fail "an unsealed entry was not reported: $said" ;;
esac
[ -z "$(ls -A "$entry")" ] && ok || fail "an unsealed entry was not emptied for the build"

key2=$(cache_key v2 "--flag")
build tool "$key" >/dev/null
build tool "$key2" >/dev/null
cache_prune tool "$key2"
[ ! -e "$entry" ] && [ -d "$(cache_entry tool "$key2")" ] && ok ||
    fail "prune did not keep exactly the current key"

# The time table (in a subshell: it has its own sections).
table=$(
    section 5 "within budget" >/dev/null
    CI_SECTION_START=$((SECONDS - 3))
    section 1 "over budget" >/dev/null
    CI_SECTION_START=$((SECONDS - 4))
    section_table
)
grep -qE '^ +3 s +5 s  within budget$' <<<"$table" && grep -qE '^ +4 s +1 s  over budget  OVER$' <<<"$table" &&
    grep -qx 'warning: over its budget: over budget: 4 s, budget 1 s' <<<"$table" &&
    ! grep -q 'over its budget: within' <<<"$table" && ok ||
    fail "the time table does not mark the section over its budget: $table"
if (section "no budget" 2>/dev/null); then fail "a section without a budget was accepted"; else ok; fi

echo "ci-lib-test: $passed passed, 0 failed"
