#!/usr/bin/env bash
# The CI gate for users' pipelines: run a suite against a spawner, write results, JUnit, SARIF, the HTML
# report and the Markdown summary, and fail only on findings an accepted baseline does not cover.
#
# Usage: bash ci/gate.sh [--spawner S | --driver CMD] [--suite NAME|FILE] [--baseline FILE]
#                        [--allow-change LIST] [--out DIR] [--bin PATH] [-- RUN_ARGS...]
# Defaults from the environment: BREAKOUT_SPAWNER (else bwrap), BREAKOUT_SUITE (else default),
# BREAKOUT_BASELINE, BREAKOUT_ALLOW_CHANGE, BREAKOUT_BIN (else build/bin/breakout), BREAKOUT_OUT.
# Exit status (docs/ci.md): 0 nothing new, no coverage lost; 4 a new escape or failing verdict
# relative to the baseline; 5 lost coverage: nothing judged, or against the baseline a passed
# execution no longer judged or another spawner/version/suite/policy set/platform (--allow-change
# spawner,version,suite,policies,platform waives those); without a baseline, run's own status
# (3 an escape, 1 overblock/broken/error, 5 every execution skipped); 2 usage, configuration or a
# spawner that cannot start; 130 interrupted. ci/gate.ps1 is the same gate in PowerShell.
set -uo pipefail
cd "$(dirname "$0")/.."

spawner=${BREAKOUT_SPAWNER:-bwrap} driver="" suite=${BREAKOUT_SUITE:-default}
baseline=${BREAKOUT_BASELINE:-} allow_change=${BREAKOUT_ALLOW_CHANGE:-} bin=${BREAKOUT_BIN:-build/bin/breakout}
out=${BREAKOUT_OUT:-breakout-results/$(date -u +%Y%m%dT%H%M%SZ)-gate}
usage() { sed -n '5,14p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
need() { [[ $# -ge 2 && -n $2 ]] || { echo "gate: $1 needs a value" >&2; exit 2; }; }
extra=()
while [[ $# -gt 0 ]]; do
  case $1 in
    --spawner) need "$@"; spawner=$2; shift 2 ;;
    --driver) need "$@"; driver=$2; shift 2 ;;
    --suite) need "$@"; suite=$2; shift 2 ;;
    --baseline) need "$@"; baseline=$2; shift 2 ;;
    --allow-change) need "$@"; allow_change=$2; shift 2 ;;
    --out) need "$@"; out=$2; shift 2 ;;
    --bin) need "$@"; bin=$2; shift 2 ;;
    --) shift; extra=("$@"); break ;;
    -h|--help) usage ;;
    *) echo "gate: unknown argument '$1'" >&2; usage ;;
  esac
done
[[ -x $bin ]] || { echo "gate: no breakout binary at $bin (build it, or pass --bin)" >&2; exit 2; }
[[ -z $baseline || -f $baseline ]] || { echo "gate: baseline $baseline does not exist" >&2; exit 2; }

how=(--spawner "$spawner")
[[ -n $driver ]] && how=(--driver "$driver")
"$bin" run "${how[@]}" --suite "$suite" --out "$out" "${extra[@]}"
rc=$?
echo "gate: breakout run exited $rc"
# 2 (usage, configuration, a spawner that cannot start) and 130 (interrupted) are not findings to gate on.
if [[ ! -f $out/results.json ]] || [[ $rc -eq 2 || $rc -eq 130 ]]; then
  echo "gate: FAIL: the run did not complete (exit $rc); nothing was judged" >&2
  exit $(( rc == 130 ? 130 : 2 ))
fi

report_args=()
# With a baseline, results.sarif is written again with the findings it accepts marked suppressed.
[[ -n $baseline ]] && report_args=(--baseline "$baseline" --sarif "$out/results.sarif")
"$bin" report "$out/results.json" --out "$out/report.html" --markdown "$out/summary.md" "${report_args[@]}" \
  || echo "gate: warning: report not written" >&2
gate=$rc
if [[ -n $baseline ]]; then
  allow=()
  [[ -n $allow_change ]] && allow=(--allow-change "$allow_change")
  "$bin" diff --baseline "$baseline" "$out/results.json" --json "$out/diff.json" "${allow[@]}" | tee "$out/diff.txt"
  gate=${PIPESTATUS[0]}
  { echo; echo "### Gate against the baseline \`${baseline//\`/}\`"; echo; echo '```'; head -c 60000 "$out/diff.txt" | tr '`' "'"; echo '```'; } \
    >> "$out/summary.md"
fi
[[ -n ${GITHUB_STEP_SUMMARY:-} && -f $out/summary.md ]] && cat "$out/summary.md" >> "$GITHUB_STEP_SUMMARY"
echo "gate: results $out/results.json, JUnit $out/junit.xml, SARIF $out/results.sarif, report $out/report.html, summary $out/summary.md"
case $gate in
  0) echo "gate: PASS" ;;
  4) echo "gate: FAIL: a new escape or failing verdict that the baseline does not accept" >&2 ;;
  3) echo "gate: FAIL: escapes (no baseline given; accept known ones with breakout baseline)" >&2 ;;
  5) echo "gate: FAIL: lost coverage: nothing was judged, or less or something else than the baseline describes (the reason is above)" >&2 ;;
  *) echo "gate: FAIL: exit $gate" >&2 ;;
esac
exit "$gate"
