#!/usr/bin/env bash
# Every test: set up, build (g++), the clang warning-clean build, the mingw-w64 cross
# build (with the Windows platform layer's tests run under Wine), then unit tests (with fuzz corpus replays), the bench smoke, the
# bounded fuzz sessions and end-to-end tests (ctest: GoogleTest + pytest).
set -euo pipefail
cd "$(dirname "$0")/.."

# Wall seconds and CPU seconds (user + sys of every finished child) per stage, printed at the end
# (also when a stage fails), so a CI log says where the time went and how much of it 2 cores can share.
children_cpu() {  # CPU seconds of this shell's waited-for children so far: cutime + cstime (proc(5))
  awk -v hz="$(getconf CLK_TCK)" '{ sub(/.*\) /, ""); printf "%d", ($14 + $15) / hz }' "/proc/$$/stat"
}
stage_name="setup: packages and the g++ build (ci/setup.sh)" stage_start=$SECONDS stage_cpu=0
stage_times=()
stage() {
  local cpu
  cpu=$(children_cpu)
  stage_times+=("$(printf '%6d s %6d CPU-s  %s' $((SECONDS - stage_start)) $((cpu - stage_cpu)) "$stage_name")")
  stage_name=$1 stage_start=$SECONDS stage_cpu=$cpu
  echo "== $1 =="
}
print_stage_times() {
  stage "" >/dev/null
  echo "== time per stage (ci/test.sh): wall, CPU of its processes =="
  printf '%s\n' "${stage_times[@]}"
  printf '%6d s %6d CPU-s  in all\n' "$SECONDS" "$(children_cpu)"
}
trap print_stage_times EXIT

bash ci/setup.sh

stage "layers: no include points upward (ci/layers.txt)"
bash ci/layers.sh

stage "clang build (warnings are errors)"
cmake --preset clang >/dev/null
cmake --build --preset clang -j "$(nproc)"

stage "mingw-w64 cross build: portable core, Windows platform layer, probes, breakout_win_tests.exe"
cmake --preset mingw >/dev/null
cmake --build --preset mingw -j "$(nproc)"
echo "mingw build ok: $(ls build-mingw/bin/*.exe | wc -l) Windows executables"
bash ci/wine-smoke.sh
stage "breakout bench --spawner none under Wine (short smoke: breakout.bench/1, raw/none/pipe rows, history)"
bash ci/wine-bench.sh
stage "breakout run --spawner none under Wine (the windows suite, judged from results.json)"
bash ci/wine-run.sh
stage "Windows platform-layer unit tests under Wine (GoogleTest)"
bash ci/wine-tests.sh

stage "layer check: each layer links with only the layers below it"
cmake --build --preset default -j "$(nproc)" --target layer-check

stage "unit tests (GoogleTest via ctest)"
ctest --preset default -E e2e_pytest

# A smoke, not a measurement (docs/bench.md): every benchmark runs its calibrated
# schedule briefly, so a broken spawn path fails here; about 15 s in all.
stage "bench smoke (Google Benchmark targets and breakout bench, short min time)"
test -x build/bin/breakout_bench_spawn || { echo "bench binary not built (libbenchmark-dev missing?)" >&2; exit 1; }
build/bin/breakout_bench_spawn --benchmark_min_time=0.01 --benchmark_repetitions=2 --bench_budget=5
mkdir -p build/test-artifacts
build/bin/breakout bench --spawner none --min-time 0.02 --repetitions 3 --budget 5 --no-history \
  --out build/test-artifacts/bench-none.json
build/bin/breakout bench --spawner reference-driver --min-time 0.02 --repetitions 3 --budget 5 --no-history \
  --out build/test-artifacts/bench-reference-driver.json

# The in-process fuzz targets (fuzz/README.md): clang+libFuzzer with ASan+UBSan,
# every corpus and regression input replayed, then 10 s of fuzzing per target with
# new inputs in a temp dir (never the repo's corpus); any crash fails. 60 s of fuzzing
# after the instrumented build (about 30 objects: the longest part on 2 cores).
stage "fuzz: libFuzzer build, corpus replay, bounded sessions"
cmake --preset fuzz >/dev/null
cmake --build --preset fuzz -j "$(nproc)"
ctest --preset fuzz
bash fuzz/run.sh build-fuzz 10

# Verbose so pytest's own summary, with every skip and its reason, is in the log.
stage "end-to-end tests (pytest via ctest)"
ctest --preset default -R e2e_pytest --verbose
