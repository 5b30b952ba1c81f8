#!/usr/bin/env bash
# Bounded libFuzzer sessions: each target from its seed corpus and regressions, new inputs into a temp dir only.
#
#   fuzz/run.sh [BUILD_DIR] [SECONDS] [TARGET...]   (defaults: build-fuzz, 10, every *_fuzzer)
# Fails on the first crash, leak, timeout or OOM, printing the reproducer's path
# (kept under $BREAKOUT_FUZZ_ARTIFACTS, default a temp dir). Ends with one table
# row per target: executions and exec/s from libFuzzer's -print_final_stats, and
# (with /usr/bin/time) executions per second of the fuzzer's own CPU time, the
# figure that stays comparable on a loaded machine (docs/figures.md).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="$(cd "${1:-$root/build-fuzz}" && pwd)"
seconds="${2:-10}"
shift $(( $# > 2 ? 2 : $# ))
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  for f in "$root"/fuzz/*_fuzzer.cc; do targets+=("$(basename "$f" .cc)"); done
  # live_fuzzer spawns a real sandbox and lives in the g++ build (docs/fuzzing.md); its
  # bounded runs are tests/e2e/test_live_fuzzer.py.
  targets=("${targets[@]/live_fuzzer}")
fi
artifacts="${BREAKOUT_FUZZ_ARTIFACTS:-$(mktemp -d -t breakout-fuzz-artifacts.XXXXXX)}"
mkdir -p "$artifacts"
work=""
keep_artifacts=0
# Whatever ends the run (a clean finish, a find, an error, Ctrl-C, SIGTERM), the new-inputs dir
# goes, and so does a temp artifacts dir unless a find is kept in it (interrupted runs used to
# leave both behind). bash runs these traps once the foreground fuzzer has returned: its runs are
# bounded by -max_total_time, and Ctrl-C reaches it too (same process group) and stops it at once.
cleanup() {
  [ -n "$work" ] && rm -rf "$work"
  if [ -z "${BREAKOUT_FUZZ_ARTIFACTS:-}" ] && [ "$keep_artifacts" = 0 ]; then rm -rf "$artifacts"; fi
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
rows=()
newdir_base="${BREAKOUT_FUZZ_TMPDIR:-}"
if [ -z "$newdir_base" ] && [ -d /dev/shm ] && [ -w /dev/shm ]; then newdir_base=/dev/shm; fi
for t in "${targets[@]}"; do
  [ -n "$t" ] || continue
  thing="${t%_fuzzer}"
  bin="$build/fuzz/${thing}_fuzzer"
  [ -x "$bin" ] || { echo "fuzz: $bin not built (cmake --build --preset fuzz)" >&2; exit 1; }
  # libFuzzer itself ignores .options (ClusterFuzz reads them): pass its [libfuzzer] keys as
  # flags and its [asan] keys as ASAN_OPTIONS (after any the caller set, so the file wins).
  opts=()
  asan="${ASAN_OPTIONS:-}"
  section=""
  if [ -f "$root/fuzz/${thing}_fuzzer.options" ]; then
    while IFS= read -r line; do
      if [[ "$line" =~ ^\[([a-z]+)\] ]]; then section="${BASH_REMATCH[1]}"; continue; fi
      [[ "$line" =~ ^([a-z_]+)[[:space:]]*=[[:space:]]*(.+)$ ]] || continue
      case "$section" in
        libfuzzer) opts+=("-${BASH_REMATCH[1]}=${BASH_REMATCH[2]}") ;;
        asan) asan="${asan:+$asan:}${BASH_REMATCH[1]}=${BASH_REMATCH[2]}" ;;
      esac
    done < "$root/fuzz/${thing}_fuzzer.options"
  fi
  # The first dir gets new inputs: never the repo's. On tmpfs when there is one: libFuzzer writes a
  # file per new input (and deletes the ones it reduces), ~1,000 in a 10 s session, and creating them
  # on this machine's ext4 /tmp was ~12 % of a TOML target's CPU time (perf: ext4_create,
  # find_inode_bit, recently_deleted). BREAKOUT_FUZZ_TMPDIR picks another place.
  if [ -n "$newdir_base" ]; then work="$(mktemp -d -p "$newdir_base" "breakout-fuzz-$thing.XXXXXX")"
  else work="$(mktemp -d -t "breakout-fuzz-$thing.XXXXXX")"; fi
  seeds=("$root/fuzz/corpus/$thing")
  [ -d "$root/fuzz/regressions/$thing" ] && seeds+=("$root/fuzz/regressions/$thing")
  log="$artifacts/$thing.log"
  echo "== fuzz $thing: ${seconds}s =="
  timer=()
  [ -x /usr/bin/time ] && timer=(/usr/bin/time -f '%U %S' -o "$artifacts/$thing.cpu")
  rc=0
  ASAN_OPTIONS="$asan" "${timer[@]}" "$bin" "${opts[@]}" -dict="$root/fuzz/${thing}_fuzzer.dict" -max_total_time="$seconds" \
    -rss_limit_mb=2048 -timeout=10 -print_final_stats=1 -artifact_prefix="$artifacts/$thing-" \
    "$work" "${seeds[@]}" >"$log" 2>&1 || rc=$?
  # 72 is libFuzzer's -interrupted_exitcode: it caught the Ctrl-C itself (so bash saw no signal).
  if [ "$rc" = 72 ]; then echo "fuzz: $thing interrupted" >&2; exit 130; fi
  if [ "$rc" != 0 ]; then
    tail -n 60 "$log" >&2
    keep_artifacts=1
    echo "fuzz: $thing FAILED; reproducer(s): $(ls "$artifacts"/"$thing"-* 2>/dev/null | tr '\n' ' ')" >&2
    exit 1
  fi
  execs="$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")"
  rate="$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log")"
  cpu="-"
  cpu_rate="-"
  if [ -s "$artifacts/$thing.cpu" ]; then
    cpu="$(tail -n 1 "$artifacts/$thing.cpu" | awk '{printf "%.1f", $1 + $2}')"
    cpu_rate="$(awk -v n="$execs" -v c="$cpu" 'BEGIN { if (c > 0) printf "%d", n / c; else print "-" }')"
  fi
  rows+=("$(printf '| %-22s | %10s | %8s | %6s | %10s |' "${thing}_fuzzer" "$execs" "$rate" "$cpu" "$cpu_rate")")
  rm -rf "$work"
  work=""
done
printf '| %-22s | %10s | %8s | %6s | %10s |\n|%s|%s|%s|%s|%s|\n' target executions exec/s "CPU s" "exec/CPU s" \
  "------------------------" "------------" "----------" "--------" "------------"
printf '%s\n' "${rows[@]}"
# A clean run leaves nothing behind (cleanup, above): the temp artifacts dir holds only logs then;
# a find exits above and keeps its reproducer there. A caller's BREAKOUT_FUZZ_ARTIFACTS stays.
