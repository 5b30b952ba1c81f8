#!/usr/bin/env bash
# Every test: set up, build (g++), unit + end-to-end tests (ctest: GoogleTest + pytest),
# the clang warning-clean build, and the mingw-w64 cross build of the portable core.
set -euo pipefail
cd "$(dirname "$0")/.."
bash ci/setup.sh

echo "== unit and end-to-end tests (ctest) =="
ctest --preset default

echo "== clang build (warnings are errors) =="
cmake --preset clang >/dev/null
cmake --build --preset clang -j "$(nproc)"

echo "== mingw-w64 cross build of the portable core and probes =="
cmake --preset mingw >/dev/null
cmake --build --preset mingw -j "$(nproc)"
echo "mingw build ok: $(ls build-mingw/bin/*.exe | wc -l) Windows executables"
