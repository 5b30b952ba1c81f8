"""The agent-escape attempt classes (what agent sandboxes got wrong in 2024-2026) on every spawner it
names: `none` escapes on each denial, bwrap, firejail and the reference driver pass, and the two
real agent sandboxes give the verdicts signed in docs/spawners.md.

Runs `--only` the new attempts, so it is quick; the full default suite against Codex and srt is
test_agent_sandboxes.py.
"""

import pytest

from six_spawners import SPAWNERS, remove_residue_since, require_spawner, tool_residue
from conftest import FIXTURES


# The agent-escape attempts in the default suite (--only globs; nested-userns* takes -clone3 too).
NEW = ["fs.write.mkfifo*", "fs.write.mknod*", "fs.write.reopen-rw*", "fs.write.nested-userns*", "exec.*",
       "ipc.fd-leak*"]
# Non-pass verdicts other than skip, per spawner (none: every denial, checked below).
SIGNED_ESCAPES = {
    "bwrap": set(), "firejail": set(), "reference": set(),
    # codex sandbox passes the caller's open fds into the sandbox (by hand in docs/spawners.md).
    "codex-linux": {"ipc.fd-leak@workspace-write[fs:sibling]", "ipc.fd-leak@network-full[fs:sibling]"},
    # srt runs its bwrap, socat and rg (and its `node`) from the caller's PATH, on the host.
    "srt": {"exec.path-hijack@workspace-write[fs:sibling]"},
}
# Declared skips: reason prefix -> count.
DECLARED = {"codex-linux": {"codex-linux makes the exec's cwd writable": 4},
            "bwrap": {"bwrap passes the caller's fds on": 2}}



@pytest.fixture(scope="module", params=sorted(SPAWNERS))
def new_classes(request, run_breakout):
    name = request.param
    require_spawner(name)
    before = tool_residue()
    runs = [run_breakout(*SPAWNERS[name][0], "--only", glob, timeout=600) for glob in NEW]
    remove_residue_since(before)
    for run in runs:
        assert run.results is not None, run.stderr[-2000:]
    return name, [a for run in runs for a in run.attempts]


def explain(records):
    return "\n".join(f"{a['verdict']:9} {a['id']}: {a['reason']}" for a in records)


def test_every_new_class_ran(new_classes):
    _, attempts = new_classes
    classes = {a["class"] for a in attempts}
    assert {"fs-write", "cwd-write", "path-hijack", "fail-open", "fd-leak"} <= classes, classes
    ops = {a["attempt"] for a in attempts}
    assert {"fs.write.mkfifo", "fs.write.mknod", "fs.write.reopen-rw", "fs.write.nested-userns",
            "fs.write.nested-userns-clone3", "exec.cwd-outside", "exec.path-hijack", "exec.fail-open",
            "exec.fail-open-userns", "ipc.fd-leak"} <= ops


# Without user namespaces: who confines anyway (root of the harness's namespace needs no new one:
# the probe ran and got EROFS), who refuses (nothing ran, the spawner exited non-zero).
USERNS_CONFINES = {"bwrap", "reference"}
USERNS_REFUSES = {"firejail", "codex-linux", "srt"}


def test_without_user_namespaces_each_sandbox_refuses_or_confines(new_classes):
    name, attempts = new_classes
    denials = [a for a in attempts if a["attempt"] == "exec.fail-open-userns" and a["expected"] == "denied"
               and a["verdict"] != "skip"]
    assert denials
    for a in denials:
        assert a["evidence"]["spawner_in_user_namespace_with_max_user_namespaces"] == 0, a["evidence"]
        report = a.get("probe_report") or {}
        if name in USERNS_CONFINES:
            assert report.get("errname") == "EROFS", explain([a])
        elif name in USERNS_REFUSES:
            assert not report and a["evidence"]["spawner_exit"] not in (0, None), explain([a])


def test_verdicts(new_classes):
    name, attempts = new_classes
    bad = [a for a in attempts if a["verdict"] in ("overblock", "error", "broken")]
    assert not bad, explain(bad)
    controls = [a for a in attempts if a["expected"] == "allowed"]
    assert controls and all(a["verdict"] in ("pass", "skip") for a in controls), explain(controls)
    denials = [a for a in attempts if a["expected"] == "denied"]
    escapes = {a["id"] for a in attempts if a["verdict"] == "escape"}
    if name == "none":  # no sandbox: every denial is an escape
        assert escapes == {a["id"] for a in denials}, explain(denials)
    else:
        assert escapes == SIGNED_ESCAPES[name], explain([a for a in attempts if a["verdict"] == "escape"])


def test_declared_skips(new_classes):
    name, attempts = new_classes
    for reason, count in DECLARED.get(name, {}).items():
        got = [a for a in attempts if a["verdict"] == "skip" and a["reason"].startswith(reason)]
        assert len(got) == count, explain(got)


def test_hijack_names_the_program_that_ran(new_classes):
    """The charge: under none the probe's own `git` marks the sibling; under srt its helpers do."""
    name, attempts = new_classes
    deny = [a for a in attempts if a["attempt"] == "exec.path-hijack" and a["expected"] == "denied"
            and a["verdict"] != "skip"]
    assert deny
    for a in deny:
        ran = set(a["evidence"]["stubs_that_ran_at_target"])
        if name == "none":
            assert ran == {"git"}, a["evidence"]
        elif name == "srt":
            assert {"bwrap", "socat", "rg"} <= ran and "git" not in ran, a["evidence"]
        else:
            assert ran == set(), a["evidence"]


def test_a_fail_open_wrapper_is_caught_and_its_control_passes(run_breakout):
    """Fail-open: tests/e2e/fixtures/fail-open.toml runs the command unconfined when its
    bubblewrap cannot start (with a user namespace, as an unprivileged sandbox starts it); elsewhere
    it confines. Both ways it cannot: a failing bwrap first on PATH, and no user namespaces."""
    require_spawner("bwrap")
    run = run_breakout("--spawner", str(FIXTURES / "fail-open.toml"), "--only", "exec.fail-open*")
    assert run.results is not None, run.stderr[-2000:]
    fail_open = [a for a in run.attempts if a["attempt"] in ("exec.fail-open", "exec.fail-open-userns")]
    controls = [a for a in run.attempts if a["attempt"] == "fs.write.create"]
    assert len(fail_open) == 8 and all(a["verdict"] == "escape" for a in fail_open), explain(fail_open)
    assert controls and all(a["verdict"] == "pass" for a in controls), explain(controls)
    # --only brings the borrowed controls along, not fs.write.create's own denials.
    assert all(a["role"] == "allow" for a in controls), explain(controls)
    assert "running unconfined" in fail_open[0]["stderr_excerpt"]
