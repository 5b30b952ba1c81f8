"""The protocol loop: reads request lines, runs each concurrently against per-session booters, writes replies."""
from __future__ import annotations

import asyncio
import inspect
import json
import logging
import os
import re
import shlex
import signal
import subprocess
import sys
import threading
from dataclasses import dataclass, field
from typing import IO, Any, Callable, Literal, Mapping

from .protocol import (PROTOCOL_VERSION, ExecResult, Policy, ProtocolError, Session, compose_env,
                       decode, get_abs_path, get_argv, get_env_map, get_str, get_timeout, invalid,
                       normalise_result)

log = logging.getLogger("breakout_driver")

BooterFactory = Callable[[Session], Any]
DEFAULT_MAX_LINE = 64 * 1024 * 1024  # requests are small; write_file content is the only big field
_ID_SNIFF = re.compile(rb'"id"\s*:\s*(-?\d+)')


def host_platform() -> str:
    return {"win32": "windows", "darwin": "macos"}.get(sys.platform, "linux")


class _TooLong:
    def __init__(self, prefix: bytes) -> None:
        self.prefix = prefix


@dataclass
class _Entry:
    """One session's bookkeeping. `ready` is set once boot finished (ok or not)."""

    session: Session
    booter: Any = None
    ready: threading.Event = field(default_factory=threading.Event)
    booted: bool = False
    closing: bool = False


class DriverServer:
    """Runs driver protocol v1 on a pair of byte streams around per-session booter objects.

    A booter is any object with (sync or ``async``) methods in the shape of agent-runtime booters:

    * ``boot(session_id: str) -> str | None`` — returns the workspace (else ``booter.workspace``,
      else ``policy.workspace`` is reported). Must undo its own host changes when it raises:
      the server never calls ``shutdown`` after a failed boot.
    * ``exec(command, cwd=None, env=None, timeout=None) -> {"stdout", "stderr", "exit_code"}``
      (optional ``"signal"``, ``"timed_out"``; a negative ``exit_code`` means killed by that
      signal; raising ``subprocess.TimeoutExpired`` means timed out). ``timeout=None`` means none.
    * ``shutdown() -> None`` — afterwards no process of the session may live and every host
      change is undone.
    * with capability ``fs``: ``write_file(path, content: str)`` and ``read_file(path) -> str``.

    ``booter_factory(session)`` is called once per boot and gets the :class:`Session` (id,
    policy, pinned env, host env). Override the ``op_*`` methods or :meth:`send` to change
    behaviour (the hostile test drivers do).
    """

    def __init__(self, booter_factory: BooterFactory, *, name: str, version: str,
                 capabilities: Mapping[str, Any] | None = None,
                 pinned_env: Mapping[str, str] | None = None, platform: str | None = None,
                 policy_pins: Callable[[Policy], Mapping[str, str]] | None = None,
                 command_style: Literal["argv", "shell"] | Callable[[list[str]], Any] = "argv",
                 env_style: Literal["computed", "overrides"] = "computed",
                 max_line: int = DEFAULT_MAX_LINE,
                 refuses: Mapping[str, Mapping[str, Any]] | None = None,
                 stdin: IO[bytes] | None = None, stdout: IO[bytes] | None = None) -> None:
        """command_style "shell" hands the booter ``shlex.join(argv)`` (POSIX sh quoting) instead
        of the argv list; a callable formats the command itself (e.g. ``subprocess.list2cmdline``).
        env_style "computed" hands it the complete child environment (protocol semantics, see
        :func:`compose_env`); "overrides" only the caller's per-call variables, for booters that
        merge them into an environment of their own (the harness then judges what they do).
        ``refuses`` declares the mechanisms the sandbox refuses whatever the policy says, as a
        profile's ``[refuses.*]`` tables do: ``{"icmp": {"why": "...", "when": ["none"]}}``
        (docs/drivers.md); without it, a ``refuses`` attribute of the booter class is used."""
        if (not callable(command_style) and command_style not in ("argv", "shell")) \
                or env_style not in ("computed", "overrides"):
            raise ValueError("command_style must be argv|shell, env_style computed|overrides")
        self.factory = booter_factory
        self.name, self.version = name, version
        self.capabilities: dict[str, Any] = {"network": ["full"], "deny_read": False,
                                             "concurrent_exec": 1, "fs": False}
        self.capabilities.update(capabilities or {})
        self.pinned_env = dict(pinned_env or {})  # declared in hello: pinned under every policy
        if refuses is None:
            refuses = getattr(booter_factory, "refuses", None)
        self.refuses = check_refuses(refuses or {})  # declared in hello only when there are any
        # Pins that depend on the policy (e.g. proxy poisoning only when network != "full");
        # not in hello: the harness learns them from a baseline exec.
        self.policy_pins = policy_pins
        self.platform = platform or host_platform()
        self.command_style, self.env_style = command_style, env_style
        self.max_line = max_line
        self.stdin = stdin if stdin is not None else sys.stdin.buffer
        self.stdout = stdout if stdout is not None else sys.stdout.buffer
        self.host_env = dict(os.environ)  # the caller's environment the driver was started with
        self._sessions: dict[str, _Entry] = {}
        self._lock = threading.Lock()        # guards _sessions
        self._write_lock = threading.Lock()  # one response line at a time
        self._workers: set[threading.Thread] = set()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stdout_broken = False

    # ---- output --------------------------------------------------------------------------------

    def send(self, obj: Mapping[str, Any]) -> None:
        """Write one response line atomically (under a lock, one write, flushed)."""
        try:
            text = json.dumps(obj, ensure_ascii=False, separators=(",", ":"))
            data = text.encode("utf-8")
        except UnicodeEncodeError:  # lone surrogates echoed from a request: fall back to \u escapes
            data = json.dumps(obj, separators=(",", ":")).encode("ascii")
        self.write_raw(data + b"\n")

    def write_raw(self, data: bytes) -> None:
        with self._write_lock:
            if self._stdout_broken:
                return
            try:
                self.stdout.write(data)
                self.stdout.flush()
            except (BrokenPipeError, ValueError, OSError) as e:  # the harness stopped reading
                self._stdout_broken = True
                log.warning("stdout closed (%s); further responses are dropped", e)

    def respond(self, req: Mapping[str, Any], response: Mapping[str, Any]) -> None:
        """Every reply to a parsed request passes here (override point: the hostile test driver)."""
        self.send(response)

    @staticmethod
    def error_response(req_id: int, code: str, message: str) -> dict[str, Any]:
        return {"id": req_id, "ok": False, "error": {"code": code, "message": message}}

    # ---- input loop ----------------------------------------------------------------------------

    def run(self) -> int:
        """Serve until stdin reaches EOF (or SIGTERM), then shut down every open session."""
        if threading.current_thread() is threading.main_thread():
            signal.signal(signal.SIGTERM, _raise_exit)
        try:
            while True:
                line = self._read_line()
                if line is None:
                    log.info("stdin closed; shutting down")
                    break
                self.handle_line(line)
        except SystemExit:
            log.info("terminated; shutting down")
        finally:
            self.close()
        return 0

    def _read_line(self) -> bytes | _TooLong | None:
        line = self.stdin.readline(self.max_line + 1)
        if not line:
            return None
        if line.endswith(b"\n") or len(line) <= self.max_line:
            return line
        prefix = line[:4096]
        while True:  # skip the rest of the oversized line without buffering it
            chunk = self.stdin.readline(1 << 20)
            if not chunk or chunk.endswith(b"\n"):
                return _TooLong(prefix)

    def handle_line(self, line: bytes | _TooLong) -> None:
        if isinstance(line, _TooLong):
            self._bad_line(line.prefix, f"request line longer than {self.max_line} bytes")
            return
        if not line.strip():
            return
        try:
            req = json.loads(line)
        except ValueError as e:
            self._bad_line(line, f"invalid JSON: {e}")
            return
        if not isinstance(req, dict) or isinstance(req.get("id"), bool) or not isinstance(req.get("id"), int):
            self._bad_line(line, "a request must be an object with an integer 'id'",
                           req.get("id") if isinstance(req, dict) else None)
            return
        try:
            target = self.prepare(req)
        except ProtocolError as e:
            self.respond(req, self.error_response(req["id"], e.code, e.message))
            return
        worker = threading.Thread(target=self._work, args=(req, target), daemon=True,
                                  name=f"req-{req['id']}")
        with self._lock:
            self._workers.add(worker)
        worker.start()

    def _bad_line(self, raw: bytes, message: str, req_id: Any = None) -> None:
        if not isinstance(req_id, int) or isinstance(req_id, bool):
            m = _ID_SNIFF.search(raw)
            req_id = int(m.group(1)) if m else None
        if req_id is None:
            log.error("%s (no id found; not answered): %r", message, raw[:200])
        else:
            self.send(self.error_response(req_id, "invalid", message))

    def prepare(self, req: dict[str, Any]) -> Callable[[], Mapping[str, Any]]:
        """Runs on the reader thread, in arrival order: validates, books sessions, and returns the
        work for a worker thread. Booking here means an exec sent right after its boot waits for
        that boot, and one sent after a shutdown gets no_session."""
        op = req.get("op")
        if not isinstance(op, str):
            raise invalid("'op' must be a string")
        method = getattr(self, "op_" + op, None)
        if method is None or (op in ("write_file", "read_file") and not self.capabilities.get("fs")):
            raise ProtocolError("unsupported", f"unsupported op {op!r}")
        if op == "boot":
            return self._prepare_boot(req)
        if op == "hello":
            return lambda: method(req)
        sid = get_str(req, "session")
        with self._lock:
            entry = self._sessions.get(sid)
            if entry is None or entry.closing:
                raise ProtocolError("no_session", f"no session {sid!r}")
            if op == "shutdown":
                entry.closing = True
                del self._sessions[sid]
        return lambda: method(req, entry)

    def _prepare_boot(self, req: dict[str, Any]) -> Callable[[], Mapping[str, Any]]:
        sid = get_str(req, "session")
        policy = Policy.from_json(req.get("policy"))
        if policy.network not in self.capabilities.get("network", []):
            raise ProtocolError("unsupported", f"network {policy.network!r} cannot be expressed")
        if policy.deny_read and not self.capabilities.get("deny_read"):
            raise ProtocolError("unsupported", "deny_read cannot be expressed")
        if policy.deny_write and not self.capabilities.get("deny_write"):
            raise ProtocolError("unsupported", "deny_write cannot be expressed")
        pins = {**self.pinned_env, **(self.policy_pins(policy) if self.policy_pins else {})}
        entry = _Entry(Session(sid, policy, pins, self.host_env))
        with self._lock:
            if sid in self._sessions:
                raise invalid(f"session {sid!r} already exists")
            self._sessions[sid] = entry
        return lambda: self.op_boot(req, entry)

    def _work(self, req: dict[str, Any], target: Callable[[], Mapping[str, Any]]) -> None:
        try:
            try:
                response: dict[str, Any] = {"id": req["id"], "ok": True, **target()}
            except ProtocolError as e:
                response = self.error_response(req["id"], e.code, e.message)
            except Exception as e:  # a bug in the server or an override: still answer
                log.exception("request %s failed", req.get("id"))
                response = self.error_response(req["id"], "internal", f"{type(e).__name__}: {e}")
            self.respond(req, response)
        finally:
            with self._lock:
                self._workers.discard(threading.current_thread())

    # ---- ops -------------------------------------------------------------------------------------

    def op_hello(self, req: Mapping[str, Any]) -> Mapping[str, Any]:
        if req.get("protocol") != PROTOCOL_VERSION:
            raise ProtocolError("unsupported", f"protocol {req.get('protocol')!r}; this driver speaks 1")
        hello = {"protocol": PROTOCOL_VERSION, "name": self.name, "version": self.version,
                 "platform": self.platform, "capabilities": self.capabilities,
                 "pinned_env": self.pinned_env}
        if self.refuses:  # absent otherwise: what a driver that predates the field sends
            hello["refuses"] = self.refuses
        return hello

    def op_boot(self, req: Mapping[str, Any], entry: _Entry) -> Mapping[str, Any]:
        try:
            try:
                entry.booter = self.call(self.factory, entry.session)
                workspace = self.call(entry.booter.boot, entry.session.id)
            except ProtocolError:
                raise
            except Exception as e:
                log.exception("boot of %s failed", entry.session.id)
                raise ProtocolError("boot_failed", f"{type(e).__name__}: {e}") from e
            workspace = workspace or getattr(entry.booter, "workspace", None) or entry.session.policy.workspace
            if not workspace:
                raise ProtocolError("internal", "booter reported no workspace")
            entry.booted = True
            return {"workspace": os.fspath(workspace)}
        finally:
            if not entry.booted:
                with self._lock:
                    if self._sessions.get(entry.session.id) is entry:
                        del self._sessions[entry.session.id]
            entry.ready.set()

    def _booted(self, entry: _Entry) -> Any:
        entry.ready.wait()
        if not entry.booted:
            raise ProtocolError("no_session", f"session {entry.session.id!r} failed to boot")
        return entry.booter

    def child_env(self, session: Session, overrides: Mapping[str, str]) -> dict[str, str]:
        """The environment handed to the booter (env_style "computed"); see compose_env."""
        return compose_env(session.host_env, session.policy, overrides, session.pinned_env)

    def op_exec(self, req: Mapping[str, Any], entry: _Entry) -> Mapping[str, Any]:
        argv = get_argv(req.get("argv"))
        cwd = get_abs_path(req.get("cwd"), "'cwd'", nullable=True)
        overrides = get_env_map(req.get("env"), "'env'")
        timeout = get_timeout(req.get("timeout_s"))
        booter = self._booted(entry)
        command: Any = argv
        if callable(self.command_style):
            command = self.command_style(argv)
        elif self.command_style == "shell":
            command = shlex.join(argv)
        env = self.child_env(entry.session, overrides) if self.env_style == "computed" else overrides
        try:
            raw = self.call(booter.exec, command, cwd=cwd, env=env, timeout=timeout)
        except ProtocolError:
            raise
        except subprocess.TimeoutExpired as e:  # agent-runtime booters report timeouts this way
            raw = ExecResult(None, None, decode(e.output), decode(e.stderr), timed_out=True)
        except Exception as e:
            log.exception("exec in %s failed", entry.session.id)
            raise ProtocolError("exec_failed", f"{type(e).__name__}: {e}") from e
        return normalise_result(raw).to_json()

    def op_shutdown(self, req: Mapping[str, Any], entry: _Entry) -> Mapping[str, Any]:
        self._shutdown_entry(entry)
        return {}

    def _shutdown_entry(self, entry: _Entry) -> None:
        entry.ready.wait()
        if entry.booted and hasattr(entry.booter, "shutdown"):
            try:
                self.call(entry.booter.shutdown)
            except ProtocolError:
                raise
            except Exception as e:
                log.exception("shutdown of %s failed", entry.session.id)
                raise ProtocolError("internal", f"shutdown failed: {type(e).__name__}: {e}") from e

    def op_write_file(self, req: Mapping[str, Any], entry: _Entry) -> Mapping[str, Any]:
        path = get_abs_path(req.get("path"), "'path'")
        content = req.get("content")
        if not isinstance(content, str):
            raise invalid("'content' must be a string")
        self._fs_call(self._booted(entry).write_file, path, content)
        return {}

    def op_read_file(self, req: Mapping[str, Any], entry: _Entry) -> Mapping[str, Any]:
        path = get_abs_path(req.get("path"), "'path'")
        return {"content": decode(self._fs_call(self._booted(entry).read_file, path))}

    def _fs_call(self, fn: Callable[..., Any], *args: Any) -> Any:
        try:
            return self.call(fn, *args)
        except ProtocolError:
            raise
        except (OSError, ValueError) as e:  # refused (confinement) or missing: the caller's fault
            raise invalid(f"{type(e).__name__}: {e}") from e

    # ---- sync/async bridging and shutdown -------------------------------------------------------

    def call(self, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        """Call a booter method from a worker thread; coroutines run on one shared event loop
        thread (so an asyncio booter sees a single loop for its whole life)."""
        result = fn(*args, **kwargs)
        if inspect.isawaitable(result):
            return asyncio.run_coroutine_threadsafe(_await(result), self._event_loop()).result()
        return result

    def _event_loop(self) -> asyncio.AbstractEventLoop:
        with self._lock:
            if self._loop is None:
                self._loop = asyncio.new_event_loop()
                threading.Thread(target=self._loop.run_forever, daemon=True, name="asyncio").start()
            return self._loop

    def close(self, grace_s: float = 10.0) -> None:
        """Shut down every session still open, then give in-flight replies a moment."""
        with self._lock:
            entries = list(self._sessions.values())
            for e in entries:
                e.closing = True
            self._sessions.clear()
        for entry in entries:
            try:
                self._shutdown_entry(entry)
            except ProtocolError as e:
                log.error("closing session %s: %s", entry.session.id, e.message)
        with self._lock:
            workers = list(self._workers)
        for w in workers:
            w.join(grace_s)
        if self._loop is not None:
            self._loop.call_soon_threadsafe(self._loop.stop)


# The vocabulary breakout checks (harness/model/declared_refusal.h, mechanism.h); checked here too,
# so a typo fails when the driver starts rather than as a protocol error in every run.
REFUSABLE_MECHANISMS = ("af_unix", "io_uring", "ptrace", "procfs", "i386_abi", "icmp", "netlink", "mknod",
                        "rename_exchange", "host_proc", "xattr", "process_vm", "keyring", "tiocsti")
NETWORK_MODES = ("none", "loopback", "full", "proxy")


def check_refuses(refuses: Mapping[str, Mapping[str, Any]]) -> dict[str, dict[str, Any]]:
    """``refuses`` as hello sends it, or ValueError naming what is wrong (unknown mechanism or key,
    a missing or empty ``why``, an unknown network mode in ``when``)."""
    out: dict[str, dict[str, Any]] = {}
    for mechanism, entry in dict(refuses).items():
        if mechanism not in REFUSABLE_MECHANISMS:
            raise ValueError(f"refuses: unknown mechanism {mechanism!r} (known: {', '.join(REFUSABLE_MECHANISMS)})")
        unknown = set(entry) - {"why", "when"}
        if unknown:
            raise ValueError(f"refuses.{mechanism}: unknown field(s) {sorted(unknown)} (allowed: when, why)")
        why, when = entry.get("why"), list(entry.get("when", []))
        if not isinstance(why, str) or not why:
            raise ValueError(f"refuses.{mechanism}: why must say why the sandbox refuses it")
        if any(m not in NETWORK_MODES for m in when):
            raise ValueError(f"refuses.{mechanism}.when: network modes are {', '.join(NETWORK_MODES)}")
        out[mechanism] = {"why": why, **({"when": when} if when else {})}
    return out


async def _await(awaitable: Any) -> Any:
    return await awaitable


def _raise_exit(signum: int, frame: Any) -> None:
    raise SystemExit(128 + signum)


def serve(booter_factory: BooterFactory, *, name: str, version: str,
          capabilities: Mapping[str, Any] | None = None, pinned_env: Mapping[str, str] | None = None,
          platform: str | None = None, server_cls: type[DriverServer] = DriverServer,
          **options: Any) -> int:
    """Run a driver on stdin/stdout until stdin closes; logs go to stderr. Returns the exit status.

    ``options`` are passed to :class:`DriverServer` (``command_style``, ``env_style``, ``max_line``,
    ``refuses``; a booter class's ``refuses`` attribute is the default for the last).
    """
    if not logging.getLogger().handlers:
        logging.basicConfig(stream=sys.stderr, level=os.environ.get("BREAKOUT_DRIVER_LOG", "INFO"),
                            format=f"[{name}] %(levelname)s %(message)s")
    server = server_cls(booter_factory, name=name, version=version, capabilities=capabilities,
                        pinned_env=pinned_env, platform=platform, **options)
    return server.run()
