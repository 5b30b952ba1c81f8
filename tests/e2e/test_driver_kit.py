"""Driver kit and reference driver: protocol v1 spoken over pipes from Python (no breakout binary needed)."""
from __future__ import annotations

import os
import shutil
import subprocess
import time
import uuid

import pytest

from driver_client import (REFERENCE, Driver, driver_cmd, kill_pids, pids_with, policy,
                           wait_no_pids)

pytestmark = pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap is not installed")

CANARY = "AKIA-canary-" + uuid.uuid4().hex


@pytest.fixture
def tree(tmp_path):
    """workspace, a sibling directory with a secret, and a name-prefix sibling (ws-sibling)."""
    ws = tmp_path / "ws"
    (ws / "sub").mkdir(parents=True)
    sibling = tmp_path / "sibling"
    sibling.mkdir()
    (sibling / "secret").write_text("sibling secret\n")
    (tmp_path / "ws-sibling").mkdir()
    return tmp_path


@pytest.fixture
def start(tmp_path):
    """start(cmd) -> Driver with the caller's env plus a secret canary; killed at teardown."""
    started: list[Driver] = []

    def run(cmd=None) -> Driver:
        env = dict(os.environ, AWS_SECRET_ACCESS_KEY=CANARY, HOME=str(tmp_path / "home"))
        d = Driver(cmd or driver_cmd(REFERENCE), env=env)
        started.append(d)
        return d

    yield run
    for d in started:
        d.kill()


@pytest.fixture
def marker():
    """A unique `sleep` duration: processes of this test are found in /proc by it and killed after."""
    m = f"{900 + uuid.uuid4().int % 90}.{uuid.uuid4().int % 10**6:06d}"
    yield m
    kill_pids(f"sleep\0{m}")


def booted(d: Driver, ws, **pol) -> Driver:
    d.ok("hello", protocol=1)
    d.ok("boot", session="s1", policy=policy(str(ws), **pol))
    return d


def env_of(d: Driver, session="s1", env=None) -> dict[str, str]:
    r = d.ok("exec", session=session, argv=["env", "-0"], cwd=None, env=env or {}, timeout_s=10)
    return dict(item.split("=", 1) for item in r["stdout"].split("\0") if item)


def test_hello_shape(start):
    r = start().ok("hello", protocol=1)
    assert r["protocol"] == 1 and r["platform"] == "linux" and r["name"] and r["version"]
    assert r["capabilities"] == {"network": ["none", "full"], "deny_read": True, "concurrent_exec": 4, "fs": True}
    assert r["pinned_env"] == {"HTTP_PROXY": "http://127.0.0.1:9", "HTTPS_PROXY": "http://127.0.0.1:9",
                               "GIT_SSH_COMMAND": "exit 1"}


def test_boot_exec_shutdown(start, tree):
    ws = tree / "ws"
    d = booted(start(), ws)
    r = d.ok("exec", session="s1", argv=["sh", "-c", "pwd; echo oops >&2; echo w > f; echo x > ../sibling/x; exit 7"],
             cwd=None, env={}, timeout_s=10)
    assert r["stdout"].splitlines()[0] == str(ws)
    assert "oops" in r["stderr"] and r["exit_code"] == 7 and r["signal"] is None and r["timed_out"] is False
    assert (ws / "f").read_text() == "w\n"          # the workspace is writable
    assert not (tree / "sibling" / "x").exists()     # beside it is not
    r = d.ok("exec", session="s1", argv=["pwd"], cwd=str(ws / "sub"), env={}, timeout_s=10)
    assert r["stdout"] == f"{ws / 'sub'}\n"          # cwd is honoured
    assert d.ok("shutdown", session="s1") == {"id": d._next, "ok": True}
    assert d.call("exec", session="s1", argv=["true"], cwd=None, env={}, timeout_s=1)["error"]["code"] == "no_session"
    assert d.close() == 0


def test_driver_chooses_workspace_and_removes_it(start):
    d = start()
    ws = d.ok("boot", session="s", policy=policy(None))["workspace"]
    assert os.path.isdir(ws)
    assert d.ok("exec", session="s", argv=["pwd"], cwd=None, env={}, timeout_s=5)["stdout"] == ws + "\n"
    d.ok("shutdown", session="s")
    assert not os.path.exists(ws)


@pytest.mark.parametrize("override", [
    {"HTTP_PROXY": "http://evil:1"},
    {"http_proxy": "http://evil:1", "https_proxy": "http://evil:1", "git_ssh_command": "ssh"},
    {"HTTP_PROXY": "http://evil:1", "http_proxy": "http://evil:1", "GIT_SSH_COMMAND": "ssh"},
], ids=["exact", "lower", "both"])
def test_pinned_env_holds(start, tree, override):
    d = booted(start(), tree / "ws", inherit="all")
    env = env_of(d, env={**override, "NOT_PINNED": "passes"})
    assert env["HTTP_PROXY"] == "http://127.0.0.1:9" and env["HTTPS_PROXY"] == "http://127.0.0.1:9"
    assert env["GIT_SSH_COMMAND"] == "exit 1"
    assert not {"http_proxy", "https_proxy", "git_ssh_command"} & env.keys()
    assert env["NOT_PINNED"] == "passes"


def test_canary_inherit_none_all_and_list(start, tree):
    d = start()
    d.ok("boot", session="none", policy=policy(str(tree / "ws"), inherit="none", env_set={"SET_BY_POLICY": "1"}))
    d.ok("boot", session="all", policy=policy(str(tree / "ws"), inherit="all"))
    d.ok("boot", session="list", policy=policy(str(tree / "ws"), inherit=["PATH"], env_set={"HTTP_PROXY": "p"}))
    none, all_, lst = env_of(d, "none"), env_of(d, "all"), env_of(d, "list", env={"X": "1"})
    assert CANARY not in none.values() and none["SET_BY_POLICY"] == "1"
    assert all_["AWS_SECRET_ACCESS_KEY"] == CANARY
    assert set(lst) - {"PWD"} == {"PATH", "X", "HTTP_PROXY", "HTTPS_PROXY", "GIT_SSH_COMMAND"}  # bwrap sets PWD
    assert lst["HTTP_PROXY"] == "http://127.0.0.1:9"  # pinned beats policy env.set too


def test_concurrent_execs_answer_by_id(start, tree):
    d = booted(start(), tree / "ws")
    t0 = time.monotonic()
    ids = [d.send("exec", session="s1", argv=["sh", "-c", f"sleep {1.5 - i * 0.4}; echo {i}"], cwd=None,
                  env={}, timeout_s=20) for i in range(4)]
    replies = [d.wait(i) for i in ids]
    assert time.monotonic() - t0 < 3.5  # ran concurrently, not 1.5+1.1+0.7+0.3 plus startup
    assert [r["stdout"] for r in replies] == ["0\n", "1\n", "2\n", "3\n"]
    order = [int(line) - 100 for line in (__import__("json").loads(x)["id"] for x in d.raw_lines[-4:])]
    assert order == [ids[3] - 100, ids[2] - 100, ids[1] - 100, ids[0] - 100]  # answered as they finished


def test_timeout_kills_the_whole_tree(start, tree, marker):
    d = booted(start(), tree / "ws")
    t0 = time.monotonic()
    r = d.ok("exec", session="s1", argv=["sh", "-c", f"sleep {marker} & setsid sleep {marker} & sleep {marker}"],
             cwd=None, env={}, timeout_s=1)
    assert r["timed_out"] is True and r["exit_code"] is None and r["signal"] == 9
    assert time.monotonic() - t0 < 5
    assert wait_no_pids(f"sleep\0{marker}", 0.5) == []  # gone by the time the reply arrived


def test_timeout_null_means_none(start, tree):
    d = booted(start(), tree / "ws")
    t0 = time.monotonic()
    r = d.ok("exec", session="s1", argv=["sleep", "3"], cwd=None, env={}, timeout_s=None, timeout=20)
    assert r["exit_code"] == 0 and r["timed_out"] is False and time.monotonic() - t0 >= 3


def test_one_mib_on_both_streams_complete(start, tree):
    d = booted(start(), tree / "ws")
    script = "head -c 1048576 /dev/zero | tr '\\0' a; head -c 1048576 /dev/zero | tr '\\0' b >&2; echo end"
    r = d.ok("exec", session="s1", argv=["sh", "-c", script], cwd=None, env={}, timeout_s=20)
    assert r["stdout"] == "a" * 1048576 + "end\n" and r["stderr"] == "b" * 1048576
    assert r["exit_code"] == 0


def test_non_utf8_output_is_replaced(start, tree):
    d = booted(start(), tree / "ws")
    r = d.ok("exec", session="s1", argv=["printf", "ok\\377\\n"], cwd=None, env={}, timeout_s=5)
    assert r["stdout"] == "ok\ufffd\n"


def test_shutdown_kills_running_execs(start, tree, marker):
    d = booted(start(), tree / "ws")
    ids = [d.send("exec", session="s1", argv=["sh", "-c", f"sleep {marker} & sleep {marker}"], cwd=None,
                  env={}, timeout_s=None) for _ in range(3)]
    end = time.monotonic() + 10
    while len(pids_with(f"sleep\0{marker}")) < 6 and time.monotonic() < end:
        time.sleep(0.05)
    assert len(pids_with(f"sleep\0{marker}")) == 6
    d.ok("shutdown", session="s1")
    assert pids_with(f"sleep\0{marker}") == []  # dead when shutdown answered, not eventually
    assert all(d.wait(i)["ok"] for i in ids)    # the killed execs are still answered


def test_stdin_eof_shuts_down_open_sessions(start, tree, marker):
    d = booted(start(), tree / "ws")
    d.send("exec", session="s1", argv=["sleep", marker], cwd=None, env={}, timeout_s=None)
    end = time.monotonic() + 10
    while not pids_with(f"sleep\0{marker}") and time.monotonic() < end:
        time.sleep(0.05)
    assert d.close(timeout=20) == 0
    assert pids_with(f"sleep\0{marker}") == []


def snapshot(root):
    out = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            p = os.path.join(dirpath, name)
            st = os.lstat(p)
            out[p] = (st.st_mode, st.st_ino, st.st_size, st.st_mtime_ns, sorted(os.listxattr(p, follow_symlinks=False)))
    return out


def test_boot_with_missing_writable_root_fails_and_changes_nothing(start, tree):
    before = snapshot(tree)
    tmp_before = set(os.listdir("/tmp"))
    d = start()
    r = d.call("boot", session="s1", policy=policy(str(tree / "ws"), writable=[str(tree / "missing")]))
    assert r["ok"] is False and r["error"]["code"] == "boot_failed"
    r = d.call("boot", session="s2", policy=policy(None, writable=[str(tree / "sibling" / "secret")]))
    assert r["error"]["code"] == "boot_failed"  # a file is not a directory; no temp workspace left
    assert d.call("exec", session="s1", argv=["true"], cwd=None, env={}, timeout_s=1)["error"]["code"] == "no_session"
    assert snapshot(tree) == before
    assert not {n for n in set(os.listdir("/tmp")) - tmp_before if n.startswith("breakout-driver-")}


def test_network_none_and_full(start, tree):
    d = start()
    d.ok("boot", session="none", policy=policy(str(tree / "ws"), network="none"))
    d.ok("boot", session="full", policy=policy(str(tree / "ws"), network="full"))
    ifaces = "tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d ' '"
    none = d.ok("exec", session="none", argv=["sh", "-c", ifaces], cwd=None, env={}, timeout_s=5)["stdout"].split()
    full = d.ok("exec", session="full", argv=["sh", "-c", ifaces], cwd=None, env={}, timeout_s=5)["stdout"].split()
    assert none == ["lo"] and len(full) > 1
    r = d.call("boot", session="lo", policy=policy(str(tree / "ws"), network="loopback"))
    assert r["error"]["code"] == "unsupported"


def test_deny_read_masks_files_and_dirs(start, tree):
    ws = tree / "ws"
    (ws / "key").write_text("private\n")
    d = booted(start(), ws, deny=[str(ws / "key"), str(tree / "sibling"), str(tree / "nonexistent")])
    r = d.ok("exec", session="s1", argv=["sh", "-c", "cat key; ls ../sibling; echo done"], cwd=None, env={}, timeout_s=5)
    assert "private" not in r["stdout"] and "secret" not in r["stdout"] and r["stdout"].endswith("done\n")


def test_fs_ops_are_confined(start, tree):
    ws = tree / "ws"
    (ws / "key").write_text("private\n")
    os.symlink(tree / "sibling", ws / "dirlink")
    os.symlink(tree / "sibling" / "secret", ws / "filelink")
    os.link(ws / "key", ws / "hardlink")
    d = booted(start(), ws, deny=[str(ws / "key")])
    d.ok("write_file", session="s1", path=str(ws / "sub" / "new.txt"), content="héllo\n")
    assert (ws / "sub" / "new.txt").read_text() == "héllo\n"
    assert d.ok("read_file", session="s1", path=str(ws / "sub" / "new.txt"))["content"] == "héllo\n"
    refused = [f"{ws}/../sibling/f", f"{tree}/ws-sibling/f", f"{ws}/dirlink/f", f"{ws}/filelink",
               f"{tree}/sibling/secret", f"{ws}/key", f"{ws}/hardlink", "/etc/hostname", f"{ws}/sub/../../sibling/x"]
    for path in refused:
        for op, extra in (("write_file", {"content": "pwned"}), ("read_file", {})):
            r = d.call(op, session="s1", path=path, **extra)
            assert r["ok"] is False and r["error"]["code"] == "invalid", (op, path, r)
    assert (tree / "sibling" / "secret").read_text() == "sibling secret\n"
    assert not (tree / "sibling" / "f").exists() and not (tree / "ws-sibling" / "f").exists()
    assert (ws / "key").read_text() == "private\n"


def test_protocol_errors(start, tree):
    d = start()
    assert d.call("frobnicate")["error"]["code"] == "unsupported"
    assert d.call("hello", protocol=2)["error"]["code"] == "unsupported"
    assert d.call("exec", session="nope", argv=["true"])["error"]["code"] == "no_session"
    assert d.call("boot", session="s", policy="x")["error"]["code"] == "invalid"
    assert d.call("boot", session="s", policy=policy("relative/path"))["error"]["code"] == "invalid"
    booted(d, tree / "ws")
    assert d.call("boot", session="s1", policy=policy(str(tree / "ws")))["error"]["code"] == "invalid"
    for bad in ({"argv": []}, {"argv": "ls"}, {"argv": ["true"], "cwd": "rel"},
                {"argv": ["true"], "env": {"A=B": "1"}}, {"argv": ["true"], "timeout_s": -1},
                {"argv": ["true"], "timeout_s": True}):
        assert d.call("exec", session="s1", **bad)["error"]["code"] == "invalid", bad
    assert d.call("exec", session="s1", argv=["true"], cwd=str(tree / "missing"))["error"]["code"] == "exec_failed"
    d.proc.stdin.write(b'{"id": 7, "op": "hello", "protocol": 1,\n')  # invalid JSON with an id
    d.proc.stdin.write(b'{"op": "hello"}\n')                          # no id: logged, not answered
    d.proc.stdin.flush()
    assert d.wait(7)["error"]["code"] == "invalid"
    assert d.ok("exec", session="s1", argv=["true"], extra_field_ignored=1)["exit_code"] == 0
    d.close()
    assert b"no id found" in d.stderr or b"integer 'id'" in d.stderr


def test_oversized_line_is_refused_and_the_driver_goes_on(start, tree):
    d = start()
    d.proc.stdin.write(b'{"id": 9, "op": "hello", "pad": "' + b"x" * (65 * 1024 * 1024) + b'"}\n')
    d.proc.stdin.flush()
    assert d.wait(9)["error"]["code"] == "invalid"
    assert d.ok("hello", protocol=1)["protocol"] == 1
