"""Turns a booter named on the command line into a driver: `python -m breakout_driver SPEC [options]`."""
# SPEC is `package.module:Attr` (imported as usual) or `path/to/file.py:Attr` (loaded as a script
# would be: its directory goes first on sys.path). Attr is a booter factory: a class or callable
# taking the Session, or taking nothing (a runtime's own booter class, e.g. `NativeBooter()`).
# serve()'s options come from the factory's `serve_options` dict, then from the flags below.
from __future__ import annotations

import argparse
import importlib
import importlib.util
import inspect
import json
import os
import subprocess
import sys
from typing import Any, Callable, Sequence

from .protocol import Session
from .server import serve

# Named command styles a flag can select (a callable cannot be spelled on a command line).
COMMAND_STYLES: dict[str, Any] = {"argv": "argv", "shell": "shell", "windows": subprocess.list2cmdline}


class SpecError(Exception):
    """The booter named by SPEC cannot be found or imported (the message says which and why)."""


def split_spec(spec: str) -> tuple[str, str]:
    """`where:attr` split at the last colon (a Windows path `C:\\x.py:B` has one before it)."""
    where, sep, attr = spec.rpartition(":")
    if not sep or not where or not attr:
        raise SpecError(f"{spec!r}: expected MODULE:ATTR or FILE.py:ATTR")
    return where, attr


def is_file_spec(where: str) -> bool:
    return where.endswith(".py") or os.sep in where or (os.altsep is not None and os.altsep in where)


def load_module(where: str) -> Any:
    if not is_file_spec(where):
        return importlib.import_module(where)
    path = os.path.abspath(where)
    if not os.path.isfile(path):
        raise SpecError(f"{where}: no such file")
    name = os.path.splitext(os.path.basename(path))[0]
    sys.path.insert(0, os.path.dirname(path))  # as `python file.py` would: its siblings import
    module_spec = importlib.util.spec_from_file_location(name, path)
    if module_spec is None or module_spec.loader is None:
        raise SpecError(f"{where}: cannot be loaded as a Python module")
    module = importlib.util.module_from_spec(module_spec)
    sys.modules[name] = module
    module_spec.loader.exec_module(module)
    return module


def resolve(spec: str) -> Callable[..., Any]:
    """The booter factory SPEC names. Import errors propagate (the caller shows them as they are)."""
    where, attr = split_spec(spec)
    obj: Any = load_module(where)
    for part in attr.split("."):
        try:
            obj = getattr(obj, part)
        except AttributeError:
            raise SpecError(f"{spec}: {where} has no attribute {attr!r}") from None
    if not callable(obj):
        raise SpecError(f"{spec}: {type(obj).__name__} is not a booter factory (a class or a callable)")
    return obj


def takes_session(factory: Callable[..., Any]) -> bool:
    """True if the factory accepts the Session positionally; False if it takes no arguments."""
    try:
        sig = inspect.signature(factory)
    except (TypeError, ValueError):  # a builtin without a signature: assume the kit's convention
        return True
    try:
        sig.bind(None)
        return True
    except TypeError:
        sig.bind()  # neither: let the TypeError say what it wants
        return False


def as_factory(factory: Callable[..., Any]) -> Callable[[Session], Any]:
    if takes_session(factory):
        return factory
    adapted = lambda session: factory()  # noqa: E731  (the runtime's booter takes no policy)
    adapted.refuses = getattr(factory, "refuses", None)  # type: ignore[attr-defined]
    return adapted


def json_object(text: str) -> dict[str, Any]:
    value = json.loads(text)
    if not isinstance(value, dict):
        raise argparse.ArgumentTypeError("expected a JSON object")
    return value


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m breakout_driver",
        description="Serve driver protocol v1 on stdin/stdout around a booter (docs/driver-kit.md).")
    p.add_argument("spec", metavar="SPEC", help="MODULE:ATTR or FILE.py:ATTR naming the booter class or factory")
    p.add_argument("--name", help="driver name in hello (default: serve_options, else ATTR)")
    p.add_argument("--version", help="driver version in hello (default: serve_options, else the module's __version__)")
    p.add_argument("--platform", choices=["linux", "macos", "windows"], help="platform in hello (default: this host)")
    p.add_argument("--capabilities", type=json_object, metavar="JSON", help="capabilities in hello, merged over serve_options'")
    p.add_argument("--pinned-env", type=json_object, metavar="JSON", help="variables pinned under every policy")
    p.add_argument("--refuses", type=json_object, metavar="JSON", help="declared refusals (docs/drivers.md)")
    p.add_argument("--command-style", choices=sorted(COMMAND_STYLES),
                   help="argv list, POSIX shell string, or Windows command line (subprocess.list2cmdline)")
    p.add_argument("--env-style", choices=["computed", "overrides"], help="complete child env or the caller's overrides")
    p.add_argument("--path", action="append", default=[], metavar="DIR", help="prepend DIR to sys.path (repeatable)")
    return p


def serve_options(factory: Callable[..., Any], attr: str, module: Any, args: argparse.Namespace) -> dict[str, Any]:
    opts = dict(getattr(factory, "serve_options", None) or {})
    opts.setdefault("name", attr)
    opts.setdefault("version", str(getattr(module, "__version__", "0")))
    for key in ("name", "version", "platform", "pinned_env", "refuses", "env_style"):
        if getattr(args, key) is not None:
            opts[key] = getattr(args, key)
    if args.capabilities is not None:
        opts["capabilities"] = {**opts.get("capabilities", {}), **args.capabilities}
    if args.command_style is not None:
        opts["command_style"] = COMMAND_STYLES[args.command_style]
    return opts


def main(argv: Sequence[str] | None = None) -> int:
    args = parser().parse_args(argv)
    for d in reversed(args.path):
        sys.path.insert(0, os.path.abspath(d))
    try:
        factory = resolve(args.spec)
        module = sys.modules.get(getattr(factory, "__module__", "") or "")
        opts = serve_options(factory, split_spec(args.spec)[1], module, args)
        wrapped = as_factory(factory)
    except SpecError as e:
        sys.stderr.write(f"breakout_driver: {e}\n")
        return 2
    except ImportError as e:
        sys.stderr.write(f"breakout_driver: cannot import {args.spec}: {e}\n")
        return 2
    return serve(wrapped, **opts)
