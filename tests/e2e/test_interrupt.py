"""Ctrl-C mid-run leaves nothing behind: no process, tree, cgroup or network namespace."""
import os
import signal
import subprocess
import time
from pathlib import Path

import pytest


def live_probe_processes():
    """Probe processes still running (zombies are already dead: reaping them is their parent's job)."""
    # By process name (comm, 15 bytes: "breakout-probe-"), not -f: a compiler building the probes has
    # "breakout-probe-" in its command line, and other worktrees build on the same machine.
    pids = subprocess.run(["pgrep", "^breakout-probe"], capture_output=True, text=True).stdout.split()
    live = []
    for pid in pids:
        try:
            stat = Path(f"/proc/{pid}/stat").read_text()
        except OSError:
            continue
        state = stat.rsplit(")", 1)[1].split()[0]
        if state != "Z":
            cmd = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            live.append(f"{pid} {state} {cmd[:120]}")
    return live


def leftovers():
    procs = live_probe_processes()
    trees = [p.name for p in Path("/tmp").glob("breakout-*")]
    cg = Path("/sys/fs/cgroup/unified/breakout")
    cgroups = [p.name for p in cg.iterdir() if p.is_dir()] if cg.exists() else []
    netns = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout
    return {"processes": procs, "trees": trees, "cgroups": cgroups,
            "netns": [l for l in netns.splitlines() if l.startswith("bo-")]}


def test_sigint_mid_run_cleans_up(breakout_bin, tmp_path):
    if os.geteuid() != 0:
        pytest.skip("needs root (cgroups, network namespaces)")
    before = leftovers()
    proc = subprocess.Popen([str(breakout_bin), "run", "--spawner", "none", "--only", "lifetime.*",
                             "--out", str(tmp_path / "o")], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    # Wait until escaped grandchildren are really beating, then interrupt.
    deadline = time.time() + 10
    while time.time() < deadline and not leftovers()["processes"]:
        time.sleep(0.05)
    assert leftovers()["processes"], "the run never started a probe"
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == 130, err.decode(errors="replace")[-2000:]
    # kill_all waits at most 2 s per containment, and the interrupted run tears its containments down one
    # after another (4 jobs: up to 8 s when every one waits, as on a loaded machine).
    deadline = time.time() + 15
    while time.time() < deadline and leftovers() != before:
        time.sleep(0.1)
    after = leftovers()
    for kind in after:
        new = set(after[kind]) - set(before[kind])
        assert not new, f"left behind {kind}: {sorted(new)}"
