"""Verdicts do not depend on load or parallelism: the default suite against none, bubblewrap and the
reference driver at the default 4 jobs on an idle machine and at --jobs 8 with two busy loops beside
it gives the same execution ids and the same verdicts. The idle run is the one test_none_spawner.py,
test_bwrap.py and test_driver_spawner.py judge (the session's run cache), so the suite is not run a
third time per spawner here.

What could differ is what depends on timing: a race not won in its budget (the calibration turns
that into an inconclusive skip, never a pass: docs/scenarios.md, "Races and their calibration"), a
heartbeat or a listener read too early, a timeout that scales with load. A difference here is a
bug to find, not a tolerance to widen.
"""
import contextlib
import os
import subprocess
import sys

import pytest

from six_spawners import SPAWNERS, require_spawner

SPAWNERS_COMPARED = ["none", "bwrap", "reference"]
BUSY = [sys.executable, "-c", "while True: pass"]


@contextlib.contextmanager
def busy_loops(n):
    """`n` processes spinning on the CPU for the length of the block, killed after it."""
    procs = [subprocess.Popen(BUSY) for _ in range(n)]
    try:
        yield
    finally:
        for p in procs:
            p.kill()
            p.wait()


def verdicts(run):
    assert run.results is not None, run.stderr[-2000:]
    return {a["id"]: a["verdict"] for a in run.attempts}


@pytest.mark.parametrize("name", SPAWNERS_COMPARED)
def test_same_verdicts_at_jobs_4_idle_and_jobs_8_under_load(run_breakout, name):
    require_spawner(name)
    args = SPAWNERS[name][0]
    calm = run_breakout(*args)  # --jobs 4, the default
    with busy_loops(2):
        loaded = run_breakout(*args, "--jobs", "8", timeout=1500)
    a, b = verdicts(calm), verdicts(loaded)
    assert a.keys() == b.keys(), sorted(a.keys() ^ b.keys())
    differ = sorted(i for i in a if a[i] != b[i])
    by_id = {x["id"]: x for x in loaded.attempts}
    calm_by_id = {x["id"]: x for x in calm.attempts}
    assert not differ, "\n".join(f"{i}: jobs 4 {a[i]} ({calm_by_id[i]['reason'][:200]}) / jobs 8 loaded {b[i]} "
                                 f"({by_id[i]['reason'][:200]})" for i in differ)
    assert calm.returncode == loaded.returncode
