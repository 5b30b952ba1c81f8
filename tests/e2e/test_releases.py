"""Release over release: `--spawner NAME@VERSION` runs a profile on a published release of its tool.

{tools} is spawners/tools (the pin) or spawners/releases/NAME-VERSION; the history records each
run's version, and `history --trend` shows per suite which executions changed between releases
(docs/spawners.md, "Release over release").
"""
import json
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import FIXTURES, require_root_tool

ONLY = "env.host-secrets*"
# Hides the caller's secrets (a "fixed" release) or passes everything on (a leaky one).
HIDING = 'exec env -u GITHUB_TOKEN -u AWS_SECRET_ACCESS_KEY "$@"'  # BREAKOUT_INHERITED is the control
LEAKY = 'exec "$@"'


def tool(dir_, version, body):
    dir_.mkdir(parents=True, exist_ok=True)
    (dir_ / "tool").write_text(f'[ $# -eq 0 ] && {{ echo "fake-tool {version}"; exit 0; }}\n{body}\n')
    (dir_ / "tool").chmod(0o755)  # `requires` wants an executable


@pytest.fixture
def profiles(tmp_path):
    for name in ("fake-tool.toml", "no-tools.toml"):
        shutil.copy(FIXTURES / "release" / name, tmp_path / name)
    tool(tmp_path / "tools", "1.0.0", HIDING)
    tool(tmp_path / "releases" / "fake-tool-0.9.0", "0.9.0", LEAKY)
    tool(tmp_path / "releases" / "fake-tool-0.9", "0.9.1", LEAKY)  # installed wrong
    return tmp_path


def breakout(breakout_bin, *args):
    return subprocess.run([str(breakout_bin), *args], capture_output=True, text=True, timeout=300, errors="replace")


def run(breakout_bin, spawner, out, history):
    return breakout(breakout_bin, "run", "--spawner", spawner, "--suite", "default", "--only", ONLY,
                    "--out", str(out), "--history", str(history))


def test_a_release_is_selected_recorded_and_its_changes_trended(breakout_bin, profiles, tmp_path):
    require_root_tool("sh")
    history = tmp_path / "history.sqlite"
    old = run(breakout_bin, f"{profiles}/fake-tool.toml@0.9.0", tmp_path / "old", history)
    new = run(breakout_bin, f"{profiles}/fake-tool.toml", tmp_path / "new", history)
    assert old.returncode == 3 and new.returncode == 0, old.stderr[-1500:] + new.stderr[-1500:]
    o, n = (json.loads((tmp_path / d / "results.json").read_text()) for d in ("old", "new"))
    assert o["run"]["spawner"]["name"] == n["run"]["spawner"]["name"] == "fake-tool"
    assert o["run"]["spawner"]["version"] == "fake-tool 0.9.0", o["run"]["spawner"]
    assert n["run"]["spawner"]["version"] == "fake-tool 1.0.0", n["run"]["spawner"]
    assert o["run"]["spawner"]["arg"].endswith("@0.9.0")
    leaked = sorted(a["id"] for a in o["attempts"] if a["verdict"] == "escape")
    assert len(leaked) == 4 and not [a for a in n["attempts"] if a["verdict"] == "escape"], leaked

    trend = breakout(breakout_bin, "history", "--history", str(history), "--trend", "fake-tool")
    assert trend.returncode == 0, trend.stderr
    text = trend.stdout
    assert "suite default" in text and "fake-tool 0.9.0" in text and "fake-tool 1.0.0" in text, text
    assert "4 changed:" in text, text
    for id_ in leaked:
        assert f"{id_}: escape -> pass" in text, text

    diff = breakout(breakout_bin, "diff", "--history", str(history), o["run"]["id"], n["run"]["id"])
    for id_ in leaked:
        assert id_ in diff.stdout, diff.stdout


@pytest.mark.parametrize("spawner, code, words", [
    ("fake-tool.toml@0.8.0", "no-release", "releases/fake-tool-0.8.0 is missing"),
    ("fake-tool.toml@0.9", "release-mismatch", "reports version 'fake-tool 0.9.1', not 0.9"),
    ("no-tools.toml@1.0", "release-ignored", "does not name its tool through {tools}"),
    ("fake-tool.toml@0.9;rm", "bad-release", "NAME@VERSION"),
])
def test_a_release_that_would_run_something_else_is_refused(breakout_bin, profiles, tmp_path, spawner, code, words):
    r = run(breakout_bin, f"{profiles}/{spawner}", tmp_path / "out", tmp_path / "h.sqlite")
    assert r.returncode not in (0, 3), r.stdout[-1000:]
    assert f"[{code}]" in r.stderr and words in r.stderr, r.stderr
    assert not (tmp_path / "out" / "results.json").exists()


def test_a_real_srt_release_runs_as_itself(breakout_bin, tmp_path):
    require_root_tool("bwrap")
    release = Path(__file__).resolve().parents[2] / "spawners" / "releases" / "srt-0.0.82" / "node_modules" / ".bin" / "srt"
    if not release.exists():
        pytest.skip("srt 0.0.82 is not installed (bash ci/setup.sh installs it)")
    r = run(breakout_bin, "srt@0.0.82", tmp_path / "out", tmp_path / "h.sqlite")
    assert r.returncode in (0, 3), r.stderr[-2000:]
    res = json.loads((tmp_path / "out" / "results.json").read_text())
    assert res["run"]["spawner"]["name"] == "srt" and res["run"]["spawner"]["version"] == "0.0.82", res["run"]["spawner"]
    verdicts = {a["id"]: a["verdict"] for a in res["attempts"]}
    # srt passes the caller's environment on, except what the policy hides (credentials.envVars deny).
    assert verdicts and "error" not in verdicts.values(), verdicts
