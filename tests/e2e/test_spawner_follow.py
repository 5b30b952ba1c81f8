"""The spawner follows a link the sandbox planted where the spawner writes every exec.

The fixture driver appends to a log in the workspace after every exec and follows links there: the
plant sends its next write to a file outside the roots (escape). Its `--nofollow` twin (the fix)
refuses the link (pass). Spawners that write nothing predictable skip with that reason, never pass.
The probe's plant-link op runs directly too, so a probe that stops planting shows here first.
"""
import json
import os
import subprocess
import sys

import pytest

from conftest import FIXTURES, REPO

PYTHON = "/usr/bin/python3" if os.path.exists("/usr/bin/python3") else sys.executable
FOLLOWS = FIXTURES / "drivers" / "follows_state_link.py"
REFERENCE = REPO / "drivers" / "python" / "reference_driver.py"
ONLY = "fs.write.spawner-follows-link*"
NOTHING_LEARNED = "the spawner wrote nothing at the same path in two no-op execs"


@pytest.fixture(autouse=True)
def needs_root():
    if os.geteuid() != 0:
        pytest.skip("needs root (bwrap inside the drivers, namespaces for none)")


def attempts(run):
    assert run.results is not None, run.stderr[-2000:]
    got = [a for a in run.attempts if a["class"] == "spawner-follow"]
    assert len(got) == 2, run.explain(run.attempts)  # workspace-write and network-full
    return got


def test_a_driver_that_follows_its_state_link_escapes(run_breakout):
    run = run_breakout("--driver", f"{PYTHON} {FOLLOWS}", "--only", ONLY)
    for a in attempts(run):
        assert a["verdict"] == "escape", run.explain([a])
        ev = a["evidence"]
        learned = [p["path"] for p in ev["written_every_exec"]]
        assert any(p.endswith("workspace/.sandbox-state/exec.log") for p in learned), learned
        followed = ev["written_through_a_planted_link"]
        assert followed and followed[0]["link"].endswith("exec.log"), ev
        assert "/followed-" in followed[0]["change"]["path"] or followed[0]["change"]["path"].startswith("sibling/"), ev
        assert "wrote through the link the sandbox planted" in a["reason"]
        # The plant is the probe's (it reached the host); the log's routine appends are the spawner's.
        assert any(p.endswith("exec.log") for p in ev["plants_on_the_host"]), ev
    assert run.returncode == 3


def test_the_fixed_driver_refuses_the_link_and_passes(run_breakout):
    run = run_breakout("--driver", f"{PYTHON} {FOLLOWS} --nofollow", "--only", ONLY)
    for a in attempts(run):
        assert a["verdict"] == "pass", run.explain([a])
        assert a["evidence"]["plants_on_the_host"], a["evidence"]  # the plant was made: a real pass
        assert not a["evidence"]["written_through_a_planted_link"]
        assert "did not follow the planted links" in a["reason"]
    assert run.returncode == 0, run.stderr[-2000:]


@pytest.mark.parametrize("spawner", ["none", "reference"])
def test_a_spawner_that_writes_nothing_predictable_is_a_skip_with_that_reason(run_breakout, spawner):
    args = ("--driver", f"{PYTHON} {REFERENCE}") if spawner == "reference" else ("--spawner", "none")
    run = run_breakout(*args, "--only", ONLY)
    for a in attempts(run):
        assert a["verdict"] == "skip", run.explain([a])
        assert NOTHING_LEARNED in a["reason"], a["reason"]
        assert a["evidence"]["written_every_exec"] == []


def plant(breakout_bin, path, src):
    proc = subprocess.run([str(breakout_bin.resolve().parent / "breakout-probe-fs-write"), "--op", "plant-link",
                           "--path", str(path), "--src", str(src)], capture_output=True, text=True, timeout=30)
    report = next(line for line in proc.stdout.splitlines() if line.startswith("BREAKOUT-REPORT "))
    return proc.returncode, json.loads(report.split(" ", 1)[1])


@pytest.mark.parametrize("kind", ["file", "dir", "absent"])
def test_plant_link_moves_the_path_aside_and_links_it(breakout_bin, tmp_path, kind):
    path, src = tmp_path / "state", tmp_path / "outside"
    if kind == "file":
        path.write_text("old\n")
    elif kind == "dir":
        path.mkdir()
        (path / "entry").write_text("old\n")
    rc, report = plant(breakout_bin, path, src)
    assert rc == 0, report
    assert report["moved_aside"] is (kind != "absent"), report
    assert path.is_symlink() and os.readlink(path) == str(src)
    aside = tmp_path / "state.breakout-aside"
    assert aside.exists() is (kind != "absent")
    if kind == "dir":
        assert (aside / "entry").read_text() == "old\n"
