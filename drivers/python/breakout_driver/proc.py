"""Process helpers for Linux drivers: drain both pipes while waiting (with a real timeout), /proc liveness."""
from __future__ import annotations

import os
import selectors
import subprocess
import time
from dataclasses import dataclass
from typing import Callable

DEFAULT_MAX_OUTPUT = 64 * 1024 * 1024  # per stream; more is read and discarded so the child never blocks


@dataclass
class Drained:
    stdout: bytes
    stderr: bytes
    returncode: int | None
    timed_out: bool
    truncated: bool = False


def drain(proc: subprocess.Popen, timeout: float | None, on_timeout: Callable[[], None], *,
          max_output: int = DEFAULT_MAX_OUTPUT, eof_grace_s: float = 1.0) -> Drained:
    """Read proc's stdout and stderr *while* it runs (a child writing more than the pipe buffer
    must never block: AstrBot PR #9895 review, comment 2), enforcing `timeout` (None = none at all).

    When the timeout passes, `on_timeout()` is called once (it must kill) and draining goes on.
    After the process exited, pipes still held open by escaped descendants are read for at most
    `eof_grace_s` more, so an exec always returns.
    """
    start = time.monotonic()
    deadline = None if timeout is None else start + timeout
    bufs: dict[int, bytearray] = {}
    sel = selectors.DefaultSelector()
    for f in (proc.stdout, proc.stderr):
        if f is not None:
            bufs[f.fileno()] = bytearray()
            sel.register(f.fileno(), selectors.EVENT_READ)
    order = [f.fileno() if f is not None else -1 for f in (proc.stdout, proc.stderr)]
    timed_out = truncated = False
    exited_at: float | None = None
    try:
        while True:
            now = time.monotonic()
            if exited_at is None and proc.poll() is not None:
                exited_at = now
            if exited_at is not None and (not sel.get_map() or now >= exited_at + eof_grace_s):
                break
            if not timed_out and deadline is not None and now >= deadline:
                timed_out = True
                on_timeout()
                continue
            # Short waits: process exit is polled, not signalled (no SIGCHLD games in threads).
            wait = 0.05
            if deadline is not None and not timed_out:
                wait = min(wait, max(0.0, deadline - now))
            if not sel.get_map():
                time.sleep(wait)
                continue
            for key, _ in sel.select(wait):
                chunk = os.read(key.fd, 1 << 16)
                if not chunk:
                    sel.unregister(key.fd)
                    continue
                buf = bufs[key.fd]
                room = max(0, max_output - len(buf))
                if len(chunk) > room:
                    truncated = True
                buf += chunk[:room]
    finally:
        sel.close()
        for f in (proc.stdout, proc.stderr):
            if f is not None:
                f.close()
    return Drained(bytes(bufs.get(order[0], b"")), bytes(bufs.get(order[1], b"")),
                   proc.returncode, timed_out, truncated)


def proc_start_time(pid: int) -> int | None:
    """The process's start time (clock ticks since boot), or None when it does not exist."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            fields = f.read().rsplit(b")", 1)[1].split()
    except (FileNotFoundError, ProcessLookupError, IndexError):
        return None
    return int(fields[19])


def pid_alive(pid: int, start_time: int | None = None) -> bool:
    """True while pid exists, is not a zombie, and (when given) still has that start time, so a
    recycled pid is not mistaken for the original."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            fields = f.read().rsplit(b")", 1)[1].split()
    except (FileNotFoundError, ProcessLookupError, IndexError):
        return False
    if fields[0] in (b"Z", b"X"):
        return False
    return start_time is None or int(fields[19]) == start_time


def wait_gone(pid: int, start_time: int | None, timeout_s: float) -> bool:
    """Poll until pid is dead (or a zombie); True when it went within timeout_s."""
    end = time.monotonic() + timeout_s
    while pid_alive(pid, start_time):
        if time.monotonic() >= end:
            return False
        time.sleep(0.01)
    return True
