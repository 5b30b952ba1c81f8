"""The six spawners whose verdicts the agent-escape e2e tests sign, and what their runs leave in /tmp.

    from six_spawners import SPAWNERS, require_spawner, tool_residue, remove_residue_since
    require_spawner("srt")                # skips with the reason when a tool is missing or not root
    before = tool_residue()
    run = run_breakout(*SPAWNERS["srt"][0], "--only", "fs.write.submount*")
    remove_residue_since(before)          # only what appeared during this run
"""
import contextlib
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from conftest import REPO

PYTHON = "/usr/bin/python3" if os.path.exists("/usr/bin/python3") else sys.executable
REFERENCE = REPO / "drivers" / "python" / "reference_driver.py"
TOOLS = REPO / "spawners" / "tools" / "node_modules"
CODEX = TOOLS / "@openai" / "codex-linux-x64" / "vendor" / "x86_64-unknown-linux-musl" / "bin" / "codex"
SRT = TOOLS / ".bin" / "srt"

# name -> (the breakout arguments that select it, the tools it needs)
SPAWNERS = {
    "none": (["--spawner", "none"], []),
    "bwrap": (["--spawner", "bwrap"], ["bwrap"]),
    "firejail": (["--spawner", "firejail"], ["firejail"]),
    "reference": (["--driver", f"{PYTHON} {REFERENCE}"], ["bwrap"]),
    "codex-linux": (["--spawner", "codex-linux"], [CODEX]),
    "srt": (["--spawner", "srt"], [SRT, "bwrap", "socat", "rg"]),
}
# What Codex and srt leave in /tmp by themselves (docs/spawners.md).
RESIDUE = ("claude-", "srt-mux-", "codex-bwrap-synthetic-mount-targets-", "codex-daemon-")


def require_spawner(name):
    if os.geteuid() != 0:
        pytest.skip("needs root (namespaces, cgroups, sandboxes as root)")
    for tool in SPAWNERS[name][1]:
        if not (Path(tool).exists() if isinstance(tool, Path) else shutil.which(tool)):
            pytest.skip(f"{tool} is not installed (bash ci/setup.sh installs it)")


def tool_residue():
    return {p for p in Path("/tmp").iterdir() if p.name.startswith(RESIDUE)}


def remove_residue_since(before):
    for path in tool_residue() - before:
        shutil.rmtree(path) if path.is_dir() and not path.is_symlink() else path.unlink()


@contextlib.contextmanager
def private_tmpdir(prefix, mounts_below):
    """TMPDIR for the breakout runs of one test: their work roots (and the harness's mounts) lie below
    it, apart from any other run. Removed afterwards unless `mounts_below(root)` still lists a mount:
    then it stays for the test's own assertion to name (removing it would recurse into the mount)."""
    root = Path(tempfile.mkdtemp(prefix=prefix, dir="/tmp"))
    old = os.environ.get("TMPDIR")
    os.environ["TMPDIR"] = str(root)
    try:
        yield root
    finally:
        if old is None:
            os.environ.pop("TMPDIR", None)
        else:
            os.environ["TMPDIR"] = old
        if not mounts_below(root):
            shutil.rmtree(root, ignore_errors=True)


# A template spawner that sleeps 20 s before the command: the attempt is mid-way (its mounts made,
# the probe not yet run) for long enough to be interrupted there.
SLOW_PROFILE = ('name = "slow"\ndescription = "sleeps before the command"\nrequires = ["sh"]\n'
                'command = ["sh", "-c", "sleep 20; exec \\"$@\\"", "slow", "{argv...}"]\n'
                'writable_root = []\ndeny_read_dir = []\ndeny_read_file = []\n'
                '[network]\nnone = []\nfull = []\n')


def interrupt_once_mounted(breakout_bin, tmp_path, run_args, prefix, mounts_below, what):
    """SIGINT a `breakout run` (against SLOW_PROFILE, with `run_args`) once `mounts_below` shows its
    mount, and assert it exits 130 leaving no mount and no work root: the mount goes with the attempt."""
    slow = tmp_path / "slow.toml"
    slow.write_text(SLOW_PROFILE)
    with private_tmpdir(prefix, mounts_below) as root:
        proc = subprocess.Popen([str(breakout_bin), "run", "--no-history", "--spawner", str(slow), *run_args,
                                 "--out", str(tmp_path / "o")], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        try:
            deadline = time.time() + 20
            while time.time() < deadline and not mounts_below(root):
                time.sleep(0.05)
            assert mounts_below(root), f"the run never {what}"
        finally:  # also when the assertion fails: the run cleans up before its directory goes
            proc.send_signal(signal.SIGINT)
            _, err = proc.communicate(timeout=60)
        assert proc.returncode == 130, err.decode(errors="replace")[-2000:]
        assert mounts_below(root) == []
        assert not list(root.iterdir()), "the interrupted run left its work root"
