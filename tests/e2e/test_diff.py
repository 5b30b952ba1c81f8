"""diff and baseline as a CI gate: bubblewrap vs a regressed (unconfined) fixture sandbox, and lost coverage."""
import json
import subprocess

import pytest

from conftest import FIXTURES, require_root_tool
from synthetic_results import ALLOW_FOR, base_attempts, lost_coverage_cases, with_verdict, write_results

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
    # Two spawners: lost coverage too, but the new escape's 4 wins and both reasons print.
    assert "lost coverage: the spawner differs" in p.stdout, p.stdout
    # The other way round nothing is new: the escapes are fixed, but it is another spawner (lost
    # coverage, 5) unless the comparison says that is intended.
    p = run_cli(breakout_bin, "diff", str(escaping_run.out_dir), str(bwrap_run.out_dir), "--json", str(out))
    assert p.returncode == 5, p.stdout + p.stderr
    assert "the spawner differs: 'unconfined' in BASE, 'bwrap' in NEW" in p.stdout, p.stdout
    p = run_cli(breakout_bin, "diff", str(escaping_run.out_dir), str(bwrap_run.out_dir), "--json", str(out),
                "--allow-change", "spawner")
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


# --- lost coverage: synthetic results files for every case, then real runs for the real path


@pytest.fixture
def base_file(tmp_path):
    return write_results(tmp_path / "base" / "results.json", base_attempts())


def test_nothing_changed_passes(breakout_bin, base_file, tmp_path):
    new = write_results(tmp_path / "new" / "results.json", base_attempts(), run_id="20260102T000000Z-bbbbbb")
    p = run_cli(breakout_bin, "diff", str(base_file), str(new))
    assert p.returncode == 0, p.stdout + p.stderr
    assert "Gate: pass (nothing new, no coverage lost), exit status 0" in p.stdout
    baseline = tmp_path / "baseline.json"
    assert run_cli(breakout_bin, "baseline", str(base_file), "--out", str(baseline)).returncode == 0
    p = run_cli(breakout_bin, "diff", "--baseline", str(baseline), str(new))
    assert p.returncode == 0, p.stdout + p.stderr


@pytest.mark.parametrize("case", sorted(lost_coverage_cases()))
def test_lost_coverage_fails_the_diff_with_5(breakout_bin, base_file, tmp_path, case):
    attempts, run, says = lost_coverage_cases()[case]
    new = write_results(tmp_path / "new" / "results.json", attempts, run_id="20260102T000000Z-bbbbbb", **run)
    out = tmp_path / "diff.json"
    p = run_cli(breakout_bin, "diff", str(base_file), str(new), "--json", str(out))
    assert p.returncode == 5, p.stdout + p.stderr
    assert "Gate: FAIL, exit status 5" in p.stdout and says in p.stdout, p.stdout
    d = json.loads(out.read_text())
    assert d["gate"] == 5 and any(says in r for r in d["lost_coverage"]["reasons"]), d["lost_coverage"]
    if case in ALLOW_FOR:  # the identity cases: --allow-change names what may differ
        p = run_cli(breakout_bin, "diff", str(base_file), str(new), "--allow-change", ALLOW_FOR[case])
        assert p.returncode == 0, p.stdout + p.stderr
        assert "allowed by --allow-change " + ALLOW_FOR[case] in p.stdout, p.stdout


@pytest.mark.parametrize("case", sorted(lost_coverage_cases()))
def test_a_baseline_refuses_a_run_it_does_not_describe(breakout_bin, base_file, tmp_path, case):
    baseline = tmp_path / "baseline.json"
    p = run_cli(breakout_bin, "baseline", str(base_file), "--out", str(baseline))
    assert p.returncode == 0, p.stderr
    attempts, run, says = lost_coverage_cases()[case]
    new = write_results(tmp_path / "new" / "results.json", attempts, **run)
    p = run_cli(breakout_bin, "diff", "--baseline", str(baseline), str(new))
    assert p.returncode == 5, p.stdout + p.stderr
    assert says.replace("in NEW", "") in p.stdout, p.stdout
    if case in ALLOW_FOR:
        p = run_cli(breakout_bin, "diff", "--baseline", str(baseline), str(new), "--allow-change", ALLOW_FOR[case])
        assert p.returncode == 0, p.stdout + p.stderr


def test_baseline_records_what_it_describes(breakout_bin, base_file, tmp_path):
    baseline = tmp_path / "baseline.json"
    assert run_cli(breakout_bin, "baseline", str(base_file), "--out", str(baseline)).returncode == 0
    b = json.loads(baseline.read_text())
    assert (b["spawner"], b["spawner_version"], b["suite"], b["platform"], b["commit"]) == (
        "bwrap", "bubblewrap 0.8.0", "default", "linux", "0123456789ab")
    assert sorted(b["policies"]) == ["read-only", "workspace-write"]
    assert b["counts"] == {"pass": 3, "escape": 1, "overblock": 0, "broken": 0, "error": 0, "skip": 1}
    assert len(b["passed"]) == 3 and [a["verdict"] for a in b["accepted"]] == ["escape"]


def test_an_old_baseline_is_accepted_with_a_note(breakout_bin, base_file, tmp_path):
    old = tmp_path / "old.json"
    old.write_text(json.dumps({"schema": "breakout.baseline/1", "suite": "default", "spawner": "bwrap",
                               "accepted": [{"id": base_attempts()[3]["id"], "verdict": "escape", "reason": "ok"}]}))
    p = run_cli(breakout_bin, "diff", "--baseline", str(old), str(base_file))
    assert p.returncode == 0, p.stdout + p.stderr
    assert "Note: the baseline predates the coverage check" in p.stdout, p.stdout
    # What it records is still checked, and nothing judged still fails.
    other = write_results(tmp_path / "o" / "results.json", base_attempts(), spawner="firejail")
    assert run_cli(breakout_bin, "diff", "--baseline", str(old), str(other)).returncode == 5
    skips = write_results(tmp_path / "s" / "results.json", [dict(a, verdict="skip") for a in base_attempts()])
    assert run_cli(breakout_bin, "diff", "--baseline", str(old), str(skips)).returncode == 5


def test_an_interrupted_base_is_a_usage_error(breakout_bin, base_file, tmp_path):
    interrupted = write_results(tmp_path / "i" / "results.json", base_attempts(), interrupted=True)
    p = run_cli(breakout_bin, "diff", str(interrupted), str(base_file))
    assert p.returncode == 2, p.stdout + p.stderr
    assert "[interrupted-base] BASE is an interrupted run" in p.stderr, p.stderr
    p = run_cli(breakout_bin, "baseline", str(interrupted), "--out", str(tmp_path / "b.json"))
    assert p.returncode == 2 and "[interrupted-base]" in p.stderr, p.stderr
    assert not (tmp_path / "b.json").exists()


def test_a_new_escape_wins_and_both_reasons_print(breakout_bin, base_file, tmp_path):
    attempts = with_verdict(with_verdict(base_attempts(), 0, "escape"), 1, "skip")
    new = write_results(tmp_path / "new" / "results.json", attempts)
    p = run_cli(breakout_bin, "diff", str(base_file), str(new))
    assert p.returncode == 4, p.stdout + p.stderr
    assert "new escape: 1 (exit 4 wins)" in p.stdout and "lost coverage: 1 execution judged in BASE" in p.stdout


def test_an_escape_that_turns_into_a_skip_is_not_fixed(breakout_bin, base_file, tmp_path):
    new = write_results(tmp_path / "new" / "results.json", with_verdict(base_attempts(), 3, "skip"))
    out = tmp_path / "diff.json"
    p = run_cli(breakout_bin, "diff", str(base_file), str(new), "--json", str(out))
    assert p.returncode == 5, p.stdout + p.stderr
    d = json.loads(out.read_text())
    assert not d["fixed_escapes"]
    assert [(e["before"], e["after"]) for e in d["lost_coverage"]["executions"]] == [("escape", "skip")]


def test_allow_change_takes_only_the_five_names(breakout_bin, base_file):
    p = run_cli(breakout_bin, "diff", str(base_file), str(base_file), "--allow-change", "spawner,kernel")
    assert p.returncode == 2 and "[bad-allow-change]" in p.stderr, p.stderr


@pytest.fixture(scope="module")
def none_write_run(run_breakout):
    run = run_breakout("--spawner", "none", "--only", "fs.write.*", "--no-external")
    assert run.returncode == 3, run.stderr[-2000:]
    return run


def test_real_runs_same_run_passes_and_a_narrower_one_loses_coverage(breakout_bin, none_write_run, run_breakout):
    p = run_cli(breakout_bin, "diff", str(none_write_run.out_dir), str(none_write_run.out_dir))
    assert p.returncode == 0, p.stdout + p.stderr
    narrower = run_breakout("--spawner", "none", "--only", "fs.write.create*", "--no-external")
    assert narrower.returncode == 3, narrower.stderr[-2000:]
    p = run_cli(breakout_bin, "diff", str(none_write_run.out_dir), str(narrower.out_dir))
    assert p.returncode == 5, p.stdout + p.stderr
    gone = {a["id"] for a in none_write_run.attempts if a["verdict"] != "skip"} - {a["id"] for a in narrower.attempts}
    assert gone and f"{len(gone)} executions judged in BASE are not judged in NEW ({len(gone)} missing" in p.stdout


def test_real_run_where_everything_skips_exits_5_and_gates_5(breakout_bin, run_breakout, tmp_path):
    # The Windows suite's protected-path attempts on Linux: every execution skips.
    run = run_breakout("--spawner", "none", "--suite", "windows-protected", "--no-external")
    assert run.results and run.attempts and all(a["verdict"] == "skip" for a in run.attempts)
    assert run.returncode == 5, run.stderr[-2000:]
    assert "skipped, so nothing was judged" in run.stderr and "--allow-all-skip" in run.stderr
    assert run.results["exit_status"] == 5
    allowed = run_breakout("--spawner", "none", "--suite", "windows-protected", "--no-external", "--allow-all-skip")
    assert allowed.returncode == 0, allowed.stderr[-2000:]
    p = run_cli(breakout_bin, "diff", str(run.out_dir), str(allowed.out_dir))
    assert p.returncode == 5 and "nothing was judged in NEW" in p.stdout, p.stdout + p.stderr
