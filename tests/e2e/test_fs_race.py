"""Races between a path check and the write (class fs-race, probes/fs-race.cc; CWE-367).

`none` shows every deny as an escape and every control as a pass; bwrap and firejail, whose
kernel walk decides at the open, pass every one, and each passing flip denial says its race was
calibrated: the same flipper beat a known-racy victim beside it (docs/scenarios.md, "Races and
their calibration"). With the victim made race-proof (the test hook), the calibration cannot be
won and each flip denial is an inconclusive skip, never a pass. The probe runs directly too: the
flip is bounded and reaches both names; the exchange swaps the two directories.
"""
import json
import os
import subprocess

import pytest

from conftest import require_root_tool

ONLY = "fs.race.*"
FLIP_DENIES = {"fs.race.symlink-flip@{p}[fs:sibling/new-file]", "fs.race.symlink-flip@{p}[fs:~/.bashrc]"}
UNWINNABLE = {"BREAKOUT_TEST_RACE_VICTIM": "safe"}
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
    for a in run.attempts:
        if a["id"] in expand(FLIP_DENIES):
            cal = a["evidence"]["race"]["calibration"]
            assert cal["won"] and cal["wins"] >= cal["wins_needed"] == 8 and cal["victim"] == "racy", a["evidence"]["race"]
            assert "race calibrated: won" in a["reason"], a["reason"]
            assert a["evidence"]["race"]["miss_chance"] < 0.01, a["evidence"]["race"]
        if a["attempt"] == "fs.race.exchange-dir":
            assert "race" not in a["evidence"], a["evidence"]  # one syscall: nothing to calibrate


@pytest.mark.parametrize("spawner", ["bwrap", "none"])
def test_an_unwinnable_calibration_is_inconclusive_never_pass(run_breakout, spawner):
    """bwrap: every flip denial turns into the inconclusive skip (the others keep their verdicts);
    none: an escape stays an escape, the calibration does not matter there."""
    require_root_tool("bwrap")
    run = run_breakout("--spawner", spawner, "--only", ONLY, env=UNWINNABLE)
    got = verdicts(run)
    deny = "skip" if spawner == "bwrap" else "escape"
    want = {**{i: "pass" if spawner == "bwrap" else "escape" for i in expand(DENIES)},
            **{i: deny for i in expand(FLIP_DENIES)}, **{i: "pass" for i in expand(CONTROLS)}}
    assert got == want, run.explain(run.attempts)
    for a in run.attempts:
        if a["id"] in expand(FLIP_DENIES):
            assert a["evidence"]["race"]["calibration"] == {**a["evidence"]["race"]["calibration"], "victim": "safe",
                                                            "wins": 0, "won": False}, a["evidence"]["race"]
            if spawner == "bwrap":
                assert a["reason"].startswith("inconclusive: the race could not be won against a known-racy victim"), a["reason"]


def race(breakout_bin, *args):
    proc = subprocess.run([str(breakout_bin.resolve().parent / "breakout-probe-fs-race"), *args],
                          capture_output=True, text=True, timeout=60)
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


@pytest.mark.parametrize("victim", ["racy", "safe"])
def test_flip_calibration_wins_against_the_racy_victim_only(breakout_bin, tmp_path, victim):
    """The probe's calibration: the racy victim loses 8 times (lines in calib.won, the harness's
    count); the safe one never does, and the tries then stop at the cap."""
    target, link, calib = tmp_path / "target", tmp_path / "link", tmp_path / "calib"
    # The racy victim ends the race as soon as it lost 8 times (a generous cap for a loaded
    # runner); the safe one never loses, so its race runs to its (short) cap.
    cap = "20000" if victim == "racy" else "1500"
    rc, r = race(breakout_bin, "--op", "flip", "--path", str(target), "--link", str(link), "--tries", "200",
                 "--budget-ms", cap, "--calibrate", str(calib), "--victim", victim)
    assert rc == 0, r
    won = (tmp_path / "calib.won").read_text().count("breakout: calibration, written after the check\n")
    assert r["victim"] == victim and r["calib_tries"] == r["tries"], r
    if victim == "racy":
        assert won == r["calib_wins"] >= 8, (won, r)
        assert r["elapsed_ms"] < 20000, r
    else:
        assert won == r["calib_wins"] == 0, (won, r)
        assert 1500 <= r["elapsed_ms"] < 5000, r  # bounded by the cap
    assert not (tmp_path / "calib.flip").exists()


def test_exchange_swaps_the_directories(breakout_bin, tmp_path):
    outside, src = tmp_path / "outside", tmp_path / "ws-swap"
    outside.mkdir()
    (outside / "secret").write_text("x\n")
    rc, r = race(breakout_bin, "--op", "exchange", "--path", str(outside), "--src", str(src))
    assert rc == 0, r
    assert (outside / "exchanged-by-breakout").exists() and (src / "secret").read_text() == "x\n"
