"""Fail fast: a configuration error (--out, --probes, --driver) is exit 2 before the first attempt.

Every run here uses a probes directory of wrappers that log each start and then exec the real probe,
and a private TMPDIR (the work root, /tmp/breakout-<nonce>, is made under it): an empty log proves no
probe ran, an empty TMPDIR that no attempt tree was left. The positive run shows the log does fill.
"""
import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

import pytest

from conftest import REPO

PYTHON = "/usr/bin/python3" if os.path.exists("/usr/bin/python3") else "python3"
REFERENCE = REPO / "drivers" / "python" / "reference_driver.py"
ONE = "fs.write.create@workspace-write[fs:workspace/new-file]"  # with its group: a few quick executions
FAST = 10  # seconds: preflight failures happen before any attempt (the full default suite takes minutes)


@pytest.fixture(autouse=True)
def needs_root():
    if os.geteuid() != 0:
        pytest.skip("needs root (the run's cgroups and network namespace)")


@pytest.fixture
def spy(breakout_bin):
    """(probes dir of logging wrappers, log file, private TMPDIR), in a directory every uid can reach:
    some cases run their probe as another user (pytest's tmp_path is root's alone)."""
    base = Path(tempfile.mkdtemp(prefix="failfast-spy-", dir="/tmp"))
    base.chmod(0o755)
    probes, log, tmp = base / "probes", base / "probe-starts.log", base / "tmp"
    probes.mkdir()
    tmp.mkdir()
    tmp.chmod(0o1777)
    log.touch()
    log.chmod(0o666)
    for real in sorted(Path(breakout_bin).resolve().parent.glob("breakout-probe-*")):
        wrapper = probes / real.name
        wrapper.write_text(f'#!/bin/sh\necho "$0" >> {log}\nexec {real} "$@"\n')
        wrapper.chmod(0o755)
    yield probes, log, tmp
    shutil.rmtree(base, ignore_errors=True)


def log_filled(spy):
    return spy[1].exists() and spy[1].stat().st_size > 0


def run(breakout_bin, spy, *args, env=None, probes=None):
    probes, tmp = probes or spy[0], spy[2]
    e = dict(os.environ if env is None else env, TMPDIR=str(tmp))
    t0 = time.monotonic()
    p = subprocess.run([str(breakout_bin), "--probes", str(probes), "run", "--no-history", *args],
                       capture_output=True, text=True, timeout=600, errors="replace", env=e)
    p.seconds = time.monotonic() - t0
    return p


def assert_refused_before_any_attempt(p, spy, flag, *words):
    _, log, tmp = spy
    assert p.returncode == 2, (p.returncode, p.stderr[-2000:])
    assert flag in p.stderr, p.stderr
    for w in words:
        assert w in p.stderr, (w, p.stderr)
    assert p.seconds < FAST, f"took {p.seconds:.1f} s"
    assert not log_filled(spy), f"a probe ran: {log.read_text()[:500]}"
    assert list(tmp.iterdir()) == [], f"left under the work root's TMPDIR: {list(tmp.iterdir())}"


def test_the_spy_sees_a_run_that_starts(breakout_bin, spy, tmp_path):
    """The positive control of this file: with a good configuration the wrappers do log."""
    p = run(breakout_bin, spy, "--spawner", "none", "--only", ONE, "--out", str(tmp_path / "out"))
    assert p.returncode in (0, 1, 3), p.stderr[-2000:]
    assert log_filled(spy) and "breakout-probe-fs-write" in spy[1].read_text()
    assert (tmp_path / "out" / "results.json").exists()


def test_out_under_a_regular_file_is_exit_2(breakout_bin, spy, tmp_path):
    (tmp_path / "file").write_text("x")
    out = tmp_path / "file" / "results"
    p = run(breakout_bin, spy, "--spawner", "none", "--out", str(out))
    assert_refused_before_any_attempt(p, spy, f"--out {out}", "[bad-out]")
    assert (tmp_path / "file").read_text() == "x"


def test_out_that_takes_no_file_is_exit_2(breakout_bin, spy, tmp_path):
    # Root ignores directory modes, so a chmod would not stop it: /proc exists and takes no new file.
    p = run(breakout_bin, spy, "--spawner", "none", "--out", "/proc")
    assert_refused_before_any_attempt(p, spy, "--out /proc", "cannot create a file there")


def test_out_it_creates_is_removed_again_when_the_run_is_refused(breakout_bin, spy, tmp_path):
    out = tmp_path / "new" / "results"
    p = run(breakout_bin, spy, "--spawner", "none", "--out", str(out), "--only", "no-such-attempt*")
    assert p.returncode == 2 and "nothing to run" in p.stderr, p.stderr
    assert not (tmp_path / "new").exists()


def test_missing_probes_dir_is_exit_2(breakout_bin, spy, tmp_path):
    probes = tmp_path / "no-probes-here"
    p = run(breakout_bin, spy, "--spawner", "none", "--out", str(tmp_path / "out"), probes=probes)
    assert_refused_before_any_attempt(p, spy, f"--probes {probes}", "does not exist")
    assert not (tmp_path / "out").exists()


def test_probes_dir_missing_one_probe_is_exit_2(breakout_bin, spy, tmp_path):
    probes, _, _ = spy
    (probes / "breakout-probe-env-dump").unlink()
    (probes / "breakout-probe-noop").chmod(0o644)  # present but not executable (spawner-follow needs it)
    p = run(breakout_bin, spy, "--spawner", "none", "--out", str(tmp_path / "out"))
    assert_refused_before_any_attempt(p, spy, f"--probes {probes}", "breakout-probe-env-dump is missing",
                                      "breakout-probe-noop is not an executable file")
    assert not (tmp_path / "out").exists()


def test_probes_the_plan_does_not_need_may_be_missing(breakout_bin, spy, tmp_path):
    probes, log, _ = spy
    (probes / "breakout-probe-env-dump").unlink()
    p = run(breakout_bin, spy, "--spawner", "none", "--only", ONE, "--out", str(tmp_path / "out"))
    assert p.returncode in (0, 1, 3), p.stderr[-2000:]
    assert log_filled(spy)


def test_driver_not_on_the_callers_path_is_exit_2(breakout_bin, spy, tmp_path):
    path = f"{tmp_path / 'bin'}:/usr/bin:/bin"
    p = run(breakout_bin, spy, "--driver", "no-such-breakout-driver --flag", "--out", str(tmp_path / "out"),
            env=dict(os.environ, PATH=path))
    assert_refused_before_any_attempt(p, spy, "--driver", "'no-such-breakout-driver'", f"PATH={path}")


def test_driver_is_found_on_the_callers_path(breakout_bin, tmp_path):
    """A driver installed where only the user's PATH reaches (not the fixed PATH drivers run with)."""
    if not Path("/usr/bin/bwrap").exists():
        pytest.skip("the reference driver needs bwrap")
    bindir = tmp_path / "bin"
    bindir.mkdir()
    driver = bindir / "my-breakout-driver"
    driver.write_text(f'#!/bin/sh\nexec {PYTHON} {REFERENCE} "$@"\n')
    driver.chmod(0o755)
    env = dict(os.environ, PATH=f"{bindir}:{os.environ.get('PATH', '/usr/bin:/bin')}")
    # The real probes: the reference driver's sandbox shows it the probes directory, not the spy's targets.
    p = subprocess.run([str(breakout_bin), "run", "--no-history", "--driver", "my-breakout-driver", "--only", ONE,
                        "--out", str(tmp_path / "out")], capture_output=True, text=True, timeout=600,
                       errors="replace", env=env)
    assert p.returncode == 0, p.stderr[-2000:]
    assert (tmp_path / "out" / "results.json").exists()


# `breakout repro` has the same flags: the same checks before its case runs. The case is the live
# fuzzer's cwd-parent-dotdot (test_live_fuzzer.py), which escapes `none` when it runs.
CASE = bytes([1, 0, 0, 1, 2, 2, 0])


def repro(breakout_bin, spy, tmp_path, *args, env=None, probes=None):
    case = tmp_path / "case"
    case.write_bytes(CASE)
    e = dict(os.environ if env is None else env, TMPDIR=str(spy[2]))
    t0 = time.monotonic()
    p = subprocess.run([str(breakout_bin), "--probes", str(probes or spy[0]), "repro", str(case), *args],
                       capture_output=True, text=True, timeout=180, errors="replace", env=e)
    p.seconds = time.monotonic() - t0
    return p


def test_repro_runs_its_case_through_the_spy(breakout_bin, spy, tmp_path):
    p = repro(breakout_bin, spy, tmp_path, "--spawner", "none")
    assert p.returncode == 3, p.stdout + p.stderr
    assert log_filled(spy)


def test_repro_with_a_probe_missing_is_exit_2(breakout_bin, spy, tmp_path):
    probes, _, _ = spy
    (probes / "breakout-probe-fs-write").unlink()
    p = repro(breakout_bin, spy, tmp_path, "--spawner", "none")
    assert_refused_before_any_attempt(p, spy, f"--probes {probes}", "breakout-probe-fs-write is missing")


def test_repro_with_a_driver_not_on_path_is_exit_2(breakout_bin, spy, tmp_path):
    p = repro(breakout_bin, spy, tmp_path, "--driver", "no-such-breakout-driver",
              env=dict(os.environ, PATH="/usr/bin:/bin"))
    assert_refused_before_any_attempt(p, spy, "--driver", "PATH=/usr/bin:/bin")
