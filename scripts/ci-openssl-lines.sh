#!/usr/bin/env bash
# The OpenSSL provider on the OpenSSL 3.5 and 4.0 lines, beside the system's
# 3.0 (scripts/ci-openssl.sh):
#
#  1. each line's sources from the openssl-src crate (its 300.5.x and 400.x
#     releases, fetched by cargo), configured and built here into a private
#     prefix: an entry of the CI cache (scripts/ci-lib.sh) keyed by the
#     release, the Configure options and the C compiler, sealed with the
#     SHA-256 of every file, and built again when missing or corrupt.
#     Static libraries and `no-legacy no-module`, as the crate's own build
#     has them: its trimmed sources lack the generators of the shared
#     libraries' symbol maps and of the legacy provider (no module of
#     OpenSSL's own is built; loading one such as ours still works); no
#     tests, no docs, and none of the protocols and formats the checks
#     below do not use (the `configure` list);
#  2. against each prefix: the provider's C test program over EVP
#     (crates/pavelor-openssl/tests/c/evp_pavelor.c: official answers,
#     digests larger than EVP_MAX_MD_SIZE through fetch and the XOF final,
#     context copies, error paths, HMAC, load/unload, threads), plain and
#     under valgrind memcheck; `openssl dgst` equal to `pavelor sum`; and
#     `openssl speed -evp` for each digest (also on the system's OpenSSL).
#
# The C program fails loudly if EVP_MD_fetch refuses a digest longer than
# EVP_MAX_MD_SIZE (PAVELOR-768, PAVELOR-1024), so an OpenSSL release that
# starts refusing them is noticed here.
#
# Needs the release module (cargo xtask openssl); builds it if missing.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
# shellcheck source=scripts/ci-lib.sh
. scripts/ci-lib.sh

# openssl-src releases: the 3.5 line, the 4.0 line.
lines=("300.5.5+3.5.5" "400.0.2+4.0.3")

missing=()
command -v perl >/dev/null || missing+=(perl)
command -v make >/dev/null || missing+=(make)
command -v valgrind >/dev/null || missing+=(valgrind)
if [ "${#missing[@]}" -gt 0 ]; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}"
fi

modules=$root/target/ci-openssl
[ -s "$modules/pavelor.so" ] || cargo xtask openssl --locked --out "$modules"
# The workspace's selection, as the README's build: the same features,
# so after it this finds nothing to build.
cargo build --locked --release
pavelor=$root/target/release/pavelor
base=$root/target/openssl-lines
mkdir -p "$base"

# The directory of the openssl-src release $1 in cargo's registry, fetched
# through a throw-away manifest.
fetch() {
    local v=$1 dir=$base/fetch-$1
    mkdir -p "$dir/src"
    printf '[package]\nname = "fetch-openssl-src"\nversion = "0.0.0"\nedition = "2021"\npublish = false\n\n[dependencies]\nopenssl-src = "=%s"\n\n[workspace]\n' \
        "$v" >"$dir/Cargo.toml"
    echo 'fn main() {}' >"$dir/src/main.rs"
    cargo fetch --quiet --manifest-path "$dir/Cargo.toml"
    cargo metadata --format-version 1 --manifest-path "$dir/Cargo.toml" |
        python3 -c 'import json, os, sys
m = json.load(sys.stdin)
p = next(p for p in m["packages"] if p["name"] == "openssl-src")
print(os.path.dirname(p["manifest_path"]))'
}

failures=0

# `openssl speed -evp` ($1: the openssl program) for each digest. It
# finishes with EVP_DigestFinal_ex into an EVP_MAX_MD_SIZE buffer, which the
# provider refuses for the 96- and 128-byte digests (docs/openssl.md): so
# PAVELOR-512 must have a figure and the two others must have 0, and a
# release whose speed measures them after all is noticed.
speed() {
    local md line figure
    for md in PAVELOR-512 PAVELOR-768 PAVELOR-1024; do
        line=$("$1" speed -provider-path "$modules" -provider pavelor -provider default \
            -evp "$md" -seconds 1 -bytes 16384 2>/dev/null | grep "^$md " || true)
        figure=$(echo "$line" | awk '{print $2}')
        case "$md:$figure" in
            PAVELOR-512:0.00* | PAVELOR-512:)
                echo "FAIL openssl speed -evp $md: no figure ($line)"
                failures=$((failures + 1)) ;;
            PAVELOR-512:*) echo "ok   openssl speed -evp $md, 16384-byte blocks: ${figure} (1000s of bytes/s)" ;;
            *:0.00*) echo "ok   openssl speed -evp $md: 0 (its EVP_DigestFinal_ex is refused, as expected)" ;;
            *)
                echo "FAIL openssl speed -evp $md: '$line', expected 0 (a refused EVP_DigestFinal_ex)"
                failures=$((failures + 1)) ;;
        esac
    done
}

echo "--- the system's OpenSSL: $(openssl version)"
speed openssl

# What the checks use is libcrypto's EVP and provider loading, and the
# `openssl` command; the protocols, certificate formats and deprecated
# APIs that nothing here touches are left out (a fifth less to compile).
# (4.0 has no engines left to leave out, and warns of the option.)
configure=(no-shared no-tests no-docs no-legacy no-module
    no-deprecated no-quic no-dtls no-srp no-comp
    no-ts no-cms no-cmp no-ocsp no-ct no-http no-rfc3779)
for v in "${lines[@]}"; do
    echo "--- OpenSSL from openssl-src $v"
    options=("${configure[@]}")
    case $v in 300.*) options+=(no-engine) ;; esac
    key=$(cache_key "$v" "${options[*]}" "$(cc --version | head -n 1)" "$(uname -m)")
    cache_prune "openssl-$v" "$key"
    if ! entry=$(cache_lookup "openssl-$v" "$key"); then
        src=$(fetch "$v")/openssl
        build=$base/$v/build
        rm -rf "$build"
        mkdir -p "$build"
        (
            cd "$build"
            perl "$src/Configure" --prefix="$entry/prefix" --libdir=lib \
                --openssldir="$entry/prefix/ssl" "${options[@]}" >/dev/null
            make -j"$(nproc)" build_sw >/dev/null
            make install_sw >/dev/null
        )
        rm -rf "$build"
        cache_seal "$entry"
    fi
    prefix=$entry/prefix
    mkdir -p "$base/$v"
    "$prefix/bin/openssl" version -a | head -n 2
    exe=$base/$v/evp_pavelor
    # Linked with this prefix's libcrypto.a by path: no other OpenSSL can
    # stand in for it.
    cc -std=c99 -O2 -Wall -Wextra -Werror -pedantic -I "$prefix/include" \
        -I crates/pavelor-openssl/tests/c crates/pavelor-openssl/tests/c/evp_pavelor.c \
        "$prefix/lib/libcrypto.a" -o "$exe" -lpthread -ldl
    for mode in kat errors "stress 10 4"; do
        # shellcheck disable=SC2086 # mode carries its arguments
        OPENSSL_MODULES="$modules" "$exe" $mode
    done
    # shellcheck disable=SC2086
    OPENSSL_MODULES="$modules" valgrind --quiet --tool=memcheck --leak-check=full \
        --errors-for-leak-kinds=definite,indirect,possible --error-exitcode=1 "$exe" kat
    printf 'abc' >"$base/$v/abc"
    want=$("$pavelor" sum -a 512 "$base/$v/abc" | cut -d' ' -f1)
    got=$("$prefix/bin/openssl" dgst -provider-path "$modules" -provider pavelor \
        -PAVELOR-512 -r "$base/$v/abc" | cut -d' ' -f1)
    if [ "$want" = "$got" ]; then
        echo "ok   openssl dgst -PAVELOR-512 == pavelor sum"
    else
        echo "FAIL openssl dgst -PAVELOR-512: $got, pavelor sum: $want"
        failures=$((failures + 1))
    fi
    speed "$prefix/bin/openssl"
done
if [ "$failures" -ne 0 ]; then
    echo "error: $failures check(s) failed" >&2
    exit 1
fi
echo "openssl lines: ${lines[*]} passed"
