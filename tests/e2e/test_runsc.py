"""gVisor (runsc) through the shipped template profile: one OCI bundle per exec (docs/spawners.md).

Signed on the default suite: no escape, no overblock, no error; what gVisor does by design is a
skip with the profile's declared reason (mknod, rename_exchange, host_proc, af_unix, xattr; on
--suite all's host-object slices also process_vm, keyring, tiocsti), and the denials those
controls pair with stand on the probe's witness. Every exec's container is
removed (`after`: runsc delete --force), also when the run is interrupted.
A bundle made weak on purpose (the host's / read-write) is caught: the same suite escapes.
"""
import json
import signal
import subprocess
import time
from pathlib import Path

import pytest

from conftest import REPO, require_root_tool

DECLARED = ("mknod", "rename_exchange", "host_proc", "af_unix", "xattr")


def runsc_processes():
    """runsc processes of breakout's attempts: their state root is under an attempt's spawner dir."""
    out = subprocess.run(["pgrep", "-a", "-f", r"runsc.*--root /tmp/breakout-"], capture_output=True, text=True).stdout
    return [line for line in out.splitlines() if line.strip()]


@pytest.fixture(scope="module")
def runsc_run(run_breakout):
    require_root_tool("runsc")
    # One Sentry per exec on gVisor's ptrace platform is CPU-heavy: 4 jobs on a 2-core runner
    # starved the lifetime controls' beaters (first beat up to 4.6 s of the probe's 6 s with two
    # busy loops beside, against 2.9 s at 2 jobs), and a control whose beater is not seen is an
    # error (never a pass). The suite runs with no more jobs than the runners have cores.
    return run_breakout("--spawner", "runsc", "--jobs", "2", timeout=900)


def test_no_escape_overblock_or_error(runsc_run):
    assert runsc_run.results is not None, runsc_run.stderr[-2000:]
    bad = [a for a in runsc_run.attempts if a["verdict"] not in ("pass", "skip")]
    assert not bad, runsc_run.explain(bad)
    assert len(runsc_run.by_verdict("pass")) > 150, runsc_run.stdout[-3000:]


def test_gvisor_limits_are_declared_skips_never_silent(runsc_run):
    reasons = [a["reason"] for a in runsc_run.by_verdict("skip")]
    for mechanism in DECLARED:
        assert any(f"runsc refuses {mechanism} under network" in r for r in reasons), mechanism
    # The denials paired with a declared control stand on the probe's witness, never on nothing.
    witnessed = [a for a in runsc_run.by_verdict("pass") if "witness" in a["reason"]]
    assert any(a["id"].startswith("fs.meta.setxattr@") for a in witnessed), [a["id"] for a in witnessed]
    assert any(a["id"].startswith("fs.write.mkfifo@") for a in witnessed), [a["id"] for a in witnessed]


def test_processes_of_the_sandbox_die_with_the_spawn(runsc_run):
    lifetime = [a for a in runsc_run.attempts if a["class"] in ("lifetime", "timeout-kill")]
    assert lifetime and all(a["verdict"] == "pass" for a in lifetime), runsc_run.explain(lifetime)


def test_every_container_is_removed(runsc_run):
    assert runsc_run.results is not None
    assert not runsc_processes()
    # Bundles and runsc's state live in each attempt's spawner dir (<tree>.spawner), removed with it.
    left = list(Path("/tmp").glob("breakout-*/*.spawner"))
    assert not left, f"spawner dirs (bundles, runsc state) left: {left[:3]}"


def test_sigint_removes_the_containers_in_flight(breakout_bin, tmp_path):
    require_root_tool("runsc")
    proc = subprocess.Popen([str(breakout_bin), "run", "--spawner", "runsc", "--only", "lifetime.*", "--no-history",
                             "--out", str(tmp_path / "o")], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.time() + 60
    while time.time() < deadline and not runsc_processes():
        time.sleep(0.05)
    assert runsc_processes(), "the run never started runsc"
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err.decode(errors="replace")[-2000:]
    assert json.loads((tmp_path / "o" / "results.json").read_text())["interrupted"] is True
    deadline = time.time() + 15
    while time.time() < deadline and runsc_processes():
        time.sleep(0.1)
    assert not runsc_processes()


def test_a_bundle_with_a_writable_root_is_caught(run_breakout, tmp_path):
    """The shipped profile with one change, the bundle's root read-write: the harness must see it."""
    require_root_tool("runsc")
    shipped = (REPO / "spawners" / "runsc.toml").read_text()
    assert shipped.count('"root": {"path": "/", "readonly": true}') == 1
    weak = tmp_path / "runsc-writable-root.toml"
    weak.write_text(shipped.replace('"readonly": true', '"readonly": false').replace('name = "runsc"', 'name = "runsc-weak"', 1))
    run = run_breakout("--spawner", str(weak), "--only", "fs.write.create")
    assert run.results is not None, run.stderr[-2000:]
    escapes = {a["id"] for a in run.by_verdict("escape")}
    assert "fs.write.create@workspace-write[fs:sibling/new-file]" in escapes, run.explain(run.attempts)
    assert not run.by_verdict("overblock") and not run.by_verdict("error"), run.explain(run.attempts)


# The host-object slices of --suite all: the own victim's readiness and memory scan must finish
# within the policy's timeout on gVisor's ptrace platform (a control killed at 10 s is an error),
# and what gVisor does not implement is a declared skip naming the mechanism.
SUITE_ALL_SLICES = {"proc.*": "process_vm", "key.*": "keyring", "tty.*": "tiocsti"}


@pytest.mark.parametrize("glob", sorted(SUITE_ALL_SLICES))
def test_host_object_controls_are_judged_or_declared(run_breakout, glob):
    require_root_tool("runsc")
    run = run_breakout("--spawner", "runsc", "--suite", "all", "--only", glob, timeout=300)
    assert run.results is not None, run.stderr[-2000:]
    bad = [a for a in run.attempts if a["verdict"] not in ("pass", "skip")]
    assert not bad, run.explain(bad)
    skips = run.by_verdict("skip")
    assert skips and all(f"runsc refuses {SUITE_ALL_SLICES[glob]} under network" in a["reason"] for a in skips), \
        run.explain(skips)
    if glob == "proc.*":  # ptrace works in gVisor: its own-victim control is judged, not skipped
        ptrace_controls = [a for a in run.attempts if a["id"].startswith("proc.ptrace@") and a["target"] == "ipc:own-victim"]
        assert ptrace_controls and all(a["verdict"] == "pass" for a in ptrace_controls), run.explain(ptrace_controls)
