#!/usr/bin/env bash
# First run of the default suite on a clean Debian 12, two ways: through the .deb, and through the
# README's main command (a source build). Each starts from its own copy of a fresh
# `debootstrap --variant=minbase bookworm` root, so nothing of this machine (packages, ccache,
# build trees) helps either. Prints a Markdown section for docs/figures.md (ci/figures.sh --first-run).
# Usage: bash ci/first-run.sh [--deb FILE]   (as root; needs debootstrap and Debian's mirror)
#   --deb FILE  the package to install; default: built here from this tree (run preset + cpack, not timed)
# Everything it makes lives under one temp dir, unmounted and removed on exit, also on Ctrl-C.
set -euo pipefail
cd "$(dirname "$0")/.."
src=$PWD
deb=""
if [[ ${1:-} == --deb ]]; then deb=$(realpath "$2"); shift 2; fi
(($# == 0)) || { echo "first-run: usage: bash ci/first-run.sh [--deb FILE]" >&2; exit 2; }
[[ $(id -u) -eq 0 ]] || { echo "first-run: needs root (debootstrap, chroot, mounts)" >&2; exit 2; }
command -v debootstrap >/dev/null || { echo "first-run: needs debootstrap (apt-get install debootstrap)" >&2; exit 2; }

work=$(mktemp -d /tmp/breakout-first-run.XXXXXX)
mounted=()
cleanup() {
  set +e  # every step runs, whatever the one before it found
  for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do umount -R "${mounted[i]}" 2>/dev/null || umount -lR "${mounted[i]}" || true; done
  # What the chroots mounted themselves (iproute2 makes /run/netns a mount), deepest first.
  findmnt -rn -o TARGET | grep "^$work/" | sort -r | while read -r m; do umount -l "$m" || true; done
  rm -rf --one-file-system "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

log() { echo "first-run: $*" >&2; }

if [[ -z $deb ]]; then
  log "building the .deb (run preset, not timed)"
  cmake -S "$src" -B "$work/pkg-build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DBREAKOUT_BUILD_TESTS=OFF \
    -DBREAKOUT_BUILD_BENCH=OFF >/dev/null
  cmake --build "$work/pkg-build" -j "$(nproc)" >/dev/null
  (cd "$work/pkg-build" && cpack -G DEB -B "$work/dist" >/dev/null)
  deb=$(ls "$work"/dist/*.deb)
fi

log "debootstrap --variant=minbase bookworm (not timed)"
debootstrap --variant=minbase bookworm "$work/base" http://deb.debian.org/debian >"$work/debootstrap.log" 2>&1 ||
  { tail -5 "$work/debootstrap.log" >&2; exit 1; }

# A copy of the clean root with /dev, /proc, /sys (cgroups for the harness's boxes) and a fresh /tmp.
make_root() {
  local r=$work/$1
  cp -a "$work/base" "$r"
  cp /etc/resolv.conf "$r/etc/resolv.conf"
  # The root a mount of its own, as on a real machine: bubblewrap's pivot_root(2) needs one.
  mount --bind "$r" "$r" && mounted+=("$r")
  mount --rbind /dev "$r/dev" && mounted+=("$r/dev") && mount --make-rslave "$r/dev"
  mount -t proc proc "$r/proc" && mounted+=("$r/proc")
  mount --rbind /sys "$r/sys" && mounted+=("$r/sys") && mount --make-rslave "$r/sys"
  mount -t tmpfs tmpfs "$r/tmp" && mounted+=("$r/tmp")
}
# Runs a command with the copy as its root: pivot_root(2) in a mount namespace of its own, not
# chroot(2), because the kernel refuses a chrooted process a new user namespace (clone(2), EPERM),
# which bubblewrap and the harness's own fail-open check need. The host's tree is detached inside.
in_root() {
  unshare --mount --propagation private /bin/bash -c '
    set -e
    cd "$1" && mkdir -p .host && pivot_root . .host && cd / && umount -l /.host && rmdir /.host
    exec /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 \
      DEBIAN_FRONTEND=noninteractive /bin/bash -c "$2"' _ "$work/$1" "$2"
}

make_root pkg
cp "$deb" "$work/pkg/root/"
log "package: apt-get install ./$(basename "$deb"), then breakout run --spawner bwrap from an empty directory"
start=$SECONDS
in_root pkg 'apt-get update -qq && apt-get install -y -qq /root/*.deb >/dev/null' || { log "package install failed"; exit 1; }
pkg_install=$((SECONDS - start))
set +e
in_root pkg 'mkdir -p /tmp/empty && cd /tmp/empty && breakout run --spawner bwrap --no-history --out /root/out-pkg >/root/run-pkg.log 2>&1'
pkg_rc=$?
set -e
pkg_total=$((SECONDS - start))

make_root src
git clone -q "$src" "$work/src/root/breakout"
log "source: bash ci/main.sh (setup --run: apt, the run preset's build, the default suite against bwrap)"
start=$SECONDS
set +e
in_root src 'cd /root/breakout && bash ci/main.sh --no-history >/root/main-src.log 2>&1'
src_rc=$?
set -e
src_total=$((SECONDS - start))

/usr/bin/python3 - "$work" "$pkg_install" "$pkg_total" "$pkg_rc" "$src_total" "$src_rc" "$(basename "$deb")" <<'PY'
import json, os, subprocess, sys
from pathlib import Path
work, pkg_install, pkg_total, pkg_rc, src_total, src_rc, deb = sys.argv[1:]
work = Path(work)

def verdicts(path):
    try:
        return {a["id"]: a["verdict"] for a in json.loads(path.read_text())["attempts"]}
    except (OSError, ValueError, KeyError):
        return None

def counts(v):
    if v is None:
        return "no results.json"
    c = {}
    for x in v.values():
        c[x] = c.get(x, 0) + 1
    return ", ".join(f"{c.get(k, 0)} {k}" for k in ("pass", "escape", "overblock", "broken", "error", "skip"))

pkg = verdicts(work / "pkg/root/out-pkg/results.json")
src = next((verdicts(p) for p in (work / "src/root/breakout/breakout-results").glob("*/results.json")), None)
commit = subprocess.run(["git", "rev-parse", "--short=12", "HEAD"], capture_output=True, text=True).stdout.strip()
print("## First run on a clean machine\n")
print("`bash ci/first-run.sh`: each way starts from its own copy of a fresh `debootstrap --variant=minbase")
print("bookworm` root, entered with pivot_root (no compiler, no ccache, no build tree), Debian's mirror reachable; the default")
print("suite against bubblewrap. The package itself is built once beforehand, as a release or the")
print(f"workflow's `package` job builds it. Measured {subprocess.run(['date', '-u', '+%Y-%m-%d %H:%M UTC'], capture_output=True, text=True).stdout.strip()}, commit {commit}, {os.cpu_count()} cores, load average at the end {os.getloadavg()[0]:.1f}.\n")
print("| way | command | wall | exit | verdicts |")
print("|---|---|---|---|---|")
print(f"| package | `apt-get install ./{deb}` ({pkg_install} s), then `breakout run --spawner bwrap` | {pkg_total} s | {pkg_rc} | {counts(pkg)} |")
print(f"| source | `bash ci/main.sh` (apt, build, run) | {src_total} s | {src_rc} | {counts(src)} |")
for name, v, res in (("package", pkg, work / "pkg/root/out-pkg/results.json"),
                     ("source", src, next((work / "src/root/breakout/breakout-results").glob("*/results.json"), None))):
    bad = [a for a in json.loads(res.read_text())["attempts"] if a["verdict"] in ("overblock", "broken", "error")] \
        if v is not None and res is not None else []
    for a in bad[:3]:  # the first few, for whoever reads the log; the table has the counts
        print(f"first-run: {name}: {a['verdict']} {a['id']}: {a['reason'][:300]!r} "
              f"stderr={(a.get('stderr_excerpt') or '')[-300:]!r}", file=sys.stderr)
same = pkg is not None and pkg == src
print(f"\nBoth ways judged {'the same' if same else 'DIFFERENT'} ids and verdicts"
      f"{'' if same else ' (see the two results.json)'}; the source build's first run took "
      f"{int(src_total) / max(int(pkg_total), 1):.1f}x the package's wall time.")
PY
