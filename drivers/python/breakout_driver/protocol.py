"""Driver protocol v1: error codes, request validation, the policy/session model and child-env rules."""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any, Literal, Mapping

PROTOCOL_VERSION = 1
ERROR_CODES = ("unsupported", "invalid", "boot_failed", "exec_failed", "no_session", "internal")
NETWORK_MODES = ("none", "loopback", "full", "proxy")


class ProtocolError(Exception):
    """A request failure with a protocol error code; the server turns it into {"ok": false, "error": ...}."""

    def __init__(self, code: str, message: str) -> None:
        if code not in ERROR_CODES:
            raise ValueError(f"unknown protocol error code {code!r}")
        super().__init__(message)
        self.code = code
        self.message = message


def invalid(message: str) -> ProtocolError:
    return ProtocolError("invalid", message)


# ---- field validation: every helper raises "invalid" naming the field -------------------------

def get_str(req: Mapping[str, Any], key: str, *, allow_empty: bool = False) -> str:
    value = req.get(key)
    if not isinstance(value, str) or (not allow_empty and not value) or "\0" in value:
        raise invalid(f"{key!r} must be a non-empty string without NUL")
    return value


def get_abs_path(value: Any, what: str, *, nullable: bool = False) -> str | None:
    if value is None and nullable:
        return None
    if not isinstance(value, str) or not os.path.isabs(value) or "\0" in value:
        raise invalid(f"{what} must be an absolute path" + (" or null" if nullable else ""))
    return value


def get_env_map(value: Any, what: str) -> dict[str, str]:
    """A {"NAME": "value"} object; null means empty. Names must be usable in execve's environment."""
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise invalid(f"{what} must be an object of strings")
    for name, val in value.items():
        if not name or "=" in name or "\0" in name or not isinstance(val, str) or "\0" in val:
            raise invalid(f"{what}: bad variable {name!r} (names without '=' or NUL, string values)")
    return dict(value)


def get_argv(value: Any) -> list[str]:
    if (not isinstance(value, list) or not value
            or not all(isinstance(a, str) and "\0" not in a for a in value)):
        raise invalid("'argv' must be a non-empty list of strings without NUL")
    return list(value)


def get_timeout(value: Any) -> float | None:
    """Seconds, or None for *no timeout at all* (never a default: AstrBot PR #9895 review, comment 8)."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0 or value != value:
        raise invalid("'timeout_s' must be a number >= 0 or null")
    return float(value)


# ---- policy and session -------------------------------------------------------------------------

EnvInherit = Literal["all", "none"] | tuple[str, ...]


@dataclass(frozen=True)
class Policy:
    """The boot policy. Missing optional fields take the most restrictive reading."""

    workspace: str | None
    writable_roots: tuple[str, ...] = ()
    deny_read: tuple[str, ...] = ()
    deny_write: tuple[str, ...] = ()  # protected paths inside the writable roots (deny wins)
    network: str = "none"
    env_inherit: EnvInherit = "none"
    env_set: Mapping[str, str] = field(default_factory=dict)
    raw: Mapping[str, Any] = field(default_factory=dict)  # the request's object, unknown fields included

    @classmethod
    def from_json(cls, obj: Any) -> "Policy":
        if not isinstance(obj, dict):
            raise invalid("'policy' must be an object")
        workspace = get_abs_path(obj.get("workspace"), "policy.workspace", nullable=True)
        roots = _abs_list(obj.get("writable_roots", []), "policy.writable_roots")
        deny = _abs_list(obj.get("deny_read", []), "policy.deny_read")
        protect = _abs_list(obj.get("deny_write", []), "policy.deny_write")
        network = obj.get("network", "none")
        if network not in NETWORK_MODES:
            raise invalid(f"policy.network must be one of {NETWORK_MODES}")
        env = obj.get("env") or {}
        if not isinstance(env, dict):
            raise invalid("policy.env must be an object")
        inherit = env.get("inherit", "none")
        if isinstance(inherit, list):
            if not all(isinstance(n, str) and n for n in inherit):
                raise invalid("policy.env.inherit list must hold variable names")
            inherit = tuple(inherit)
        elif inherit not in ("all", "none"):
            raise invalid("policy.env.inherit must be 'all', 'none' or a list of names")
        env_set = get_env_map(env.get("set"), "policy.env.set")
        return cls(workspace, roots, deny, protect, network, inherit, env_set, dict(obj))


def _abs_list(value: Any, what: str) -> tuple[str, ...]:
    if value is None:
        return ()
    if not isinstance(value, list):
        raise invalid(f"{what} must be a list of absolute paths")
    return tuple(get_abs_path(v, what) for v in value)  # type: ignore[misc]


def compose_env(host_env: Mapping[str, str], policy: Policy, overrides: Mapping[str, str],
                pinned: Mapping[str, str]) -> dict[str, str]:
    """The child environment of one exec (protocol semantics, in this order):

    1. policy.env.inherit applied to the driver's host environment ("all", "none", exact names);
    2. the exec request's per-call overrides on top;
    3. policy.env.set and the driver's pinned_env LAST, so the caller can never override them
       (AstrBot PR #9895 review, comment 5: the overrides were applied after the proxy poisoning);
    4. any other variable whose name equals a pinned name case-insensitively (http_proxy vs
       HTTP_PROXY) is removed: many tools read either spelling.
    """
    if policy.env_inherit == "all":
        env = dict(host_env)
    elif policy.env_inherit == "none":
        env = {}
    else:
        env = {n: host_env[n] for n in policy.env_inherit if n in host_env}
    env.update(overrides)
    # Policy env.set is pinned exactly like the driver's own pins: a caller's
    # other-case spelling of either must not survive (breakout env-pinned found
    # this gap in an earlier version of this function).
    every_pin = {**policy.env_set, **pinned}
    env.update(every_pin)
    folded = {n.casefold() for n in every_pin}
    return {n: v for n, v in env.items() if n in every_pin or n.casefold() not in folded}


@dataclass(frozen=True)
class Session:
    """What a booter factory gets for one session: its id, policy and the driver's env facts."""

    id: str
    policy: Policy
    pinned_env: Mapping[str, str]
    host_env: Mapping[str, str]  # snapshot of the driver's os.environ (the caller's environment)

    def child_env(self, overrides: Mapping[str, str]) -> dict[str, str]:
        return compose_env(self.host_env, self.policy, overrides, self.pinned_env)


@dataclass
class ExecResult:
    """A normalised exec outcome, serialised into the exec response."""

    exit_code: int | None
    signal: int | None
    stdout: str
    stderr: str
    timed_out: bool = False

    def to_json(self) -> dict[str, Any]:
        return {"exit_code": self.exit_code, "signal": self.signal, "stdout": self.stdout,
                "stderr": self.stderr, "timed_out": self.timed_out}


def decode(data: bytes | str | None) -> str:
    """Output as a string: bytes are decoded as UTF-8 with errors='replace'."""
    if data is None:
        return ""
    if isinstance(data, str):
        return data
    return bytes(data).decode("utf-8", errors="replace")


def normalise_result(raw: Any) -> ExecResult:
    """Accept an agent-runtime style {"stdout","stderr","exit_code"} mapping (plus optional "signal",
    "timed_out"), or an ExecResult. A negative exit_code (subprocess style) becomes a signal."""
    if isinstance(raw, ExecResult):
        return raw
    if not isinstance(raw, Mapping):
        raise ProtocolError("internal", f"booter exec returned {type(raw).__name__}, not a mapping")
    code = raw.get("exit_code", raw.get("returncode"))
    sig = raw.get("signal")
    if isinstance(code, int) and not isinstance(code, bool) and code < 0 and sig is None:
        code, sig = None, -code
    if code is not None and (isinstance(code, bool) or not isinstance(code, int)):
        raise ProtocolError("internal", f"booter exec returned exit_code {code!r}")
    return ExecResult(code, sig, decode(raw.get("stdout")), decode(raw.get("stderr")),
                      bool(raw.get("timed_out", False)))

