#!/usr/bin/env bash
# Every test: set up, build (g++), the clang warning-clean build, the mingw-w64 cross
# build of the portable core, then unit + end-to-end tests (ctest: GoogleTest + pytest).
set -euo pipefail
cd "$(dirname "$0")/.."
bash ci/setup.sh

echo "== clang build (warnings are errors) =="
cmake --preset clang >/dev/null
cmake --build --preset clang -j "$(nproc)"

echo "== mingw-w64 cross build of the portable core and probes =="
cmake --preset mingw >/dev/null
cmake --build --preset mingw -j "$(nproc)"
echo "mingw build ok: $(ls build-mingw/bin/*.exe | wc -l) Windows executables"
bash ci/wine-smoke.sh

echo "== unit tests (GoogleTest via ctest) =="
ctest --preset default -E e2e_pytest

# Verbose so pytest's own summary, with every skip and its reason, is in the log.
echo "== end-to-end tests (pytest via ctest) =="
ctest --preset default -R e2e_pytest --verbose
