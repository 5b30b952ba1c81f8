"""Driver kit and reference driver: protocol v1 spoken over pipes from Python (no breakout binary needed)."""
from __future__ import annotations

import asyncio
import errno
import json
import os
import shutil
import subprocess
import threading
import time

import pytest

from driver_client import (CANARY, DRIVERS, REPO, Driver, booted, driver_cmd, marker, pids_with, policy, start,  # noqa: F401
                           tree, wait_no_pids)
from breakout_driver import DriverServer, Policy, compose_env, posix_acl  # driver_client set sys.path

def env_of(d: Driver, session="s1", env=None) -> dict[str, str]:
    r = d.ok("exec", session=session, argv=["env", "-0"], cwd=None, env=env or {}, timeout_s=10)
    return dict(item.split("=", 1) for item in r["stdout"].split("\0") if item)


def test_hello_shape(start):
    r = start().ok("hello", protocol=1)
    assert r["protocol"] == 1 and r["platform"] == "linux" and r["name"] and r["version"]
    assert r["capabilities"] == {"network": ["none", "full"], "deny_read": True, "deny_write": True,
                                 "concurrent_exec": 4, "fs": True}
    assert r["pinned_env"] == {"GIT_CONFIG_NOSYSTEM": "1"}  # proxies are pinned per policy (network != full)


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


def test_policy_env_set_is_pinned_in_every_spelling(start, tree):
    """breakout's env-pinned found this: env.set pins must beat an other-case caller variable too."""
    d = booted(start(), tree / "ws", inherit="all", env_set={"GIT_TERMINAL_PROMPT": "0"})
    env = env_of(d, env={"git_terminal_prompt": "1", "GIT_TERMINAL_PROMPT": "1"})
    assert env["GIT_TERMINAL_PROMPT"] == "0" and "git_terminal_prompt" not in env


def test_proxy_pins_only_where_the_network_is_denied(start, tree):
    d = booted(start(), tree / "ws", network="full")
    env = env_of(d, env={"HTTP_PROXY": "http://proxy.example:3128"})
    assert env["HTTP_PROXY"] == "http://proxy.example:3128"  # network full: no dead proxy (no overblock)
    assert env["GIT_CONFIG_NOSYSTEM"] == "1"


def test_canary_inherit_none_all_and_list(start, tree):
    d = start()
    d.ok("boot", session="none", policy=policy(str(tree / "ws"), inherit="none", env_set={"SET_BY_POLICY": "1"}))
    d.ok("boot", session="all", policy=policy(str(tree / "ws"), inherit="all"))
    d.ok("boot", session="list", policy=policy(str(tree / "ws"), inherit=["PATH"], env_set={"HTTP_PROXY": "p"}))
    none, all_, lst = env_of(d, "none"), env_of(d, "all"), env_of(d, "list", env={"X": "1"})
    assert CANARY not in none.values() and none["SET_BY_POLICY"] == "1"
    assert all_["AWS_SECRET_ACCESS_KEY"] == CANARY
    assert set(lst) - {"PWD"} == {"PATH", "X", "HTTP_PROXY", "HTTPS_PROXY", "GIT_SSH_COMMAND",
                                  "GIT_CONFIG_NOSYSTEM"}  # bwrap sets PWD
    assert lst["HTTP_PROXY"] == "http://127.0.0.1:9"  # pinned beats policy env.set too


def test_concurrent_execs_answer_by_id(start, tree):
    d = booted(start(), tree / "ws")
    t0 = time.monotonic()
    ids = [d.send("exec", session="s1", argv=["sh", "-c", f"sleep {1.5 - i * 0.4}; echo {i}"], cwd=None,
                  env={}, timeout_s=20) for i in range(4)]
    replies = [d.wait(i) for i in ids]
    assert time.monotonic() - t0 < 3.5  # ran concurrently, not 1.5+1.1+0.7+0.3 plus startup
    assert [r["stdout"] for r in replies] == ["0\n", "1\n", "2\n", "3\n"]
    assert [json.loads(x)["id"] for x in d.raw_lines[-4:]] == ids[::-1]  # answered as they finished


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
    (tree / "vault").mkdir()
    (tree / "vault" / "k").write_text("vault\n")
    os.link(tree / "vault" / "k", ws / "vaultlink")  # a file under a denied directory, by another name
    d = booted(start(), ws, deny=[str(ws / "key"), str(tree / "vault")])
    d.ok("write_file", session="s1", path=str(ws / "sub" / "new.txt"), content="héllo\n")
    assert (ws / "sub" / "new.txt").read_text() == "héllo\n"
    assert d.ok("read_file", session="s1", path=str(ws / "sub" / "new.txt"))["content"] == "héllo\n"
    # Symlinks are resolved, not refused: a hop that stays inside the workspace works (spelled any way).
    os.symlink("sub", ws / "inlink")
    os.symlink(ws / "inlink", ws / "chain")
    for spelled in (f"{ws}/inlink/a.txt", f"{ws}/chain/a.txt", f"/proc/self/root{ws}/sub/a.txt", f"{ws}//./sub/a.txt"):
        d.ok("write_file", session="s1", path=spelled, content=spelled)
        assert (ws / "sub" / "a.txt").read_text() == spelled
    os.symlink(tree / "sibling", ws / "sub" / "deep")
    os.symlink(tree / "sibling" / "later", ws / "dangling")
    refused = [f"{ws}/sub/deep/f", f"{ws}/dangling", f"{ws}/sub/new.txt/",
               f"{ws}/../sibling/f", f"{tree}/ws-sibling/f", f"{ws}/dirlink/f", f"{ws}/filelink",
               f"{tree}/sibling/secret", f"{ws}/key", f"{ws}/hardlink", f"{ws}/vaultlink", "/etc/hostname", f"{ws}/sub/../../sibling/x"]
    for path in refused:
        for op, extra in (("write_file", {"content": "pwned"}), ("read_file", {})):
            r = d.call(op, session="s1", path=path, **extra)
            assert r["ok"] is False and r["error"]["code"] == "invalid", (op, path, r)
    assert (tree / "sibling" / "secret").read_text() == "sibling secret\n"
    assert not (tree / "sibling" / "f").exists() and not (tree / "ws-sibling" / "f").exists()
    assert not (tree / "sibling" / "later").exists()
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


# ---- the kit in-process: sync and asyncio booters, command/env styles, error mapping -------------

class InProcess:
    """A DriverServer on a thread, spoken to over two pipes, one request at a time."""

    def __init__(self, factory, **options):
        r_in, w_in = os.pipe()
        r_out, w_out = os.pipe()
        self.server = DriverServer(factory, name="t", version="0", stdin=os.fdopen(r_in, "rb"),
                                   stdout=os.fdopen(w_out, "wb"), **options)
        self.thread = threading.Thread(target=self.server.run, daemon=True)
        self.thread.start()
        self.w, self.r = os.fdopen(w_in, "wb"), os.fdopen(r_out, "rb")
        self.next = 0

    def call(self, op, **fields):
        self.next += 1
        self.w.write((json.dumps({"id": self.next, "op": op, **fields}) + "\n").encode())
        self.w.flush()
        reply = json.loads(self.r.readline())
        assert reply["id"] == self.next
        return reply

    def close(self):
        self.w.close()
        self.thread.join(10)
        assert not self.thread.is_alive()


class AsyncShellBooter:
    """Agent-runtime shaped: async methods, a shell-string command, env = the caller's extras."""
    instances: list["AsyncShellBooter"] = []

    def __init__(self, session):
        self.session, self.loops, self.calls, self.shut = session, set(), [], False
        AsyncShellBooter.instances.append(self)

    async def boot(self, session_id):
        self.loops.add(asyncio.get_running_loop())
        if session_id == "bad":
            raise RuntimeError("desktop creation failed")

    workspace = "/ws"

    async def exec(self, command, cwd=None, env=None, timeout=300):
        self.loops.add(asyncio.get_running_loop())
        self.calls.append((command, cwd, env, timeout))
        if command == "boom":
            raise RuntimeError("exploded")
        if command == "slow":
            raise subprocess.TimeoutExpired(command, timeout, output=b"partial")
        return {"stdout": command, "stderr": b"\xffx", "exit_code": -9 if command == "die" else 0}

    async def shutdown(self):
        self.loops.add(asyncio.get_running_loop())
        self.shut = True


def test_kit_adapts_an_async_shell_booter():
    AsyncShellBooter.instances.clear()
    k = InProcess(AsyncShellBooter, command_style="shell", env_style="overrides",
                  capabilities={"network": ["none"]}, pinned_env={"P": "1"})
    assert k.call("hello", protocol=1)["capabilities"]["network"] == ["none"]
    assert k.call("boot", session="s", policy=policy(None)) == {"id": 2, "ok": True, "workspace": "/ws"}
    r = k.call("exec", session="s", argv=["echo", "a b", "$HOME"], cwd="/c", env={"X": "1"}, timeout_s=None)
    assert r["stdout"] == "echo 'a b' '$HOME'" and r["stderr"] == "\ufffdx" and r["exit_code"] == 0
    booter = AsyncShellBooter.instances[0]
    assert booter.calls[0][1:] == ("/c", {"X": "1"}, None)  # overrides only; None timeout passed as None
    assert k.call("exec", session="s", argv=["die"])["signal"] == 9
    r = k.call("exec", session="s", argv=["slow"], timeout_s=1)
    assert r["ok"] and r["timed_out"] is True and r["stdout"] == "partial" and r["exit_code"] is None
    assert k.call("exec", session="s", argv=["boom"])["error"]["code"] == "exec_failed"
    assert k.call("boot", session="bad", policy=policy(None))["error"]["code"] == "boot_failed"
    assert k.call("boot", session="l", policy=policy(None, network="full"))["error"]["code"] == "unsupported"
    assert k.call("write_file", session="s", path="/ws/f", content="")["error"]["code"] == "unsupported"
    assert k.call("shutdown", session="s")["ok"] and booter.shut
    assert not AsyncShellBooter.instances[1].shut  # never shut down after a failed boot
    assert len(booter.loops) == 1                  # one event loop for the booter's whole life
    k.close()


class RefusingBooter:
    """A booter class that declares what its sandbox refuses (docs/driver-kit.md, `refuses`)."""

    refuses = {"icmp": {"why": "no CAP_NET_RAW", "when": ["none"]}}

    def __init__(self, session):
        pass


def test_kit_declares_refusals_in_hello():
    k = InProcess(RefusingBooter)  # the class attribute
    assert k.call("hello", protocol=1)["refuses"] == {"icmp": {"why": "no CAP_NET_RAW", "when": ["none"]}}
    k.close()
    k = InProcess(RefusingBooter, refuses={"mknod": {"why": "nodes stay inside"}})  # the argument wins
    assert k.call("hello", protocol=1)["refuses"] == {"mknod": {"why": "nodes stay inside"}}
    k.close()
    k = InProcess(AsyncShellBooter)  # nothing declared: no field, as every driver before it
    assert "refuses" not in k.call("hello", protocol=1)
    k.close()
    for bad, says in [({"keyctl": {"why": "x"}}, "unknown mechanism"), ({"icmp": {"why": "x", "whn": []}}, "whn"),
                      ({"icmp": {}}, "why must say"), ({"icmp": {"why": "x", "when": ["off"]}}, "network modes")]:
        with pytest.raises(ValueError, match=says):
            DriverServer(RefusingBooter, name="t", version="0", refuses=bad)


def test_kit_hands_sync_booters_the_computed_env_and_closes_at_eof(monkeypatch):
    monkeypatch.setenv("HOST_SECRET", "s3cret")
    seen, shut = [], []

    class Sync:
        def __init__(self, session):
            self.session = session

        def boot(self, sid):
            return f"/w/{sid}"

        def exec(self, command, cwd=None, env=None, timeout=None):
            seen.append((command, env))
            return {"stdout": "", "stderr": "", "exit_code": 0}

        def shutdown(self):
            shut.append(self.session.id)

    k = InProcess(Sync, pinned_env={"HTTP_PROXY": "pin"})
    assert k.call("boot", session="a", policy=policy(None, inherit=["HOST_SECRET"], network="full"))["workspace"] == "/w/a"
    k.call("exec", session="a", argv=["ls", "-l"], env={"http_proxy": "x", "HTTP_PROXY": "y", "Z": "z"})
    assert seen == [(["ls", "-l"], {"HOST_SECRET": "s3cret", "Z": "z", "HTTP_PROXY": "pin"})]
    k.close()
    assert shut == ["a"]  # stdin EOF shut the open session down


def test_compose_env_order():
    pol = Policy.from_json({"workspace": None, "env": {"inherit": "all", "set": {"A": "policy", "https_proxy": "p"}}})
    env = compose_env({"A": "host", "B": "host", "Http_Proxy": "host"}, pol,
                      {"B": "caller", "C": "caller", "HTTP_PROXY": "caller"}, {"HTTP_PROXY": "pin", "HTTPS_PROXY": "pin"})
    # env.set entries are pins too: the policy's own lower-case https_proxy stays, the host's
    # and caller's other spellings go.
    assert env == {"A": "policy", "B": "caller", "C": "caller", "HTTP_PROXY": "pin", "HTTPS_PROXY": "pin",
                   "https_proxy": "p"}


# ---- POSIX ACL helper ---------------------------------------------------------------------------

def acl_state(path):
    try:
        data = os.getxattr(path, posix_acl.ACL_XATTR)
    except OSError as e:
        assert e.errno == errno.ENODATA
        data = None
    return data, os.stat(path).st_mode


@pytest.fixture
def acl_dir(tmp_path):
    d = tmp_path / "d"
    d.mkdir(mode=0o755)
    os.chmod(d, 0o755)
    try:
        posix_acl.read_acl(str(d))
    except OSError as e:
        pytest.skip(f"no POSIX ACLs on {tmp_path}: {e}")
    return str(d)


def plant(path, spec):
    """A pre-existing ACL set by setfacl when installed (an independent writer), else by the helper."""
    if shutil.which("setfacl"):
        subprocess.run(["setfacl", "-m", spec, path], check=True)
    else:
        for item in spec.split(","):
            _, uid, perms = item.split(":")
            posix_acl.grant(path, int(uid), sum(v for c, v in zip("rwx", (4, 2, 1)) if c in perms))


@pytest.mark.parametrize("stateless", [False, True], ids=["with-grant-record", "stateless"])
def test_acl_grant_then_revoke_is_byte_identical(acl_dir, stateless):
    plant(acl_dir, "u:1234:r-x")
    before = acl_state(acl_dir)
    g = posix_acl.grant(acl_dir, 65534, 7)
    entries = posix_acl.read_acl(acl_dir)
    assert posix_acl.Entry(posix_acl.USER, 65534, 7) in entries
    assert posix_acl.Entry(posix_acl.USER, 1234, 5) in entries
    assert any(e.tag == posix_acl.MASK and e.perm == 7 for e in entries)
    if shutil.which("getfacl"):
        out = subprocess.run(["getfacl", "-cn", acl_dir], capture_output=True, text=True, check=True).stdout
        assert "user:65534:rwx" in out and "user:1234:r-x" in out and "mask::rwx" in out
    posix_acl.revoke(acl_dir, 65534, None if stateless else g)
    assert acl_state(acl_dir) == before


def test_acl_on_a_file_without_acl_leaves_no_xattr(acl_dir):
    before = acl_state(acl_dir)
    assert before[0] is None
    g = posix_acl.grant(acl_dir, 65534, 7)
    assert acl_state(acl_dir)[0] is not None and acl_state(acl_dir)[1] & 0o070 == 0o070  # mask shows as group bits
    posix_acl.revoke(acl_dir, 65534, g)
    assert acl_state(acl_dir) == before


def test_acl_revoke_restores_a_previous_entry_of_the_same_uid(acl_dir):
    plant(acl_dir, "u:65534:r--")
    before = acl_state(acl_dir)
    g = posix_acl.grant(acl_dir, 65534, 7)
    posix_acl.revoke(acl_dir, 65534, g)
    assert acl_state(acl_dir) == before


# ---- the examples ------------------------------------------------------------------------------

EXAMPLES = DRIVERS / "examples"


def test_minimal_example_is_short_and_verbatim_in_the_doc():
    src = (EXAMPLES / "minimal_bwrap.py").read_text()
    assert len(src.splitlines()) < 50
    assert "```python\n" + src + "```" in (REPO / "docs" / "driver-kit.md").read_text()


def test_minimal_example_works(start, tree, marker):
    ws = tree / "ws"
    d = booted(start(driver_cmd(EXAMPLES / "minimal_bwrap.py")), ws)
    assert env_of(d, env={"http_proxy": "x", "HTTP_PROXY": "y"})["HTTP_PROXY"] == "http://127.0.0.1:9"
    assert "http_proxy" not in env_of(d, env={"http_proxy": "x"})
    r = d.ok("exec", session="s1", argv=["sh", "-c", "pwd; touch f"], cwd=str(ws / "sub"), env={}, timeout_s=5)
    assert r["stdout"] == f"{ws / 'sub'}\n" and (ws / "sub" / "f").exists()
    r = d.ok("exec", session="s1", argv=["sh", "-c", f"sleep {marker} & sleep {marker}"], cwd=None, env={}, timeout_s=1)
    assert r["timed_out"] and wait_no_pids(f"sleep\0{marker}", 2.0) == []
    d.send("exec", session="s1", argv=["sleep", marker], cwd=None, env={}, timeout_s=None)
    end = time.monotonic() + 10
    while not pids_with(f"sleep\0{marker}") and time.monotonic() < end:
        time.sleep(0.05)
    d.ok("shutdown", session="s1")
    assert wait_no_pids(f"sleep\0{marker}", 2.0) == []


FAKE_NATIVE = """
# A Linux stand-in for AstrBot's NativeBooter with two of the flaws the AstrBot PR #9895
# review found (comments 4 and 5).
import asyncio, os, subprocess, tempfile, types

class NativeBooter:
    async def boot(self, session_id):
        self._sandbox = types.SimpleNamespace(workdir=tempfile.mkdtemp(prefix="fake-native-"))

    async def exec(self, command, cwd=None, env=None, timeout=300, shell=True):
        child_env = {**{k: v for k, v in os.environ.items() if not k.lower().endswith("_proxy")},
                     "HTTP_PROXY": "http://127.0.0.1:9", "HTTPS_PROXY": "http://127.0.0.1:9"}
        if env:
            child_env.update(env)  # after the poisoning: comment 5
        p = await asyncio.to_thread(subprocess.run, command, shell=True, cwd=self._sandbox.workdir,  # cwd ignored: 4
                                    env=child_env, capture_output=True, timeout=timeout or 120)
        return {"stdout": p.stdout.decode(), "stderr": "", "exit_code": p.returncode}

    async def shutdown(self):
        os.rmdir(self._sandbox.workdir)
"""


def test_astrbot_adapter_without_astrbot_exits_with_a_message(tmp_path):
    p = subprocess.run(driver_cmd(EXAMPLES / "astrbot_native_adapter.py"), input=b"", capture_output=True,
                       timeout=30, env={**os.environ, "PYTHONPATH": str(tmp_path)})
    assert p.returncode == 2 and b"astrbot.core.computer.booters.native" in p.stderr and p.stdout == b""


def test_astrbot_adapter_wraps_the_booter_as_it_is(start, tmp_path):
    pkg = tmp_path / "site" / "astrbot" / "core" / "computer" / "booters"
    pkg.mkdir(parents=True)
    for d in [pkg, *pkg.parents][:4]:
        (d / "__init__.py").write_text("")
    (pkg / "native.py").write_text(FAKE_NATIVE)
    env = {**os.environ, "PYTHONPATH": str(tmp_path / "site")}
    d = Driver(driver_cmd(EXAMPLES / "astrbot_native_adapter.py"), env=env)
    try:
        hello = d.ok("hello", protocol=1)
        assert hello["platform"] == "windows" and hello["capabilities"]["network"] == ["none"]
        ws = d.ok("boot", session="s", policy=policy(None))["workspace"]
        assert os.path.basename(ws).startswith("fake-native-")
        r = d.ok("exec", session="s", argv=["sh", "-c", "pwd; echo $HTTP_PROXY"], cwd="/", env={"HTTP_PROXY": "evil"},
                 timeout_s=5)
        assert r["stdout"] == f"{ws}\nevil\n"  # the adapter hides neither flaw: the harness will see both
        d.ok("shutdown", session="s")
        assert not os.path.exists(ws)
        assert d.close() == 0
    finally:
        d.kill()
