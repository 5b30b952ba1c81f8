#!/usr/bin/env bash
# The main job: set up, build, and run the default suite against this machine's default
# sandbox (bubblewrap); then write the HTML report and a Markdown summary beside the results
# (appended to $GITHUB_STEP_SUMMARY when CI provides one). Extra arguments go to
# `breakout run` (e.g. --spawner firejail, --only 'fs.*'); the exit status is run's.
set -euo pipefail
cd "$(dirname "$0")/.."
bash ci/setup.sh
out="breakout-results/$(date -u +%Y%m%dT%H%M%SZ)-main"
set +e
build/bin/breakout run --spawner bwrap --out "$out" "$@"
rc=$?
set -e
if [[ -f "$out/results.json" ]]; then
  build/bin/breakout report "$out/results.json" --out "$out/report.html" --markdown "$out/summary.md" --no-history
  [[ -n "${GITHUB_STEP_SUMMARY:-}" ]] && cat "$out/summary.md" >> "$GITHUB_STEP_SUMMARY"
  echo "Report:  $out/report.html"
fi
exit "$rc"
