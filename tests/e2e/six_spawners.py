"""The six spawners whose verdicts issue 21's e2e tests sign, and what their runs leave in /tmp.

    from six_spawners import SPAWNERS, require_spawner, tool_residue, remove_residue_since
    require_spawner("srt")                # skips with the reason when a tool is missing or not root
    before = tool_residue()
    run = run_breakout(*SPAWNERS["srt"][0], "--only", "fs.write.submount*")
    remove_residue_since(before)          # only what appeared during this run
"""
import contextlib
import os
import shutil
import sys
import tempfile
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
