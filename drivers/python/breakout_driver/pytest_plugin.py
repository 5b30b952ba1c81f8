"""pytest plugin: runs breakout against a booter once per session; each execution becomes a test item."""
# `pytest --breakout-booter mypkg.sandbox:Booter` wraps the booter with the kit
# (`python -m breakout_driver SPEC`), runs `breakout run --driver ...` and turns every execution of
# results.json into an item named by its execution id: pass passes, skip skips with its reason,
# escape / overblock / broken / error fail with the reason, the evidence and the reproduce command.
# A run that produced no trustworthy results adds one failing item, `breakout::run`, saying why.
# The `breakout` fixture does the same from a test: `breakout.check(Booter, suite="default")`.
from __future__ import annotations

import importlib.util
import os
import shlex
import shutil
import site
import subprocess
import sys
import sysconfig
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

import pytest

from . import results as res
from .wrap import is_file_spec, split_spec

RUN_ITEM = "run"
TAIL_BYTES = 4096
MAX_LISTED_FAILURES = 20


def _add(group: Any, name: str, **kw: Any) -> None:
    try:
        group.addoption(name, **kw)
    except ValueError:  # defined already in this group (breakout's own e2e conftest adds --breakout-bin here too)
        pass


def pytest_addoption(parser: pytest.Parser) -> None:
    g = parser.getgroup("breakout", "breakout: test a sandbox booter with the breakout harness")
    g.addoption("--breakout-booter", metavar="SPEC",
                help="MODULE:ATTR or FILE.py:ATTR of the booter to test; one breakout run per session, "
                     "one test item per execution")
    g.addoption("--breakout-results", metavar="PATH",
                help="turn an existing results.json into test items instead of running breakout")
    _add(g, "--breakout-bin", metavar="PATH", default=None, help="the breakout binary (default: breakout on PATH)")
    g.addoption("--breakout-suite", metavar="NAME|PATH", help="suite to run (default: breakout's default)")
    g.addoption("--breakout-scenarios", metavar="DIR",
                help="breakout's --scenarios: a directory with suites/, policies/ and attempts of your own")
    g.addoption("--breakout-only", metavar="GLOB", help="only the executions matching GLOB, with their controls")
    g.addoption("--breakout-jobs", metavar="N", type=int, help="attempts breakout runs in parallel")
    g.addoption("--breakout-driver-args", metavar="ARGS", default="",
                help="options for python -m breakout_driver, e.g. '--env-style overrides --capabilities "
                     "{\"network\": [\"none\"]}' (shell-quoted)")
    g.addoption("--breakout-out", metavar="DIR", help="results directory (default: a pytest temp directory)")
    g.addoption("--breakout-timeout", metavar="S", type=float, default=3600.0,
                help="stop the breakout run after S seconds (default 3600)")
    g.addoption("--breakout-allow-all-skip", action="store_true",
                help="accept a run in which every execution skipped (else the run item fails)")


@dataclass
class Run:
    """One breakout run as the plugin saw it. `problems` non-empty means the run failed as a whole."""

    command: list[str]
    path: Path  # results.json
    binary: str
    outcomes: list[res.Outcome] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


class Usage(Exception):
    """The run could not start (binary or booter not found); the message says what to fix."""


def spec_of(booter: Any) -> str:
    """SPEC for a booter given as a string or as a class/function importable by its module name."""
    if isinstance(booter, str):
        return booter
    module, qualname = getattr(booter, "__module__", None), getattr(booter, "__qualname__", None)
    if not module or not qualname or module == "__main__" or "<locals>" in qualname:
        raise Usage(f"{booter!r} cannot be imported by name in the driver process; "
                    "pass 'module:Attr' or 'file.py:Attr'")
    mod = sys.modules.get(module)
    file = getattr(mod, "__file__", None)
    if file and getattr(mod, "__spec__", None) is not None and mod.__spec__.name != module:
        return f"{file}:{qualname}"  # loaded from a file under another name
    return f"{module}:{qualname}"


def _site_dirs() -> set[str]:
    dirs = {sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]}
    try:
        dirs.update(site.getsitepackages())
    except AttributeError:  # some virtualenv builds lack it
        pass
    return {os.path.realpath(d) for d in dirs}


def driver_command(spec: str, invocation_dir: Path, driver_args: Sequence[str] = ()) -> list[str]:
    """`python -m breakout_driver SPEC`, with --path for what the driver's sys.path would miss: breakout
    starts the driver in a synthetic caller environment (docs/drivers.md), so our PYTHONPATH is not
    passed on; its entries become --path, and so does the directory of a module pytest found elsewhere."""
    where, attr = split_spec(spec)
    paths: list[str] = []
    for entry in os.environ.get("PYTHONPATH", "").split(os.pathsep):
        if entry:
            paths += ["--path", str((invocation_dir / entry).resolve())]
    if is_file_spec(where):
        file = (invocation_dir / where).resolve()
        if not file.is_file():
            raise Usage(f"--breakout-booter {spec}: {file} is not a file")
        spec = f"{file}:{attr}"
    else:
        try:
            found = importlib.util.find_spec(where.split(".")[0])
        except (ImportError, ValueError) as e:
            raise Usage(f"--breakout-booter {spec}: {e}") from e
        if found is None:
            raise Usage(f"--breakout-booter {spec}: no module {where.split('.')[0]!r} on this interpreter's sys.path")
        where_file = found.origin if found.has_location and found.origin else None
        locations = list(found.submodule_search_locations or [])
        base = os.path.dirname(locations[0]) if locations else os.path.dirname(where_file or "")
        if base and os.path.realpath(base) not in _site_dirs() and str(Path(base).resolve()) not in paths:
            paths += ["--path", base]
    return [sys.executable, "-m", "breakout_driver", *paths, spec, *driver_args]


def _tail(f: Any) -> str:
    f.seek(0, os.SEEK_END)
    size = f.tell()
    f.seek(max(0, size - TAIL_BYTES))
    return res.printable(f.read().decode("utf-8", "replace"), TAIL_BYTES).replace("\\x0a", "\n  ")


def run_breakout(binary: str | None, booter: Any, out: Path, invocation_dir: Path, *, suite: str | None = None,
                 scenarios: str | None = None, only: str | None = None, jobs: int | None = None,
                 driver_args: Sequence[str] = (),
                 timeout: float = 3600.0, allow_all_skip: bool = False) -> Run:
    exe = shutil.which(binary or "breakout")
    if exe is None:
        raise Usage(f"breakout binary not found: {binary or 'breakout'} (--breakout-bin PATH)")
    driver = shlex.join(driver_command(spec_of(booter), invocation_dir, driver_args))
    prefix = [exe, *(["--scenarios", str((invocation_dir / scenarios).resolve())] if scenarios else [])]
    cmd = [*prefix, "run", "--driver", driver, "--out", str(out), "--no-history"]
    cmd += ["--suite", suite] if suite else []
    cmd += ["--only", only] if only else []
    cmd += ["--jobs", str(jobs)] if jobs else []
    run = Run(cmd, out / "results.json", exe)
    with tempfile.TemporaryFile() as log:
        proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT)
        try:
            status: int | None = proc.wait(timeout)
        except subprocess.TimeoutExpired:
            proc.terminate()  # breakout stops its attempts and writes what it judged (exit 130)
            try:
                proc.wait(60)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
            run.problems.append(f"breakout did not finish within {timeout:g} s (--breakout-timeout)")
            status = None
        except BaseException:  # Ctrl-C: do not leave breakout running
            proc.kill()
            proc.wait()
            raise
        tail = _tail(log)
    shown = f"breakout run exited {proc.returncode}" + (" (2: usage or configuration error)" if status == 2 else "")
    try:
        results = res.load(out / "results.json")
    except res.ResultsError as e:
        run.problems.append(f"{shown}; no results: {e}\n$ {shlex.join(cmd)}\n  {tail}")
        return run
    if status not in (0, 1, 3, 5):
        run.problems.append(f"{shown}\n$ {shlex.join(cmd)}\n  {tail}")
    run.problems += res.run_problems(results, status if status in (0, 1, 3, 5) else None, allow_all_skip)
    run.outcomes = res.outcomes(results, prefix)
    return run


def read_results(path: Path, allow_all_skip: bool) -> Run:
    run = Run([], path.resolve(), "breakout")
    try:
        results = res.load(path)
    except res.ResultsError as e:
        run.problems.append(str(e))
        return run
    run.problems = res.run_problems(results, None, allow_all_skip)
    run.outcomes = res.outcomes(results)
    return run


# ---- items ---------------------------------------------------------------------------------------

class VerdictFailed(Exception):
    """An execution's verdict fails the test; the message is already printable and bounded."""


class BreakoutRun(pytest.Collector):
    """The parent of the execution items (node id `breakout`); collected by the plugin itself."""

    def collect(self) -> list[pytest.Item]:
        return []


class BreakoutItem(pytest.Item):
    def __init__(self, *, status: str, message: str, verdict: str, **kw: Any) -> None:
        super().__init__(**kw)
        self.status, self.message, self.verdict = status, message, verdict
        self.user_properties.append(("breakout_verdict", verdict))

    def runtest(self) -> None:
        if self.status == "skipped":
            raise _skip(self.message)
        if self.status != "passed":
            raise VerdictFailed(self.message)

    def repr_failure(self, excinfo: Any, style: Any = None) -> Any:
        if isinstance(excinfo.value, VerdictFailed):
            return str(excinfo.value)
        return super().repr_failure(excinfo)

    def reportinfo(self) -> tuple[Any, int | None, str]:
        # Line 0 of results.json: `-rs` then groups the skips by reason, not by this file's line.
        return self.path, 0, f"breakout {self.verdict}: {self.name}"


def _skip(message: str) -> BaseException:
    try:  # reported at the item's location (reportinfo), not at this plugin's line
        return pytest.skip.Exception(message, _use_item_location=True)
    except TypeError:  # a pytest without the keyword
        return pytest.skip.Exception(message)


def items_for(parent: pytest.Collector, run: Run) -> list[pytest.Item]:
    items: list[pytest.Item] = [BreakoutItem.from_parent(parent, name=o.id, status=o.status, message=o.message,
                                                         verdict=o.verdict) for o in run.outcomes]
    if run.problems:
        items.append(BreakoutItem.from_parent(parent, name=RUN_ITEM, status="failed", verdict="run",
                                              message="the breakout run failed:\n" + "\n".join(run.problems)))
    return items


def _out_dir(config: pytest.Config, name: str) -> Path:
    out = config.getoption("--breakout-out")
    if out:
        return Path(out)
    factory = getattr(config, "_tmp_path_factory", None)  # pytest's tmp_path retention, when present
    return factory.mktemp(name) if factory is not None else Path(tempfile.mkdtemp(prefix=name))


@pytest.hookimpl(tryfirst=True)  # before -k/-m deselection, so those select breakout items too
def pytest_collection_modifyitems(session: pytest.Session, config: pytest.Config, items: list[pytest.Item]) -> None:
    booter, given = config.getoption("--breakout-booter"), config.getoption("--breakout-results")
    if not booter and not given:
        return
    allow = config.getoption("--breakout-allow-all-skip")
    if given:
        run = read_results(Path(given), allow)
    else:
        try:
            run = run_breakout(config.getoption("--breakout-bin"), booter, _out_dir(config, "breakout"),
                               config.invocation_params.dir, suite=config.getoption("--breakout-suite"),
                               scenarios=config.getoption("--breakout-scenarios"),
                               only=config.getoption("--breakout-only"), jobs=config.getoption("--breakout-jobs"),
                               driver_args=shlex.split(config.getoption("--breakout-driver-args")),
                               timeout=config.getoption("--breakout-timeout"), allow_all_skip=allow)
        except Usage as e:
            raise pytest.UsageError(str(e)) from None
    config.stash[_RUN_KEY] = run
    parent = BreakoutRun.from_parent(session, name="breakout", nodeid="breakout", path=run.path)
    found = items_for(parent, run)
    # Reported like any collector's result, so "collected N items", --collect-only and junit count them.
    config.hook.pytest_collectreport(report=pytest.CollectReport(parent.nodeid, "passed", None, found))
    items.extend(found)


_RUN_KEY = pytest.StashKey[Run]()


def pytest_terminal_summary(terminalreporter: Any, exitstatus: int, config: pytest.Config) -> None:
    run = config.stash.get(_RUN_KEY, None)
    if run is not None:
        verdicts: dict[str, int] = {}
        for o in run.outcomes:
            verdicts[o.verdict] = verdicts.get(o.verdict, 0) + 1
        counts = ", ".join(f"{n} {v}" for v, n in sorted(verdicts.items())) or "no executions"
        terminalreporter.section("breakout")
        terminalreporter.write_line(f"{counts}; {run.path}")


# ---- fixture -------------------------------------------------------------------------------------

class Breakout:
    """The `breakout` fixture: `breakout.check(Booter, suite=..., only=...)` runs breakout against the
    booter and fails the test (AssertionError) on any escape, overblock, broken, error or run problem."""

    def __init__(self, config: pytest.Config, tmp_dir: Path) -> None:
        self.config, self.tmp_dir = config, tmp_dir

    def run(self, booter: Any, *, suite: str | None = None, scenarios: str | None = None, only: str | None = None,
            jobs: int | None = None, driver_args: Sequence[str] = (), timeout: float | None = None,
            allow_all_skip: bool = False) -> Run:
        """Options left out take the command line's (--breakout-suite, --breakout-scenarios, ...)."""
        opt = self.config.getoption
        out = Path(tempfile.mkdtemp(prefix="run-", dir=self.tmp_dir))
        try:
            return run_breakout(self.config.getoption("--breakout-bin"), booter, out,
                                self.config.invocation_params.dir, suite=suite or opt("--breakout-suite"),
                                scenarios=scenarios or opt("--breakout-scenarios"),
                                only=only or opt("--breakout-only"), jobs=jobs or opt("--breakout-jobs"),
                                driver_args=driver_args or shlex.split(opt("--breakout-driver-args")),
                                allow_all_skip=allow_all_skip or opt("--breakout-allow-all-skip"),
                                timeout=timeout or opt("--breakout-timeout"))
        except Usage as e:
            pytest.fail(str(e), pytrace=False)

    def check(self, booter: Any, **kw: Any) -> Run:
        run = self.run(booter, **kw)
        failed = [o for o in run.outcomes if o.status == "failed"]
        if failed or run.problems:
            shown = [f"- {o.id}\n  " + o.message.replace("\n", "\n  ") for o in failed[:MAX_LISTED_FAILURES]]
            more = len(failed) - len(shown)
            raise AssertionError("\n".join([f"breakout: {len(failed)} failing execution(s) of {len(run.outcomes)}",
                                            *shown, *([f"... and {more} more"] if more > 0 else []),
                                            *run.problems]))
        return run


@pytest.fixture
def breakout(request: pytest.FixtureRequest, tmp_path: Path) -> Breakout:
    return Breakout(request.config, tmp_path)
