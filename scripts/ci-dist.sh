#!/usr/bin/env bash
# One command builds every artefact: `cargo xtask dist --out DIR` (run
# here, or earlier by .ci/run, which passes DIR as PAVELOR_DIST and has
# installed the tools: the Python tools venv, cargo-c, dpkg-dev;
# scripts/ci-wheels.sh and scripts/ci-packaging.sh test the wheels and the
# .deb of that DIR). Checks that DIR holds all of them, and that the
# C library tarball works unpacked under an arbitrary directory: a C program
# built with `pkg-config --define-prefix` and run, and the CMake package
# found there.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
work=$(mktemp -d "${TMPDIR:-/tmp}/pavelor-dist.XXXXXX")
trap 'rm -rf "$work"' EXIT
# The output of an earlier `cargo xtask dist` (PAVELOR_DIST, as .ci/run
# sets it after running it), else a new one.
if [ -n "${PAVELOR_DIST:-}" ]; then
    dist=$PAVELOR_DIST
else
    export PATH=${PAVELOR_PY_TOOLS:-$root/target/py-tools}/bin:$PATH
    dist=$work/dist
    cargo xtask dist --locked --out "$dist"
fi

version=$(cargo pkgid -p pavelor | sed 's/.*[#@]//')
expect=(
    "crates/pavelor-$version.crate" "crates/pavelor-kat-$version.crate"
    "crates/pavelor-niccs-$version.crate" "crates/pavelor-iccs-helpers-$version.crate" "crates/pavelor-pages-$version.crate"
    "crates/pavelor-elf-$version.crate" "crates/pavelor-isolate-$version.crate" "crates/pavelor-memcheck-$version.crate"
    "crates/pavelor-measure-$version.crate" "crates/pavelor-sweep-$version.crate"
    "crates/pavelor-report-$version.crate" "crates/pavelor-bench-$version.crate"
    "crates/pavelor-cli-$version.crate"
    "crates/pavelor-ffi-$version.crate" "crates/pavelor-capi-$version.crate"
    "libpavelor-$version-x86_64-linux-gnu.tar.gz"
    "pavelor_$version-1_amd64.deb"
    "python/pavelor-$version.tar.gz"
)
for f in "${expect[@]}"; do
    [ -s "$dist/$f" ] || { echo "error: dist lacks $f" >&2; exit 1; }
done
for arch in x86_64 aarch64; do
    ls "$dist"/python/pavelor-"$version"-cp311-abi3-*manylinux_2_17_"$arch".whl >/dev/null ||
        { echo "error: dist lacks the cp311-abi3 manylinux_2_17 $arch wheel" >&2; exit 1; }
done

echo "--- the C library tarball unpacked under $work/unpacked"
mkdir "$work/unpacked"
tar -xzf "$dist/libpavelor-$version-x86_64-linux-gnu.tar.gz" -C "$work/unpacked"
export PKG_CONFIG_PATH=$work/unpacked/lib/pkgconfig
src=$root/crates/pavelor-capi/tests/c
# shellcheck disable=SC2046
cc -std=c11 $(pkg-config --define-prefix --cflags pavelor) -I "$src" "$src/stream.c" \
    $(pkg-config --define-prefix --libs pavelor) -Wl,-rpath,"$work/unpacked/lib" -o "$work/stream"
"$work/stream"
mkdir "$work/cmake"
cat >"$work/cmake/CMakeLists.txt" <<CMAKE
cmake_minimum_required(VERSION 3.16)
project(pavelor_user C)
find_package(pavelor $version EXACT REQUIRED)
add_executable(stream "$src/stream.c")
target_include_directories(stream PRIVATE "$src")
target_link_libraries(stream PRIVATE pavelor::pavelor_static)
CMAKE
cmake -S "$work/cmake" -B "$work/cmake/build" -DCMAKE_PREFIX_PATH="$work/unpacked" >/dev/null
cmake --build "$work/cmake/build" >/dev/null
"$work/cmake/build/stream"
echo "dist: every artefact built by one command; the tarball works where it is unpacked"
