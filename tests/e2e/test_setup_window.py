"""Who changed the host (docs/results.md, "the three windows"): a driver's setup is judged apart from
the probe, every execution is judged for escapes whatever its role, and the marks show any grant."""
import os
import sys

import pytest

from conftest import FIXTURES, REPO

PYTHON = "/usr/bin/python3" if os.path.exists("/usr/bin/python3") else sys.executable
DRIVERS = FIXTURES / "drivers"
REFERENCE = REPO / "drivers" / "python" / "reference_driver.py"

# Every class whose oracle is the tree's snapshot, the ones a boot-time grant on the workspace's
# parent turned into false escapes.
WRITES = "fs.write*@workspace-write*"


@pytest.fixture(autouse=True)
def needs_root():
    if os.geteuid() != 0:
        pytest.skip("needs root (namespaces, cgroups, bwrap inside the drivers, POSIX ACLs)")


def driver(name, *args):
    return " ".join([PYTHON, str(DRIVERS / name), *args])


def by_id(run):
    assert run.results is not None, run.stderr[-2000:]
    return {a["id"]: a for a in run.attempts}


def verdicts(run, needle):
    hits = [a for a in run.attempts if needle in a["id"]]
    assert hits, f"no attempt matches {needle}: {sorted(by_id(run))[:20]}"
    return {a["verdict"] for a in hits}


def test_a_setup_grant_restored_at_shutdown_is_not_the_probes_escape(run_breakout):
    ref = by_id(run_breakout("--driver", f"{PYTHON} {REFERENCE}", "--only", WRITES))
    run = run_breakout("--driver", driver("parent_read_grant.py"), "--only", WRITES)
    got = by_id(run)
    assert got.keys() == ref.keys()
    changed = {i: (ref[i]["verdict"], a["verdict"]) for i, a in got.items() if a["verdict"] != ref[i]["verdict"]}
    assert not changed, changed
    ran = [a for a in got.values() if a["verdict"] != "skip"]
    assert ran, run.explain(list(got.values()))
    # The boot's grant is recorded in each execution's evidence as the sandbox's setup, classified.
    for a in ran:
        setup = a["evidence"].get("setup")
        assert setup, f"{a['id']}: no setup recorded: {a['evidence']}"
        root = [c for c in setup["changes"] if c["path"] == ""]
        assert root and root[0]["access"] == "grants-read" and root[0]["outside_writable_roots"], setup


def test_a_write_grant_outside_the_roots_is_the_setups_escape_not_each_writes(run_breakout):
    ref = by_id(run_breakout("--driver", f"{PYTHON} {REFERENCE}", "--only", WRITES))
    run = run_breakout("--driver", driver("parent_write_grant.py"), "--only", WRITES)
    got = by_id(run)
    changed = {i: (ref[i]["verdict"], a["verdict"], a["reason"]) for i, a in got.items()
               if a["verdict"] != ref[i]["verdict"]}
    assert not changed, changed
    widening = [a for a in got.values() if a["evidence"].get("setup", {}).get("widening_outside_writable_roots")]
    assert widening, "the write grant on the parent is not shown as widening in any execution's setup"


@pytest.mark.parametrize("fixture,verdict", [("parent_write_grant.py", "escape"), ("parent_read_grant.py", "pass"),
                                             (None, "pass")])
def test_session_setup_check(run_breakout, fixture, verdict):
    cmd = driver(fixture) if fixture else f"{PYTHON} {REFERENCE}"
    run = run_breakout("--driver", cmd, "--only", "session.setup-widens-nothing*")
    got = [a for a in run.attempts if a["id"].startswith("session.setup-widens-nothing")]
    assert got and {a["verdict"] for a in got} == {verdict}, run.explain(got)
    if verdict == "escape":
        assert all("widened access outside the writable roots" in a["reason"] and "gained" in a["reason"] for a in got)
        assert run.returncode == 3


@pytest.mark.parametrize("fixture,verdict", [("nobody_grant_kept.py", "escape"), ("parent_read_grant.py", "pass"),
                                             ("parent_write_grant.py", "pass")])
def test_hygiene_sees_a_grant_to_nobody_that_stays(run_breakout, fixture, verdict):
    run = run_breakout("--driver", driver(fixture), "--only", "session.hygiene-after-shutdown*")
    got = [a for a in run.attempts if a["id"].startswith("session.hygiene-after-shutdown")]
    assert got and {a["verdict"] for a in got} == {verdict}, run.explain(got)


def test_the_planted_mark_is_not_nobody(run_breakout):
    run = run_breakout("--driver", driver("nobody_grant_kept.py"), "--only", "session.hygiene-after-shutdown*")
    changes = [c for a in run.attempts for c in a["evidence"].get("host_changes_outside_workspace", [])]
    assert changes, run.explain(run.attempts)
    assert any("xattr:system.posix_acl_access" in c for c in changes), changes


@pytest.mark.parametrize("declared,verdict", [(True, "pass"), (False, "escape")])
def test_a_declared_persistent_narrowing_is_listed_not_charged(run_breakout, declared, verdict):
    args = () if declared else ("--undeclared",)
    run = run_breakout("--driver", driver("persistent_narrowing.py", *args), "--only", "session.hygiene-after-shutdown*")
    got = [a for a in run.attempts if a["id"].startswith("session.hygiene-after-shutdown")]
    assert got and {a["verdict"] for a in got} == {verdict}, run.explain(got)
    if declared:
        for a in got:
            listed = a["evidence"].get("persistent_host_changes")
            assert listed and "other lost r" in listed[0], a["evidence"]


def test_an_escape_during_a_control_is_reported(run_breakout):
    run = run_breakout("--driver", driver("leaked_parent_fd.py"), "--suite", "host-ipc", "--only", "ipc.fd-leak*")
    got = by_id(run)
    control = got["ipc.fd-leak@workspace-write[fs:workspace]"]
    assert control["role"] == "allow"
    assert control["verdict"] == "escape", run.explain([control])
    assert "during this execution (role allow)" in control["reason"]
    assert control["evidence"]["collateral"]["changes_outside_writable_roots"]
    assert got["ipc.fd-leak@workspace-write[fs:sibling]"]["verdict"] == "escape"
    # The reference driver leaks nothing: the same control passes.
    ref = by_id(run_breakout("--driver", f"{PYTHON} {REFERENCE}", "--suite", "host-ipc", "--only", "ipc.fd-leak*"))
    assert ref["ipc.fd-leak@workspace-write[fs:workspace]"]["verdict"] == "pass", ref
