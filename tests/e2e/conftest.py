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


# How the tests share the host when pytest-xdist runs them in parallel (tests/CMakeLists.txt runs
# `-n 2 --dist loadgroup -m "not serial"`, then `-m serial` alone). Each file is one group, so its
# module fixtures and the session's run cache stay on one worker; the files below share a group or
# run alone for the reason given.
SERIAL_FILES = {
    # Its "idle" run must be the only thing running, and its loaded run brings its own load.
    "test_load_independence.py": "compares a run on an idle machine with one under load",
    # Looks for every /tmp/breakout-* tree and every breakout-probe process on the host.
    "test_interrupt.py": "counts every breakout tree and probe process on the host",
}
# Codex and srt leave their own state in /tmp (six_spawners.RESIDUE); a test removes what appeared
# during its run, which would be another worker's live state: every file that runs them, on one worker.
AGENT_TOOL_FILES = {
    "test_agent_escapes.py", "test_agent_sandboxes.py", "test_deny_read_race.py", "test_host_ipc.py",
    "test_protected_paths.py", "test_proxy.py", "test_releases.py", "test_submount.py",
}


def pytest_configure(config):
    config.addinivalue_line("markers", "serial: runs alone, after the parallel part (conftest.SERIAL_FILES)")


def pytest_collection_modifyitems(config, items):
    for item in items:
        name = item.path.name
        if name in SERIAL_FILES:
            item.add_marker(pytest.mark.serial)
        item.add_marker(pytest.mark.xdist_group("agent-tools" if name in AGENT_TOOL_FILES else name))


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
