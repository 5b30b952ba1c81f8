"""pytest driver for breakout's end-to-end tests: runs the real CLI, reads results.json."""
import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


DEFAULT_BIN = REPO / "build" / "bin" / "breakout"


def pytest_addoption(parser):
    try:  # the group of the breakout_driver pytest plugin: defined twice in one group is a ValueError, not a clash
        parser.getgroup("breakout").addoption("--breakout-bin", default=None,
                                              help=f"path to the breakout binary under test ({DEFAULT_BIN})")
    except ValueError:  # the plugin is installed here and defines it (default None there too)
        pass


@pytest.fixture(scope="session", autouse=True)
def private_state_home(tmp_path_factory):
    """Belt and braces for the history database: a breakout run without --no-history lands in a temp dir."""
    old = os.environ.get("XDG_STATE_HOME")
    os.environ["XDG_STATE_HOME"] = str(tmp_path_factory.mktemp("state"))
    yield
    if old is None:
        os.environ.pop("XDG_STATE_HOME", None)
    else:
        os.environ["XDG_STATE_HOME"] = old


@pytest.fixture(scope="session")
def breakout_bin(request):
    path = Path(request.config.getoption("--breakout-bin") or DEFAULT_BIN).absolute()  # tests run it from other cwds
    if not path.exists():
        pytest.fail(f"breakout binary not built: {path}")
    return path


class Run:
    """One `breakout run`: its exit status, output and parsed results.json."""

    def __init__(self, proc, out_dir):
        self.returncode = proc.returncode
        self.stdout = proc.stdout
        self.stderr = proc.stderr
        self.out_dir = Path(out_dir)
        results = self.out_dir / "results.json"
        self.results = json.loads(results.read_text()) if results.exists() else None

    @property
    def attempts(self):
        return self.results["attempts"]

    def by_verdict(self, verdict):
        return [a for a in self.attempts if a["verdict"] == verdict]

    def explain(self, records):
        """One paragraph per record: the verdict and its reason, then what the probe and the spawner
        said (display only), so an unexpected verdict in a CI log can be read without a rerun."""
        def one(a):
            exit_ = a.get("exit") or {}
            report = a.get("probe_report") or {}
            said = {k: report[k] for k in ("ok", "step", "errname", "sent") if k in report}
            return (f"{a['verdict']:9} {a['id']}: {a['reason']}\n"
                    f"          exit={ {k: exit_.get(k) for k in ('started', 'exit_code', 'signal', 'timed_out')} } "
                    f"duration_ms={a.get('duration_ms')} probe_report={said or report or None}\n"
                    f"          stderr={(a.get('stderr_excerpt') or '')[-400:]!r}")
        return "\n".join(one(a) for a in records)


@pytest.fixture(scope="session")
def run_breakout(breakout_bin, tmp_path_factory):
    cache = {}

    def run(*args, timeout=600, env=None):
        """`env`: variables added to ours for this run (a test hook such as BREAKOUT_TEST_RACE_VICTIM)."""
        key = (tuple(args), tuple(sorted((env or {}).items())))
        if key not in cache:
            out = tmp_path_factory.mktemp("run")
            # Tests never touch the real HOME: no history unless a test passes --history.
            history = [] if "--history" in args else ["--no-history"]
            proc = subprocess.run([str(breakout_bin), "run", "--out", str(out), *history, *args],
                                  capture_output=True, text=True, timeout=timeout,
                                  errors="replace", env={**os.environ, **env} if env else None)
            cache[key] = Run(proc, out)
        return cache[key]

    return run


def require_root_tool(tool):
    if os.geteuid() != 0:
        pytest.skip(f"needs root (namespaces, cgroups, {tool} as root)")
    if shutil.which(tool) is None:
        pytest.skip(f"{tool} is not installed")


FIXTURES = Path(__file__).resolve().parent / "fixtures"
