#!/usr/bin/env bash
# The main job: set up, build, and run the default suite against this machine's default sandbox (bubblewrap).
# Extra arguments go to `breakout run` (e.g. --spawner firejail, --only 'fs.*').
set -euo pipefail
cd "$(dirname "$0")/.."
bash ci/setup.sh
exec build/bin/breakout run --spawner bwrap "$@"
