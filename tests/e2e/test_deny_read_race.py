"""The third race: a deny-read directory inside the writable workspace, its ancestor
renamed (class fs-race-read, suite deny-read-race, policy workspace-deny-read; harness/classes/race/race_read.cc).

The harness plants workspace/vault/secrets/key (denied) and workspace/vault/open/key (the control)
with fresh canaries; the probe renames workspace/vault, once or back and forth, and reads the file
under the new name; then the same command runs again (the next exec). `none` shows both denials as
escapes in the first exec. bwrap and firejail (the shipped profiles) escape in the next exec: their
tmpfs/blacklist moved with the directory in the first, and the next wrap masks what exists at the
deny-read path, which is nothing any more. The reference driver and srt pin the ancestors (a
self-bind each: rename(2) is EBUSY) and pass; Codex cannot express deny_read (declared skip,
controls pass). The probe runs directly too: bounded, and it reads under the new name.
"""
import json
import subprocess
from pathlib import Path

import pytest

from six_spawners import SPAWNERS, remove_residue_since, require_spawner, tool_residue


SUITE = ["--suite", "deny-read-race", "--jobs", "2"]
ONCE, FLIP = "fs.race.rename-ancestor", "fs.race.rename-ancestor-flip"
DENIES = {f"{a}@workspace-deny-read[fs:workspace/vault/secrets/key]" for a in (ONCE, FLIP)}
CONTROLS = {f"{a}@workspace-deny-read[fs:workspace/vault/open/key]" for a in (ONCE, FLIP)}
# The verdict of each denial per spawner (controls pass everywhere); docs/spawners.md says why.
DENY_VERDICT = {"none": "escape", "bwrap": "escape", "firejail": "escape", "reference": "pass",
                "codex-linux": "skip", "srt": "pass"}
# Which exec's output held the denied canary, where it escaped.
LEAKED_IN = {"none": "first", "bwrap": "next", "firejail": "next"}
# Who pins the ancestor: its rename is refused, so the mask never moves.
PINNED = {"reference", "srt"}
DECLARED = {"codex-linux": "codex-linux cannot express deny_read"}



@pytest.fixture(scope="module", params=sorted(SPAWNERS))
def suite_run(request, run_breakout):
    name = request.param
    require_spawner(name)
    before = tool_residue()
    run = run_breakout(*SPAWNERS[name][0], *SUITE, timeout=600)
    remove_residue_since(before)
    assert run.results is not None, run.stderr[-2000:]
    return name, run


def test_verdicts(suite_run):
    name, run = suite_run
    got = {a["id"]: a["verdict"] for a in run.attempts}
    want = {**{i: DENY_VERDICT[name] for i in DENIES}, **{i: "pass" for i in CONTROLS}}
    assert got == want, run.explain(run.attempts)
    if name in DECLARED:
        for a in run.attempts:
            if a["id"] in DENIES:
                assert a["reason"].startswith(DECLARED[name]), run.explain([a])


def test_the_ancestor_really_moved(suite_run):
    """A pass counts only with the rename tried: it happened (the mask had to follow the directory)
    or the sandbox refused it with EBUSY (a pinned ancestor). An escape names the exec it came from."""
    name, run = suite_run
    for a in run.attempts:
        if a["verdict"] == "skip":
            continue
        ev, report = a["evidence"], a["probe_report"]
        if a["attempt"] == ONCE:
            assert report["renamed"] == ("EBUSY" if name in PINNED else "ok"), report
            assert ev["next_exec_report"]["renamed"] == ("EBUSY" if name in PINNED else "already"), ev
        else:
            assert (report["rename_error"] == "EBUSY") == (name in PINNED), report
        assert ev["ancestor_renamed"] is (name not in PINNED), run.explain([a])
        assert ev["canary_now_at"] and all(("/vault-moved-" in p) != (name in PINNED) for p in ev["canary_now_at"]), ev
        if a["verdict"] == "escape":
            assert ev["token_seen_in"] == ["stdout"], ev
            assert ev["token_in_output_of"][0] == LEAKED_IN[name], ev


def test_the_flip_really_raced(suite_run):
    name, run = suite_run
    for a in run.attempts:
        if a["attempt"] != FLIP or a["verdict"] == "skip":
            continue
        r = a["probe_report"]
        assert r["elapsed_ms"] < 6000, r  # the cap is 4 s
        if name not in PINNED:  # pinned: every rename refused, no flip to wait for
            assert r["flips"] >= 64 and r["left_renamed"] in ("ok", "ENOENT"), r
        cal = a["evidence"]["race"]["calibration"]
        assert cal["victim"] == "racy" and cal["tries"] >= 2000, a["evidence"]["race"]
        if a["verdict"] == "pass" and a["id"] in DENIES:  # judged only with the race won beside it
            assert cal["won"] and cal["wins"] >= 8 and "race calibrated: won" in a["reason"], a["evidence"]["race"]


def test_an_unwinnable_calibration_makes_a_pinned_sandbox_inconclusive(run_breakout):
    """The reference driver passes the flip denial (its ancestor pins): with the victim made
    race-proof (the test hook) that pass has no positive control and becomes the inconclusive
    skip; the single-rename attempt, not a race, keeps its pass."""
    require_spawner("reference")
    run = run_breakout(*SPAWNERS["reference"][0], *SUITE, env={"BREAKOUT_TEST_RACE_VICTIM": "safe"}, timeout=600)
    assert run.results is not None, run.stderr[-2000:]
    got = {a["id"]: a["verdict"] for a in run.attempts}
    flip_deny = f"{FLIP}@workspace-deny-read[fs:workspace/vault/secrets/key]"
    assert got == {**{i: "pass" for i in DENIES | CONTROLS}, flip_deny: "skip"}, run.explain(run.attempts)
    a = next(a for a in run.attempts if a["id"] == flip_deny)
    assert a["reason"].startswith("inconclusive: the race could not be won"), a["reason"]
    assert a["evidence"]["race"]["calibration"]["wins"] == 0, a["evidence"]["race"]


def probe(breakout_bin, *args):
    proc = subprocess.run([str(breakout_bin.resolve().parent / "breakout-probe-fs-race"), *args],
                          capture_output=True, text=True, timeout=60)
    line = next(l for l in proc.stdout.splitlines() if l.startswith("BREAKOUT-REPORT "))
    return proc.returncode, proc.stdout, json.loads(line.split(" ", 1)[1])


def plant(tmp_path):
    (tmp_path / "vault" / "secrets").mkdir(parents=True)
    (tmp_path / "vault" / "secrets" / "key").write_text("BREAKOUT-CANARY-x\n")
    return str(tmp_path / "vault"), str(tmp_path / "vault" / "secrets" / "key"), str(tmp_path / "moved")


def test_rename_read_reads_under_the_new_name(breakout_bin, tmp_path):
    ancestor, path, moved = plant(tmp_path)
    rc, out, r = probe(breakout_bin, "--op", "rename-read", "--path", path, "--ancestor", ancestor, "--moved", moved)
    assert rc == 0 and r["direct"] == "ok" and r["renamed"] == "ok", r
    assert r["read_via"] == moved + "/secrets/key", r
    assert "BREAKOUT-ECHO-BEGIN\nBREAKOUT-CANARY-x\nBREAKOUT-ECHO-END\n" in out
    assert not Path(ancestor).exists() and Path(moved, "secrets", "key").exists()


def test_rename_read_race_is_bounded(breakout_bin, tmp_path):
    ancestor, path, moved = plant(tmp_path)
    rc, out, r = probe(breakout_bin, "--op", "rename-read", "--race", "--path", path, "--ancestor", ancestor,
                       "--moved", moved, "--tries", "2000", "--budget-ms", "1000")
    assert rc == 0, r
    assert r["elapsed_ms"] < 3000 and r["flips"] >= 64 and r["tries"] >= 2000, r
    assert r["reads"] + r["refused"] == r["tries"] and r["reads"] > 0, r
    assert out.count("BREAKOUT-CANARY-x") == 1  # echoed once
    assert not Path(ancestor).exists() and Path(moved).exists()  # the race ends renamed (left_renamed)


@pytest.mark.parametrize("victim", ["racy", "safe"])
def test_rename_read_calibration_wins_against_the_racy_victim_only(breakout_bin, tmp_path, victim):
    ancestor, path, moved = plant(tmp_path)
    (tmp_path / "calib").mkdir()
    (tmp_path / "calib" / "key").write_text("BREAKOUT-CANARY-calib\n")
    # The racy victim ends the race once it lost 8 times (a generous cap for a loaded runner); the
    # safe one never loses, so its race runs to its short cap.
    cap = "20000" if victim == "racy" else "1500"
    rc, out, r = probe(breakout_bin, "--op", "rename-read", "--race", "--path", path, "--ancestor", ancestor,
                       "--moved", moved, "--tries", "200", "--budget-ms", cap, "--calibrate",
                       str(tmp_path / "calib"), "--victim", victim)
    assert rc == 0, r
    won = (tmp_path / "calib.won").read_text().count("BREAKOUT-CANARY-calib\n")
    assert r["calib_tries"] == r["tries"], r
    if victim == "racy":
        assert won == r["calib_wins"] >= 8, (won, r)
    else:
        assert won == r["calib_wins"] == 0 and r["elapsed_ms"] >= 1500, (won, r)


def test_rename_read_refuses_a_path_outside_the_ancestor(breakout_bin, tmp_path):
    proc = subprocess.run([str(breakout_bin.resolve().parent / "breakout-probe-fs-race"), "--op", "rename-read",
                           "--path", str(tmp_path / "vaultx" / "k"), "--ancestor", str(tmp_path / "vault"),
                           "--moved", str(tmp_path / "m")], capture_output=True, text=True, timeout=30)
    assert proc.returncode == 64, proc.stderr
