#!/usr/bin/env bash
# Installs what breakout needs on a fresh Debian 12 machine (as root) and builds it.
# Idempotent: re-running only builds what changed.
# Usage: bash ci/setup.sh [--run] [--no-build]
#   --run       only what `breakout run` needs (the main command, ci/main.sh): the compiler and the
#               libraries breakout links, bubblewrap and the tools the harness calls; builds the
#               `breakout` binary and its probes, nothing else (no tests, benchmarks, fuzzers).
#   (default)   everything the test command (ci/test.sh) needs: also the test frameworks, clang,
#               mingw-w64 and Wine, Chromium, firejail, gVisor (runsc), the npm-installed sandboxes and checkers.
#   --no-build  install only.
set -euo pipefail
cd "$(dirname "$0")/.."
mode=test build=1
for a in "$@"; do
  case $a in
    --run) mode=run ;;
    --no-build) build=0 ;;
    *) echo "setup: unknown option $a (usage: bash ci/setup.sh [--run] [--no-build])" >&2; exit 2 ;;
  esac
done

# Packages (docs/dependencies.md says why each is here).
RUN_PACKAGES=(
  g++ cmake ninja-build pkg-config
  libboost1.81-dev libtomlplusplus-dev nlohmann-json3-dev libcli11-dev libsqlite3-dev
  python3 bubblewrap iproute2 attr acl
)
TEST_PACKAGES=(
  clang libclang-rt-14-dev
  libgtest-dev libgmock-dev googletest libbenchmark-dev
  python3-pytest chromium
  python3-venv python3-pip python3-setuptools python3-wheel
  firejail socat ripgrep runsc
  g++-mingw-w64-x86-64 wine64
)
PACKAGES=("${RUN_PACKAGES[@]}")
[[ $mode == test ]] && PACKAGES+=("${TEST_PACKAGES[@]}")
missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  if [[ $(id -u) -ne 0 ]]; then
    echo "setup: need root to install: ${missing[*]}" >&2
    exit 1
  fi
  echo "setup: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

if [[ $mode == run ]]; then
  ((build)) || exit 0
  cmake --preset run >/dev/null
  cmake --build --preset run -j "$(nproc)"
  exit 0
fi

# The checkers of the GitHub workflow we ship for users and Microsoft's SARIF validator (ci/tools/package.json,
# pinned by its lock; the npm registry is the only other registry this machine reaches). Debian's nodejs
# lacks npm. `npm ls` fails when a pin is missing or not what is installed, so a new tool gets installed.
if ! command -v npm >/dev/null; then
  [[ $(id -u) -eq 0 ]] || { echo "setup: need root to install nodejs npm" >&2; exit 1; }
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends nodejs npm >/dev/null
fi
if ! npm ls --prefix ci/tools --depth=0 >/dev/null 2>&1; then
  npm ci --prefix ci/tools --no-audit --no-fund --loglevel=error >/dev/null
fi
# The real agent sandboxes breakout ships profiles for (spawners/codex-linux.toml, spawners/srt.toml),
# pinned by spawners/tools/package.json and its lock; `npm ls` fails when a pin is not what is installed.
# Nothing here reads or writes ~/.codex or ~/.srt-settings.json: each spawn gets its own CODEX_HOME
# and settings file in the attempt's spawner directory (docs/spawners.md).
if ! npm ls --prefix spawners/tools --depth=0 >/dev/null 2>&1; then
  npm ci --prefix spawners/tools --no-audit --no-fund --loglevel=error >/dev/null
fi
# The SQLite amalgamation the mingw-w64 build compiles for the history (third_party/sqlite/package.json,
# pinned by its lock; docs/dependencies.md). --ignore-scripts: better-sqlite3's node addon is never built,
# only its deps/sqlite3/sqlite3.{c,h} are used.
if ! npm ls --prefix third_party/sqlite --depth=0 >/dev/null 2>&1; then
  npm ci --prefix third_party/sqlite --ignore-scripts --no-audit --no-fund --loglevel=error >/dev/null
fi
# Two earlier published releases of srt (19 MB each) for `--spawner srt@VERSION` and ci/releases.sh;
# Codex's (about 100 MB each) are installed by ci/releases.sh --codex only.
for release in spawners/releases/srt-*/; do
  if ! npm ls --prefix "$release" --depth=0 >/dev/null 2>&1; then
    npm ci --prefix "$release" --no-audit --no-fund --loglevel=error >/dev/null
  fi
done

((build)) || exit 0
cmake --preset default >/dev/null
cmake --build --preset default -j "$(nproc)"
