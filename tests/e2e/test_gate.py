"""ci/gate.sh, the users' CI gate: run's status without a baseline, the baseline diff's with one, artifacts, summary,
and lost coverage (exit 5)."""
import json
import os
import shlex
import subprocess

import pytest

from conftest import REPO
from synthetic_results import ALLOW_FOR, base_attempts, lost_coverage_cases, write_results

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


# --- lost coverage through the gate: a stand-in `breakout` whose `run` writes a prepared results.json
# (and exits as the real run would for it); every other subcommand (report, diff) is the real binary.


def stand_in(breakout_bin, tmp_path, results_file, rc):
    script = tmp_path / "breakout-stand-in"
    script.write_text(f"""#!/usr/bin/env bash
if [[ $1 == run ]]; then
  while [[ $# -gt 0 && $1 != --out ]]; do shift; done
  mkdir -p "$2" && cp {shlex.quote(str(results_file))} "$2/results.json"
  exit {rc}
fi
exec {shlex.quote(str(breakout_bin))} "$@"
""")
    script.chmod(0o755)
    return script


@pytest.fixture
def synthetic_baseline(breakout_bin, tmp_path):
    base = write_results(tmp_path / "base" / "results.json", base_attempts())
    baseline = tmp_path / "baseline.json"
    b = subprocess.run([str(breakout_bin), "baseline", str(base), "--out", str(baseline)], capture_output=True,
                       text=True, timeout=60)
    assert b.returncode == 0, b.stderr
    return baseline


def run_status(attempts):
    verdicts = {a["verdict"] for a in attempts}
    return 3 if "escape" in verdicts else 1 if verdicts - {"pass", "skip"} else 0 if "pass" in verdicts else 5


@pytest.mark.parametrize("case", sorted(lost_coverage_cases()))
def test_gate_fails_on_lost_coverage_against_the_baseline(breakout_bin, tmp_path, synthetic_baseline, case):
    attempts, run, says = lost_coverage_cases()[case]
    new = write_results(tmp_path / "new.json", attempts, **run)
    fake = stand_in(breakout_bin, tmp_path, new, run_status(attempts))
    out = tmp_path / "out"
    p = subprocess.run(["bash", str(GATE), "--bin", str(fake), "--spawner", "bwrap", "--out", str(out),
                        "--baseline", str(synthetic_baseline)], capture_output=True, text=True, timeout=120)
    assert p.returncode == 5, p.stdout[-3000:] + p.stderr[-2000:]
    assert "gate: FAIL: lost coverage" in p.stderr and says.replace("in NEW", "") in p.stdout, p.stdout[-3000:]
    assert json.loads((out / "diff.json").read_text())["gate"] == 5
    if case in ALLOW_FOR:
        p = subprocess.run(["bash", str(GATE), "--bin", str(fake), "--spawner", "bwrap", "--out", str(tmp_path / "o2"),
                            "--baseline", str(synthetic_baseline), "--allow-change", ALLOW_FOR[case]],
                           capture_output=True, text=True, timeout=120)
        assert p.returncode == 0 and "gate: PASS" in p.stdout, p.stdout[-3000:] + p.stderr[-2000:]


def test_gate_passes_when_nothing_changed(breakout_bin, tmp_path, synthetic_baseline):
    new = write_results(tmp_path / "new.json", base_attempts())
    fake = stand_in(breakout_bin, tmp_path, new, 3)
    p = subprocess.run(["bash", str(GATE), "--bin", str(fake), "--spawner", "bwrap", "--out", str(tmp_path / "out"),
                        "--baseline", str(synthetic_baseline)], capture_output=True, text=True, timeout=120)
    assert p.returncode == 0 and "gate: PASS" in p.stdout, p.stdout[-3000:] + p.stderr[-2000:]


def test_gate_on_a_real_run_where_everything_skips(breakout_bin, tmp_path):
    # The Windows protected-path suite on Linux: every execution skips; without a baseline run's own 5.
    p = gate(breakout_bin, tmp_path, "--spawner", "none", "--suite", "windows-protected", "--out", str(tmp_path / "r"),
             "--", "--no-external", "--no-history")
    assert p.returncode == 5, p.stdout[-2000:] + p.stderr[-2000:]
    assert "gate: FAIL: lost coverage" in p.stderr and "nothing was judged" in p.stderr, p.stderr[-2000:]
    # --allow-all-skip accepts it for the run, but a baseline gate still needs something judged.
    empty = tmp_path / "empty.json"
    empty.write_text(json.dumps({"schema": "breakout.baseline/1", "accepted": []}))
    p = gate(breakout_bin, tmp_path, "--spawner", "none", "--suite", "windows-protected", "--out", str(tmp_path / "b"),
             "--baseline", str(empty), "--", "--no-external", "--no-history", "--allow-all-skip")
    assert p.returncode == 5 and "nothing was judged in NEW" in p.stdout, p.stdout[-2000:] + p.stderr[-2000:]


def test_gate_on_real_runs_fails_when_the_baseline_is_of_another_suite_selection(breakout_bin, tmp_path):
    # A baseline of a wider run: the executions it judged and the gate's run no longer has are lost coverage.
    wide = tmp_path / "wide"
    assert gate(breakout_bin, tmp_path, "--spawner", "none", "--out", str(wide), "--", "--only", "fs.write.*",
                "--no-external", "--no-history").returncode == 3
    accepted = tmp_path / "accepted.json"
    b = subprocess.run([str(breakout_bin), "baseline", str(wide / "results.json"), "--out", str(accepted)],
                       capture_output=True, text=True, timeout=60)
    assert b.returncode == 0, b.stderr
    p = gate(breakout_bin, tmp_path, "--spawner", "none", "--out", str(tmp_path / "narrow"), "--baseline",
             str(accepted), *ONLY)
    assert p.returncode == 5, p.stdout[-2000:] + p.stderr[-2000:]
    assert "not judged in NEW" in p.stdout and "gate: FAIL: lost coverage" in p.stderr
