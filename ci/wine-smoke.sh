#!/usr/bin/env bash
# Runs the mingw-w64 build under Wine: the portable core loads the shipped scenarios
# (the default suite on Windows is `windows`), and the portable probes keep their
# contract (exit code, byte-exact flood), and the Windows zip (CPack) runs from wherever it is
# unpacked (docs/install.md). `breakout run` itself: ci/wine-run.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=build-mingw/bin
source ci/wine-prefix.sh  # after the cd to the repository root
zipdir="$(mktemp -d /tmp/breakout-wine-zip.XXXXXX)"
trap 'wine_cleanup "$zipdir"' EXIT
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
# The Windows zip: bin\breakout.exe finds share\breakout and libexec\breakout beside it.
(cd build-mingw && cpack -G ZIP -B "$zipdir" >/dev/null) || fail "cpack -G ZIP failed in build-mingw"
unzip -q "$zipdir"/breakout-*-windows-x86_64.zip -d "$zipdir/x"
top=$(echo "$zipdir"/x/breakout-*)
[[ -f $top/libexec/breakout/breakout-probe-noop.exe ]] || fail "the zip has no libexec/breakout probes"
out=$(cd "$zipdir" && "$WINE" "$top/bin/breakout.exe" list 2>/dev/null)
grep -q "^Data (installed): " <<<"$out" || fail "the unpacked zip's breakout.exe did not find its data: $(head -3 <<<"$out")"
built_tree=$("$WINE" "$bin/breakout.exe" --scenarios "$src\\scenarios" list 2>/dev/null | grep "(not built)" || true)
[[ "$(grep "(not built)" <<<"$out" || true)" == "$built_tree" ]] \
  || fail "the unpacked zip's breakout.exe misses probes the build has: $(diff <(echo "$built_tree") <(grep "(not built)" <<<"$out") | head -5)"
echo "wine smoke: ok (list loads scenarios, probes keep their contract, the zip runs unpacked)"
