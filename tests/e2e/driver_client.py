"""A minimal driver-protocol-v1 client for the Python tests: start a driver, send requests, match replies by id."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
DRIVERS = REPO / "drivers" / "python"
FIXTURE_DRIVERS = Path(__file__).resolve().parent / "fixtures" / "drivers"
# The driver the reference tests speak to; point it at another driver script to see what it breaks.
REFERENCE = Path(os.environ.get("BREAKOUT_DRIVER_UNDER_TEST", DRIVERS / "reference_driver.py"))
PYTHON = sys.executable
sys.path.insert(0, str(DRIVERS))  # the test modules import breakout_driver too


class Driver:
    """One driver process. `call` sends a request and waits for the reply with the same id;
    `send`/`wait` split that for concurrent requests. Replies are read by a thread, so a test
    never deadlocks on a full pipe; stderr is collected likewise."""

    def __init__(self, cmd: list[str], env: dict[str, str] | None = None, read_stdout: bool = True) -> None:
        self.proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, env=env)
        self._next = 100
        self._lock = threading.Lock()
        self.replies: dict[int, list[dict]] = {}
        self.raw_lines: list[bytes] = []
        self._arrived = threading.Condition()
        self.stderr = bytearray()
        if read_stdout:  # else the test reads self.proc.stdout itself
            threading.Thread(target=self._read_out, daemon=True).start()
        threading.Thread(target=self._read_err, daemon=True).start()

    def _read_out(self) -> None:
        for line in self.proc.stdout:
            with self._arrived:
                self.raw_lines.append(line)
                try:
                    obj = json.loads(line)
                    self.replies.setdefault(obj.get("id"), []).append(obj)
                except ValueError:
                    pass
                self._arrived.notify_all()
        with self._arrived:
            self._arrived.notify_all()

    def _read_err(self) -> None:
        while chunk := self.proc.stderr.read1(1 << 16):
            self.stderr += chunk

    def send(self, op: str, **fields) -> int:
        with self._lock:
            self._next += 1
            rid = self._next
        self.write({"id": rid, "op": op, **fields})
        return rid

    def write(self, obj: dict) -> None:
        self.proc.stdin.write((json.dumps(obj) + "\n").encode())
        self.proc.stdin.flush()

    def wait(self, rid: int, timeout: float = 30.0) -> dict:
        end = time.monotonic() + timeout
        with self._arrived:
            while not self.replies.get(rid):
                left = end - time.monotonic()
                if left <= 0:
                    raise TimeoutError(f"no reply to {rid}; stderr: {self.stderr[-2000:].decode(errors='replace')}")
                self._arrived.wait(min(left, 0.5))
            return self.replies[rid][0]

    def call(self, op: str, timeout: float = 30.0, **fields) -> dict:
        return self.wait(self.send(op, **fields), timeout)

    def ok(self, op: str, timeout: float = 30.0, **fields) -> dict:
        reply = self.call(op, timeout, **fields)
        assert reply["ok"] is True, reply
        return reply

    def close(self, timeout: float = 30.0) -> int:
        try:
            self.proc.stdin.close()
        except BrokenPipeError:
            pass
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            raise

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


def policy(workspace: str | None, *, writable=(), deny=(), network="none", inherit="none", env_set=None) -> dict:
    return {"workspace": workspace, "writable_roots": list(writable), "deny_read": list(deny),
            "network": network, "env": {"inherit": inherit, "set": env_set or {}}}


def booted(d: Driver, ws, **pol) -> Driver:
    d.ok("hello", protocol=1)
    d.ok("boot", session="s1", policy=policy(str(ws), **pol))
    return d


def driver_cmd(script: Path | str, *args: str) -> list[str]:
    return [PYTHON, str(script), *args]


def pids_with(marker: str) -> list[int]:
    """Live (non-zombie) processes whose command line starts with marker (e.g. "sleep\0<n>": the
    sleep processes themselves, not the bwrap or shell whose arguments mention them)."""
    found = []
    for d in os.listdir("/proc"):
        if not d.isdigit() or int(d) == os.getpid():
            continue
        try:
            cmdline = Path(f"/proc/{d}/cmdline").read_bytes()
            stat = Path(f"/proc/{d}/stat").read_bytes()
        except OSError:
            continue
        if cmdline.startswith(marker.encode()) and stat.rsplit(b")", 1)[1].split()[0] not in (b"Z", b"X"):
            found.append(int(d))
    return found


def wait_no_pids(marker: str, timeout: float = 5.0) -> list[int]:
    end = time.monotonic() + timeout
    while (left := pids_with(marker)) and time.monotonic() < end:
        time.sleep(0.05)
    return left


def kill_pids(marker: str) -> None:
    for pid in pids_with(marker):
        try:
            os.kill(pid, 9)
        except ProcessLookupError:
            pass


# ---- pytest fixtures shared by the driver test modules (import them by name) -------------------

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
    if shutil.which("bwrap") is None:
        pytest.skip("bubblewrap is not installed")
    started: list[Driver] = []

    def run(cmd=None, **options) -> Driver:
        env = dict(os.environ, AWS_SECRET_ACCESS_KEY=CANARY, HOME=str(tmp_path / "home"))
        d = Driver(cmd or driver_cmd(REFERENCE), env=env, **options)
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
