"""What the spawner itself leaves behind: reported beside the verdicts, charged to the spawner, removed.

sandbox-runtime leaves /tmp/claude-http-*.sock and a socat per spawn, Codex its /tmp/codex-*
state. The harness watches /tmp, /dev/shm and /run with fanotify, charges
each new entry to the attempt whose box held its creator, lists the spawner's processes still
running once the spawn is over, and removes both. It is a hygiene finding, never a verdict.
"""
import glob
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import FIXTURES, REPO, require_root_tool

ONLY = "fs.read.secrets*"  # one cheap family; its verdicts are not what this file tests
PREFIX = "/tmp/breakout-residue-fixture-"
SHARED = "/tmp/breakout-residue-shared"


def residue_of(run):
    assert run.results is not None, run.stderr[-2000:]
    return run.results["run"]["spawner_residue"]


def sleepers():
    out = subprocess.run(["pgrep", "-f", "^sleep 60$"], capture_output=True, text=True)
    return out.stdout.split()


def test_residue_is_listed_charged_and_removed(run_breakout):
    require_root_tool("sh")  # attribution is by the attempt's cgroup
    before = set(glob.glob(PREFIX + "*"))
    # A directory that was there before the run, as Codex's per-user one is: what the spawner
    # leaves inside it is residue too, and the directory stays.
    shared = Path(SHARED)
    shutil.rmtree(shared, ignore_errors=True)  # a crashed run's
    shared.mkdir()
    try:
        run = run_breakout("--spawner", str(FIXTURES / "leaves-residue.toml"), "--suite", "default", "--only", ONLY)
        left_inside = sorted(p.name for p in shared.iterdir())
    finally:
        shutil.rmtree(shared)
    residue = residue_of(run)
    assert "unavailable" not in residue, residue
    assert "/tmp" in residue["watched"], residue
    ids = {a["id"] for a in run.attempts if a["verdict"] != "skip"}
    assert ids, run.explain(run.attempts)

    files = [f for f in residue["files"] if f["path"].startswith(PREFIX)]
    assert len(files) == len(ids), residue  # one per spawn (controls spawn too), each charged to it
    for f in files:
        # The helper may have exec'd sleep by the time its event is read.
        assert f["kind"] == "file" and f["creator"] in ("sh", "sleep") and f["removed"], f
    assert {f["execution"] for f in files} == ids, residue
    assert residue["unidentified"] == 0, residue
    assert set(glob.glob(PREFIX + "*")) <= before, "the harness left the spawner's files"

    inside = [f for f in residue["files"] if f["path"].startswith(SHARED + "/")]
    assert len(inside) == len(ids) and all(f["removed"] for f in inside), residue
    assert {f["execution"] for f in inside} == ids, residue
    assert left_inside == [], left_inside
    assert residue["subdirs_watched"] >= 1, residue
    assert not [f for f in residue["files"] if f["path"] == SHARED], "the directory was there before the run"

    helpers = [p for p in residue["processes"] if p["comm"] == "sleep"]
    assert len(helpers) == len(ids), residue
    assert all(p["killed"] and not p["outside_box"] for p in helpers), residue
    assert not sleepers(), "a helper outlived the run"

    # Hygiene, not a verdict: the same attempts judge as under an unconfined sandbox.
    assert "left behind by the spawner itself" in run.stdout.lower(), run.stdout[-2000:]
    assert "breakout-residue-fixture-" in run.stdout


def test_none_and_bwrap_leave_nothing(run_breakout):
    require_root_tool("bwrap")
    for spawner in ("none", "bwrap"):
        residue = residue_of(run_breakout("--spawner", spawner, "--suite", "default", "--only", ONLY))
        assert "unavailable" not in residue and residue["watched"], residue
        assert residue["files"] == [] and residue["processes"] == [], (spawner, residue)


def test_repro_and_live_replay_remove_it_too(breakout_bin, tmp_path):
    """The live fuzzer's cases spawn too: what the spawner leaves is charged and removed there as well."""
    require_root_tool("sh")
    seed = REPO / "fuzz" / "corpus" / "live" / "probe-read.dotdot.ssh-id"
    profile = str(FIXTURES / "leaves-residue.toml")
    before = set(glob.glob(PREFIX + "*"))
    out = subprocess.run([str(breakout_bin), "repro", str(seed), "--spawner", profile],
                         capture_output=True, text=True, errors="replace", timeout=120)
    assert out.returncode == 3, out.stdout[-2000:] + out.stderr[-2000:]  # unconfined: the read escapes
    assert "Left behind by the spawner itself" in out.stdout and "breakout-residue-fixture-N" in out.stdout, out.stdout
    assert set(glob.glob(PREFIX + "*")) <= before, "repro left the spawner's files"
    assert not sleepers(), "a helper outlived repro"

    replay = Path(breakout_bin).parent / "live_replay"
    if not replay.exists():
        pytest.skip(f"live_replay not built: {replay} (the default build makes it when clang is installed)")
    env = dict(os.environ, BREAKOUT_LIVE_SPAWNER=profile, BREAKOUT_LIVE_PROBES=str(Path(breakout_bin).parent))
    out = subprocess.run([str(replay), str(seed)], capture_output=True, text=True, errors="replace", timeout=120, env=env)
    assert "left behind by the spawner itself (removed)" in out.stderr, out.stderr[-3000:]
    assert set(glob.glob(PREFIX + "*")) <= before, "live_replay left the spawner's files"
    assert not sleepers(), "a helper outlived live_replay"
