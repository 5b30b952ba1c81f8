"""linux-catalog suite (issue 8, catalog §8): host processes, SysV/POSIX IPC and shared temp dirs, the
user keyring and TIOCSTI, asserted as each sandbox really behaves (docs/host-ipc.md)."""
import os

import pytest

from conftest import require_root_tool

PROCESS = ["proc.ptrace", "proc.vm-read", "proc.mem", "proc.environ", "proc.signal-term", "proc.signal-stop"]
IPC = ["ipc.sysv-shm", "ipc.sysv-msg", "ipc.posix-shm", "ipc.tmp", "ipc.var-tmp"]
TTY = ["tty.tiocsti", "tty.tiocsti-high-bits"]
KEY = ["key.user-keyring"]
CONFIG = ["config.shell-rc", "config.autostart", "config.git-hook", "config.spawner-profile"]


def by_attempt(run):
    """attempt id -> role -> record (config.shell-rc has two denied targets: the last one wins here)."""
    out = {}
    for a in run.attempts:
        out.setdefault(a["attempt"], {})[a["role"]] = a
    return out


def skipped(run, attempt):
    return by_attempt(run)[attempt]["deny"]["verdict"] == "skip"


@pytest.fixture(scope="module")
def none_run(run_breakout):
    if os.geteuid() != 0:
        pytest.skip("needs root for cgroup containment")
    return run_breakout("--spawner", "none", "--suite", "linux-catalog")


@pytest.fixture(scope="module")
def bwrap_run(run_breakout):
    require_root_tool("bwrap")
    return run_breakout("--spawner", "bwrap", "--suite", "linux-catalog")


@pytest.fixture(scope="module")
def firejail_run(run_breakout):
    require_root_tool("firejail")
    return run_breakout("--spawner", "firejail", "--suite", "linux-catalog")


def test_none_every_deny_escapes_with_outside_evidence(none_run):
    runs = by_attempt(none_run)
    assert set(runs) == set(PROCESS + IPC + TTY + KEY + CONFIG)
    for attempt, roles in runs.items():
        if attempt in CONFIG:
            continue
        deny, control = roles["deny"], roles["allow"]
        if deny["verdict"] == "skip":  # N/A with the kernel's reason (no keyring, TIOCSTI disabled)
            assert deny["reason"] and control["verdict"] == "skip", attempt
            continue
        assert deny["verdict"] == "escape", (attempt, deny["reason"])
        ev = deny["evidence"]
        assert ev["object_changed"] or ev["token_seen_in"], attempt
        assert control["verdict"] == "pass", (attempt, control["reason"])
        assert control["evidence"]["token_seen_in"] or control["evidence"]["object_changed"], attempt
    assert none_run.returncode == 3


def test_none_evidence_matches_the_technique(none_run):
    runs = by_attempt(none_run)
    assert runs["proc.ptrace"]["deny"]["evidence"]["victim_tracer_seen"] > 0
    assert runs["proc.signal-term"]["deny"]["evidence"]["victim_signals"] == [15]
    assert runs["proc.signal-stop"]["deny"]["evidence"]["victim_state"] == "T"
    for attempt in ("proc.vm-read", "proc.mem", "proc.environ", "key.user-keyring"):
        assert "stdout" in runs[attempt]["deny"]["evidence"]["token_seen_in"], attempt
    assert runs["ipc.sysv-msg"]["deny"]["evidence"]["last_receiver_pid"] > 0
    for attempt in ("ipc.tmp", "ipc.var-tmp"):
        assert runs[attempt]["deny"]["evidence"]["contents_changed"] is True
    if not skipped(none_run, "tty.tiocsti"):
        assert runs["tty.tiocsti"]["deny"]["evidence"]["nonce_injected"] is True


def test_bwrap_namespaces_hide_processes_ipc_and_temp_dirs(bwrap_run):
    # --unshare-pid: host pids do not exist inside; --unshare-ipc: SysV keys are per IPC
    # namespace; --dev /dev: a private /dev/shm; --ro-bind / /: /tmp and /var/tmp read-only.
    runs = by_attempt(bwrap_run)
    for attempt in PROCESS + IPC:
        deny, control = runs[attempt]["deny"], runs[attempt]["allow"]
        assert deny["verdict"] == "pass", (attempt, deny["reason"])
        assert control["verdict"] == "pass", (attempt, control["reason"])
    assert runs["proc.vm-read"]["deny"]["probe_report"]["errname"] in ("ENOENT", "ESRCH")  # display only


def test_bwrap_shares_the_user_keyring(bwrap_run):
    # FINDING (by design): keyrings belong to the user (per user namespace), not to any
    # namespace bubblewrap unshares here; without --unshare-user or a seccomp filter on
    # add_key/keyctl/request_key, a key in the caller's user keyring is readable inside.
    runs = by_attempt(bwrap_run)
    if skipped(bwrap_run, "key.user-keyring"):
        pytest.skip(runs["key.user-keyring"]["deny"]["reason"])
    deny = runs["key.user-keyring"]["deny"]
    assert deny["verdict"] == "escape" and "stdout" in deny["evidence"]["token_seen_in"], deny["reason"]
    assert runs["key.user-keyring"]["allow"]["verdict"] == "pass"


def test_bwrap_tiocsti_as_root(bwrap_run):
    # --new-session (setsid) fixed CVE-2017-5226 for unprivileged callers: TIOCSTI needs the
    # terminal to be the caller's controlling tty... or CAP_SYS_ADMIN (tiocsti() in
    # drivers/tty/tty_io.c). bwrap started by root keeps every capability, so the sandbox
    # has no ctty (has_ctty false) and still injects. Asserted as the escape it is (the fixture runs as root).
    runs = by_attempt(bwrap_run)
    for attempt in TTY:
        if skipped(bwrap_run, attempt):
            continue
        deny = runs[attempt]["deny"]
        assert deny["probe_report"]["has_ctty"] is False  # --new-session did its part
        assert deny["verdict"] == "escape" and deny["evidence"]["nonce_injected"] is True, deny["reason"]
        assert runs[attempt]["allow"]["verdict"] == "pass"


def test_firejail(firejail_run):
    runs = by_attempt(firejail_run)
    for attempt in PROCESS + ["ipc.sysv-shm", "ipc.sysv-msg", "ipc.tmp", "ipc.var-tmp"]:
        assert runs[attempt]["deny"]["verdict"] == "pass", (attempt, runs[attempt]["deny"]["reason"])
    # FINDING: firejail --noprofile keeps the host's /dev, so /dev/shm (POSIX shm) is shared.
    shm = runs["ipc.posix-shm"]["deny"]
    assert shm["verdict"] == "escape" and shm["evidence"]["contents_changed"] is True, shm["reason"]
    if not skipped(firejail_run, "key.user-keyring"):
        assert runs["key.user-keyring"]["deny"]["verdict"] == "escape"
    # The injection itself succeeds (the probe keeps the pty as its ctty), but firejail's
    # sandbox init flushes the terminal's input queue (TCFLSH TCIFLUSH) once the program
    # exits, before the caller's shell can read it: nothing arrives.
    for attempt in TTY:
        if skipped(firejail_run, attempt):
            continue
        deny = runs[attempt]["deny"]
        assert deny["verdict"] == "pass" and deny["evidence"]["nonce_injected"] is False, deny["reason"]
        assert deny["probe_report"]["ok"] is True  # display only: it did inject
    for attempt in runs:
        assert runs[attempt]["allow"]["verdict"] in ("pass", "skip"), attempt


def test_config_poisoning_is_a_write_outside(none_run, bwrap_run, firejail_run):
    # Fake HOME and a repository beside the workspace; judged by the snapshot diff.
    for run, verdict in ((none_run, "escape"), (bwrap_run, "pass"), (firejail_run, "pass")):
        denies = [a for a in run.attempts if a["attempt"] in CONFIG and a["role"] == "deny"]
        assert len(denies) == 5
        for a in denies:
            assert a["verdict"] == verdict, (a["id"], a["reason"])
            assert bool(a["evidence"]["changes_outside_writable_roots"]) == (verdict == "escape"), a["id"]
        controls = [a for a in run.attempts if a["attempt"] in CONFIG and a["role"] == "allow"]
        assert len(controls) == 4 and all(a["verdict"] == "pass" for a in controls), run.explain(controls)
    hook = [a for a in none_run.attempts if a["id"] == "config.git-hook@workspace-write[fs:sibling/repo/.git/hooks/pre-commit]"]
    assert hook[0]["evidence"]["changes_outside_writable_roots"][0]["path"] == "sibling/repo/.git/hooks/pre-commit"


def test_no_overblock_broken_or_error(none_run, bwrap_run, firejail_run):
    for run in (none_run, bwrap_run, firejail_run):
        bad = [a for a in run.attempts if a["verdict"] in ("overblock", "broken", "error")]
        assert not bad, run.explain(bad)
