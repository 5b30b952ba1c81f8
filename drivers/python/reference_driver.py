#!/usr/bin/env python3
"""Reference Linux driver (protocol v1): each exec sandboxed by bubblewrap, built on breakout_driver."""
from __future__ import annotations

import argparse
import json
import logging
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping, Sequence

sys.path.insert(0, str(Path(__file__).resolve().parent))  # the kit lives beside this file

from breakout_driver import DriverServer, ProtocolError, Session, serve  # noqa: E402
from breakout_driver.confine import Confinement  # noqa: E402
from breakout_driver.proc import Drained, drain, proc_start_time, wait_gone  # noqa: E402

log = logging.getLogger("reference_driver")

NAME, VERSION = "reference-bwrap", "1.0.0"
CAPABILITIES = {"network": ["none", "full"],  # bwrap cannot do host-loopback-only (docs/spawners.md)
                "deny_read": True, "deny_write": True, "concurrent_exec": 4, "fs": True}
# Pinned under every policy (declared in hello): the host's system git config
# (credential helpers, hooks paths) stays out of the sandbox.
PINNED_ENV = {"GIT_CONFIG_NOSYSTEM": "1"}
# Proxy poisoning on top of the kernel's network denial (the seed's approach),
# only where the policy denies the network: under network = "full" a dead proxy
# would be an overblock (breakout flags it on net.proxy-honouring).
NETWORK_DENIAL_PINS = {"HTTP_PROXY": "http://127.0.0.1:9", "HTTPS_PROXY": "http://127.0.0.1:9",
                       "GIT_SSH_COMMAND": "exit 1"}


def policy_pins(policy) -> dict[str, str]:
    return {} if policy.network == "full" else dict(NETWORK_DENIAL_PINS)
KILL_WAIT_S = 2.0  # how long the namespace may take to die after bwrap was killed


@dataclass(eq=False)  # identity semantics: usable in a set, two execs never compare equal
class Running:
    """One running exec: the bwrap process and its sandbox init (pid + start time, from --info-fd)."""

    proc: subprocess.Popen
    child_pid: int | None
    child_start: int | None


class BwrapBooter:
    """One session. Every method below is a deliberate override point for the flawed test drivers
    in tests/e2e/fixtures/drivers (each of which changes exactly one of them)."""

    bwrap = "bwrap"

    def __init__(self, session: Session) -> None:
        self.session = session
        self.policy = session.policy
        self.workspace: str | None = None
        self._own_workspace = False  # created by us (policy workspace null): removed at shutdown
        self._lock = threading.Lock()
        self._running: set[Running] = set()
        self._closed = False

    # ---- boot / shutdown ------------------------------------------------------------------------

    def boot(self, session_id: str) -> str:
        self.validate()  # before any host change: a failed boot leaves nothing behind
        if self.policy.workspace is None:
            self.workspace = tempfile.mkdtemp(prefix=f"breakout-driver-{session_id[:32]}-")
            self._own_workspace = True
        else:
            self.workspace = self.policy.workspace
        return self.workspace

    def validate(self) -> None:
        for path in ([self.policy.workspace] if self.policy.workspace else []) + list(self.policy.writable_roots):
            if not os.path.isdir(path):
                raise ProtocolError("boot_failed", f"{path}: not an existing directory")

    def shutdown(self) -> None:
        """Kill every running exec and wait until each sandbox is gone, then undo host changes."""
        with self._lock:
            self._closed = True  # no exec starts after this point (spawn checks it under the lock)
            runs = self.running()
        for run in runs:
            self.kill(run)
        for run in runs:
            run.proc.wait()
        if self._own_workspace and self.workspace:
            shutil.rmtree(self.workspace, ignore_errors=True)

    # ---- exec -----------------------------------------------------------------------------------

    def exec(self, command: Sequence[str], cwd: str | None = None, env: Mapping[str, str] | None = None,
             timeout: float | None = None) -> dict[str, Any]:
        if isinstance(command, str):
            raise ProtocolError("invalid", "this booter takes argv, not a shell string")
        cwd = self.resolve_cwd(cwd)
        timeout = self.effective_timeout(timeout)
        env = dict(env) if env is not None else self.session.child_env({})
        run = self.spawn(self.command(list(command), cwd, env))
        try:
            result = self.collect(run, timeout)
        finally:
            self.untrack(run)
        rc = result.returncode
        return {"exit_code": rc if rc is not None and rc >= 0 else None,
                "signal": -rc if rc is not None and rc < 0 else None,
                "stdout": result.stdout, "stderr": result.stderr, "timed_out": result.timed_out}

    def resolve_cwd(self, cwd: str | None) -> str:
        cwd = cwd or self.workspace
        assert cwd is not None
        if not os.path.isdir(cwd):
            raise ProtocolError("exec_failed", f"cwd {cwd}: not an existing directory")
        return cwd

    def effective_timeout(self, timeout: float | None) -> float | None:
        return timeout  # None means no timeout at all

    def lifetime_flags(self) -> list[str]:
        # --die-with-parent: killing bwrap (timeout, shutdown) kills the sandbox init and with it
        # the whole pid namespace; --new-session: no TIOCSTI into a terminal (CVE-2017-5226).
        return ["--die-with-parent", "--new-session", "--unshare-pid"]

    def command(self, argv: list[str], cwd: str, env: Mapping[str, str]) -> list[str]:
        cmd = [self.bwrap, *self.lifetime_flags(), "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try"]
        if self.policy.network == "none":
            cmd.append("--unshare-net")
        cmd += ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"]
        for root in dict.fromkeys([self.workspace, *self.policy.writable_roots]):
            cmd += ["--bind", root, root]
        cmd += self.protect_flags(roots=[self.workspace, *self.policy.writable_roots])
        for path in self.policy.deny_read:  # after the binds (and pins), so a mask inside a root wins
            if os.path.isdir(path):
                cmd += ["--tmpfs", path]
            elif os.path.exists(path):
                cmd += ["--ro-bind", "/dev/null", path]
        cmd.append("--clearenv")
        for name, value in env.items():
            cmd += ["--setenv", name, value]
        return cmd + ["--chdir", cwd, "--", *argv]

    def protect_flags(self, roots: list[str]) -> list[str]:
        """Read-only binds of the protected paths (after the writable binds, so they win). A bind
        alone is undone by renaming a directory that holds it (`mv .git aside; mkdir .git`: the
        mount moves along, breakout's protected.rename-away), so every directory between the
        root and the protected path is first bound onto itself, read-write: a mount point cannot
        be renamed (rename(2) EBUSY). One made later is not protected (as Codex and srt: at wrap time).
        The deny-read masks inside a root get the same pins: a tmpfs moves with its directory too, and
        the next command's wrap, finding nothing at the old name, would mask nothing (breakout's
        fs.race.rename-ancestor; srt's ancestorPinArgs). All pins come before every protecting mount,
        which a later bind of an ancestor would bury."""
        flags: list[str] = []
        anchored: set[str] = set()
        for path in [*self.policy.deny_write, *self.policy.deny_read]:
            if not os.path.lexists(path):
                continue
            root = next((r for r in roots if r and os.path.commonpath([path, r]) == r), None)
            if root is not None:
                chain, d = [], os.path.dirname(path)
                while d != root and len(d) > len(root):
                    chain.append(d)
                    d = os.path.dirname(d)
                for d in reversed(chain):
                    if d not in anchored:
                        anchored.add(d)
                        flags += ["--bind", d, d]
        for path in self.policy.deny_write:
            if os.path.lexists(path):
                flags += ["--ro-bind", path, path]
        return flags

    def spawn(self, cmd: list[str]) -> Running:
        """Start bwrap and register it, atomically with respect to shutdown."""
        r, w = os.pipe()
        try:
            with self._lock:
                if self._closed:
                    raise ProtocolError("no_session", "session is shutting down")
                proc = subprocess.Popen(cmd[:1] + ["--info-fd", str(w)] + cmd[1:], pass_fds=(w, *self.leaked_fds()),
                                        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                        stderr=subprocess.PIPE, start_new_session=True,
                                        env={"PATH": os.environ.get("PATH", "/usr/bin:/bin")})
                os.close(w)
                w = -1
                run = Running(proc, None, None)
                self.track(run)
            run.child_pid = _read_child_pid(r)  # bwrap writes it and closes the fd right away
            run.child_start = proc_start_time(run.child_pid) if run.child_pid else None
            return run
        finally:
            os.close(r)
            if w >= 0:
                os.close(w)

    def leaked_fds(self) -> tuple[int, ...]:
        """Descriptors besides stdio that bwrap (and so the sandbox) inherits: none."""
        return ()

    def collect(self, run: Running, timeout: float | None) -> Drained:
        return drain(run.proc, timeout, lambda: self.kill(run))

    def kill(self, run: Running) -> None:
        """SIGKILL bwrap; --die-with-parent takes the namespace down. Verified: the sandbox init
        must be gone within KILL_WAIT_S, else it is killed directly (and that is logged)."""
        try:
            run.proc.kill()
        except ProcessLookupError:
            pass
        if run.child_pid and not wait_gone(run.child_pid, run.child_start, KILL_WAIT_S):
            log.warning("sandbox init %d outlived bwrap; killing it directly", run.child_pid)
            try:
                os.kill(run.child_pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            wait_gone(run.child_pid, run.child_start, KILL_WAIT_S)

    # ---- bookkeeping of running execs (one set per session: AstrBot PR #9895 review, comment 3) ------------------

    def track(self, run: Running) -> None:
        self._running.add(run)

    def untrack(self, run: Running) -> None:
        with self._lock:
            self._running.discard(run)

    def running(self) -> list[Running]:
        return list(self._running)

    # ---- fs capability --------------------------------------------------------------------------

    def confinement(self) -> Confinement:
        return Confinement([self.workspace or "/nonexistent", *self.policy.writable_roots], self.policy.deny_read)

    def write_file(self, path: str, content: str) -> None:
        roots = [self.workspace or "/nonexistent", *self.policy.writable_roots]  # protected paths refuse writes
        Confinement(roots, [*self.policy.deny_read, *self.policy.deny_write]).write_text(path, content)

    def read_file(self, path: str) -> str:
        return self.confinement().read_text(path)


def _read_child_pid(fd: int) -> int | None:
    data = b""
    while chunk := os.read(fd, 4096):
        data += chunk
    try:
        return int(json.loads(data)["child-pid"])
    except (ValueError, KeyError, TypeError):
        return None  # bwrap failed before starting the sandbox; its stderr says why


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--bwrap", default="bwrap", help="bubblewrap binary (default: bwrap on PATH)")
    return p


def main(argv: Sequence[str] | None = None, *, booter_cls: type[BwrapBooter] = BwrapBooter,
         server_cls: type[DriverServer] = DriverServer, name: str = NAME) -> int:
    args = build_parser().parse_args(argv)
    booter_cls.bwrap = shutil.which(args.bwrap) or args.bwrap
    return serve(booter_cls, name=name, version=VERSION, capabilities=CAPABILITIES,
                 pinned_env=PINNED_ENV, policy_pins=policy_pins, server_cls=server_cls)


if __name__ == "__main__":
    sys.exit(main())
