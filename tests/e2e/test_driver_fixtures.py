"""Each flawed fixture driver really has its flaw (so none can silently become correct), next to the reference."""
from __future__ import annotations

import os
import select
import time

import pytest

from driver_client import (FIXTURE_DRIVERS, booted, driver_cmd, marker, pids_with,  # noqa: F401
                           policy, start, tree, wait_no_pids)
from breakout_driver import posix_acl  # driver_client put drivers/python on sys.path

MIB = 1 << 20


def fixture(name: str, *args: str) -> list[str]:
    return driver_cmd(FIXTURE_DRIVERS / f"{name}.py", *args)


def running(m: str, count: int = 1, timeout: float = 10.0) -> list[int]:
    end = time.monotonic() + timeout
    while len(found := pids_with(f"sleep\0{m}")) < count and time.monotonic() < end:
        time.sleep(0.05)
    return found


def test_boot_cannot_start(start, tree):
    d = start(fixture("boot_cannot_start"))
    assert d.ok("hello", protocol=1)["name"] == "fixture-boot-cannot-start"
    r = d.call("boot", session="s1", policy=policy(str(tree / "ws")))
    assert r["error"]["code"] == "boot_failed" and "CreateDesktopW" in r["error"]["message"]


@pytest.mark.parametrize("driver,timed_out", [("reference", False), ("output_after_exit", True)])
def test_output_after_exit_deadlocks_on_a_flood(start, tree, driver, timed_out):
    d = booted(start(None if driver == "reference" else fixture(driver)), tree / "ws")
    r = d.ok("exec", session="s1", argv=["head", "-c", str(MIB), "/dev/zero"], cwd=None, env={}, timeout_s=2)
    assert r["timed_out"] is timed_out
    assert len(r["stdout"]) == (MIB if not timed_out else 0) or timed_out and len(r["stdout"]) <= MIB


def test_single_job_handle_shutdown_leaves_earlier_execs(start, tree, marker):
    d = booted(start(fixture("single_job_handle")), tree / "ws")
    first = d.send("exec", session="s1", argv=["sleep", marker], cwd=None, env={}, timeout_s=None)
    assert len(running(marker, 1)) == 1
    d.send("exec", session="s1", argv=["sleep", marker], cwd=None, env={}, timeout_s=None)
    assert len(running(marker, 2)) == 2
    d.ok("shutdown", session="s1")
    assert len(wait_no_pids(f"sleep\0{marker}", 1.0)) == 1  # the first exec outlived shutdown
    with pytest.raises(TimeoutError):
        d.wait(first, timeout=0.5)
    d.kill()  # the driver's death takes it down (--die-with-parent)
    assert wait_no_pids(f"sleep\0{marker}", 5.0) == []


def test_ignored_cwd(start, tree):
    d = booted(start(fixture("ignored_cwd")), tree / "ws")
    r = d.ok("exec", session="s1", argv=["pwd"], cwd=str(tree / "ws" / "sub"), env={}, timeout_s=5)
    assert r["stdout"] == f"{tree / 'ws'}\n"


def test_env_override_lets_the_caller_beat_pinned_vars(start, tree):
    d = booted(start(fixture("env_override")), tree / "ws")
    r = d.ok("exec", session="s1", argv=["env"], cwd=None, env={"HTTP_PROXY": "http://evil:1", "http_proxy": "lower"},
             timeout_s=5)
    lines = r["stdout"].splitlines()
    assert "HTTP_PROXY=http://evil:1" in lines and "http_proxy=lower" in lines


def acl_bytes(path) -> bytes | None:
    try:
        return os.getxattr(path, posix_acl.ACL_XATTR)
    except OSError:
        return None


def planted(path) -> bytes:
    try:
        posix_acl.grant(str(path), 1234, posix_acl.READ | posix_acl.EXECUTE)
    except OSError as e:
        pytest.skip(f"no POSIX ACLs here: {e}")
    return acl_bytes(path)


@pytest.mark.parametrize("driver,kept", [("boot_fail_leaves_grant", True), ("lossy_acl_revoke", False)])
def test_acl_fixtures_restore_exactly_on_a_good_run_or_lossy(start, tree, driver, kept):
    ws = tree / "ws"
    before = planted(ws)
    d = booted(start(fixture(driver)), ws)
    assert posix_acl.Entry(posix_acl.USER, 65534, 7) in posix_acl.read_acl(str(ws))
    d.ok("shutdown", session="s1")
    assert (acl_bytes(ws) == before) is kept  # lossy: the planted uid-1234 entry is gone too
    if not kept:
        assert acl_bytes(ws) is None


def test_boot_fail_leaves_grant(start, tree):
    ws = tree / "ws"
    before = planted(ws)
    d = start(fixture("boot_fail_leaves_grant"))
    r = d.call("boot", session="s1", policy=policy(str(ws), writable=[str(tree / "missing")]))
    assert r["error"]["code"] == "boot_failed"
    assert acl_bytes(ws) != before
    assert posix_acl.Entry(posix_acl.USER, 65534, 7) in posix_acl.read_acl(str(ws))


def test_no_timeout_default_kills_unlimited_commands(start, tree):
    d = booted(start(fixture("no_timeout_default")), tree / "ws")
    t0 = time.monotonic()
    r = d.ok("exec", session="s1", argv=["sleep", "4"], cwd=None, env={}, timeout_s=None)
    assert r["timed_out"] is True and time.monotonic() - t0 < 4


DAEMON = "sh -c 'sleep {m} &' ; exit 0"  # a daemonised grandchild: its parent shell is gone
SETSID = "setsid sleep {m} & sleep {m}"  # one child in its own session, one in the group


@pytest.mark.parametrize("driver,survivors", [("reference", 0), ("no_pid_namespace", 1), ("pgrp_kill_only", 0),
                                              ("direct_child_kill", 1)])
def test_daemonised_grandchild_after_a_normal_exit(start, tree, marker, driver, survivors):
    d = booted(start(None if driver == "reference" else fixture(driver)), tree / "ws")
    r = d.ok("exec", session="s1", argv=["sh", "-c", DAEMON.format(m=marker)], cwd=None, env={}, timeout_s=10)
    assert r["exit_code"] == 0
    d.ok("shutdown", session="s1")
    assert len(wait_no_pids(f"sleep\0{marker}", 1.0)) == survivors


@pytest.mark.parametrize("driver,survivors", [("reference", 0), ("no_pid_namespace", 2), ("pgrp_kill_only", 1),
                                              ("direct_child_kill", 2)])
def test_setsid_child_on_timeout(start, tree, marker, driver, survivors):
    d = booted(start(None if driver == "reference" else fixture(driver)), tree / "ws")
    r = d.ok("exec", session="s1", argv=["sh", "-c", SETSID.format(m=marker)], cwd=None, env={}, timeout_s=1)
    assert r["timed_out"] is True
    assert len(wait_no_pids(f"sleep\0{marker}", 1.0)) == survivors


@pytest.mark.parametrize("driver,survivors", [("reference", 0), ("no_pid_namespace", 0), ("pgrp_kill_only", 0),
                                              ("direct_child_kill", 1)])
def test_timed_out_command_itself(start, tree, marker, driver, survivors):
    d = booted(start(None if driver == "reference" else fixture(driver)), tree / "ws")
    r = d.ok("exec", session="s1", argv=["sleep", marker], cwd=None, env={}, timeout_s=1)
    assert r["timed_out"] is True
    assert len(wait_no_pids(f"sleep\0{marker}", 1.0)) == survivors


def test_slow_exec_delays_each_exec(start, tree):
    d = booted(start(fixture("slow_exec", "--exec-delay-ms", "700")), tree / "ws")
    t0 = time.monotonic()
    d.ok("exec", session="s1", argv=["true"], cwd=None, env={}, timeout_s=5)
    assert time.monotonic() - t0 >= 0.7


# ---- the hostile driver: each misbehaviour on the wire, at exec ----------------------------------

def hostile(start, tree, mode: str):
    d = booted(start(fixture("hostile_driver", "--mode", mode, "--at", "exec")), tree / "ws")
    rid = d.send("exec", session="s1", argv=["echo", "hi"], cwd=None, env={}, timeout_s=5)
    return d, rid


def test_hostile_invalid_json(start, tree):
    d, rid = hostile(start, tree, "invalid-json")
    end = time.monotonic() + 10
    while not d.raw_lines[2:] and time.monotonic() < end:
        time.sleep(0.05)
    assert d.raw_lines[2] == b'{"id": %d, "ok": tru\n' % rid


def test_hostile_no_answer_keeps_serving(start, tree):
    d, rid = hostile(start, tree, "no-answer")
    assert d.ok("hello", protocol=1)["protocol"] == 1
    with pytest.raises(TimeoutError):
        d.wait(rid, timeout=1.0)


def test_hostile_wrong_and_repeated_ids(start, tree):
    d, rid = hostile(start, tree, "wrong-id")
    assert d.wait(rid + 1000)["stdout"] == "hi\n" and rid not in d.replies
    d2, rid2 = hostile(start, tree, "repeat-id")
    d2.wait(rid2)
    time.sleep(0.3)
    assert len(d2.replies[rid2]) == 2


def test_hostile_early_exit(start, tree):
    d, _ = hostile(start, tree, "early-exit")
    assert d.proc.wait(10) == 3


def test_hostile_stderr_flood_then_answers(start, tree):
    d, rid = hostile(start, tree, "stderr-flood")
    assert d.wait(rid, timeout=60)["stdout"] == "hi\n"
    end = time.monotonic() + 10  # the stderr reader thread may lag the reply a little
    while len(d.stderr) < 50 * MIB and time.monotonic() < end:
        time.sleep(0.05)
    assert len(d.stderr) >= 50 * MIB


def test_hostile_huge_line_without_newline(start, tree):
    d = start(fixture("hostile_driver", "--mode", "huge-line", "--at", "hello"), read_stdout=False)
    raw = d.proc.stdout  # read raw here, not line by line
    d.write({"id": 1, "op": "hello", "protocol": 1})
    got, deadline = 0, time.monotonic() + 60
    while got < 100 * MIB and time.monotonic() < deadline:
        chunk = os.read(raw.fileno(), MIB)
        assert b"\n" not in chunk and chunk
        got += len(chunk)
    assert got == 100 * MIB
    assert select.select([raw], [], [], 0.5)[0] == [] and d.proc.poll() is None  # quiet, pipe still open
