"""Sharding for CI matrices: 4 shards merged give the verdicts of one run; merge refuses what does not fit."""
import json
import subprocess

import pytest

from conftest import FIXTURES


def run_cli(breakout_bin, *args, timeout=600):
    return subprocess.run([str(breakout_bin), *args], capture_output=True, text=True, timeout=timeout,
                          errors="replace")


@pytest.fixture(scope="module")
def shards(run_breakout):
    return [run_breakout("--spawner", "none", "--shard", f"{k}/4") for k in range(1, 5)]


def test_shards_keep_groups_together_and_record_the_shard(shards):
    seen = {}
    for k, run in enumerate(shards, start=1):
        assert run.results is not None, run.stderr[-2000:]
        assert run.results["run"]["shard"] == f"{k}/4"
        for a in run.attempts:
            assert seen.setdefault(a["group"], k) == k, f"group {a['group']} split over shards"
    assert all(run.attempts for run in shards), "a 4-way split of the default suite left a shard empty"


def test_four_shards_merged_equal_one_run(breakout_bin, shards, run_breakout, tmp_path):
    whole = run_breakout("--spawner", "none")
    assert whole.results is not None, whole.stderr[-2000:]
    out = tmp_path / "merged"
    p = run_cli(breakout_bin, "merge", "--no-history", str(out), *[str(s.out_dir) for s in shards])
    assert p.returncode == whole.returncode, p.stderr
    merged = json.loads((out / "results.json").read_text())
    assert (out / "junit.xml").exists()
    assert {a["id"]: a["verdict"] for a in merged["attempts"]} == {a["id"]: a["verdict"] for a in whole.attempts}
    assert merged["summary"] == whole.results["summary"]
    assert sorted(merged["run"]["merged_from"]) == sorted(s.results["run"]["id"] for s in shards)
    assert merged["run"]["shard"] is None


def test_merge_refuses_overlap_and_other_spawners(breakout_bin, shards, run_breakout, tmp_path):
    p = run_cli(breakout_bin, "merge", "--no-history", str(tmp_path / "a"), str(shards[0].out_dir),
                str(shards[0].out_dir))
    assert p.returncode == 2 and "given twice" in p.stderr, p.stderr
    other = run_breakout("--spawner", str(FIXTURES / "hostile-output.toml"), "--only", "contract.exit-code@*",
                         "--no-external")
    p = run_cli(breakout_bin, "merge", "--no-history", str(tmp_path / "b"), str(shards[0].out_dir),
                str(other.out_dir))
    assert p.returncode == 2 and "another spawner" in p.stderr, p.stderr


def test_bad_shard_spec_is_usage_error(breakout_bin, tmp_path):
    p = run_cli(breakout_bin, "run", "--no-history", "--spawner", "none", "--shard", "5/4", "--out", str(tmp_path))
    assert p.returncode == 2 and "K <= N" in p.stderr, p.stderr
