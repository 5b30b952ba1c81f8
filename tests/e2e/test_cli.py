"""The CLI as a user meets it: list, schema errors, --only with controls, results files, hostile output."""
import json
import os
import subprocess
import xml.etree.ElementTree as ET

import pytest

from conftest import FIXTURES, REPO


def run_cli(breakout_bin, *args, timeout=300):
    return subprocess.run([str(breakout_bin), *args], capture_output=True, text=True, timeout=timeout,
                          errors="replace")


def test_list_names_suites_probes_and_spawners(breakout_bin):
    p = run_cli(breakout_bin, "list")
    assert p.returncode == 0, p.stderr
    for word in ["default", "fs.write.create", "fs-write", "spawn-escape", "none", "bwrap", "firejail"]:
        assert word in p.stdout, word
    assert "(not built)" not in p.stdout


def test_schema_error_is_exit_2_with_the_code(breakout_bin, tmp_path):
    suite = tmp_path / "bad.toml"
    suite.write_text('name = "bad"\ndescription = "d"\npolicies = ["workspace-write"]\ninclude = ["x.attempts"]\n')
    (tmp_path / "x.attempts").write_text((REPO / "scenarios/fixtures/invalid/attempts/unknown-field.toml").read_text())
    p = run_cli(breakout_bin, "run", "--spawner", "none", "--suite", str(suite), "--out", str(tmp_path / "o"))
    assert p.returncode == 2
    assert "[unknown-field]" in p.stderr


def test_unknown_spawner_is_exit_2(breakout_bin, tmp_path):
    p = run_cli(breakout_bin, "run", "--spawner", "no-such-sandbox", "--out", str(tmp_path))
    assert p.returncode == 2
    assert "no-such-sandbox" in p.stderr


@pytest.fixture(scope="module")
def only_run(run_breakout):
    return run_breakout("--spawner", "none", "--only", "fs.write.create@workspace-write[fs:sibling/new-file]",
                        "--no-external")


def test_only_pulls_in_the_controls(only_run):
    ids = {a["id"] for a in only_run.attempts}
    assert "fs.write.create@workspace-write[fs:workspace/new-file]" in ids
    assert all(i.startswith("fs.write.create@workspace-write") for i in ids)


def test_results_and_junit_agree(only_run):
    r = only_run.results
    assert r["schema"] == "breakout.results/1"
    for key in ["id", "class", "policy", "expected", "verdict", "evidence", "probe_report", "duration_ms",
                "probe_argv", "spawner_argv"]:
        assert key in r["attempts"][0]
    tree = ET.parse(only_run.out_dir / "junit.xml")
    cases = tree.getroot().findall(".//testcase")
    assert len(cases) == len(r["attempts"])
    failures = tree.getroot().findall(".//failure")
    assert len(failures) == r["summary"]["escape"] + r["summary"]["overblock"] + r["summary"]["broken"]
    assert r["summary"]["escape"] >= 1


def test_summary_names_the_results_path(only_run):
    assert str(only_run.out_dir / "results.json") in only_run.stdout


def test_sandbox_that_blocks_everything_never_passes(run_breakout):
    run = run_breakout("--spawner", str(FIXTURES / "blocks-everything.toml"), "--no-external")
    assert run.returncode == 1, run.stderr[-2000:]
    assert not run.by_verdict("pass"), run.explain(run.by_verdict("pass"))
    assert run.by_verdict("overblock") and run.by_verdict("error") and run.by_verdict("broken")


def test_hostile_output_stays_inert(run_breakout):
    run = run_breakout("--spawner", str(FIXTURES / "hostile-output.toml"), "--only", "contract.exit-code@*",
                       "--no-external")
    assert run.results is not None, run.stderr
    raw_json = (run.out_dir / "results.json").read_text()
    assert "\x1b" not in raw_json
    assert "<script>" in run.attempts[0]["stdout_excerpt"]  # shown as text in JSON...
    xml_text = (run.out_dir / "junit.xml").read_text()
    ET.fromstring(xml_text)  # ...and the XML still parses
    assert "<injected/>" not in xml_text
    assert "\x1b" not in run.stdout
    # The fake report line cannot change the verdict: the exit code decides the contract.
    assert run.attempts[0]["verdict"] == "pass"
