"""A minimal driver-protocol-v1 client for the Python tests: start a driver, send requests, match replies by id."""
from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
DRIVERS = REPO / "drivers" / "python"
FIXTURE_DRIVERS = Path(__file__).resolve().parent / "fixtures" / "drivers"
REFERENCE = DRIVERS / "reference_driver.py"
PYTHON = sys.executable


class Driver:
    """One driver process. `call` sends a request and waits for the reply with the same id;
    `send`/`wait` split that for concurrent requests. Replies are read by a thread, so a test
    never deadlocks on a full pipe; stderr is collected likewise."""

    def __init__(self, cmd: list[str], env: dict[str, str] | None = None) -> None:
        self.proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, env=env)
        self._next = 100
        self._lock = threading.Lock()
        self.replies: dict[int, list[dict]] = {}
        self.raw_lines: list[bytes] = []
        self._arrived = threading.Condition()
        self.stderr = bytearray()
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


def driver_cmd(script: Path | str, *args: str) -> list[str]:
    return [PYTHON, str(script), *args]


def pids_with(marker: str) -> list[int]:
    """Live (non-zombie) processes whose command line contains marker."""
    found = []
    for d in os.listdir("/proc"):
        if not d.isdigit() or int(d) == os.getpid():
            continue
        try:
            cmdline = Path(f"/proc/{d}/cmdline").read_bytes()
            stat = Path(f"/proc/{d}/stat").read_bytes()
        except OSError:
            continue
        if marker.encode() in cmdline and stat.rsplit(b")", 1)[1].split()[0] not in (b"Z", b"X"):
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
