#!/usr/bin/env bash
# Live fuzzer exec/s against bubblewrap next to bubblewrap's bare spawn rate, both pinned to ONE core, in one run.
#
#   fuzz/live_bench.sh [BUILD_DIR] [SECONDS] [CORE]   (defaults: build, 60, 1)
# First `breakout bench --spawner bwrap` (spawn/bwrap p50 -> spawns/s), then the live
# fuzzer from the seed corpus for SECONDS against bwrap (libFuzzer's average exec/s),
# both under `taskset -c CORE`. Prints both figures and their ratio.
# The probe seeds (spawning cases) are replayed 3 times (about a second each): each run and
# the median are printed, with the load average before and after (a shared machine).
# Needs root and bwrap, like `breakout run`. Figures: docs/figures.md.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="$(cd "${1:-$root/build}" && pwd)"
seconds="${2:-60}"
core="${3:-1}"
tmp="$(mktemp -d -t breakout-live-bench.XXXXXX)"
load_before="$(cut -d' ' -f1-3 /proc/loadavg)"
trap 'rm -rf "$tmp"' EXIT INT TERM

taskset -c "$core" "$build/bin/breakout" bench --spawner bwrap --only 'spawn/bwrap' --budget 20 --no-history \
  --out "$tmp/bench.json" >"$tmp/bench.log" 2>&1 || { cat "$tmp/bench.log" >&2; exit 1; }
p50="$(/usr/bin/python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print([b for b in d["benchmarks"] if b["name"]=="spawn/bwrap"][0]["p50"])' "$tmp/bench.json")"

mkdir "$tmp/new"
BREAKOUT_LIVE_SPAWNER=bwrap BREAKOUT_LIVE_PROBES="$build/bin" taskset -c "$core" "$build/bin/live_fuzzer" \
  -max_len=7 -timeout=60 -detect_leaks=0 -print_final_stats=1 -max_total_time="$seconds" \
  -dict="$root/fuzz/live_fuzzer.dict" -artifact_prefix="$tmp/" "$tmp/new" "$root/fuzz/corpus/live" >"$tmp/live.log" 2>&1 \
  || { tail -n 40 "$tmp/live.log" >&2; exit 1; }
execs="$(sed -n 's/^stat::number_of_executed_units: *//p' "$tmp/live.log")"
# Half the decoded cases are api-* operations, which bwrap (no fs API) skips without spawning:
# also time the probe seeds alone (each one bwrap spawn), three times, through live_replay.
probe_seeds=("$root"/fuzz/corpus/live/probe-*)
probe_runs=()
for round in 1 2 3; do
  start="$(date +%s.%N)"
  BREAKOUT_LIVE_SPAWNER=bwrap BREAKOUT_LIVE_PROBES="$build/bin" taskset -c "$core" "$build/bin/live_replay" \
    "${probe_seeds[@]}" >"$tmp/replay.log" 2>&1 || { tail -n 40 "$tmp/replay.log" >&2; exit 1; }
  probe_runs+=("$(echo "$(date +%s.%N) - $start" | bc)")
done
rate="$(sed -n 's/^stat::average_exec_per_sec: *//p' "$tmp/live.log")"
load_after="$(cut -d' ' -f1-3 /proc/loadavg)"
/usr/bin/python3 - "$p50" "$execs" "$seconds" "$rate" "$core" "${#probe_seeds[@]}" "$load_before" "$load_after" "${probe_runs[@]}" <<'PY'
import statistics, sys
p50, execs, seconds, rate, core = float(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3]), sys.argv[4], sys.argv[5]
probes, load_before, load_after = int(sys.argv[6]), sys.argv[7], sys.argv[8]
runs = [float(x) for x in sys.argv[9:]]
probe_s = statistics.median(runs)
bare = 1000.0 / p50
live = execs / seconds
each = ", ".join(f"{probes / s:.1f}/s ({100 * probes / s / bare:.0f} %)" for s in runs)
print(f"core {core}: bwrap bare spawn p50 {p50:.2f} ms = {bare:.1f} spawns/s; "
      f"live fuzzer {execs} cases in {seconds:.0f} s = {live:.1f} exec/s (libFuzzer average {rate}); "
      f"ratio {100 * live / bare:.0f} %; probe cases only: {probes} in {probe_s:.2f} s (median of {len(runs)}) = "
      f"{probes / probe_s:.1f}/s, ratio {100 * probes / probe_s / bare:.0f} % (runs: {each}); "
      f"load average {load_before} before, {load_after} after")
PY
