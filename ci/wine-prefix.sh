# Sourced by the ci/wine-*.sh scripts: a throw-away Wine prefix, created before anything runs in it,
# and removed on exit.
#
# wine_prefix_create: makes $WINEPREFIX and runs `wineboot --init` to completion (wineserver -w).
#   Why: on a fresh prefix the first program started also triggers the prefix update in the
#   background, and a CreateProcessW issued while that update runs can fail with
#   ERROR_INTERNAL_ERROR (1359) — seen once in CI (WinLauncher.PassesExitCodesThrough, the first
#   test that starts a child). Creating the prefix first takes that race out of every test.
#   Then selects Wine's null display driver (HKCU\Software\Wine\Drivers, Graphics = null): the
#   desktop-reach class needs top-level windows, which Wine 8.0 makes only with a display driver
#   (without one CreateWindowExW returns NULL, error 0); the null driver makes them with no X
#   server, and nothing can pop up on a developer's display even when DISPLAY is set.
#   Message-only windows and the clipboard work without it (seen here, Wine 8.0).
# wine_cleanup [paths...]: the EXIT trap. Stops this prefix's wineserver and waits until it is gone
#   (wineserver -k only signals; Wine's own processes may still be writing into the prefix), then
#   removes the prefix and any extra paths given. Keeps the script's exit status: a cleanup hiccup
#   must neither fail a passing run nor hide a failing one.
WINE=/usr/lib/wine/wine64
WINESERVER=/usr/lib/wine/wineserver64  # Debian keeps it off PATH

wine_prefix_create() {
  export WINEDEBUG=-all WINEPREFIX="$(mktemp -d /tmp/breakout-wine.XXXXXX)"
  # The wineserver's socket directory is named after the prefix's device and inode
  # ("server-<st_dev hex>-<st_ino hex>", under /tmp/wine-XXXXXX here, /tmp/.wine-<uid> upstream);
  # Wine never removes it. Named now, while the prefix exists and no other can have its inode.
  WINE_SERVER_DIR_NAME="server-$(printf '%x-%x' $(stat -c '%d %i' "$WINEPREFIX"))"
  # Bounded: a prefix that cannot be created must fail the job, not stall it.
  timeout 180 "$WINE" wineboot --init >/dev/null 2>&1 || { echo "wine: wineboot --init failed in $WINEPREFIX" >&2; return 1; }
  timeout 120 "$WINESERVER" -w >/dev/null 2>&1 || { echo "wine: prefix update did not finish in $WINEPREFIX" >&2; return 1; }
  timeout 60 "$WINE" reg add 'HKCU\Software\Wine\Drivers' /v Graphics /d null /f >/dev/null 2>&1 \
    || { echo "wine: could not select the null display driver in $WINEPREFIX" >&2; return 1; }
  timeout 60 "$WINESERVER" -w >/dev/null 2>&1 || { echo "wine: wineserver did not settle in $WINEPREFIX" >&2; return 1; }
}

wine_cleanup() {
  local rc=$?
  [[ -n ${WINEPREFIX:-} ]] || exit "$rc"  # never touch the default prefix (~/.wine)
  "$WINESERVER" -k >/dev/null 2>&1 || true
  timeout 30 "$WINESERVER" -w >/dev/null 2>&1 || true
  local i d
  if [[ -n ${WINE_SERVER_DIR_NAME:-} ]]; then  # its server is gone: its socket directory goes too
    for d in /tmp/wine-*/"$WINE_SERVER_DIR_NAME" "/tmp/.wine-$(id -u)/$WINE_SERVER_DIR_NAME"; do
      [[ -d $d ]] || continue
      rm -rf "$d"
      rmdir "$(dirname "$d")" 2>/dev/null || true  # the parent too, once no other server uses it
    done
  fi
  for i in 1 2 3 4 5; do
    rm -rf "$WINEPREFIX" "$@" 2>/dev/null && break
    sleep 1
  done
  [[ -e $WINEPREFIX ]] && echo "wine: warning: could not remove $WINEPREFIX" >&2
  exit "$rc"
}
