#!/usr/bin/env bash
# Runs the mingw-w64 build under Wine: the portable core loads the shipped scenarios
# (the default suite on Windows is `windows`), and the portable probes keep their
# contract (exit code, byte-exact flood). `breakout run` itself: ci/wine-run.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=build-mingw/bin
source ci/wine-prefix.sh  # after the cd to the repository root
trap wine_cleanup EXIT
wine_prefix_create
src="Z:$(pwd | tr / '\\')"
fail() { echo "wine smoke: FAIL: $*" >&2; exit 1; }

out=$("$WINE" "$bin/breakout.exe" --scenarios "$src\\scenarios" --spawners "$src\\spawners" list 2>/dev/null)
grep -q "fs.write.create" <<<"$out" || fail "list did not load the default suite"
grep -q "Scenarios of suite 'windows'" <<<"$out" || fail "list did not default to the windows suite"
grep -q "bwrap" <<<"$out" || fail "list did not show the spawner profiles"

set +e
"$WINE" "$bin/breakout-probe-exit.exe" --code 42 >/dev/null 2>&1
rc=$?
set -e
[[ $rc -eq 42 ]] || fail "probe exit code $rc, expected 42"
n=$("$WINE" "$bin/breakout-probe-pipe-flood.exe" --bytes 100000 2>/dev/null | wc -c)
[[ $n -eq 100000 ]] || fail "pipe-flood wrote $n bytes to stdout, expected 100000"
echo "wine smoke: ok (list loads scenarios, probes keep their contract)"
