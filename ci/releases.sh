#!/usr/bin/env bash
# Release over release: the same suites against three published releases of each agent sandbox,
# recorded in one history, then `breakout history --trend` (docs/spawners.md, "Release over release").
# Usage: bash ci/releases.sh [--codex] [--keep DIR]
#   --codex   also Codex CLI 0.169.0, 0.169.1 and the pin (installs about 100 MB per release)
#   --keep    keep the history and results in DIR (default: a temporary directory, removed on exit)
set -euo pipefail
cd "$(dirname "$0")/.."
codex=0 keep=""
while (($#)); do
  case "$1" in
    --codex) codex=1 ;;
    --keep) keep="$2"; shift ;;
    *) echo "usage: bash ci/releases.sh [--codex] [--keep DIR]" >&2; exit 2 ;;
  esac
  shift
done
bash ci/setup.sh >/dev/null  # the build, the pins and srt's releases
if [[ -n "$keep" ]]; then
  work="$keep"; mkdir -p "$work"
else
  work=$(mktemp -d /tmp/breakout-releases.XXXXXX)
  trap 'rm -rf "$work"' EXIT INT TERM
fi
history="$work/history.sqlite"
run() {  # SPAWNER[@VERSION] SUITE
  local out="$work/${1//@/-}-$2"
  echo "== $1 / $2"
  # Exit status 3 (escapes) is a finding, not a failure of this script; anything else is.
  local rc=0
  build/bin/breakout run --spawner "$1" --suite "$2" --history "$history" --out "$out" --jobs 4 \
    >"$out.log" 2>&1 || rc=$?
  grep -E '^Total:' "$out.log" || true
  if ((rc != 0 && rc != 3)); then
    tail -5 "$out.log" >&2
    exit "$rc"
  fi
}
spawners=(srt@0.0.81 srt@0.0.82 srt)
if ((codex)); then
  for release in spawners/releases/codex-linux-*/; do
    npm ls --prefix "$release" --depth=0 >/dev/null 2>&1 ||
      npm ci --prefix "$release" --no-audit --no-fund --loglevel=error >/dev/null
  done
  spawners+=(codex-linux@0.169.0 codex-linux@0.169.1 codex-linux)
fi
for s in "${spawners[@]}"; do
  for suite in default network; do run "$s" "$suite"; done
done
names=$(printf '%s\n' "${spawners[@]%@*}" | sort -u)
for name in $names; do build/bin/breakout history --history "$history" --trend "$name"; done
