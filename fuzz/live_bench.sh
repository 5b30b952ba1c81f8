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

taskset -c "$core" "$build/bin/breakout" bench --spawner bwrap --only 'spawn/bwrap' --no-history \
  --out "$tmp/bench.json" >"$tmp/bench.log" 2>&1 || { cat "$tmp/bench.log" >&2; exit 1; }
p50="$(/usr/bin/python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print([b for b in d["benchmarks"] if b["name"]=="spawn/bwrap"][0]["p50"])' "$tmp/bench.json")"

mkdir "$tmp/new"
BREAKOUT_LIVE_SPAWNER=bwrap BREAKOUT_LIVE_PROBES="$build/bin" taskset -c "$core" "$build/bin/live_fuzzer" \
  -max_len=5 -timeout=60 -detect_leaks=0 -print_final_stats=1 -max_total_time="$seconds" \
  -dict="$root/fuzz/live_fuzzer.dict" -artifact_prefix="$tmp/" "$tmp/new" "$root/fuzz/corpus/live" >"$tmp/live.log" 2>&1 \
  || { tail -n 40 "$tmp/live.log" >&2; exit 1; }
execs="$(sed -n 's/^stat::number_of_executed_units: *//p' "$tmp/live.log")"
rate="$(sed -n 's/^stat::average_exec_per_sec: *//p' "$tmp/live.log")"
/usr/bin/python3 - "$p50" "$execs" "$seconds" "$rate" "$core" <<'PY'
import sys
p50, execs, seconds, rate, core = float(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3]), sys.argv[4], sys.argv[5]
bare = 1000.0 / p50
live = execs / seconds
print(f"core {core}: bwrap bare spawn p50 {p50:.2f} ms = {bare:.1f} spawns/s; "
      f"live fuzzer {execs} cases in {seconds:.0f} s = {live:.1f} exec/s (libFuzzer average {rate}); "
      f"ratio {100 * live / bare:.0f} %")
PY
