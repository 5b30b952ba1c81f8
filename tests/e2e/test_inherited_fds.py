"""Every fd the probe inherits is tried, whoever leaked it (the default suite's
ipc.fd-leak, scenarios/attempts/fd_inherit.toml): the caller's directory and file fds are judged by
the tree's snapshot, an fd a spawner or driver leaked by the host file it names."""
import glob
import os
import sys

import pytest

from conftest import FIXTURES, REPO, require_root_tool

PYTHON = "/usr/bin/python3" if os.path.exists("/usr/bin/python3") else sys.executable
REFERENCE = REPO / "drivers" / "python" / "reference_driver.py"
POLICIES = ("workspace-write", "network-full")


@pytest.fixture(autouse=True)
def needs_root():
    if os.geteuid() != 0:
        pytest.skip("needs root (namespaces, cgroups, bwrap inside the drivers)")


def fixture_driver(*args):
    return " ".join([PYTHON, str(FIXTURES / "drivers" / "leaked_log_fd.py"), *args])


def fd_leak(run):
    assert run.results is not None, run.stderr[-2000:]
    got = {a["id"]: a for a in run.attempts if a["id"].startswith("ipc.fd-leak@")}
    assert len(got) == 4, sorted(got)
    return got


def changed(a):
    return {c["path"]: c["change"] for c in a["evidence"]["changes_outside_writable_roots"]}


def test_none_escapes_through_the_callers_directory_and_file(run_breakout):
    got = fd_leak(run_breakout("--spawner", "none", "--only", "ipc.fd-leak*"))
    for policy in POLICIES:
        deny = got[f"ipc.fd-leak@{policy}[fs:sibling]"]
        assert deny["verdict"] == "escape", deny["reason"]
        paths = changed(deny)
        # Both branches of the walk: a file made through the directory fd, and the leaked file
        # appended to through its fd.
        assert any(p.startswith("sibling/breakout-fd-") and k == "created" for p, k in paths.items()), paths
        assert any(p.startswith("sibling/breakout-fd-file-") and k == "modified" for p, k in paths.items()), paths
        report = deny["probe_report"]
        assert report["dir_fds"] >= 1 and report["file_fds"] >= 1, report
        # The stream branch: the line the probe wrote into the leaked FIFO and into the leaked
        # unix socket reached the harness's reading ends.
        assert report["stream_fds"] >= 2, report
        assert deny["evidence"]["line_through_leaked_pipe"] is True, deny["evidence"]
        assert deny["evidence"]["line_through_leaked_socket"] is True, deny["evidence"]
        control = got[f"ipc.fd-leak@{policy}[fs:workspace]"]
        assert control["verdict"] == "pass", control["reason"]


def test_bwrap_declares_that_it_passes_the_callers_fds_on(run_breakout):
    require_root_tool("bwrap")
    got = fd_leak(run_breakout("--spawner", "bwrap", "--only", "ipc.fd-leak*"))
    for policy in POLICIES:
        deny = got[f"ipc.fd-leak@{policy}[fs:sibling]"]
        assert deny["verdict"] == "skip", deny["reason"]
        assert "passes the caller's fds on" in deny["reason"] and "bubblewrap #221" in deny["reason"]
        # The control still runs, and shows the declaration is true: both fds arrived.
        control = got[f"ipc.fd-leak@{policy}[fs:workspace]"]
        assert control["verdict"] == "pass", control["reason"]
        assert control["probe_report"]["dir_fds"] >= 1 and control["probe_report"]["file_fds"] >= 1


@pytest.mark.parametrize("only_read_only", [False, True])
def test_a_log_fd_the_driver_leaked_is_charged_to_every_execution(run_breakout, only_read_only):
    require_root_tool("bwrap")
    before = set(glob.glob("/tmp/breakout-fixture-log-*"))
    args = ("--read-only-only",) if only_read_only else ()
    got = fd_leak(run_breakout("--driver", fixture_driver(*args), "--only", "ipc.fd-leak*"))
    for policy in POLICIES:
        for target in ("fs:workspace", "fs:sibling"):
            a = got[f"ipc.fd-leak@{policy}[{target}]"]
            assert a["verdict"] == "escape", a["reason"]
            written = {w["path"] for w in a["evidence"]["written_outside_tree"]}
            logs = {os.path.basename(p) for p in written if "/breakout-fixture-log-" in p}
            # The read-only fd is re-opened for writing through /proc/self/fd.
            assert logs == ({"read-only.log"} if only_read_only else {"append.log", "read-only.log"}), written
        control = got[f"ipc.fd-leak@{policy}[fs:workspace]"]
        assert "during this execution (role allow)" in control["reason"], control["reason"]
    assert set(glob.glob("/tmp/breakout-fixture-log-*")) == before  # the driver removed its logs


def test_the_reference_driver_leaks_nothing(run_breakout):
    require_root_tool("bwrap")
    got = fd_leak(run_breakout("--driver", f"{PYTHON} {REFERENCE}", "--only", "ipc.fd-leak*"))
    for a in got.values():
        assert a["verdict"] == "pass", a["reason"]
        assert a["evidence"]["written_outside_tree"] == []


def test_firejail_closes_the_leaked_pipe_and_socket_too(run_breakout):
    require_root_tool("firejail")
    got = fd_leak(run_breakout("--spawner", "firejail", "--only", "ipc.fd-leak*"))
    for a in got.values():
        assert a["verdict"] == "pass", a["reason"]
        assert a["evidence"]["line_through_leaked_pipe"] is False
        assert a["evidence"]["line_through_leaked_socket"] is False
