# Sourced by .ci/run and the CI scripts (bash): the time table and the
# cache of expensive, rarely changing inputs.
#
# The cache lives outside the clone, in $PAVELOR_CI_CACHE (default
# ${XDG_CACHE_HOME:-$HOME/.cache}/pavelor-ci). Each entry is a directory
# NAME/KEY whose KEY is a hash of its exact inputs (versions, source
# hashes, flags, the toolchain), so that a change of any input is a miss.
# An entry is sealed once complete: `.pavelor-cache` lists the SHA-256 of
# every file in it. An entry without that list (a build that was stopped)
# or with a file that no longer matches it is corrupt: it is removed and
# built again. A miss always builds; nothing is ever skipped for want of a
# cache entry.

: "${PAVELOR_CI_CACHE:=${XDG_CACHE_HOME:-$HOME/.cache}/pavelor-ci}"
export PAVELOR_CI_CACHE

# cache_key WORD...: a 16-hex-digit key naming these inputs.
cache_key() {
    printf '%s\n' "$@" | sha256sum | cut -c1-16
}

# cache_entry NAME KEY: the entry's directory (not created).
cache_entry() {
    printf '%s/%s/%s\n' "$PAVELOR_CI_CACHE" "$1" "$2"
}

# cache_valid DIR: DIR is a sealed entry whose files all match the seal.
cache_valid() {
    [ -f "$1/.pavelor-cache" ] &&
        (cd "$1" && sha256sum --quiet --strict -c .pavelor-cache >/dev/null 2>&1)
}

# cache_seal DIR: records the SHA-256 of every regular file in DIR.
cache_seal() {
    (
        cd "$1"
        find . -type f ! -name '.pavelor-cache*' -print0 | sort -z |
            xargs -0 -r sha256sum >.pavelor-cache.partial
        mv .pavelor-cache.partial .pavelor-cache
    )
}

# cache_lookup NAME KEY: prints the entry's directory; exits 0 when it is
# valid (a hit). On a miss the directory is made empty, ready for a build
# that ends with cache_seal; a corrupt or unfinished entry is reported.
cache_lookup() {
    local dir
    dir=$(cache_entry "$1" "$2")
    if cache_valid "$dir"; then
        echo "cache: hit $1/$2" >&2
        printf '%s\n' "$dir"
        return 0
    fi
    if [ -e "$dir" ]; then
        echo "cache: $1/$2 is corrupt or unfinished: rebuilding it" >&2
    else
        echo "cache: miss $1/$2: building it" >&2
    fi
    rm -rf "$dir"
    mkdir -p "$dir"
    printf '%s\n' "$dir"
    return 1
}

# cache_prune NAME KEY: removes NAME's entries other than KEY (the inputs
# they were built from are gone).
cache_prune() {
    local base=$PAVELOR_CI_CACHE/$1 e
    [ -d "$base" ] || return 0
    for e in "$base"/*; do
        [ -e "$e" ] || continue
        [ "$(basename "$e")" = "$2" ] || rm -rf "$e"
    done
}

# toolchain_id: the Rust toolchain, as a cache input.
toolchain_id() {
    rustc -vV
    cargo -V
}

# The time table: `section BUDGET TITLE` ends the running section and
# starts the next, which should take at most BUDGET seconds on a cold
# 2-core machine (docs/contributing.md); `section_table` prints one line per
# section with its time and budget, a warning line for each section over
# its budget, and the total against the sum of the budgets. A budget is a
# warning, never a failure.
CI_SECTION_NAMES=()
CI_SECTION_SECONDS=()
CI_SECTION_BUDGETS=()
CI_SECTION_START=
CI_SECTION_NAME=
CI_SECTION_BUDGET=
CI_RUN_START=$SECONDS

section_end() {
    if [ -n "$CI_SECTION_NAME" ]; then
        CI_SECTION_NAMES+=("$CI_SECTION_NAME")
        CI_SECTION_SECONDS+=("$((SECONDS - CI_SECTION_START))")
        CI_SECTION_BUDGETS+=("$CI_SECTION_BUDGET")
        CI_SECTION_NAME=
    fi
}

section() {
    section_end
    case "$1" in
        '' | *[!0-9]*)
            echo "ci-lib: section needs a budget in seconds, then a title (got '$1')" >&2
            return 2
            ;;
    esac
    CI_SECTION_BUDGET=$1
    CI_SECTION_NAME=$2
    CI_SECTION_START=$SECONDS
    printf '\n=== %s (%s; budget %s s)\n' "$2" "$(date -u +%H:%M:%S)" "$1"
}

# section_table [STATUS]: the table (to stdout), headed by the run's status.
section_table() {
    section_end
    local i total=$((SECONDS - CI_RUN_START)) budgets=0 over=()
    printf '\n=== time table (%s)\n' "${1:-passed}"
    printf '%6s   %6s  %s\n' time budget section
    for i in "${!CI_SECTION_NAMES[@]}"; do
        local t=${CI_SECTION_SECONDS[$i]} b=${CI_SECTION_BUDGETS[$i]} mark=
        budgets=$((budgets + b))
        if [ "$t" -gt "$b" ]; then
            mark='  OVER'
            over+=("${CI_SECTION_NAMES[$i]}: $t s, budget $b s")
        fi
        printf '%6d s %6d s  %s%s\n' "$t" "$b" "${CI_SECTION_NAMES[$i]}" "$mark"
    done
    printf '%6d s %6d s  total\n' "$total" "$budgets"
    for i in "${!over[@]}"; do
        echo "warning: over its budget: ${over[$i]}"
    done
    if [ "$total" -gt "$budgets" ]; then
        echo "warning: the run took $total s, over the sum of the budgets ($budgets s)"
    fi
}
