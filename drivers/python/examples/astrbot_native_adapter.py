#!/usr/bin/env python3
"""Example: AstrBot's NativeBooter (Windows restricted token + job object) as a protocol-v1 driver.

The booter is the one proposed in https://github.com/AstrBotDevs/AstrBot/pull/9895.
"""
# Run it on the Windows machine, in the interpreter where AstrBot is installed:
#   python drivers/python/examples/astrbot_native_adapter.py
# The booter is wrapped as it is: the harness judges what it really does (its own environment,
# its own work directory, its timeout default), so nothing here papers over its behaviour.
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # drivers/python: the kit
from breakout_driver import serve  # noqa: E402

try:
    from astrbot.core.computer.booters.native import NativeBooter  # noqa: E402
except ImportError as e:  # not AstrBot's interpreter, or not Windows/pywin32: say so and stop
    sys.stderr.write(f"astrbot_native_adapter: cannot import astrbot.core.computer.booters.native "
                     f"({e}); run this with the Python that has AstrBot (and pywin32) installed\n")
    sys.exit(2)


class Adapted:
    """One NativeBooter per session. It takes no policy: it picks its own work directory."""

    serve_options = dict(
        name="astrbot-native", version="pr-9895", platform="windows",
        # "none" is what the booter claims (proxy poisoning only): declared so the harness tests it.
        capabilities={"network": ["none"], "deny_read": False, "concurrent_exec": 4, "fs": False},
        pinned_env={"HTTP_PROXY": "http://127.0.0.1:9", "HTTPS_PROXY": "http://127.0.0.1:9",
                    "GIT_SSH_COMMAND": "exit 1"},
        command_style=subprocess.list2cmdline,  # it runs `cmd /d /s /c <command>`: Windows quoting
        env_style="overrides",                  # its env= means "extra variables" on its own env
    )

    def __init__(self, session):
        self.inner = NativeBooter()

    async def boot(self, session_id):
        await self.inner.boot(session_id)
        # The work directory is private state of the booter; report it so the harness can look.
        return str(getattr(getattr(self.inner, "_sandbox", None), "workdir", "") or "") or None

    async def exec(self, command, cwd=None, env=None, timeout=None):
        # timeout=None is passed through on purpose: seed comment 8 (`timeout or 120`) shows here.
        return await self.inner.exec(command, cwd=cwd, env=env, timeout=timeout)

    async def shutdown(self):
        await self.inner.shutdown()


if __name__ == "__main__":  # or: python -m breakout_driver examples/astrbot_native_adapter.py:Adapted
    sys.exit(serve(Adapted, **Adapted.serve_options))
