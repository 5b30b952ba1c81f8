"""Ctrl-C mid-run leaves nothing behind (no process, tree, cgroup or network namespace) and writes what it judged."""
import json
import os
import signal
import subprocess
import time
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from conftest import REPO


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
    # What was judged before the signal is written, marked (test_interrupted_run_writes_what_it_judged).
    results = json.loads((tmp_path / "o" / "results.json").read_text())
    assert results["interrupted"] is True and results["planned"] > len(results["attempts"])
    for name in ("junit.xml", "report.html", "summary.md"):
        assert (tmp_path / "o" / name).exists(), name
    # kill_all waits at most 2 s per containment, and the interrupted run tears its containments down one
    # after another (4 jobs: up to 8 s when every one waits, as on a loaded machine).
    deadline = time.time() + 15
    while time.time() < deadline and leftovers() != before:
        time.sleep(0.1)
    after = leftovers()
    for kind in after:
        new = set(after[kind]) - set(before[kind])
        assert not new, f"left behind {kind}: {sorted(new)}"


# An interrupted run keeps what it judged: a one-policy suite whose quick attempts (writes, environment)
# come first and whose last attempt, contract.no-timeout-long, sleeps 130 s in its spawn, at --jobs 1.
# Once that probe sleeps every quick execution has been judged; the signal then cuts the sleep short,
# which a full run would judge `pass` and a killed one cannot: it must be absent, not judged.
QUICK = ["fs_write.toml", "environment.toml"]


def suite_file(path, name, includes):
    attempts = REPO / "scenarios" / "attempts"
    path.write_text(f'name = "{name}"\ndescription = "test_interrupt"\npolicies = ["workspace-write"]\n'
                    f'include = [{", ".join(repr(str(attempts / i)) for i in includes)}]\n'.replace("'", '"'))
    return path


def ours(tmp):
    """Live processes of our run only (other runs on the machine have their own work roots): any process
    whose command line names our TMPDIR, probes and the escaped grandchildren they fork alike."""
    found = []
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            cmd = (proc / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            state = (proc / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if state != "Z" and str(tmp) in cmd and "breakout-probe-" in cmd:
            found.append(f"{proc.name} {state} {cmd[:200]}")
    return found


def long_sleep_running(tmp):
    return [p for p in ours(tmp) if "breakout-probe-sleep --ms 130000" in p]


def run_env(tmp):
    """A private TMPDIR: the run's work root (TMPDIR/breakout-<nonce>) and trees are findable as ours."""
    tmp.mkdir(exist_ok=True)
    return dict(os.environ, TMPDIR=str(tmp))


@pytest.fixture(scope="module")
def quick_full_run(breakout_bin, tmp_path_factory):
    """The quick attempts run to the end: the verdicts an interrupted run must agree with."""
    if os.geteuid() != 0:
        pytest.skip("needs root (cgroups, network namespaces)")
    tmp = tmp_path_factory.mktemp("quick")
    out = tmp / "o"
    p = subprocess.run([str(breakout_bin), "run", "--spawner", "none", "--no-history", "--jobs", "1",
                        "--suite", str(suite_file(tmp / "quick.toml", "quick", QUICK)), "--out", str(out)],
                       capture_output=True, text=True, timeout=600, errors="replace", env=run_env(tmp / "tmp"))
    assert p.returncode in (0, 1, 3), p.stderr[-2000:]
    results = json.loads((out / "results.json").read_text())
    assert results["interrupted"] is False and results["planned"] == len(results["attempts"])
    assert results["summary"]["escape"] > 0 and results["summary"]["error"] == 0, results["summary"]  # `none`
    return {a["id"]: a["verdict"] for a in results["attempts"]}


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_interrupted_run_writes_what_it_judged(breakout_bin, tmp_path, quick_full_run, sig):
    out, tmp = tmp_path / "o", tmp_path / "tmp"
    suite = suite_file(tmp_path / "quick-then-long.toml", "quick-then-long", QUICK + ["long.toml"])
    proc = subprocess.Popen([str(breakout_bin), "run", "--spawner", "none", "--no-history", "--jobs", "1",
                             "--suite", str(suite), "--out", str(out)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=run_env(tmp))
    deadline = time.time() + 120
    while time.time() < deadline and not long_sleep_running(tmp) and proc.poll() is None:
        time.sleep(0.05)
    assert long_sleep_running(tmp), "the run never reached its long attempt"
    proc.send_signal(sig)
    stdout, stderr = proc.communicate(timeout=60)
    stdout, stderr = stdout.decode(errors="replace"), stderr.decode(errors="replace")
    assert proc.returncode == 130, stderr[-2000:]

    results = json.loads((out / "results.json").read_text())
    judged = {a["id"]: a["verdict"] for a in results["attempts"]}
    assert results["interrupted"] is True
    assert results["exit_status"] == 130
    assert results["planned"] == len(quick_full_run) + 1
    # Every quick execution was judged, with the verdict the full run gives; the execution the signal
    # cut short is absent (not a skip, not a pass, not the error its kill would read as).
    assert judged == quick_full_run
    assert sum(results["summary"].values()) == len(judged)
    line = f"interrupted: {len(judged)} of {results['planned']} executions judged"
    assert line in stdout, stdout[-2000:]

    junit = ET.parse(out / "junit.xml").getroot()
    cases = junit.findall(".//testcase")
    assert len(cases) == len(judged) + 1
    interrupted_case = [c for c in cases if c.get("name") == "run interrupted"]
    assert interrupted_case and line in interrupted_case[0].find("error").get("message")
    for name in ("report.html", "summary.md"):
        assert line in (out / name).read_text(), name

    # `breakout report` renders it again, and says it is partial.
    html, md = tmp_path / "again.html", tmp_path / "again.md"
    r = subprocess.run([str(breakout_bin), "report", str(out), "--out", str(html), "--markdown", str(md),
                        "--no-history"], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert "Partial report: " + line in html.read_text()
    assert "**Partial: " + line in md.read_text()

    # Cleanup stays complete, for what can be told ours on a shared machine: processes and trees under
    # our TMPDIR, our run's network namespace (bo-<run nonce>); test_sigint_mid_run_cleans_up checks cgroups.
    netns_tag = "bo-" + results["run"]["id"].rsplit("-", 1)[1]
    deadline = time.time() + 15
    while time.time() < deadline and (ours(tmp) or list(tmp.iterdir())):
        time.sleep(0.1)
    assert not ours(tmp), ours(tmp)
    assert list(tmp.iterdir()) == []
    netns = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout
    assert not [n for n in netns.splitlines() if n.startswith(netns_tag)], netns
