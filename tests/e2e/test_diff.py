"""diff and baseline as a CI gate: bubblewrap vs a regressed (unconfined) fixture sandbox."""
import json
import subprocess

import pytest

from conftest import FIXTURES, require_root_tool

ONLY = "fs.write.create*"


def run_cli(breakout_bin, *args, timeout=300):
    return subprocess.run([str(breakout_bin), *args], capture_output=True, text=True, timeout=timeout,
                          errors="replace")


@pytest.fixture(scope="module")
def bwrap_run(run_breakout):
    require_root_tool("bwrap")
    run = run_breakout("--spawner", "bwrap", "--only", ONLY, "--no-external")
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-2000:]
    return run


@pytest.fixture(scope="module")
def escaping_run(run_breakout):
    run = run_breakout("--spawner", str(FIXTURES / "unconfined.toml"), "--only", ONLY, "--no-external")
    assert run.returncode == 3, run.stderr[-2000:]
    return run


def test_new_escape_fails_the_gate(breakout_bin, bwrap_run, escaping_run, tmp_path):
    out = tmp_path / "diff.json"
    p = run_cli(breakout_bin, "diff", str(bwrap_run.out_dir), str(escaping_run.out_dir / "results.json"),
                "--json", str(out))
    assert p.returncode == 4, p.stdout + p.stderr
    d = json.loads(out.read_text())
    escapes = {a["id"] for a in escaping_run.by_verdict("escape")}
    assert escapes and {e["id"] for e in d["new_escapes"]} == escapes
    assert all(e["before"] == "pass" and e["after"] == "escape" for e in d["new_escapes"])
    assert not d["added"] and not d["removed"] and not d["fixed_escapes"]
    assert "New escapes (%d)" % len(escapes) in p.stdout
    # The other way round nothing is new: the escapes are fixed.
    p = run_cli(breakout_bin, "diff", str(escaping_run.out_dir), str(bwrap_run.out_dir), "--json", str(out))
    assert p.returncode == 0, p.stdout + p.stderr
    assert {e["id"] for e in json.loads(out.read_text())["fixed_escapes"]} == escapes


def test_baseline_accepting_the_escape_turns_the_gate_green(breakout_bin, escaping_run, bwrap_run, tmp_path):
    baseline = tmp_path / "baseline.json"
    p = run_cli(breakout_bin, "baseline", str(escaping_run.out_dir), "--out", str(baseline))
    assert p.returncode == 0, p.stderr
    b = json.loads(baseline.read_text())
    assert b["schema"] == "breakout.baseline/1"
    assert {a["id"] for a in b["accepted"]} == {a["id"] for a in escaping_run.by_verdict("escape")}
    out = tmp_path / "diff.json"
    p = run_cli(breakout_bin, "diff", "--baseline", str(baseline), str(escaping_run.out_dir), "--json", str(out))
    assert p.returncode == 0, p.stdout + p.stderr
    d = json.loads(out.read_text())
    assert not d["new_escapes"] and len(d["accepted"]) == len(b["accepted"])
    assert "Accepted by the baseline" in p.stdout
    # An empty baseline (nothing accepted) gates on every escape.
    empty = tmp_path / "empty.json"
    b["accepted"] = []
    empty.write_text(json.dumps(b))
    p = run_cli(breakout_bin, "diff", "--baseline", str(empty), str(escaping_run.out_dir))
    assert p.returncode == 4, p.stdout + p.stderr


def test_diff_usage_errors_are_exit_2(breakout_bin, tmp_path):
    p = run_cli(breakout_bin, "diff", "--no-history-such-flag", "a", "b")
    assert p.returncode == 2
    p = run_cli(breakout_bin, "diff", "--history", str(tmp_path / "h.sqlite"), str(tmp_path / "missing.json"),
                str(tmp_path / "missing2.json"))
    assert p.returncode == 2, p.stdout + p.stderr
