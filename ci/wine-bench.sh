#!/usr/bin/env bash
# `breakout.exe bench --spawner none` under Wine, short (a smoke, not a measurement; docs/bench.md):
# the JSON must be a valid breakout.bench/1 file whose spawn/raw, spawn/none and pipe/none rows ran
# with p50/p90/p99 > 0, and the bench run must be in the history at the default Windows location
# (%LOCALAPPDATA% of the throw-away prefix, never the real HOME), listed by `history --trend none`.
# Usage: bash ci/wine-bench.sh   (after `cmake --build --preset mingw`)
set -euo pipefail
cd "$(dirname "$0")/.."
bin=build-mingw/bin
[[ -f $bin/breakout.exe ]] || { echo "wine bench: $bin/breakout.exe not built (cmake --build --preset mingw)" >&2; exit 1; }
out="$(mktemp -d /tmp/breakout-wine-bench.XXXXXX)"
source ci/wine-prefix.sh  # after the cd to the repository root
trap 'wine_cleanup "$out"' EXIT
wine_prefix_create
src="Z:$(pwd | tr / '\\')"
fail() { echo "wine bench: FAIL: $*" >&2; exit 1; }

json="$out/bench.json"
set +e
# Wine's own errors (err:, not fixme:) go to the stderr file, shown only on a failure: a run that once
# exited 1 with no output at all (CI, not reproduced in 14 runs here) must say what Wine saw next time.
WINEDEBUG=err+all,fixme-all timeout 600 "$WINE" "$bin/breakout.exe" --scenarios "$src\\scenarios" --spawners "$src\\spawners" \
  bench --spawner none --min-time 0.02 --repetitions 3 --budget 5 --pipe-bytes 65536 \
  --out "Z:$(tr / '\\' <<<"$json")" >"$out/stdout" 2>"$out/stderr"
rc=$?
set -e
if [[ $rc -ne 0 ]]; then
  { echo "-- stdout:"; cat "$out/stdout"; echo "-- stderr:"; cat "$out/stderr"
    echo "-- wineservers: $(pgrep -af wineserver || echo none)"; } >&2
  fail "bench exited $rc"
fi
jq -e '.schema == "breakout.bench/1" and .run.platform == "windows"' "$json" >/dev/null \
  || fail "not a breakout.bench/1 file of a windows run: $(head -c 300 "$json")"
for name in spawn/raw spawn/none pipe/none; do
  jq -e --arg n "$name" '[.benchmarks[] | select(.name == $n and .status == "ok"
        and ([.p50, .p90, .p99] | all(type == "number" and . > 0)))] | length == 1' "$json" >/dev/null \
    || fail "$name: not ok with p50/p90/p99 > 0: $(jq -c --arg n "$name" '.benchmarks[] | select(.name == $n)
                                                        | {status, reason, p50, p90, p99}' "$json")"
done

# The history: the default file of the prefix's user, holding this bench run.
run_id=$(jq -r .run.id "$json")
db=$(find "$WINEPREFIX/drive_c/users" -path '*/AppData/Local/breakout/history.sqlite' -print -quit)
[[ -n $db ]] || fail "no history.sqlite under the prefix's %LOCALAPPDATA%\\breakout ($(grep -a History "$out/stdout"))"
trend=$("$WINE" "$bin/breakout.exe" history --trend none 2>&1) || { echo "$trend" >&2; fail "history --trend none failed"; }
grep -A3 "Spawn latency of none per bench run" <<<"$trend" | grep -q "$run_id" \
  || { echo "$trend" >&2; fail "bench run $run_id is not in the history's latency trend"; }

fig() { jq -r --arg n "$1" '.benchmarks[] | select(.name == $n) | "\(.name) p50 \(.p50) p99 \(.p99) ms n \(.n)"' "$json"; }
echo "wine bench: ok ($(fig spawn/raw); $(fig spawn/none); $(fig pipe/none)); bench run $run_id in the history"
