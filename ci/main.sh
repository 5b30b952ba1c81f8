#!/usr/bin/env bash
# The main job: install what running needs, build breakout and its probes, and run the default
# suite against this machine's default sandbox (bubblewrap). run writes the HTML report and the Markdown summary beside the results;
# the summary is appended to $GITHUB_STEP_SUMMARY when CI provides one. Extra arguments go to
# `breakout run` (e.g. --spawner firejail, --only 'fs.*'); the exit status is run's.
set -euo pipefail
cd "$(dirname "$0")/.."
bash ci/setup.sh --run  # what running needs only; the test command installs and builds the rest
out="breakout-results/$(date -u +%Y%m%dT%H%M%SZ)-main"
set +e
build/bin/breakout run --spawner bwrap --out "$out" "$@"
rc=$?
set -e
if [[ -f "$out/summary.md" && -n "${GITHUB_STEP_SUMMARY:-}" ]]; then
  cat "$out/summary.md" >> "$GITHUB_STEP_SUMMARY"
fi
exit "$rc"
