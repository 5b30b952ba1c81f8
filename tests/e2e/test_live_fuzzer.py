"""The live escape fuzzer (docs/fuzzing.md): finds the planted fs-API escapes from the seed corpus, and nothing in correct spawners; repro and repro --save round-trip a find; the cwd, PATH and proxy dimensions escape `none` and not bwrap."""
import os
import re
import subprocess
from pathlib import Path

import pytest

from conftest import FIXTURES, REPO, require_root_tool

LIVE = Path(os.environ.get("BREAKOUT_LIVE_FUZZER", REPO / "build" / "bin" / "live_fuzzer"))
DRIVERS = FIXTURES / "drivers"
REFERENCE = f"/usr/bin/python3 {REPO / 'drivers' / 'python' / 'reference_driver.py'}"
# Seconds of fuzzing for the "finds nothing" runs; longer runs: docs/fuzzing.md.
CLEAN_SECONDS = int(os.environ.get("BREAKOUT_LIVE_CLEAN_SECONDS", "20"))


@pytest.fixture(autouse=True)
def live_fuzzer_built():
    require_root_tool("bwrap")
    if not LIVE.exists():
        pytest.skip(f"live fuzzer not built: {LIVE} (the default build makes it when clang is installed)")


def fuzz(tmp_path, seconds, *, driver=None, spawner=None):
    """One bounded libFuzzer session from the seed corpus; new inputs go to a temp dir, never the repo."""
    artifacts, work = tmp_path / "artifacts", tmp_path / "new-inputs"
    artifacts.mkdir()
    work.mkdir()
    env = dict(os.environ, BREAKOUT_LIVE_PROBES=str(REPO / "build" / "bin"))
    env.pop("BREAKOUT_LIVE_DRIVER", None)
    if driver:
        env["BREAKOUT_LIVE_DRIVER"] = driver
    else:
        env["BREAKOUT_LIVE_SPAWNER"] = spawner
    cmd = [str(LIVE), f"-max_total_time={seconds}", "-max_len=7", "-timeout=60", "-detect_leaks=0",
           "-print_final_stats=1", f"-artifact_prefix={artifacts}/", f"-dict={REPO / 'fuzz' / 'live_fuzzer.dict'}",
           str(work), str(REPO / "fuzz" / "corpus" / "live")]
    proc = subprocess.run(cmd, capture_output=True, text=True, errors="replace", env=env, timeout=seconds + 180)
    return proc, sorted(artifacts.glob("crash-*"))


def repro(breakout_bin, artifact, driver, *extra):
    return subprocess.run([str(breakout_bin), "repro", str(artifact), "--driver", driver, *extra],
                          capture_output=True, text=True, errors="replace", timeout=120)


def no_leftovers():
    return [p for p in Path("/tmp").glob("breakout-live-*")] + [p for p in Path("/tmp").glob("breakout-repro-*")]


@pytest.mark.parametrize("fixture, forms", [
    ("prefix_confined_fs.py", {"dotdot", "sibling-prefix"}),
    ("normalise_no_resolve_fs.py", {"symlink-file", "symlink-dir", "symlink-chain", "symlink-dangling"}),
])
def test_finds_planted_escape_and_round_trips(fixture, forms, tmp_path, breakout_bin, run_breakout):
    driver = f"/usr/bin/python3 {DRIVERS / fixture}"
    before = no_leftovers()
    proc, crashes = fuzz(tmp_path, 60, driver=driver)
    assert proc.returncode != 0 and "breakout live fuzzer: ESCAPE" in proc.stderr, proc.stderr[-3000:]
    assert len(crashes) == 1, proc.stderr[-2000:]
    form = re.search(r"spelled in path form (\S+),", proc.stderr).group(1)
    assert form in forms, proc.stderr[-2000:]
    assert no_leftovers() == before  # the work root went before the trap

    again = repro(breakout_bin, crashes[0], driver)
    assert again.returncode == 3, again.stdout + again.stderr
    assert f"path form {form}" in again.stdout and "ESCAPE" in again.stdout and "verdict: escape" in again.stdout

    regs = tmp_path / "regs"
    saved = repro(breakout_bin, crashes[0], driver, "--save", "--regressions", str(regs))
    assert saved.returncode == 3, saved.stdout + saved.stderr
    [scenario] = list(regs.glob("*.toml"))
    assert f'param = "{form}"' in scenario.read_text() or form == "absolute"
    # The saved scenario, included as a directory (as the default suite includes scenarios/regressions).
    suite = tmp_path / "suite.toml"
    suite.write_text('name = "regressions"\ndescription = "saved live finds"\npolicies = ["workspace-write"]\n'
                     'include = ["regs"]\n')
    flawed = run_breakout("--suite", str(suite), "--driver", driver, "--no-external")
    assert flawed.returncode == 3 and flawed.by_verdict("escape"), flawed.stderr + flawed.stdout
    correct = run_breakout("--suite", str(suite), "--driver", REFERENCE, "--no-external")
    assert correct.returncode == 0, correct.explain(correct.attempts)
    assert {a["verdict"] for a in correct.attempts} == {"pass"}, correct.explain(correct.attempts)


@pytest.mark.parametrize("target", [{"driver": REFERENCE}, {"spawner": "bwrap"}], ids=["reference-driver", "bwrap"])
def test_correct_spawners_show_nothing(target, tmp_path):
    proc, crashes = fuzz(tmp_path, CLEAN_SECONDS, **target)
    assert proc.returncode == 0 and not crashes, proc.stderr[-3000:]
    runs = int(re.search(r"stat::number_of_executed_units:\s*(\d+)", proc.stderr).group(1))
    assert runs >= 20, proc.stderr[-2000:]  # it really ran cases, not just started


# Cases of the cwd, PATH and proxy dimensions of the decoder (bytes: docs/fuzzing.md, "What an input is"),
# each with what must show of the request (evidence that the dimension was applied, not a
# verdict): the cwd the spawner was handed (evidence.cwd_requested), the PATH the probe searched,
# the destination it asked for.
NEW_DIMENSIONS = {
    "cwd-sibling": ([0, 0, 0, 0, 0, 1, 0], '/sibling"'),
    "cwd-home-through-symlink": ([0, 0, 0, 8, 0, 3, 0], '/workspace/.hop-'),
    "cwd-parent-dotdot": ([1, 0, 0, 1, 2, 2, 0], '/workspace/../."'),
    "path-relative": ([0, 0, 2, 0, 0, 0, 2], '"path":".bin:'),
    "path-dot": ([0, 0, 0, 0, 0, 0, 3], '"path":".:'),
    "path-empty": ([0, 0, 3, 0, 0, 0, 4], '"path":":'),
    "proxy-connect-decimal": ([0, 4, 1], '"target":"tcp:'),
    "proxy-socks5-name": ([0, 6, 5], '"name":"denied.breakout.test"'),
}


def repro_spawner(breakout_bin, artifact, spawner):
    return subprocess.run([str(breakout_bin), "repro", str(artifact), "--spawner", spawner],
                          capture_output=True, text=True, errors="replace", timeout=180)


@pytest.mark.parametrize("name", sorted(NEW_DIMENSIONS))
def test_new_dimensions_escape_none_and_not_bwrap(name, tmp_path, breakout_bin):
    """`none` confines nothing: every new-dimension case escapes, with its control passing; bwrap
    passes the cwd and PATH cases and skips the proxy ones (it cannot express network = proxy)."""
    data, shown = NEW_DIMENSIONS[name]
    case = tmp_path / name
    case.write_bytes(bytes(data))
    before = no_leftovers()
    none = repro_spawner(breakout_bin, case, "none")
    assert none.returncode == 3, none.stdout + none.stderr
    assert none.stdout.count("verdict: escape") == 1 and none.stdout.count("verdict: pass") == 1, none.stdout
    assert shown in none.stdout, none.stdout
    if name.startswith("path-"):
        assert '"exit":0' in none.stdout, none.stdout  # the stub found the real git past itself
    bwrap = repro_spawner(breakout_bin, case, "bwrap")
    assert bwrap.returncode == 0 and "No escape." in bwrap.stdout, bwrap.stdout + bwrap.stderr
    assert ("verdict: skip" if name.startswith("proxy-") else "verdict: pass") in bwrap.stdout, bwrap.stdout
    assert no_leftovers() == before


def test_proxy_find_is_saved_for_the_proxy_suite(tmp_path, breakout_bin, run_breakout):
    """A proxy find runs under network-proxy, which the default suite lacks: --save puts it into
    regressions/proxy/, and the saved pair (spelled denial + unspelled control) runs as a suite."""
    case = tmp_path / "proxy-absolute-userinfo"
    case.write_bytes(bytes([0, 5, 14]))
    regs = tmp_path / "regs"
    saved = subprocess.run([str(breakout_bin), "repro", str(case), "--spawner", "none", "--save", "--regressions",
                            str(regs)], capture_output=True, text=True, errors="replace", timeout=180)
    assert saved.returncode == 3, saved.stdout + saved.stderr
    assert not list(regs.glob("*.toml"))
    [scenario] = list((regs / "proxy").glob("*.toml"))
    assert 'controls_from = "regression.proxy-absolute.userinfo.proxy-denied.control"' in scenario.read_text()
    suite = tmp_path / "suite.toml"
    suite.write_text('name = "proxy-regressions"\ndescription = "saved live finds"\npolicies = ["network-proxy"]\n'
                     'include = ["regs/proxy"]\n')
    flawed = run_breakout("--suite", str(suite), "--spawner", "none")
    assert flawed.returncode == 3 and flawed.by_verdict("escape"), flawed.stderr + flawed.stdout


def test_ctrl_c_removes_every_attempt_tree(tmp_path):
    """libFuzzer's own SIGINT handler _Exits; the fuzzer's replaces it: the running attempt unwinds, the root goes."""
    import signal
    import time
    before = no_leftovers()
    (tmp_path / "new").mkdir()
    env = dict(os.environ, BREAKOUT_LIVE_PROBES=str(REPO / "build" / "bin"), BREAKOUT_LIVE_SPAWNER="bwrap")
    env.pop("BREAKOUT_LIVE_DRIVER", None)
    proc = subprocess.Popen([str(LIVE), "-max_len=7", "-detect_leaks=0", str(tmp_path / "new"),
                             str(REPO / "fuzz" / "corpus" / "live")], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, errors="replace")
    try:
        time.sleep(4)
        assert len(no_leftovers()) == len(before) + 1  # its work root exists while it runs
        proc.send_signal(signal.SIGINT)
        err = proc.communicate(timeout=60)[1]
    finally:
        proc.kill()
    assert proc.returncode == 130 and "attempt trees removed" in err, err[-2000:]
    assert no_leftovers() == before
