#!/usr/bin/env bash
# Runs breakout_win_tests.exe (the Windows platform layer's unit tests, tests/win) under Wine; any failure fails CI.
# Usage: bash ci/wine-tests.sh [gtest args...]   (after `cmake --build --preset mingw`)
set -euo pipefail
cd "$(dirname "$0")/.."
exe=build-mingw/bin/breakout_win_tests.exe
[[ -f $exe ]] || { echo "wine tests: $exe not built (cmake --build --preset mingw)" >&2; exit 1; }
source ci/wine-prefix.sh  # after the cd to the repository root
trap wine_cleanup EXIT
wine_prefix_create
start=$(date +%s)
# Bounded: a hung launcher must fail the job, not stall it (each test bounds its own waits too).
set +e
timeout 600 "$WINE" "$exe" --gtest_brief=1 "$@"
rc=$?
set -e
echo "wine tests: exit $rc after $(( $(date +%s) - start )) s (the Wine prefix was created before)"
exit $rc
