#!/usr/bin/env bash
# The artefacts as their users get them, each installed outside the build
# tree and used from there:
#  1. `cargo doc` without a warning; `cargo install --path
#     crates/pavelor-cli` into a fresh root, and that `pavelor` run from /;
#  2. the C library: cargo-c installed from crates.io, `cargo xtask capi`
#     into a prefix, then crates/pavelor-capi/tests/c/stream.c built against
#     the installed files with nothing but `pkg-config --cflags --libs
#     pavelor` and run natively and under valgrind memcheck, and built
#     again through CMake's `find_package(pavelor)`, shared and static;
#  3. the Debian package (`cargo xtask deb`, or the one in $PAVELOR_DIST
#     that `cargo xtask dist` made) installed with dpkg -i: the
#     command, its man page and completions, a C program through the
#     system's pkg-config, `openssl dgst -provider pavelor` with no path;
#     then dpkg -r, and nothing of it left;
# The .crate files are built and verified by `cargo xtask dist`
# (scripts/ci-dist.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
work=$(mktemp -d "${TMPDIR:-/tmp}/pavelor-packaging.XXXXXX")
trap 'rm -rf "$work"' EXIT

missing=()
command -v pkg-config >/dev/null || missing+=(pkg-config)
command -v dpkg-shlibdeps >/dev/null || missing+=(dpkg-dev)
command -v man >/dev/null || missing+=(man-db)
command -v openssl >/dev/null || missing+=(openssl)
command -v cmake >/dev/null || missing+=(cmake)
# cargo-c links libcurl/OpenSSL through cargo.
[ -e /usr/include/openssl/ssl.h ] || missing+=(libssl-dev)
if [ "${#missing[@]}" -gt 0 ]; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}"
fi

echo "--- cargo doc (RUSTDOCFLAGS=-D warnings)"
RUSTDOCFLAGS="-D warnings" cargo doc --locked --workspace --no-deps

echo "--- cargo install --path crates/pavelor-cli"
cargo install --locked --path crates/pavelor-cli --root "$work/cargo-root" --target-dir target
(cd / && printf 'abc' | "$work/cargo-root/bin/pavelor" sum -a 512)
(cd / && "$work/cargo-root/bin/pavelor" kat verify -a 512)

echo "--- the C library: cargo-c, cargo xtask capi, a C program via pkg-config only"
if ! cargo cinstall --version >/dev/null 2>&1; then
    # Unoptimised: it builds in much less time, and it only drives cargo.
    cargo install --locked --debug cargo-c --version "$(cat scripts/cargo-c-version)"
fi
prefix=$work/prefix
cargo xtask capi --locked --prefix "$prefix"
find "$prefix" -type f -printf '%P %s bytes\n' | sort
export PKG_CONFIG_PATH=$prefix/lib/pkgconfig
src=$root/crates/pavelor-capi/tests/c
# shellcheck disable=SC2046 # the flags are words
cc -std=c11 -Wall -Wextra -Werror $(pkg-config --cflags pavelor) -I "$src" "$src/stream.c" \
    $(pkg-config --libs pavelor) -Wl,-rpath,"$(pkg-config --variable=libdir pavelor)" \
    -o "$work/stream"
readelf -d "$work/stream" | grep -q 'NEEDED.*libpavelor.so.0' || {
    echo "error: the program does not load libpavelor.so.0" >&2
    exit 1
}
"$work/stream"
valgrind --error-exitcode=1 --leak-check=full \
    --errors-for-leak-kinds=definite,indirect,possible "$work/stream"

echo "--- the C library through CMake: find_package(pavelor 0.1), shared and static"
mkdir -p "$work/cmake"
cat >"$work/cmake/CMakeLists.txt" <<CMAKE
cmake_minimum_required(VERSION 3.16)
project(pavelor_user C)
find_package(pavelor 0.1 REQUIRED)
add_executable(stream_shared "$src/stream.c")
target_include_directories(stream_shared PRIVATE "$src")
target_link_libraries(stream_shared PRIVATE pavelor::pavelor)
add_executable(stream_static "$src/stream.c")
target_include_directories(stream_static PRIVATE "$src")
target_link_libraries(stream_static PRIVATE pavelor::pavelor_static)
CMAKE
cmake -S "$work/cmake" -B "$work/cmake/build" -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
cmake --build "$work/cmake/build" >/dev/null
"$work/cmake/build/stream_shared"
"$work/cmake/build/stream_static"
if readelf -d "$work/cmake/build/stream_static" | grep -q libpavelor; then
    echo "error: the static build loads libpavelor" >&2
    exit 1
fi
# A version the package does not satisfy is refused.
sed -i 's/find_package(pavelor 0.1 REQUIRED)/find_package(pavelor 0.2 REQUIRED)/' "$work/cmake/CMakeLists.txt"
if cmake -S "$work/cmake" -B "$work/cmake/build2" -DCMAKE_PREFIX_PATH="$prefix" >/dev/null 2>&1; then
    echo "error: find_package(pavelor 0.2) accepted 0.1" >&2
    exit 1
fi
echo "--- the Debian package: dpkg -i, used from the system paths, dpkg -r"
# The package `cargo xtask dist` made (PAVELOR_DIST, as .ci/run sets it),
# else one built here.
if [ -n "${PAVELOR_DIST:-}" ]; then
    deb=$(echo "$PAVELOR_DIST"/pavelor_*.deb)
else
    cargo xtask deb --locked --out "$work/deb"
    deb=$(echo "$work"/deb/pavelor_*.deb)
fi
[ -s "$deb" ] || { echo "error: no Debian package ($deb)" >&2; exit 1; }
dpkg-deb --info "$deb"
printf '%s %8d bytes\n' "$(basename "$deb")" "$(stat -c %s "$deb")"
if dpkg -s pavelor >/dev/null 2>&1; then
    echo "error: a package pavelor is installed already; not replacing it" >&2
    exit 1
fi
dpkg -i "$deb"
trap 'dpkg -r pavelor >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
want=$(printf 'abc' | "$root/target/release/pavelor" sum -a 512)
got=$(cd / && printf 'abc' | /usr/bin/pavelor sum -a 512)
[ "$got" = "$want" ] || { echo "error: installed pavelor: $got" >&2; exit 1; }
man -w pavelor
man -w pavelor-sum
bash -c '. /usr/share/bash-completion/completions/pavelor && complete -p pavelor'
# shellcheck disable=SC2046
cc -std=c11 -Wall -Wextra -Werror $(pkg-config --cflags pavelor) -I "$src" "$src/stream.c" \
    $(pkg-config --libs pavelor) -o "$work/stream-system"
(unset PKG_CONFIG_PATH LD_LIBRARY_PATH; "$work/stream-system")
printf 'abc' >"$work/abc"
dgst=$(cd / && openssl dgst -provider pavelor -PAVELOR-512 -r "$work/abc" | cut -d' ' -f1)
[ "$dgst" = "${want%% *}" ] || { echo "error: openssl dgst -provider pavelor: $dgst" >&2; exit 1; }
echo "openssl dgst -provider pavelor (no path): $dgst"
dpkg -r pavelor
for f in /usr/bin/pavelor "$(openssl version -m | sed 's/.*"\(.*\)"/\1/')/pavelor.so" /usr/include/pavelor.h; do
    [ ! -e "$f" ] || { echo "error: $f left after dpkg -r" >&2; exit 1; }
done
trap 'rm -rf "$work"' EXIT

echo "packaging: cargo doc, cargo install, the C library (pkg-config, CMake, valgrind) and the Debian package OK"
