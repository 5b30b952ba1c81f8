"""`breakout bench`: the breakout.bench/1 JSON, the history tables, the budget, and the regression compare.

The compare runs real measurements of two fixture spawners with the same name
(fixtures/bench-sh.toml sleeps 20 ms, bench-sh-slow.toml 200 ms: 180 ms slower per spawn):
the slower one must be flagged, an identical rerun must not, and fewer than 9
repetitions must give no verdict at all.
"""
import json
import os
import sqlite3
import subprocess
import time

import pytest

from conftest import FIXTURES

FAST = str(FIXTURES / "bench-sh.toml")
SLOW = str(FIXTURES / "bench-sh-slow.toml")
# Short repetitions; 9 of them, the least a Mann-Whitney verdict needs.
QUICK = ["--min-time", "0.05", "--repetitions", "9"]
# SLOW sleeps 200 ms where FAST sleeps 20 ms: 180 ms more per spawn, whatever the machine's load.
ADDED_SLEEP_MS = 180


def slower_by_the_added_sleep(c):
    """The p50 grew by most of the added sleep. Not a ratio: under load the base p50 grows (80 ms
    instead of ~30 ms at load average 8), so a fixed step is a smaller ratio there."""
    return c["new_p50_ms"] - c["base_p50_ms"] > 0.6 * ADDED_SLEEP_MS and c["ratio"] > 1.0


def bench(breakout_bin, tmp_path, name, *args, timeout=300):
    out = tmp_path / f"{name}.json"
    history = [] if "--history" in args else ["--no-history"]
    proc = subprocess.run([str(breakout_bin), "bench", "--out", str(out), *history, *args],
                          capture_output=True, text=True, timeout=timeout, errors="replace")
    doc = json.loads(out.read_text()) if out.exists() else None
    return proc, doc


def figure(doc, name):
    found = [f for f in doc["benchmarks"] if f["name"] == name]
    assert found, f"no benchmark {name} in {[f['name'] for f in doc['benchmarks']]}"
    return found[0]


def test_bench_none_json_shape_and_history(breakout_bin, tmp_path):
    db = tmp_path / "history.sqlite"
    proc, doc = bench(breakout_bin, tmp_path, "none", "--spawner", "none", "--min-time", "0.05",
                      "--repetitions", "3", "--pipe-bytes", "1048576", "--history", str(db))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert doc["schema"] == "breakout.bench/1"
    run = doc["run"]
    assert run["spawner"]["name"] == "none" and run["probe"] == "breakout-probe-noop"
    assert run["settings"] == {"min_time_s": 0.05, "repetitions": 3, "budget_s": 120.0, "spawn_timeout_s": 600.0}
    assert [f["name"] for f in doc["benchmarks"]] == ["spawn/raw", "spawn/none", "pipe/none"]
    for f in doc["benchmarks"]:
        assert f["status"] == "ok", f
        assert f["unit"] == "ms" and f["repetitions"] == 3 == len(f["repetition_ms"])
        assert f["n"] == f["repetitions"] * f["iterations_per_repetition"]
        assert 0 < f["min"] <= f["p50"] <= f["p90"] <= f["p99"] <= f["max"], f
    raw, none, pipe = doc["benchmarks"]
    assert raw["ratio_to_raw"] == 1.0
    assert none["ratio_to_raw"] == pytest.approx(none["p50"] / raw["p50"])
    assert pipe["ratio_to_raw"] is None
    assert pipe["bytes_per_spawn"] == 2 * 1048576 and pipe["bytes_per_second"] > 0
    assert "spawn/none" in proc.stdout and "x raw" in proc.stdout
    with sqlite3.connect(db) as con:
        (run_id,) = con.execute("SELECT run_id FROM bench_runs").fetchone()
        assert run_id == run["id"]
        rows = con.execute("SELECT f.name, f.p50_ms FROM bench_figures f JOIN bench_runs r ON f.bench_run = r.id "
                           "ORDER BY f.rowid").fetchall()
        assert rows == [(f["name"], f["p50"]) for f in doc["benchmarks"]]
    # A bench run is not an escape run: `breakout history` on the same file lists no run.
    h = subprocess.run([str(breakout_bin), "history", "--history", str(db)], capture_output=True, text=True, timeout=60)
    assert h.returncode == 0 and run["id"] not in h.stdout, h.stdout + h.stderr


def test_unavailable_spawner_is_skipped_and_failing_one_is_an_error(breakout_bin, tmp_path):
    missing = tmp_path / "missing-tool.toml"
    missing.write_text((FIXTURES / "bench-sh.toml").read_text()
                       .replace('name = "bench-sh"', 'name = "missing-tool"')
                       .replace('requires = ["sh", "sleep"]', 'requires = ["breakout-no-such-tool"]'))
    proc, doc = bench(breakout_bin, tmp_path, "missing", "--spawner", str(missing), "--min-time", "0.02",
                      "--repetitions", "1", "--only", "*/missing-tool")
    assert proc.returncode == 0, proc.stdout + proc.stderr  # a skip is not a failure
    assert [f["name"] for f in doc["benchmarks"]] == ["spawn/raw", "spawn/missing-tool", "pipe/missing-tool"]
    for f in doc["benchmarks"][1:]:
        assert f["status"] == "skipped" and "breakout-no-such-tool" in f["reason"], f
    # blocks-everything runs /bin/false instead of the probe: an error with the reason, exit status 1.
    proc, doc = bench(breakout_bin, tmp_path, "blocks", "--spawner", str(FIXTURES / "blocks-everything.toml"),
                      "--min-time", "0.02", "--repetitions", "1", "--only", "spawn/*")
    assert proc.returncode == 1, proc.stdout + proc.stderr
    f = figure(doc, "spawn/blocks-everything")
    assert f["status"] == "error" and "did not exit 0" in f["reason"], f
    assert figure(doc, "spawn/raw")["status"] == "ok"


def test_budget_bounds_a_slow_spawner(breakout_bin, tmp_path):
    start = time.monotonic()
    proc, doc = bench(breakout_bin, tmp_path, "slow300", "--spawner", str(FIXTURES / "bench-sh-300ms.toml"),
                      "--only", "spawn/bench-sh-300ms", "--min-time", "0.05", "--budget", "1.5")
    elapsed = time.monotonic() - start
    assert proc.returncode == 0, proc.stdout + proc.stderr
    f = figure(doc, "spawn/bench-sh-300ms")
    # Calibration (~0.3 s) + at most (1.5 - 0.3) / 0.3 = 4 single-spawn repetitions, not 9.
    assert f["iterations_per_repetition"] == 1 and 1 <= f["repetitions"] < 9, f
    assert "budget" in f["reason"]
    assert f["p50"] >= 300
    assert elapsed < 15, elapsed


@pytest.fixture
def baseline(breakout_bin, tmp_path_factory):
    # Per test, right before the run it is compared with: the less time between them, the less load drift.
    tmp = tmp_path_factory.mktemp("bench-base")
    proc, doc = bench(breakout_bin, tmp, "base", "--spawner", FAST, "--only", "spawn/bench-sh", *QUICK)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert figure(doc, "spawn/bench-sh")["repetitions"] == 9
    return tmp / "base.json"


def test_slower_variant_is_flagged(breakout_bin, tmp_path, baseline):
    proc, doc = bench(breakout_bin, tmp_path, "slow", "--spawner", SLOW, "--only", "spawn/bench-sh", *QUICK,
                      "--baseline", str(baseline))
    assert proc.returncode == 4, proc.stdout + proc.stderr
    c = {f["name"]: f for f in doc["compare"]["benchmarks"]}["spawn/bench-sh"]
    assert c["regression"] and c["verdict"] == "slower", c
    assert c["p_value"] < 0.05 and slower_by_the_added_sleep(c), c
    assert "REGRESSION: slower" in proc.stdout
    assert doc["compare"]["regression"] is True and doc["compare"]["gate"] == 4
    # The same verdict from `breakout diff` on the two files (the gate of docs/results.md).
    d = subprocess.run([str(breakout_bin), "diff", str(baseline), str(tmp_path / "slow.json"),
                        "--json", str(tmp_path / "diff.json")], capture_output=True, text=True, timeout=60)
    assert d.returncode == 4, d.stdout + d.stderr
    assert json.loads((tmp_path / "diff.json").read_text())["schema"] == "breakout.bench-diff/1"


def test_identical_rerun_is_not_flagged(breakout_bin, tmp_path):
    # Interleaved in one run (hidden --versus), so load from other jobs on the machine hits both sides alike.
    proc, doc = bench(breakout_bin, tmp_path, "rerun", "--spawner", FAST, "--versus", FAST,
                      "--only", "spawn/bench-sh", *QUICK)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    c = {f["name"]: f for f in doc["compare"]["benchmarks"]}["spawn/bench-sh"]
    assert not c["regression"], c
    assert c["p_value"] is not None and c["verdict"] != "no verdict", c  # a real test ran: 9 repetitions per side


def test_slower_variant_is_flagged_in_one_run(breakout_bin, tmp_path):
    proc, doc = bench(breakout_bin, tmp_path, "versus", "--spawner", FAST, "--versus", SLOW,
                      "--only", "spawn/bench-sh", *QUICK)
    assert proc.returncode == 4, proc.stdout + proc.stderr
    c = {f["name"]: f for f in doc["compare"]["benchmarks"]}["spawn/bench-sh"]
    assert c["regression"] and c["p_value"] < 0.05 and slower_by_the_added_sleep(c), c


def test_identical_files_diff_clean(breakout_bin, tmp_path, baseline):
    d = subprocess.run([str(breakout_bin), "diff", str(baseline), str(baseline)],
                       capture_output=True, text=True, timeout=60)
    assert d.returncode == 0, d.stdout + d.stderr
    assert "no significant change" in d.stdout


def test_too_few_repetitions_give_no_verdict(breakout_bin, tmp_path):
    proc, doc = bench(breakout_bin, tmp_path, "few", "--spawner", FAST, "--versus", SLOW, "--only", "spawn/bench-sh",
                      "--min-time", "0.05", "--repetitions", "5")
    assert proc.returncode == 0, proc.stdout + proc.stderr  # ~2x slower, yet never flagged on 5 samples
    c = {f["name"]: f for f in doc["compare"]["benchmarks"]}["spawn/bench-sh"]
    assert c["note"] == "not enough samples (n < 9): no verdict" and not c["regression"], c
    assert c["p_value"] is None and c["ratio"] > 1.15  # slower, yet no verdict
    assert "not enough samples (n < 9): no verdict" in proc.stdout


def test_bench_usage_errors(breakout_bin, tmp_path):
    proc = subprocess.run([str(breakout_bin), "bench", "--no-history"], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2  # --spawner is required
    proc, _ = bench(breakout_bin, tmp_path, "badbase", "--spawner", "none", "--baseline", str(tmp_path / "nope.json"))
    assert proc.returncode == 2 and "nope.json" in proc.stderr


DRIVER = str(FIXTURES / "bench-driver.toml")            # reference driver, 50 ms sleep per exec
DRIVER_SLOW = str(FIXTURES / "bench-driver-slow.toml")  # the same, sleeping 2x as long (100 ms)
# Several execs per repetition: one exec per repetition is at the mercy of the
# machine's load (seen in CI with another build running on the 2 cores).
DRIVER_QUICK = ["--min-time", "0.4", "--repetitions", "9"]


def test_driver_sleeping_twice_as_long_per_exec_is_flagged(breakout_bin, tmp_path):
    if os.geteuid() != 0:
        pytest.skip("the reference driver runs bwrap as root here")
    proc, doc = bench(breakout_bin, tmp_path, "driver-slow", "--spawner", DRIVER, "--versus", DRIVER_SLOW,
                      "--only", "spawn/bench-driver", *DRIVER_QUICK)
    assert proc.returncode == 4, proc.stdout + proc.stderr
    c = {f["name"]: f for f in doc["compare"]["benchmarks"]}["spawn/bench-driver"]
    assert c["regression"] and c["p_value"] < 0.05 and c["ratio"] > 1.3, c


def test_identical_driver_rerun_is_not_flagged(breakout_bin, tmp_path):
    if os.geteuid() != 0:
        pytest.skip("the reference driver runs bwrap as root here")
    proc, doc = bench(breakout_bin, tmp_path, "driver-rerun", "--spawner", DRIVER, "--versus", DRIVER,
                      "--only", "spawn/bench-driver", *DRIVER_QUICK)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    c = {f["name"]: f for f in doc["compare"]["benchmarks"]}["spawn/bench-driver"]
    assert not c["regression"] and c["verdict"] != "no verdict", c


def test_driver_bench_has_boot_and_warm_exec(breakout_bin, tmp_path):
    if os.geteuid() != 0:
        pytest.skip("the reference driver runs bwrap as root here")
    proc, doc = bench(breakout_bin, tmp_path, "driver-boot", "--spawner", DRIVER, "--only", "boot/*", *QUICK)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    names = {f["name"] for f in doc["benchmarks"]}
    assert {"spawn/raw", "boot/bench-driver"} <= names, names
