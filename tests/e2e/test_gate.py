"""ci/gate.sh, the users' CI gate: run's status without a baseline, the baseline diff's with one, artifacts, summary."""
import json
import os
import subprocess

from conftest import REPO

GATE = REPO / "ci" / "gate.sh"
ONLY = ["--", "--only", "fs.write.create*", "--no-external", "--no-history"]


def gate(breakout_bin, tmp_path, *args, env_extra=None):
    env = dict(os.environ, **(env_extra or {}))
    return subprocess.run(["bash", str(GATE), "--bin", str(breakout_bin), *args], capture_output=True, text=True,
                          timeout=600, env=env, errors="replace")


def test_gate_without_baseline_fails_on_escapes_and_writes_every_artifact(breakout_bin, tmp_path):
    out = tmp_path / "r"
    p = gate(breakout_bin, tmp_path, "--spawner", "none", "--out", str(out), *ONLY)
    assert p.returncode == 3, p.stdout[-2000:] + p.stderr[-2000:]
    for name in ["results.json", "junit.xml", "report.html", "summary.md"]:
        assert (out / name).is_file(), name
    assert "gate: FAIL: escapes" in p.stderr


def test_gate_with_baseline_fails_only_on_what_is_new(breakout_bin, tmp_path):
    first = tmp_path / "first"
    assert gate(breakout_bin, tmp_path, "--spawner", "none", "--out", str(first), *ONLY).returncode == 3
    accepted = tmp_path / "accepted.json"
    b = subprocess.run([str(breakout_bin), "baseline", str(first / "results.json"), "--out", str(accepted)],
                       capture_output=True, text=True, timeout=60)
    assert b.returncode == 0, b.stderr
    assert json.loads(accepted.read_text())["accepted"], "the none run has escapes to accept"
    # Everything found is accepted: green, and the step summary says so.
    summary = tmp_path / "step-summary.md"
    ok = gate(breakout_bin, tmp_path, "--spawner", "none", "--out", str(tmp_path / "ok"), "--baseline", str(accepted),
              *ONLY, env_extra={"GITHUB_STEP_SUMMARY": str(summary)})
    assert ok.returncode == 0, ok.stdout[-2000:] + ok.stderr[-2000:]
    assert "gate: PASS" in ok.stdout
    assert "### Gate against the baseline" in summary.read_text()
    assert (tmp_path / "ok" / "diff.json").is_file()
    # A baseline that accepts nothing: every escape is new.
    empty = tmp_path / "empty.json"
    empty.write_text(json.dumps({"schema": "breakout.baseline/1", "accepted": []}))
    new = gate(breakout_bin, tmp_path, "--spawner", "none", "--out", str(tmp_path / "new"), "--baseline", str(empty),
               *ONLY)
    assert new.returncode == 4, new.stdout[-2000:] + new.stderr[-2000:]
    assert "New escapes" in new.stdout or "new escape" in new.stdout.lower(), new.stdout[-2000:]


def test_gate_refuses_what_it_cannot_judge(breakout_bin, tmp_path):
    # A spawner that does not exist: no results, exit 2, never a pass.
    p = gate(breakout_bin, tmp_path, "--spawner", "no-such-sandbox", "--out", str(tmp_path / "x"), "--",
             "--no-history")
    assert p.returncode == 2 and "did not complete" in p.stderr, p.stderr
    assert gate(breakout_bin, tmp_path, "--bogus").returncode == 2
    assert gate(breakout_bin, tmp_path, "--baseline", str(tmp_path / "missing.json")).returncode == 2
