#!/usr/bin/env bash
# scripts/pmu-vm.sh OUT: pavelor on a real AArch64 Linux kernel with a
# cycle counter.
#
# No machine here has a hardware cycle counter, and the seed's platform is
# AArch64. This boots Debian's arm64 kernel under qemu-system-aarch64 (TCG,
# `-M virt -cpu max`, one CPU), whose emulated PMUv3 the kernel's perf_event
# drives, with an initramfs that holds the cross-built `pavelor`, our
# aarch64 libCryptHash.so and busybox. Inside, as root, with
# kernel.perf_event_paranoid=2 (the harness's guide setting):
#
#   1. OUT/report: `pavelor report --quick` at 32 B and 4096 B, our C
#      library through `--lib` beside the Rust backends: cycles from
#      perf_event_open, the clock probe, an emulated PMU said as such;
#   2. OUT/disturbed: a `pavelor report` by the NICCS method (reruns on)
#      at 4096 B while a busy loop competes for the VM's one CPU from the
#      moment the performance phase starts: trials below 95% of the probed
#      clock are run again, up to twice, and marked.
#
# The two directories come back over the serial console (a base64 tar
# between two marker lines). On the host, `pavelor report --check` must
# accept both, and the checks at the end must hold (cycles in the records
# and in section 4, the emulated PMU named, reruns in the disturbed run).
#
# Caches (in $PAVELOR_PMU_VM_CACHE, default $PAVELOR_CI_CACHE/pmu-vm or
# ~/.cache/pavelor-ci/pmu-vm): the kernel image and busybox, keyed by the
# Debian packages' download lines (names, versions, SHA-256). Cargo's own
# target directory ($CARGO_TARGET_DIR, default target/) keeps the builds.
#
# Exit status: 0 all checks held; 1 a build, the VM or a check failed;
# 3 a prerequisite could not be installed (the last line then reads
# "pmu-vm: NOT RUN (reason)").
set -euo pipefail
cd "$(dirname "$0")/.."

if [ $# -ne 1 ]; then
    echo "usage: scripts/pmu-vm.sh OUT" >&2
    exit 2
fi
mkdir -p "$1"
OUT=$(cd "$1" && pwd)
TARGET=aarch64-unknown-linux-gnu
SYSROOT=/usr/aarch64-linux-gnu
KERNEL_META=linux-image-arm64
START=$SECONDS
CACHE=${PAVELOR_PMU_VM_CACHE:-${PAVELOR_CI_CACHE:-$HOME/.cache/pavelor-ci}/pmu-vm}
# The VM's wall-clock limit: a TCG guest that hangs must not hold CI.
VM_LIMIT_S=${PAVELOR_PMU_VM_LIMIT_S:-900}

say() { printf '\n--- pmu-vm: %s (%ss)\n' "$*" "$((SECONDS - START))"; }
not_run() {
    echo "pmu-vm: NOT RUN ($*)" >&2
    exit 3
}
fail() {
    echo "pmu-vm: FAILED ($*)" >&2
    exit 1
}

if [ "$(id -u)" -eq 0 ]; then
    SUDO=()
elif command -v sudo >/dev/null && sudo -n true 2>/dev/null; then
    SUDO=(sudo -n)
else
    SUDO=(false)
fi
apt_install() {
    "${SUDO[@]}" true || not_run "cannot install $*: not root and no sudo"
    command -v apt-get >/dev/null || not_run "cannot install $*: no apt-get"
    export DEBIAN_FRONTEND=noninteractive
    if ! "${SUDO[@]}" apt-get install -y -q --no-install-recommends "$@" >/dev/null 2>&1; then
        "${SUDO[@]}" apt-get update -q >/dev/null 2>&1 || not_run "apt-get update failed (no network?)"
        "${SUDO[@]}" apt-get install -y -q --no-install-recommends "$@" >/dev/null ||
            not_run "apt-get could not install $*"
    fi
}

# --- prerequisites -------------------------------------------------------------
say "prerequisites"
missing=()
command -v qemu-system-aarch64 >/dev/null || missing+=(qemu-system-arm)
command -v aarch64-linux-gnu-gcc >/dev/null || missing+=(gcc-aarch64-linux-gnu)
command -v aarch64-linux-gnu-strip >/dev/null || missing+=(binutils-aarch64-linux-gnu)
[ -e "$SYSROOT/lib/libc.so" ] || missing+=(libc6-dev-arm64-cross)
command -v cpio >/dev/null || missing+=(cpio)
if [ ${#missing[@]} -gt 0 ]; then
    echo "installing: ${missing[*]}"
    apt_install "${missing[@]}"
fi
if ! ls "$(rustc --print target-libdir --target "$TARGET" 2>/dev/null)"/libstd-* >/dev/null 2>&1; then
    command -v rustup >/dev/null || not_run "the $TARGET standard library is missing and there is no rustup"
    timeout 900 rustup target add "$TARGET" || not_run "rustup could not add $TARGET (no network?)"
fi
qemu-system-aarch64 --version | head -n 1

# --- the kernel and busybox, Debian's arm64 packages ------------------------------
say "Debian's arm64 kernel and busybox"
if ! dpkg --print-foreign-architectures | grep -qx arm64; then
    "${SUDO[@]}" dpkg --add-architecture arm64 || not_run "cannot add the arm64 architecture to dpkg"
fi
kernel_pkg() {
    apt-cache depends "$KERNEL_META:arm64" 2>/dev/null |
        awk '/Depends: linux-image-[0-9]/ { sub(/:arm64$/, "", $2); print $2; exit }'
}
if [ -z "$(kernel_pkg)" ]; then
    "${SUDO[@]}" apt-get update -q >/dev/null 2>&1 || not_run "apt-get update failed (no network?)"
fi
KPKG=$(kernel_pkg)
[ -n "$KPKG" ] || not_run "apt knows no $KERNEL_META:arm64 (is arm64 in the sources?)"
uris=$(apt-get download --print-uris "$KPKG:arm64" busybox-static:arm64 2>/dev/null) ||
    not_run "apt cannot locate $KPKG:arm64 and busybox-static:arm64"
[ "$(printf '%s\n' "$uris" | grep -c .)" -eq 2 ] || not_run "apt gave no download lines for $KPKG and busybox-static"
KEY=$(printf '%s\n' "$uris" | sha256sum | cut -c1-16)
INPUTS=$CACHE/inputs-$KEY
if [ -s "$INPUTS/vmlinuz" ] && [ -x "$INPUTS/busybox" ] && [ -e "$INPUTS/.sealed" ]; then
    echo "cache hit: $INPUTS ($KPKG)"
else
    echo "cache miss: fetching $KPKG and busybox-static (arm64)"
    rm -rf "$INPUTS"
    mkdir -p "$INPUTS/debs"
    (cd "$INPUTS/debs" && apt-get download "$KPKG:arm64" busybox-static:arm64 >/dev/null 2>&1) ||
        not_run "apt-get download of $KPKG:arm64 busybox-static:arm64 failed (no network?)"
    x=$INPUTS/extract
    mkdir -p "$x"
    for deb in "$INPUTS"/debs/*.deb; do dpkg-deb -x "$deb" "$x"; done
    cp "$x"/boot/vmlinuz-* "$INPUTS/vmlinuz"
    cp "$x/bin/busybox" "$INPUTS/busybox"
    printf '%s\n' "$uris" >"$INPUTS/download-lines"
    rm -rf "$x" "$INPUTS/debs"
    [ -s "$INPUTS/vmlinuz" ] && [ -x "$INPUTS/busybox" ] || fail "the packages did not hold a kernel and busybox"
    touch "$INPUTS/.sealed"
fi
# Other keys' entries are older packages: drop them.
find "$CACHE" -maxdepth 1 -name 'inputs-*' ! -name "inputs-$KEY" -exec rm -rf {} +

# --- cross-build ----------------------------------------------------------------
say "cross-build: pavelor and libCryptHash.so for $TARGET; pavelor for the host"
export CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_LINKER=aarch64-linux-gnu-gcc
TARGET_DIR=${CARGO_TARGET_DIR:-target}
mkdir -p "$TARGET_DIR"
TARGET_DIR=$(cd "$TARGET_DIR" && pwd)
export CARGO_TARGET_DIR=$TARGET_DIR
bash scripts/cross-build-aarch64.sh || fail "cross-build"
# The host's build is the README's (the whole workspace), so that CI finds
# it built.
cargo build --locked --release || fail "host build"
HOST_PAVELOR=$TARGET_DIR/release/pavelor
AARCH=$TARGET_DIR/$TARGET/release

# --- the initramfs ----------------------------------------------------------------
say "initramfs"
WORK=$TARGET_DIR/pmu-vm
rm -rf "$WORK"
ROOT=$WORK/root
mkdir -p "$ROOT"/{bin,lib,proc,sys,dev,tmp,etc}
cp "$INPUTS/busybox" "$ROOT/bin/busybox"
aarch64-linux-gnu-strip -o "$ROOT/bin/pavelor" "$AARCH/pavelor"
aarch64-linux-gnu-strip -o "$ROOT/lib/libCryptHash.so" "$AARCH/libCryptHash.so"
# The dynamic loader and the libraries the two need, from the cross sysroot,
# followed to their own needs.
needed() { aarch64-linux-gnu-readelf -d "$1" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'; }
interp=$(aarch64-linux-gnu-readelf -l "$AARCH/pavelor" | sed -n 's/.*interpreter: \(.*\)\]/\1/p')
[ -n "$interp" ] || fail "no program interpreter in the aarch64 pavelor"
queue=("$ROOT/bin/pavelor" "$ROOT/lib/libCryptHash.so")
while [ ${#queue[@]} -gt 0 ]; do
    f=${queue[0]}
    queue=("${queue[@]:1}")
    for lib in $(needed "$f"); do
        [ -e "$ROOT/lib/$lib" ] && continue
        [ -e "$SYSROOT/lib/$lib" ] || fail "$lib (needed by $(basename "$f")) is not in $SYSROOT/lib"
        cp -L "$SYSROOT/lib/$lib" "$ROOT/lib/$lib"
        queue+=("$ROOT/lib/$lib")
    done
done
cp -L "$SYSROOT/lib/$(basename "$interp")" "$ROOT/lib/$(basename "$interp")"
ln -s lib "$ROOT/lib64"
echo "root:x:0:0:root:/:/bin/sh" >"$ROOT/etc/passwd"
echo "pmu-vm" >"$ROOT/etc/hostname"
cat >"$ROOT/init" <<'EOF'
#!/bin/busybox sh
# PID 1 of the pavelor PMU VM: two reports, then the results on the
# console and power off.
/bin/busybox --install -s /bin
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mount -t tmpfs -o size=512m tmpfs /tmp
hostname pmu-vm
# The harness's guide setting for the cycle counter (Debian's default is 3).
echo 2 >/proc/sys/kernel/perf_event_paranoid
mkdir -p /tmp/out
cd /tmp
echo "PMU-VM: $(dmesg | grep -m 1 'hw perfevents' || echo 'no hw perfevents line')"

echo "PMU-VM: report 1 (quick, quiet CPU) at $(cut -d' ' -f1 /proc/uptime) s"
pavelor report --quick --sizes 32,4096 --skip-2-33 --no-baselines --no-compare \
    --lib iccs=/lib/libCryptHash.so --out /tmp/out/report >/tmp/out/report.log 2>&1
echo $? >/tmp/out/report.rc
echo "PMU-VM: report 1 exit $(cat /tmp/out/report.rc) at $(cut -d' ' -f1 /proc/uptime) s"
sed 's/^/PMU-VM: report 1: /' /tmp/out/report.log | tail -n 8

echo "PMU-VM: report 2 (NICCS method, a busy loop from the performance phase on)"
pavelor report --trials 2 --trial-seconds 0.05 --sizes 4096 --skip-2-33 --no-baselines \
    --no-compare --out /tmp/out/disturbed >/tmp/out/disturbed.log 2>&1 &
report=$!
# The competitor starts once the clock probe and the KATs are done, so
# that the probed clock is the quiet one and the trials compete.
while kill -0 "$report" 2>/dev/null && ! grep -q 'performance' /tmp/out/disturbed.log; do
    sleep 0.2
done
sh -c 'while :; do :; done' &
busy=$!
echo "PMU-VM: busy loop $busy started at $(cut -d' ' -f1 /proc/uptime) s"
wait "$report"
echo $? >/tmp/out/disturbed.rc
kill "$busy"
echo "PMU-VM: report 2 exit $(cat /tmp/out/disturbed.rc) at $(cut -d' ' -f1 /proc/uptime) s"
sed 's/^/PMU-VM: report 2: /' /tmp/out/disturbed.log | tail -n 8

dmesg >/tmp/out/dmesg.txt
echo "----- PAVELOR-PMU-VM-RESULTS-BEGIN -----"
tar -C /tmp/out -czf - . | base64
echo "----- PAVELOR-PMU-VM-RESULTS-END -----"
sync
poweroff -f
EOF
chmod +x "$ROOT/init"
(cd "$ROOT" && find . | cpio -o -H newc --quiet) | gzip -1 >"$WORK/initramfs.gz"
ls -l "$WORK/initramfs.gz"

# --- the VM -------------------------------------------------------------------------
say "qemu-system-aarch64 -M virt -cpu max (TCG), one CPU"
CONSOLE=$OUT/console.log
rc=0
timeout "$VM_LIMIT_S" qemu-system-aarch64 -M virt -cpu max -accel tcg -smp 1 -m 2048 \
    -nographic -no-reboot -kernel "$INPUTS/vmlinuz" -initrd "$WORK/initramfs.gz" \
    -append "console=ttyAMA0 quiet loglevel=1 panic=-1 rdinit=/init" \
    </dev/null >"$CONSOLE" 2>&1 || rc=$?
[ "$rc" -eq 124 ] && fail "the VM did not power off within $VM_LIMIT_S s (console: $CONSOLE)"
grep '^PMU-VM' "$CONSOLE" || true
sed -n '/^----- PAVELOR-PMU-VM-RESULTS-BEGIN -----/,/^----- PAVELOR-PMU-VM-RESULTS-END -----/p' "$CONSOLE" |
    sed '1d;$d' | tr -d '\r' >"$WORK/results.b64"
[ -s "$WORK/results.b64" ] || fail "no results on the console (qemu exit $rc; console: $CONSOLE)"
rm -rf "$OUT/report" "$OUT/disturbed"
base64 -d "$WORK/results.b64" | tar -C "$OUT" -xzf - || fail "the results on the console do not unpack"

# --- checks on the host ---------------------------------------------------------------
say "checks on the host"
for run in report disturbed; do
    [ "$(cat "$OUT/$run.rc")" = 0 ] || {
        tail -n 20 "$OUT/$run.log"
        fail "$run: pavelor report exited $(cat "$OUT/$run.rc") inside the VM"
    }
    "$HOST_PAVELOR" report --check "$OUT/$run" || fail "$run: report --check refuses it on the host"
done
R=$OUT/report
# Cycles from perf_event_open, never ticks, and the PMU named emulated.
source_row=$(grep -m 1 '^| cycle source |' "$R/report.md" || true)
case $source_row in
*perf_event_open*) ;;
*) fail "report: the cycle source is not perf_event_open ($source_row)" ;;
esac
case $source_row in
*TSC* | *ticks*) fail "report: the cycle source row names ticks ($source_row)" ;;
esac
grep -q 'CPU emulated in software' "$R/report.md" || fail "report: the report does not say the CPU is emulated"
grep -q 'emulated PMU' "$R/report.md" || fail "report: the report does not say the PMU is emulated"
grep -q '^| core clock (clock probe) | [0-9]' "$R/report.md" || fail "report: no clock probe row in section 2"
# The NICCS records: cycles > 0 and a numeric mean_cycles in every one.
python3 - "$R" <<'PY' || fail "report: the NICCS records do not hold cycles"
import glob, json, sys
recs = sorted(glob.glob(sys.argv[1] + "/niccs/*/records/**/*.json", recursive=True))
assert recs, "no NICCS records"
for p in recs:
    r = json.load(open(p))
    trials = r["trials"]
    assert trials and all(t["cycles"] > 0 for t in trials), p + ": a trial without cycles"
    mc = r["mean_cycles"]
    assert isinstance(mc, (int, float)) and not isinstance(mc, bool) and mc > 0, p + ": mean_cycles is not a positive number"
print(f"pmu-vm: {len(recs)} NICCS records, every trial with cycles, every mean_cycles a number")
PY
# Section 4: numbers in the mean-cycles and cycles/byte columns.
python3 - "$R/report.md" <<'PY' || fail "report: section 4 has no cycle figures"
import re, sys
md = open(sys.argv[1]).read()
sec = md.split("\n## 4.", 1)[1].split("\n## ", 1)[0]
rows = [l for l in sec.splitlines() if l.startswith("|")]
head = [c.strip().lower() for c in rows[0].strip("|").split("|")]
mc = next(i for i, c in enumerate(head) if "mean" in c and "cycles" in c)
cb = next(i for i, c in enumerate(head) if "cycles/byte" in c or "cycles per byte" in c)
# The harness's figures: 118.1, 483.7 k, 1.2 M.
num = re.compile(r"^[0-9][0-9,.]*( [kMG])?$")
body = [[c.strip() for c in l.strip("|").split("|")] for l in rows[2:]]
good = [r for r in body if num.match(r[mc]) and num.match(r[cb])]
assert good and len(good) == len(body), f"{len(body) - len(good)} of {len(body)} rows without cycle figures"
print(f"pmu-vm: section 4, {len(good)} rows with mean cycles and cycles/byte")
PY
# The disturbance rule: trials of the busy run below 95% of the clock were
# run again.
D=$OUT/disturbed
python3 - "$D" <<'PY' || fail "disturbed: the busy loop did not make the 95% rule rerun a trial"
import glob, json, sys
def walk(v):
    if isinstance(v, dict):
        for k, x in v.items():
            if k == "disturbed_reruns" and isinstance(x, list):
                yield from x
            else:
                yield from walk(x)
    elif isinstance(v, list):
        for x in v:
            yield from walk(x)
reruns = [t for p in sorted(glob.glob(sys.argv[1] + "/records/*.json")) for t in walk(json.load(open(p)))]
assert reruns, "no disturbed reruns in the records"
by_clock = [t for t in reruns if "below 95% of the fixed clock" in (t.get("disturbed") or "")]
assert by_clock, "trials were run again, but none by the 95% clock rule: " + str(reruns[0].get("disturbed"))
print(f"pmu-vm: {len(reruns)} trials run again, {len(by_clock)} of them by the 95% clock rule; the first: {by_clock[0]['disturbed']}")
PY
grep -m 1 'RESULT' "$D/report.md" || true
echo "pmu-vm: PASS ($((SECONDS - START)) s; OUT: $OUT)"
