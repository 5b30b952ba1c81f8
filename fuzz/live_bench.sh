#!/usr/bin/env bash
# Live fuzzer exec/s against bubblewrap next to bubblewrap's bare spawn rate, both pinned to ONE core, in one run.
#
#   fuzz/live_bench.sh [BUILD_DIR] [SECONDS] [CORE]   (defaults: build, 60, 1)
# First `breakout bench --spawner bwrap` (spawn/bwrap p50 -> spawns/s), then the live
# fuzzer from the seed corpus for SECONDS against bwrap (libFuzzer's average exec/s),
# both under `taskset -c CORE`. Prints both figures and their ratio (issue 4 asks >= 50 %).
# Needs root and bwrap, like `breakout run`. Figures: docs/fuzzing.md.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="$(cd "${1:-$root/build}" && pwd)"
seconds="${2:-60}"
core="${3:-1}"
tmp="$(mktemp -d -t breakout-live-bench.XXXXXX)"
trap 'rm -rf "$tmp"' EXIT INT TERM

taskset -c "$core" "$build/bin/breakout" bench --spawner bwrap --only 'spawn/bwrap' --budget 20 --no-history \
  --out "$tmp/bench.json" >"$tmp/bench.log" 2>&1 || { cat "$tmp/bench.log" >&2; exit 1; }
p50="$(/usr/bin/python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print([b for b in d["benchmarks"] if b["name"]=="spawn/bwrap"][0]["p50"])' "$tmp/bench.json")"

mkdir "$tmp/new"
BREAKOUT_LIVE_SPAWNER=bwrap BREAKOUT_LIVE_PROBES="$build/bin" taskset -c "$core" "$build/bin/live_fuzzer" \
  -max_len=5 -timeout=60 -detect_leaks=0 -print_final_stats=1 -max_total_time="$seconds" \
  -dict="$root/fuzz/live_fuzzer.dict" -artifact_prefix="$tmp/" "$tmp/new" "$root/fuzz/corpus/live" >"$tmp/live.log" 2>&1 \
  || { tail -n 40 "$tmp/live.log" >&2; exit 1; }
execs="$(sed -n 's/^stat::number_of_executed_units: *//p' "$tmp/live.log")"
# Half the decoded cases are api-* operations, which bwrap (no fs API) skips without spawning:
# also time the probe seeds alone (each one bwrap spawn), once, through live_replay.
probe_seeds=("$root"/fuzz/corpus/live/probe-*)
start="$(date +%s.%N)"
BREAKOUT_LIVE_SPAWNER=bwrap BREAKOUT_LIVE_PROBES="$build/bin" taskset -c "$core" "$build/bin/live_replay" \
  "${probe_seeds[@]}" >"$tmp/replay.log" 2>&1 || { tail -n 40 "$tmp/replay.log" >&2; exit 1; }
probe_s="$(echo "$(date +%s.%N) - $start" | bc)"
rate="$(sed -n 's/^stat::average_exec_per_sec: *//p' "$tmp/live.log")"
/usr/bin/python3 - "$p50" "$execs" "$seconds" "$rate" "$core" "${#probe_seeds[@]}" "$probe_s" <<'PY'
import sys
p50, execs, seconds, rate, core = float(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3]), sys.argv[4], sys.argv[5]
probes, probe_s = int(sys.argv[6]), float(sys.argv[7])
bare = 1000.0 / p50
live = execs / seconds
print(f"core {core}: bwrap bare spawn p50 {p50:.2f} ms = {bare:.1f} spawns/s; "
      f"live fuzzer {execs} cases in {seconds:.0f} s = {live:.1f} exec/s (libFuzzer average {rate}); "
      f"ratio {100 * live / bare:.0f} %; probe cases only: {probes} in {probe_s:.1f} s = {probes / probe_s:.1f}/s, "
      f"ratio {100 * probes / probe_s / bare:.0f} %")
PY
