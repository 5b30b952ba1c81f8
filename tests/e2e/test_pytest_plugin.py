"""The driver kit as a package and its pytest plugin: installed into a fresh venv, run against booters.

The plugin's items are read from outside, from pytest's junit.xml, and compared with breakout's own
results.json: one test case per execution, its outcome the verdict's.
"""
from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from conftest import FIXTURES, REPO
from synthetic_results import attempt, base_attempts, results_doc, write_results

DRIVERS = REPO / "drivers" / "python"
EXAMPLES = DRIVERS / "examples"
MINIMAL = f"{EXAMPLES / 'minimal_bwrap.py'}:MiniBwrap"
UNSANDBOXED = f"{FIXTURES / 'booters' / 'unsandboxed.py'}:Unsandboxed"
ADAPTER = f"{EXAMPLES / 'astrbot_native_adapter.py'}:Adapted"
ONLY = "fs.write.create*"  # one attempt: a handful of executions
PIP_ENV = {**os.environ, "PIP_NO_CACHE_DIR": "1", "PIP_CONFIG_FILE": os.devnull,
           "PIP_DISABLE_PIP_VERSION_CHECK": "1", "PIP_NO_INPUT": "1"}
FAILING = {"escape", "overblock", "broken", "error"}


def sh(cmd, ok_status=(0,), **kw):
    p = subprocess.run([str(c) for c in cmd], capture_output=True, text=True, errors="replace", timeout=600, **kw)
    assert p.returncode in ok_status, f"{cmd}\n{p.stdout[-3000:]}\n{p.stderr[-3000:]}"
    return p


def package_source(dest: Path) -> Path:
    """A copy of drivers/python: an in-tree setuptools build litters its source with build/ and egg-info."""
    return Path(shutil.copytree(DRIVERS, dest, ignore=shutil.ignore_patterns("build", "dist", "*.egg-info",
                                                                             "__pycache__")))


def fresh_venv(where: Path) -> Path:
    sh([sys.executable, "-m", "venv", "--system-site-packages", where])  # Debian's pytest stays visible
    return where / "bin" / "python"


@pytest.fixture(scope="module")
def venv(tmp_path_factory):
    """A fresh venv with `pip install --no-index --no-build-isolation <drivers/python>`, as docs/driver-kit.md says."""
    root = tmp_path_factory.mktemp("pkg")
    python = fresh_venv(root / "venv")
    sh([python, "-m", "pip", "install", "--no-index", "--no-build-isolation", package_source(root / "src")],
       env=PIP_ENV)
    return python


def test_the_wheel_builds_and_installs_offline(tmp_path):
    src = package_source(tmp_path / "src")
    python = fresh_venv(tmp_path / "venv")
    sh([python, "-m", "pip", "wheel", "--no-index", "--no-build-isolation", "--no-deps", "-w", tmp_path / "dist", src],
       env=PIP_ENV)
    wheels = list((tmp_path / "dist").glob("breakout_driver-*-py3-none-any.whl"))
    assert len(wheels) == 1, list((tmp_path / "dist").iterdir())
    sh([python, "-m", "pip", "install", "--no-index", wheels[0]], env=PIP_ENV)
    out = sh([python, "-c", "import breakout_driver, importlib.metadata as m; print(breakout_driver.__file__); "
              "print([e.value for e in m.entry_points(group='pytest11')])"], cwd=tmp_path).stdout
    assert str(tmp_path / "venv") in out.splitlines()[0]  # the installed copy, not the repo's folder
    assert "breakout_driver.pytest_plugin" in out
    site = next((tmp_path / "venv" / "lib").glob("python3*/site-packages"))
    assert not (site / "examples").exists() and not (site / "reference_driver.py").exists()


def test_installed_plugin_coexists_with_the_repo_conftest(venv):
    """breakout's own e2e conftest defines --breakout-bin too; with the package installed both load."""
    p = subprocess.run([venv, "-m", "pytest", "-p", "no:cacheprovider", "--collect-only", "-q",
                        "tests/e2e/test_pytest_plugin.py"], cwd=REPO, capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stdout[-2000:] + p.stderr[-2000:]


# ---- the results -> items mapping, no breakout binary: the plugin loaded from the folder with -p --------

def plugin_pytest(tmp_path, *args, python=sys.executable, cwd=None, env=None):
    """pytest with the plugin in an empty project directory; returns (process, junit testcases by name).
    Options are written --opt=VALUE: pytest picks its rootdir before plugins add their options, and a
    separate VALUE that is an existing path would count as a rootdir candidate."""
    proj = cwd or tmp_path / "proj"
    proj.mkdir(exist_ok=True)
    junit = tmp_path / f"junit-{len(list(tmp_path.glob('junit-*')))}.xml"
    if python == sys.executable:  # the folder layout, the plugin named with -p
        base_env, plugin = env or {**os.environ, "PYTHONPATH": str(DRIVERS)}, ["-p", "breakout_driver.pytest_plugin"]
    else:  # the installed package: its entry point loads the plugin
        base_env, plugin = env or {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}, []
    p = subprocess.run([python, "-m", "pytest", "-p", "no:cacheprovider", *plugin, f"--junitxml={junit}",
                        f"--basetemp={tmp_path / 'basetemp'}", "-rA", *map(str, args)],
                       cwd=proj, capture_output=True, text=True, errors="replace", timeout=900, env=base_env)
    cases = {}
    if junit.exists():
        for case in ET.parse(junit).getroot().iter("testcase"):
            name = case.get("name")
            assert name not in cases, f"two test cases named {name}"
            kind = next((c.tag for c in case if c.tag in ("failure", "error", "skipped")), "passed")
            text = next((c.get("message", "") + "\n" + (c.text or "") for c in case
                         if c.tag in ("failure", "error", "skipped")), "")
            cases[name] = (kind, text)
    return p, cases


def assert_one_item_per_execution(cases, attempts, run_item=False):
    expected = {a["id"] for a in attempts}
    names = set(cases) - {"run"}
    assert names == expected, f"missing {sorted(expected - names)}, extra {sorted(names - expected)}"
    assert ("run" in cases) == run_item, cases.get("run")
    for a in attempts:
        kind, text = cases[a["id"]]
        want = "passed" if a["verdict"] == "pass" else "skipped" if a["verdict"] == "skip" else "failure"
        assert kind == want, f"{a['id']}: {a['verdict']} became {kind}"
        if want != "passed":
            assert a["reason"][:40] in text, (a["reason"], text)
        if want == "failure":
            assert text.lstrip().startswith(a["verdict"]) or a["verdict"] in text.split("\n", 1)[0]
            assert "reproduce: " in text and f"--only {shlex.quote(a['id'])}" in text and "evidence: " in text


def every_verdict():
    extra = [attempt("net.connect.tcp@workspace-write[net:external]", "overblock", "allowed but refused"),
             attempt("contract.exit-code@workspace-write", "broken", "exit code 0, expected 3"),
             attempt("fs.read.secrets@workspace-write[fs:home/.ssh/id]", "error", "its control failed")]
    return base_attempts() + extra


def test_every_verdict_becomes_its_item(tmp_path):
    attempts = every_verdict()
    results = write_results(tmp_path / "r" / "results.json", attempts)
    p, cases = plugin_pytest(tmp_path, f"--breakout-results={results}")
    assert p.returncode == 1, p.stdout[-3000:]
    assert_one_item_per_execution(cases, attempts)
    assert "collected 8 items" in p.stdout and "4 failed, 3 passed, 1 skipped" in p.stdout
    # The reproduce command of a results.json from a spawner run names that spawner and suite.
    assert "breakout run --spawner bwrap --suite default --only 'fs.write.delete@read-only[fs:sibling/d]'" in p.stdout


def test_hostile_text_is_bounded_and_printable(tmp_path):
    attempts = base_attempts()
    attempts[3]["reason"] = "ESC\x1b[31mred \u202eevil\nFAKE PASSED line " + "A" * 1_000_000
    attempts[3]["evidence"] = {"changes_outside_writable_roots": [{"path": "/x\x07\x1b]0;title\x07" + "B" * 100_000}]}
    attempts[0]["id"] = attempts[0]["group"] = "fs.write.create@workspace-write[fs:\x1b[2Jsib]"
    results = write_results(tmp_path / "r" / "results.json", attempts)
    p, cases = plugin_pytest(tmp_path, f"--breakout-results={results}")
    assert p.returncode == 1
    for raw in ("\x1b", "\u202e", "\x07"):
        assert raw not in p.stdout and not any(raw in n or raw in t for n, (k, t) in cases.items())
    assert "\\x1b[31mred \\u202eevil\\x0aFAKE PASSED" in p.stdout
    assert "fs.write.create@workspace-write[fs:\\x1b[2Jsib]" in cases
    assert len(p.stdout) < 40_000, len(p.stdout)  # a 1 MB reason is cut, the failure says how much
    assert "more characters)" in cases["fs.write.delete@read-only[fs:sibling/d]"][1]


@pytest.mark.parametrize("case", ["all-skip", "no-executions", "interrupted", "summary-mismatch", "repeated-id",
                                  "not-json", "deep-nesting", "wrong-schema", "too-big", "missing"])
def test_an_untrustworthy_run_fails_loudly(tmp_path, case):
    path = tmp_path / "r" / "results.json"
    attempts = base_attempts()
    if case == "all-skip":
        write_results(path, [dict(a, verdict="skip") for a in attempts])
    elif case == "no-executions":
        write_results(path, [])
    elif case == "interrupted":
        write_results(path, attempts, interrupted=True)
    elif case == "summary-mismatch":  # a results.json cut after its summary was written
        doc = results_doc(attempts)
        doc["attempts"] = doc["attempts"][:2]
        path.parent.mkdir(parents=True)
        path.write_text(json.dumps(doc))
    elif case == "repeated-id":
        write_results(path, attempts + attempts[:1])
    elif case == "not-json":
        write_results(path, attempts)
        path.write_text(path.read_text()[:200])
    elif case == "deep-nesting":
        path.parent.mkdir(parents=True)
        path.write_text("[" * 200_000 + "]" * 200_000)
    elif case == "wrong-schema":
        write_results(path, attempts)
        path.write_text(path.read_text().replace("breakout.results/1", "breakout.results/9"))
    elif case == "too-big":
        path.parent.mkdir(parents=True)
        with open(path, "wb") as f:
            f.truncate(65 * 1024 * 1024)  # sparse: the reader stops at its bound, never parses it
    p, cases = plugin_pytest(tmp_path, f"--breakout-results={path}")
    assert p.returncode == 1, f"{case}: exit {p.returncode}\n{p.stdout[-2000:]}"
    assert cases.get("run", ("passed",))[0] == "failure", f"{case}: {sorted(cases)}"
    assert "the breakout run failed" in cases["run"][1]


def test_all_skip_is_accepted_only_when_asked(tmp_path):
    attempts = [dict(a, verdict="skip") for a in base_attempts()]
    results = write_results(tmp_path / "r" / "results.json", attempts)
    p, cases = plugin_pytest(tmp_path, f"--breakout-results={results}", "--breakout-allow-all-skip")
    assert p.returncode == 0, p.stdout[-2000:]
    assert_one_item_per_execution(cases, attempts)


def test_exit_status_must_agree_with_the_verdicts():
    sys.path.insert(0, str(DRIVERS))
    from breakout_driver import results as res
    doc = res.parse(results_doc(base_attempts()))  # holds an escape
    assert res.run_problems(doc, 3, False) == []
    assert any("exited 0, but the verdicts give 3" in p for p in res.run_problems(doc, 0, False))


# ---- python -m breakout_driver SPEC: the wrapper the plugin starts --------------------------------------

def hello(spec, *args, env=None):
    req = json.dumps({"id": 1, "op": "hello", "protocol": 1}) + "\n"
    p = subprocess.run([sys.executable, "-m", "breakout_driver", *args, spec], input=req, capture_output=True,
                       text=True, timeout=30, env={**os.environ, "PYTHONPATH": str(DRIVERS), **(env or {})})
    return p, (json.loads(p.stdout.splitlines()[0]) if p.stdout else None)


def test_wrapper_serves_the_example_booter_as_the_example_does():
    p, reply = hello(MINIMAL)
    assert p.returncode == 0 and reply["ok"], p.stderr
    assert reply["name"] == "mini-bwrap" and reply["capabilities"]["network"] == ["none", "full"]
    assert reply["pinned_env"] == {"HTTP_PROXY": "http://127.0.0.1:9"}
    p, reply = hello(MINIMAL, "--name", "other", "--capabilities", '{"network": ["none"]}')
    assert reply["name"] == "other" and reply["capabilities"]["network"] == ["none"]
    assert reply["capabilities"]["concurrent_exec"] == 4  # merged over the booter's own


def test_wrapper_adapts_a_runtime_booter_that_takes_no_session(tmp_path):
    (tmp_path / "rt.py").write_text("class Booter:\n    def boot(self, sid):\n        return '/'\n")
    req = "\n".join(json.dumps(r) for r in [
        {"id": 1, "op": "hello", "protocol": 1},
        {"id": 2, "op": "boot", "session": "s", "policy": {"workspace": str(tmp_path), "network": "full"}}]) + "\n"
    p = subprocess.run([sys.executable, "-m", "breakout_driver", "rt:Booter"], input=req, capture_output=True,
                       text=True, timeout=30, env={**os.environ, "PYTHONPATH": f"{DRIVERS}{os.pathsep}{tmp_path}"})
    replies = {r["id"]: r for r in map(json.loads, p.stdout.splitlines())}
    assert replies[1]["name"] == "Booter" and replies[2] == {"id": 2, "ok": True, "workspace": "/"}, p.stderr


@pytest.mark.parametrize("spec, message", [("no_such_module_xyz:B", "cannot import"), ("nocolon", "expected MODULE:ATTR"),
                                           (f"{EXAMPLES / 'minimal_bwrap.py'}:Nope", "has no attribute"),
                                           ("/no/such/file.py:B", "no such file")])
def test_wrapper_refuses_a_bad_spec_with_a_message(spec, message):
    p, reply = hello(spec)
    assert p.returncode == 2 and message in p.stderr and reply is None


# ---- end to end: the installed plugin runs breakout against booters ------------------------------------

@pytest.fixture(scope="module")
def scenarios(tmp_path_factory):
    """breakout's attempts with a suite `kit`: fs_write.toml under workspace-write without deny_read.
    Every shipped policy denies reads of ~/.ssh and the like, which the minimal example cannot
    express (a masking booter is longer than 50 lines): under them all its executions skip."""
    root = tmp_path_factory.mktemp("scenarios")
    for d in ("attempts", "fixtures", "regressions"):
        (root / d).symlink_to(REPO / "scenarios" / d)
    (root / "policies").mkdir()
    policy = (REPO / "scenarios" / "policies" / "workspace-write.toml").read_text()
    assert "\ndeny_read = [" in policy
    (root / "policies" / "workspace-write.toml").write_text(
        "\n".join("deny_read = []" if line.startswith("deny_read =") else line for line in policy.splitlines()))
    (root / "suites").mkdir()
    (root / "suites" / "kit.toml").write_text('name = "kit"\ndescription = "writes, no read denial"\n'
                                              'policies = ["workspace-write"]\ninclude = ["../attempts/fs_write.toml"]\n')
    return root


@pytest.fixture
def root_bwrap():
    if os.geteuid() != 0 or shutil.which("bwrap") is None:
        pytest.skip("needs root and bubblewrap (breakout's attempt trees, the example booter's sandbox)")


def run_plugin(venv, tmp_path, breakout_bin, scenarios, booter, *args, env=None, only=ONLY):
    out = tmp_path / "out"
    p, cases = plugin_pytest(tmp_path, f"--breakout-bin={breakout_bin}", f"--breakout-booter={booter}",
                             f"--breakout-scenarios={scenarios}", "--breakout-suite=kit", f"--breakout-only={only}",
                             f"--breakout-out={out}", *args, python=venv, env=env)
    results = json.loads((out / "results.json").read_text())
    return p, cases, results


def test_minimal_booter_one_item_per_execution(venv, tmp_path, breakout_bin, scenarios, root_bwrap):
    p, cases, results = run_plugin(venv, tmp_path, breakout_bin, scenarios, MINIMAL)
    assert results["attempts"], "breakout ran nothing"
    assert_one_item_per_execution(cases, results["attempts"])
    assert p.returncode == 0 and not [n for n, (k, _) in cases.items() if k == "failure"], p.stdout[-4000:]
    assert results["run"]["spawner"]["name"] == "driver:mini-bwrap"


def test_astrbot_adapter_one_item_per_execution(venv, tmp_path, breakout_bin, scenarios, root_bwrap):
    from test_driver_kit import FAKE_NATIVE  # a Linux stand-in for AstrBot's NativeBooter
    pkg = tmp_path / "site" / "astrbot" / "core" / "computer" / "booters"
    pkg.mkdir(parents=True)
    for d in [pkg, *pkg.parents][:4]:
        (d / "__init__.py").write_text("")
    (pkg / "native.py").write_text(FAKE_NATIVE)
    env = {**os.environ, "PYTHONPATH": str(tmp_path / "site")}
    p, cases, results = run_plugin(venv, tmp_path, breakout_bin, scenarios, ADAPTER, env=env)
    assert results["run"]["spawner"]["name"] == "driver:astrbot-native"
    assert_one_item_per_execution(cases, results["attempts"])
    verdicts = {a["verdict"] for a in results["attempts"]}
    assert verdicts & FAILING, verdicts  # the stand-in runs on the host: its flaws show as red items
    assert p.returncode == 1


def test_an_unsandboxed_booter_turns_exactly_the_none_spawners_escapes_red(venv, tmp_path, breakout_bin, scenarios,
                                                                             root_bwrap):
    """The whole `kit` suite (every fs.write attempt): the oracle is the `none` spawner's run of it."""
    sh([breakout_bin, "--scenarios", scenarios, "run", "--spawner", "none", "--suite", "kit", "--no-history",
        "--out", tmp_path / "none"], ok_status=(3,))
    oracle = json.loads((tmp_path / "none" / "results.json").read_text())["attempts"]
    escapes = {a["id"] for a in oracle if a["verdict"] == "escape"}
    assert escapes, "the none spawner shows no escape in this suite: pick another"
    p, cases, results = run_plugin(venv, tmp_path, breakout_bin, scenarios, UNSANDBOXED, only="*")
    assert {a["id"] for a in results["attempts"]} == {a["id"] for a in oracle}
    assert_one_item_per_execution(cases, results["attempts"])
    red = {n for n, (k, _) in cases.items() if k == "failure"}
    assert red == escapes, f"red but no escape under none: {sorted(red - escapes)}; missed: {sorted(escapes - red)}"
    assert p.returncode == 1
    # The reproduce command in a failure runs that execution again and shows the same escape.
    text = cases[sorted(red)[0]][1]
    cmd = text.split("reproduce: ", 1)[1].splitlines()[0]
    again = subprocess.run(f"{cmd} --out {tmp_path / 'again'} --no-history", shell=True, capture_output=True,
                           text=True, timeout=600)
    assert again.returncode == 3, again.stdout[-2000:] + again.stderr[-2000:]


def test_the_fixture_checks_a_booter_from_a_test(venv, tmp_path, breakout_bin, scenarios, root_bwrap):
    proj = tmp_path / "proj"
    proj.mkdir()
    (proj / "test_sandbox.py").write_text(
        f"def test_minimal(breakout):\n    breakout.check({MINIMAL!r}, only={ONLY!r})\n\n"
        f"def test_unsandboxed(breakout):\n    breakout.check({UNSANDBOXED!r}, only={ONLY!r})\n")
    p, cases = plugin_pytest(tmp_path, f"--breakout-bin={breakout_bin}", f"--breakout-scenarios={scenarios}",
                             "--breakout-suite=kit", python=venv, cwd=proj)  # the fixture takes these too
    assert cases["test_minimal"][0] == "passed", cases["test_minimal"][1][-3000:]
    kind, text = cases["test_unsandboxed"]
    assert kind == "failure" and "failing execution(s)" in text and "escape: " in text and "reproduce: " in text


@pytest.mark.parametrize("case", ["breakout-exit-2", "binary-crashes", "no-such-module"])
def test_a_failed_breakout_run_fails_the_session(venv, tmp_path, breakout_bin, case):
    args = {"breakout-exit-2": [f"--breakout-bin={breakout_bin}", f"--breakout-booter={MINIMAL}",
                                "--breakout-suite=no-such-suite"],
            "binary-crashes": ["--breakout-bin=/bin/false", f"--breakout-booter={MINIMAL}"],
            "no-such-module": [f"--breakout-bin={breakout_bin}", "--breakout-booter=no_such_module_xyz:B"]}[case]
    p, cases = plugin_pytest(tmp_path, *args, python=venv)
    assert p.returncode not in (0, 5), p.stdout[-2000:]
    if case == "no-such-module":  # found before breakout starts: a usage error naming the module
        assert p.returncode == 4 and "no_such_module_xyz" in p.stderr
    else:
        assert cases["run"][0] == "failure" and set(cases) == {"run"}, sorted(cases)
        assert ("exited 2" if case == "breakout-exit-2" else "exited 1") in cases["run"][1]
