# Sourced by the ci/wine-*.sh scripts: their EXIT trap. Stops this prefix's wineserver and waits until
# it is gone (wineserver -k only signals; Wine's own processes may still be writing into the prefix),
# then removes the prefix and any extra paths given. Keeps the script's exit status: a cleanup hiccup
# must neither fail a passing run nor hide a failing one.
wine_cleanup() {
  local rc=$?
  wineserver -k >/dev/null 2>&1 || true
  timeout 30 wineserver -w >/dev/null 2>&1 || true
  local i
  for i in 1 2 3 4 5; do
    rm -rf "$WINEPREFIX" "$@" 2>/dev/null && break
    sleep 1
  done
  [[ -e $WINEPREFIX ]] && echo "wine: warning: could not remove $WINEPREFIX" >&2
  exit "$rc"
}
