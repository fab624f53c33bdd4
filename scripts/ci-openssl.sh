#!/usr/bin/env bash
# OpenSSL 3 provider checks (crates/pavelor-openssl).
#
#  1. installs what is missing (openssl, libssl-dev, valgrind, a C compiler)
#     with apt-get;
#  2. cargo test -p pavelor-openssl with PAVELOR_REQUIRE_OPENSSL=1 and
#     PAVELOR_REQUIRE_VALGRIND=1: the C program over EVP (official answers,
#     context copies, error queue, HMAC vs its definition, load/unload,
#     threads), plain and under valgrind memcheck; nothing may be skipped;
#  3. cargo xtask openssl --out target/ci-openssl, then, with that release
#     module: the C program again (plain and memcheck), `openssl dgst` equal
#     to `pavelor sum` on several files through all three ways of loading
#     (-provider-path, OPENSSL_MODULES, OPENSSL_CONF), and Python's hashlib
#     through OPENSSL_CONF when python3 links OpenSSL 3.
#
# Exits non-zero on the first failure. Run from anywhere: bash scripts/ci-openssl.sh
set -euo pipefail
cd "$(dirname "$0")/.."

step() { printf '\n--- openssl: %s\n' "$1"; }

step "prerequisites"
missing=()
command -v openssl >/dev/null || missing+=(openssl)
[ -f /usr/include/openssl/core_dispatch.h ] || missing+=(libssl-dev)
command -v valgrind >/dev/null || missing+=(valgrind)
command -v cc >/dev/null || missing+=(gcc libc6-dev)
if [ "${#missing[@]}" -gt 0 ]; then
    echo "installing: ${missing[*]}"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}"
fi
openssl version
case "$(openssl version)" in
    "OpenSSL 3."*) ;;
    *) echo "error: OpenSSL 3 is required" >&2; exit 1 ;;
esac

step "cargo test -p pavelor-openssl (C program over EVP, plain and under memcheck)"
PAVELOR_REQUIRE_OPENSSL=1 PAVELOR_REQUIRE_VALGRIND=1 \
    cargo test --locked -p pavelor-openssl

step "cargo xtask openssl (release module)"
out="$PWD/target/ci-openssl"
cargo xtask openssl --locked --out "$out"
test -s "$out/pavelor.so"
test -s "$out/pavelor-openssl.cnf"
# The module exports one symbol of its own: the provider entry point.
nm -D --defined-only "$out/pavelor.so" | grep -q ' T OSSL_provider_init$'
unset OPENSSL_CONF OPENSSL_MODULES

step "C program against the release module"
cc -std=c99 -O2 -Wall -Wextra -Werror -pedantic -I crates/pavelor-openssl/tests/c \
    crates/pavelor-openssl/tests/c/evp_pavelor.c -o "$out/evp_pavelor" -lcrypto -lpthread
for mode in kat errors "stress 10 4"; do
    # shellcheck disable=SC2086 # mode carries its arguments
    OPENSSL_MODULES="$out" "$out/evp_pavelor" $mode
    # shellcheck disable=SC2086
    OPENSSL_MODULES="$out" valgrind --quiet --tool=memcheck --leak-check=full \
        --errors-for-leak-kinds=definite,indirect,possible --error-exitcode=1 \
        "$out/evp_pavelor" $mode
done

step "openssl dgst == pavelor sum (three ways of loading the provider)"
# The workspace's selection, as the README's build: the same features,
# so after it this finds nothing to build.
cargo build --locked --release
pavelor=./target/release/pavelor
data="$out/data"
mkdir -p "$data"
: >"$data/empty"
printf 'abc' >"$data/abc"
head -c 191 /dev/zero | tr '\0' 'x' >"$data/191"
head -c 192 /dev/zero | tr '\0' 'y' >"$data/192"
head -c 193 /dev/zero | tr '\0' 'z' >"$data/193"
head -c 1048577 /dev/urandom >"$data/random"
failures=0
for f in "$data"/*; do
    want=$("$pavelor" sum -a 512 "$f" | cut -d' ' -f1)
    got_path=$(openssl dgst -provider-path "$out" -provider pavelor -provider default \
        -PAVELOR-512 -r "$f" | cut -d' ' -f1)
    got_env=$(OPENSSL_MODULES="$out" openssl dgst -provider pavelor -PAVELOR-512 -r "$f" |
        cut -d' ' -f1)
    got_conf=$(OPENSSL_CONF="$out/pavelor-openssl.cnf" openssl dgst -PAVELOR-512 -r "$f" |
        cut -d' ' -f1)
    if [ "$want" = "$got_path" ] && [ "$want" = "$got_env" ] && [ "$want" = "$got_conf" ]; then
        echo "ok   $(basename "$f"): $want"
    else
        echo "FAIL $(basename "$f"): pavelor sum $want, openssl dgst $got_path / $got_env / $got_conf"
        failures=$((failures + 1))
    fi
done
# Digests longer than EVP_MAX_MD_SIZE are refused by EVP_DigestFinal_ex
# (which `openssl dgst` uses): a clean error, never an overflow.
if OPENSSL_CONF="$out/pavelor-openssl.cnf" openssl dgst -PAVELOR-768 "$data/abc" 2>"$out/err768"; then
    echo "FAIL: openssl dgst -PAVELOR-768 was expected to be refused"
    failures=$((failures + 1))
elif grep -q 'EVP_MAX_MD_SIZE' "$out/err768"; then
    echo "ok   PAVELOR-768 via EVP_DigestFinal_ex refused with the provider's error"
else
    echo "FAIL: unexpected error for openssl dgst -PAVELOR-768:"; cat "$out/err768"
    failures=$((failures + 1))
fi

step "Python hashlib through OPENSSL_CONF"
if command -v python3 >/dev/null &&
    python3 -c 'import ssl, sys; sys.exit(0 if ssl.OPENSSL_VERSION_INFO[0] == 3 else 1)' 2>/dev/null; then
    python3 -c 'import ssl; print("python3 links", ssl.OPENSSL_VERSION)'
    want=$("$pavelor" sum -a 512 "$data/abc" | cut -d' ' -f1)
    got=$(OPENSSL_CONF="$out/pavelor-openssl.cnf" python3 -c \
        'import hashlib; print(hashlib.new("PAVELOR-512", b"abc").hexdigest())')
    if [ "$want" = "$got" ]; then
        echo "ok   hashlib.new(\"PAVELOR-512\") == pavelor sum"
    else
        echo "FAIL hashlib PAVELOR-512: $got, pavelor sum: $want"
        failures=$((failures + 1))
    fi
    # Python's own HMAC over the hashlib constructor (B = block_size = 192)
    # equals the provider's PAVELOR-HMAC.
    got=$(OPENSSL_CONF="$out/pavelor-openssl.cnf" python3 -c '
import hashlib, hmac
print(hmac.new(bytes(range(200)), b"abc" * 100, lambda *a: hashlib.new("PAVELOR-512", *a)).hexdigest())')
    want=$(printf 'abc%.0s' $(seq 100) | OPENSSL_CONF="$out/pavelor-openssl.cnf" openssl mac \
        -digest PAVELOR-512 -macopt hexkey:"$(python3 -c 'print(bytes(range(200)).hex())')" \
        PAVELOR-HMAC | tr 'A-F' 'a-f')
    if [ "$want" = "$got" ]; then
        echo "ok   Python hmac over hashlib PAVELOR-512 == openssl mac PAVELOR-HMAC"
    else
        echo "FAIL Python hmac $got, PAVELOR-HMAC $want"
        failures=$((failures + 1))
    fi
    # 96-byte digest: hashlib finishes with EVP_DigestFinal into an
    # EVP_MAX_MD_SIZE buffer; the provider refuses, Python raises ValueError.
    if OPENSSL_CONF="$out/pavelor-openssl.cnf" python3 -c '
import hashlib, sys
try:
    hashlib.new("PAVELOR-768", b"abc").digest()
except ValueError as e:
    print("ok   hashlib PAVELOR-768 refused:", e)
    sys.exit(0)
sys.exit(1)'; then :; else
        echo "FAIL: hashlib PAVELOR-768 was expected to raise ValueError"
        failures=$((failures + 1))
    fi
else
    echo "python3 with OpenSSL 3 not found: hashlib check not run"
fi

if [ "$failures" -ne 0 ]; then
    echo "openssl: $failures check(s) failed" >&2
    exit 1
fi
echo "openssl: all provider checks passed"
