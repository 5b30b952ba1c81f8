#!/usr/bin/env bash
# The include arrows of harness/, probes/ and shared/ against the declared layers (ci/layers.txt):
# prints every `#include "harness/…"`, `"probes/…"` or `"shared/…"` that points upward (to a
# higher layer) or sideways (another layer of the same level), and every file no layer claims.
# Exit 0: none; 1: some; 2: usage. Needs bash and /usr/bin/python3 only.
#
#   ci/layers.sh            # this checkout
#   ci/layers.sh DIR        # another tree holding harness/, probes/ (and shared/)
#   ci/layers.sh --list     # each layer and its file count, lowest first
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(dirname "$here")"
list=0
for arg in "$@"; do
  case "$arg" in
    --list) list=1 ;;
    -h|--help) sed -n '2,9p' "${BASH_SOURCE[0]}"; exit 0 ;;
    -*) echo "layers.sh: unknown option $arg" >&2; exit 2 ;;
    *) root="$arg" ;;
  esac
done
[[ -d "$root/harness" ]] || { echo "layers.sh: no harness/ under $root" >&2; exit 2; }
exec /usr/bin/python3 - "$here/layers.txt" "$root" "$list" <<'PY'
import os, re, sys

layers_file, root, list_only = sys.argv[1], sys.argv[2], sys.argv[3] == "1"
layers = []  # (level, name, prefix)
for n, line in enumerate(open(layers_file, encoding="utf-8"), 1):
    words = line.split("#", 1)[0].split()
    if not words:
        continue
    if len(words) < 3 or not words[0].isdigit():
        sys.exit(f"{layers_file}:{n}: expected '<level> <layer> <prefix>...'")
    layers += [(int(words[0]), words[1], p) for p in words[2:]]
layers.sort(key=lambda l: -len(l[2]))  # longest prefix first
# A prefix's `*` stands for any characters but `/` (harness/classes/*/spec: a family's model files).
matchers = [(level, name, re.compile("[^/]*".join(map(re.escape, prefix.split("*"))))) for level, name, prefix in layers]


def layer_of(path):
    for level, name, prefix in matchers:
        if prefix.match(path):
            return level, name
    return None


INCLUDE = re.compile(r'^\s*#\s*include\s+"((?:harness|probes|shared)/[^"]+)"')
SOURCE = (".h", ".hpp", ".cc", ".cpp", ".c", ".inc")
bad, counts = [], {}
for top in ("harness", "probes", "shared"):
    for dirpath, dirs, files in os.walk(os.path.join(root, top)):
        dirs.sort()
        for f in sorted(files):
            if not f.endswith(SOURCE):
                continue
            rel = os.path.relpath(os.path.join(dirpath, f), root).replace(os.sep, "/")
            me = layer_of(rel)
            if me is None:
                bad.append(f"{rel}: in no layer (declare its directory in ci/layers.txt)")
                continue
            counts[me] = counts.get(me, 0) + 1
            with open(os.path.join(dirpath, f), encoding="utf-8", errors="replace") as src:
                for n, line in enumerate(src, 1):
                    m = INCLUDE.match(line)
                    if not m:
                        continue
                    to = layer_of(m.group(1))
                    if to is None:
                        bad.append(f"{rel}:{n}: includes {m.group(1)}, in no layer")
                    elif to[0] > me[0]:
                        bad.append(f"{rel}:{n}: upward {me[1]} -> {to[1]}: {m.group(1)}")
                    elif to[0] == me[0] and to[1] != me[1]:
                        bad.append(f"{rel}:{n}: sideways {me[1]} -> {to[1]}: {m.group(1)}")
if list_only:
    for (level, name), count in sorted(counts.items()):
        print(f"{level:>2} {name:<10} {count} files")
for b in bad:
    print(b)
if bad:
    print(f"layers.sh: {len(bad)} include(s) against the layers of ci/layers.txt", file=sys.stderr)
sys.exit(1 if bad else 0)
PY
