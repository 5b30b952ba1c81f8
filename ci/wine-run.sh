#!/usr/bin/env bash
# `breakout.exe run --spawner none` under Wine on the Windows suite (scenarios/suites/windows.toml),
# judged from results.json: the positive control must show every deny as `escape` and every
# control/contract as `pass`; skips must say why; nothing may be `error`, `broken` or `overblock`;
# and enough executions must actually run (an all-skip run fails). docs/windows.md states what runs.
# Usage: bash ci/wine-run.sh   (after `cmake --build --preset mingw`)
set -euo pipefail
cd "$(dirname "$0")/.."
bin=build-mingw/bin
[[ -f $bin/breakout.exe ]] || { echo "wine run: $bin/breakout.exe not built (cmake --build --preset mingw)" >&2; exit 1; }
# Throw-away prefix and results; the run's own temp trees live in the prefix's Temp, removed with it.
out="$(mktemp -d /tmp/breakout-wine-run.XXXXXX)"
source ci/wine-prefix.sh  # after the cd to the repository root
trap 'wine_cleanup "$out"' EXIT
wine_prefix_create
src="Z:$(pwd | tr / '\\')"
fail() { echo "wine run: FAIL: $*" >&2; exit 1; }

# At least this many executions must run (not skip): the suite runs 302 under Wine 8.0 today (2026-12-06).
min_ran=${BREAKOUT_WINE_MIN_RAN:-280}
# Classes that must have run at least one deny (each shown to escape) and one control,
# classes with denies only (lifetime: the heartbeat), and contract classes that must have run.
need_classes="fs-write fs-read net-connect env-leak registry-write named-object-reach desktop-reach process-reach
  registry-read ipc-reach"
need_deny="lifetime"
need_contract="exit-code cwd output-flood no-timeout"
# Windows path forms Wine 8.0 resolves (docs/windows.md, "Path forms and reparse points"): every
# win.path.{write,read}.<form> execution must have run, not skipped. The probe calls a failure
# through a form "unavailable" under Wine, so without this a broken rewrite would hide as a skip.
need_forms="forward-slashes repeated-separators dot-segments trailing-dots-spaces case-swapped rooted
  drive-relative relative local-device verbatim verbatim-forward-slashes nt-object short-name long-path hardlink"

# Job-escape techniques (docs/windows.md, "Job escape under Wine"): these must come out escape in
# every execution (Wine's wbemprox starts the WMI beater, explorer the ShellExecute one), and
# these a skip saying the technique is unavailable (Wine's IRegisteredTask::Run is a stub), with
# the probe's scheduled task gone afterwards.
need_escape="win.job.wmi win.job.shellexecute"
need_unavailable="win.job.schtasks"

# The launch-path, secret and shared-location attempts Wine can run (docs/windows.md, "Process
# access, secrets, shared locations, launch paths"): each must have run 2 deny executions (escape) and 2 allow executions (pass): one deny
# target under each policy, or tcp4 and tcp6 denied under workspace-write and allowed under network-full;
# no way out through a skip. HKLM: Wine lets the harness create HKLM\Software keys.
need_ran4="win.proc.vm-read win.proc.create-thread win.proc.dup-handle win.proc.open-thread
  win.registry.read-hkcu win.registry.read-hklm
  win.shared.users-public win.shared.programdata win.shared.everyone-dir win.shared.user-temp
  win.net.grandchild.create-process win.net.grandchild.shellexecute win.net.grandchild.cmd-start win.net.grandchild.wmi"
# ...and these a skip in every execution with the reason that names the missing route: Wine has no
# WSL (the probe and the harness's own check agree), and it opens \\.\PhysicalDrive0 but cannot read it
# (ReadFile: error 1), which the harness finds itself before the probe runs; its control must pass.
need_route_skip=("win.wsl.write=^N/A: route wsl unavailable here" "win.device.physical-drive=cannot read .*PhysicalDrive0 itself")

# Attempts that must have run a deny (escape) and an allow (pass) execution: the host's own address
# and the proxy-honouring client (aimed at it on Windows). A host with no non-loopback address
# (GetAdaptersAddresses finds none) skips them with that reason: then a warning, not a failure.
need_attempts="net.host-address net.proxy-honouring"

res="$out/res/results.json"
wrong='(.verdict == "skip" and (.reason | length) == 0)
        or (.verdict != "skip" and .role == "deny" and .verdict != "escape")
        or (.verdict != "skip" and .role != "deny" and .verdict != "pass")'
bad_rows=".attempts[] | select($wrong)"' | "\(.id) [\(.role)] \(.verdict): \(.reason)"'
# The evidence and the run of each wrong row (exit code, duration, byte counts, drain and timeout
# flags): the results go with the prefix, so a one-off failure under Wine can only be diagnosed
# from the log (2026-11-30: contract.output-flood got ~5.85 of 8 MiB on both streams, not timed
# out, exit 0: the probe killed by Wine mid-flood when another attempt's nonce scan read its
# memory; docs/windows.md, "Output floods under Wine"). Wine's own "wine client error" lines go
# to the run's stderr: printed below with a wrong row.
wrong_evidence() {
  jq -r ".attempts[] | select($wrong)"' | "  evidence of \(.id): \(.evidence | tostring | .[0:2000]) exit: \(.exit | tostring)"' "$res" >&2 || true
  grep -h 'wine client error' "$out/stderr" >&2 || true
}
run_suite() {
  rm -rf "$out/res"
  start=$(date +%s)
  set +e
  # 1200 s: win_paths.toml roughly trebled the executions (126 -> 334); the run took up to 155 s for 126 under load.
  timeout 1200 "$WINE" "$bin/breakout.exe" --scenarios "$src\\scenarios" --spawners "$src\\spawners" \
    run --spawner none --suite windows --jobs 2 --out "Z:$(tr / '\\' <<<"$out")\\res" \
    >"$out/stdout" 2>"$out/stderr"
  rc=$?
  set -e
  secs=$(( $(date +%s) - start ))
  [[ -f $res ]] || { cat "$out/stderr" >&2; fail "no results.json (run exited $rc after $secs s)"; }
  bad=$(jq -r "$bad_rows" "$res")
}
run_suite
# Wine's CreateProcessW now and then fails inside Wine with ERROR_INTERNAL_ERROR (1359) for one
# spawn out of ~380 (seen once in a fresh-clone CI run, 2026-11-30; the same tree passed on
# rerun). That is Wine's fault, not a verdict: when it is the only wrong row, the suite runs once
# more and the second run is judged as strictly as the first. Any other wrong row fails at once.
if [[ -n $bad ]] && ! grep -qv 'error: the spawner did not start: \[win32\] CreateProcessW .*(error 1359)$' <<<"$bad"; then
  echo "$bad" >&2
  wrong_evidence
  echo "wine run: warning: Wine's CreateProcessW failed internally (error 1359) above; running the suite once more" >&2
  run_suite
fi
# Exit 3 = at least one escape (harness/report/results.cc run_exit_status): what the positive control must give.
[[ $rc -eq 3 ]] || { cat "$out/stderr" >&2; fail "run exited $rc, expected 3 (escapes found)"; }
[[ -z $bad ]] || { echo "$bad" >&2; wrong_evidence; fail "executions with the wrong verdict (above)"; }
ran=$(jq '[.attempts[] | select(.verdict != "skip")] | length' "$res")
(( ran >= min_ran )) || fail "only $ran executions ran, expected at least $min_ran"
ran_role() { jq --arg c "$1" --arg r "$2" '[.attempts[] | select(.class == $c and .role == $r and .verdict != "skip")] | length' "$res"; }
for c in $need_classes; do
  for role in deny allow; do (( $(ran_role "$c" "$role") > 0 )) || fail "class $c ran no $role execution"; done
done
for c in $need_deny; do (( $(ran_role "$c" deny) > 0 )) || fail "class $c ran no deny execution"; done
for c in $need_contract; do (( $(ran_role "$c" contract) > 0 )) || fail "contract class $c did not run"; done
for a in $need_attempts; do
  rows='.attempts[] | select(.attempt == $a)'
  if jq -e --arg a "$a" "[$rows | select(.verdict != \"skip\")] | length == 0" "$res" >/dev/null &&
     jq -e --arg a "$a" "[$rows | select(.target == \"net:tcp4-host\") | .reason | test(\"no non-loopback\")] | all" "$res" >/dev/null; then
    echo "wine run: warning: $a skipped: this host has no non-loopback address" >&2
    continue
  fi
  for role in deny allow; do
    n=$(jq --arg a "$a" --arg r "$role" "[$rows | select(.role == \$r and .verdict != \"skip\")] | length" "$res")
    (( n > 0 )) || fail "attempt $a ran no $role execution"
  done
done
for a in $need_ran4; do
  for role in deny allow; do
    n=$(jq --arg a "$a" --arg r "$role" '[.attempts[] | select(.attempt == $a and .role == $r and .verdict != "skip")] | length' "$res")
    (( n == 2 )) || { jq -r --arg a "$a" '.attempts[] | select(.attempt == $a) | "\(.id) \(.verdict): \(.reason)"' "$res" >&2
                      fail "attempt $a ran $n of 2 $role executions"; }
  done
done
for pair in "${need_route_skip[@]}"; do
  a=${pair%%=*} why=${pair#*=}
  rows=$(jq --arg a "$a" '[.attempts[] | select(.attempt == $a and .role == "deny")] | length' "$res")
  ok=$(jq --arg a "$a" --arg w "$why" '[.attempts[] | select(.attempt == $a and .role == "deny" and .verdict == "skip"
         and (.reason | test($w)))] | length' "$res")
  (( rows > 0 && ok == rows )) || { jq -r --arg a "$a" '.attempts[] | select(.attempt == $a) | "\(.id) \(.verdict): \(.reason)"' "$res" >&2
                                    fail "$a: $ok of $rows deny executions were the expected skip"; }
done
(( $(ran_role device-read allow) > 0 )) || fail "class device-read ran no control (own-device)"
form_rows='.attempts[] | select(.attempt == "win.path.write." + $f or .attempt == "win.path.read." + $f)'
for f in $need_forms; do
  ran_form=$(jq --arg f "$f" "[$form_rows | select(.verdict != \"skip\")] | length" "$res")
  # 2 attempts (write, read) x 2 targets (deny, control) x 2 policies
  (( ran_form == 8 )) || { jq -r --arg f "$f" "$form_rows"' | "\(.id) \(.verdict): \(.reason)"' "$res" >&2
                           fail "path form $f: $ran_form of 8 executions ran"; }
done
for a in $need_escape; do
  rows=$(jq --arg a "$a" '[.attempts[] | select(.attempt == $a)] | length' "$res")
  # ...and the harness killed the beater after judging (in the job, or outside it by the nonce scan).
  esc=$(jq --arg a "$a" '[.attempts[] | select(.attempt == $a and .verdict == "escape"
         and (.evidence.killed_after_judging // 0) >= 1)] | length' "$res")
  (( rows > 0 && esc == rows )) || { jq -r --arg a "$a" '.attempts[] | select(.attempt == $a) | "\(.id) \(.verdict): \(.reason) [killed: \(.evidence.killed_after_judging)]"' "$res" >&2
                                     fail "$a: $esc of $rows executions escaped and had their beater killed"; }
done
for a in $need_unavailable; do
  rows=$(jq --arg a "$a" '[.attempts[] | select(.attempt == $a)] | length' "$res")
  ok=$(jq --arg a "$a" '[.attempts[] | select(.attempt == $a and .verdict == "skip"
         and (.reason | test("unavailable here")) and (.evidence.scheduled_task_after_judging // "" | test("^(absent|removed)$")))] | length' "$res")
  (( rows > 0 && ok == rows )) || { jq -r --arg a "$a" '.attempts[] | select(.attempt == $a) | "\(.id) \(.verdict): \(.reason) [task: \(.evidence.scheduled_task_after_judging)]"' "$res" >&2
                                    fail "$a: $ok of $rows executions were the expected skip with the task gone"; }
done
# The run is in the history at the default Windows location: %LOCALAPPDATA%\breakout\history.sqlite of
# the throw-away prefix's user (removed with the prefix; the real HOME is never written), and
# `breakout.exe history` lists it with its counts. A second run (the 1359 retry above) is listed too.
run_id=$(jq -r .run.id "$res")
db=$(find "$WINEPREFIX/drive_c/users" -path '*/AppData/Local/breakout/history.sqlite' -print -quit)
[[ -n $db ]] || { grep -a 'History' "$out/stdout" >&2; fail "no history.sqlite under the prefix's %LOCALAPPDATA%\\breakout"; }
listed=$("$WINE" "$bin/breakout.exe" history 2>&1) || { echo "$listed" >&2; fail "breakout.exe history failed"; }
grep -q "^$run_id  *none  *windows " <<<"$listed" || { echo "$listed" >&2; fail "run $run_id is not listed by breakout.exe history"; }
# The protected paths of an agent's checkout through the Windows spellings (suite windows-protected,
# scenarios/attempts/win_protected.toml; docs/windows.md, "Protected paths"): judged by the same rule,
# every deny an escape and every control a pass. The forms Wine resolves must have run both executions
# (deny, control): the probe calls a failure through a form "unavailable" under Wine, so a form that
# stopped resolving would otherwise hide as a skip. Streams, junctions and symlinks are skips here.
need_protected="win.protected.append win.protected.create-hook win.protected.case-variant win.protected.rename-away
  win.protected.form.case-swapped win.protected.form.trailing-dots-spaces win.protected.form.short-name
  win.protected.form.verbatim win.protected.form.hardlink"
pres="$out/res-protected/results.json"
set +e
timeout 600 "$WINE" "$bin/breakout.exe" --scenarios "$src\\scenarios" --spawners "$src\\spawners" \
  run --spawner none --suite windows-protected --jobs 2 --no-history --out "Z:$(tr / '\\' <<<"$out")\\res-protected" \
  >"$out/stdout-protected" 2>"$out/stderr-protected"
prc=$?
set -e
[[ -f $pres ]] || { cat "$out/stderr-protected" >&2; fail "windows-protected: no results.json (run exited $prc)"; }
[[ $prc -eq 3 ]] || { cat "$out/stderr-protected" >&2; fail "windows-protected: run exited $prc, expected 3 (escapes found)"; }
pbad=$(jq -r "$bad_rows" "$pres")
[[ -z $pbad ]] || { echo "$pbad" >&2; fail "windows-protected: executions with the wrong verdict (above)"; }
for a in $need_protected; do
  for role in deny allow; do
    n=$(jq --arg a "$a" --arg r "$role" '[.attempts[] | select(.attempt == $a and .role == $r and .verdict != "skip")] | length' "$pres")
    (( n > 0 )) || { jq -r --arg a "$a" '.attempts[] | select(.attempt == $a) | "\(.id) \(.verdict): \(.reason)"' "$pres" >&2
                     fail "windows-protected: $a ran no $role execution"; }
  done
done
jq -r '[.attempts[] | select(.verdict == "skip") | .reason] | group_by(.) | map("  windows-protected skip x\(length): \(.[0])") | .[]' "$pres"
psummary=$(jq -r '[.attempts[].verdict] | group_by(.) | map("\(.[0])=\(length)") | join(" ")' "$pres")
echo "wine run: windows-protected ok: $psummary"
# The log says what was skipped and why, per reason.
jq -r '[.attempts[] | select(.verdict == "skip") | .reason] | group_by(.) | map("  skip x\(length): \(.[0])") | .[]' "$res"
[[ -z ${BREAKOUT_WINE_RUN_KEEP:-} ]] || cp "$res" "$BREAKOUT_WINE_RUN_KEEP"
summary=$(jq -r '[.attempts[].verdict] | group_by(.) | map("\(.[0])=\(length)") | join(" ")' "$res")
classes=$(jq -r '[.attempts[] | select(.verdict != "skip") | .class] | unique | join(" ")' "$res")
echo "wine run: ok after $secs s: $ran executions ran ($summary); classes: $classes; run $run_id in the history"
