#!/usr/bin/env bash
# Runs the mingw-w64 build under Wine: the portable core loads the shipped scenarios,
# `run` says it is unsupported on Windows (exit 2, never a silent pass), and the
# portable probes keep their contract (exit code, byte-exact flood).
set -euo pipefail
cd "$(dirname "$0")/.."
WINE=/usr/lib/wine/wine64
bin=build-mingw/bin
export WINEDEBUG=-all WINEPREFIX="$(mktemp -d /tmp/breakout-wine.XXXXXX)"
trap 'wineserver -k >/dev/null 2>&1 || true; rm -rf "$WINEPREFIX"' EXIT
src="Z:$(pwd | tr / '\\')"
fail() { echo "wine smoke: FAIL: $*" >&2; exit 1; }

out=$("$WINE" "$bin/breakout.exe" --scenarios "$src\\scenarios" --spawners "$src\\spawners" list 2>/dev/null)
grep -q "fs.write.create" <<<"$out" || fail "list did not load the default suite"
grep -q "bwrap" <<<"$out" || fail "list did not show the spawner profiles"

set +e
"$WINE" "$bin/breakout.exe" --scenarios "$src\\scenarios" run --spawner none >/tmp/wine-run.out 2>&1
rc=$?
set -e
[[ $rc -eq 2 ]] || fail "run exited $rc, expected 2"
grep -q "unsupported on this platform" /tmp/wine-run.out || fail "run did not say it is unsupported"

set +e
"$WINE" "$bin/breakout-probe-exit.exe" --code 42 >/dev/null 2>&1
rc=$?
set -e
[[ $rc -eq 42 ]] || fail "probe exit code $rc, expected 42"
n=$("$WINE" "$bin/breakout-probe-pipe-flood.exe" --bytes 100000 2>/dev/null | wc -c)
[[ $n -eq 100000 ]] || fail "pipe-flood wrote $n bytes to stdout, expected 100000"
echo "wine smoke: ok (list loads scenarios, run is refused as unsupported, probes keep their contract)"
