"""Issue 21 item 7: races between a path check and the write (class fs-race, probes/fs-race.cc).

`none` shows every deny as an escape and every control as a pass; bwrap and firejail, whose
kernel walk decides at the open, pass every one. The probe runs directly too: the flip is bounded
and reaches both names; the exchange swaps the two directories.
"""
import json
import os
import subprocess

import pytest

from conftest import require_root_tool

ONLY = "fs.race.*"
DENIES = {"fs.race.symlink-flip@{p}[fs:sibling/new-file]", "fs.race.symlink-flip@{p}[fs:~/.bashrc]",
          "fs.race.exchange-dir@{p}[fs:sibling/repo]"}
CONTROLS = {"fs.race.symlink-flip@{p}[fs:workspace/new-file]", "fs.race.exchange-dir@{p}[fs:workspace/sub dir]"}
POLICIES = ("workspace-write", "network-full")


def expand(ids):
    return {i.format(p=p) for i in ids for p in POLICIES}


def verdicts(run):
    assert run.results is not None, run.stderr[-2000:]
    return {a["id"]: a["verdict"] for a in run.attempts}


def test_none_escapes_every_race_and_passes_every_control(run_breakout):
    if os.geteuid() != 0:
        pytest.skip("needs root (namespaces for none's external host)")
    run = run_breakout("--spawner", "none", "--only", ONLY)
    got = verdicts(run)
    assert got == {**{i: "escape" for i in expand(DENIES)}, **{i: "pass" for i in expand(CONTROLS)}}, run.explain(run.attempts)


@pytest.mark.parametrize("spawner", ["bwrap", "firejail"])
def test_a_kernel_checked_sandbox_passes_every_race(run_breakout, spawner):
    require_root_tool(spawner)
    run = run_breakout("--spawner", spawner, "--only", ONLY)
    got = verdicts(run)
    assert got == {i: "pass" for i in expand(DENIES | CONTROLS)}, run.explain(run.attempts)


def race(breakout_bin, *args):
    proc = subprocess.run([str(breakout_bin.resolve().parent / "breakout-probe-fs-race"), *args],
                          capture_output=True, text=True, timeout=30)
    line = next(l for l in proc.stdout.splitlines() if l.startswith("BREAKOUT-REPORT "))
    return proc.returncode, json.loads(line.split(" ", 1)[1])


def test_flip_is_bounded_and_reaches_both_names(breakout_bin, tmp_path):
    target, link = tmp_path / "target", tmp_path / "link"
    rc, r = race(breakout_bin, "--op", "flip", "--path", str(target), "--link", str(link),
                 "--tries", "2000", "--budget-ms", "1000")
    assert rc == 0, r
    assert r["elapsed_ms"] < 3000 and r["opened"] == r["tries"] >= 2000, r
    assert r["flips"] >= 64, r  # the race really flipped (kMinFlips)
    line = "breakout: written through a flipping link\n"
    hits = target.read_text().count(line), (tmp_path / "link.decoy").read_text().count(line)
    assert hits[0] + hits[1] == r["opened"], (hits, r)
    assert not (tmp_path / "link.flip").exists()  # the flipper's temporary link is gone


def test_exchange_swaps_the_directories(breakout_bin, tmp_path):
    outside, src = tmp_path / "outside", tmp_path / "ws-swap"
    outside.mkdir()
    (outside / "secret").write_text("x\n")
    rc, r = race(breakout_bin, "--op", "exchange", "--path", str(outside), "--src", str(src))
    assert rc == 0, r
    assert (outside / "exchanged-by-breakout").exists() and (src / "secret").read_text() == "x\n"
