"""results.sarif of a real run: Microsoft's SARIF validator accepts it, one result per finding, fingerprints stable
across runs; merge and report write it too (docs/results.md, "results.sarif")."""
import json
import os
import shutil
import subprocess

import pytest

from conftest import REPO

TOOLS = REPO / "ci" / "tools" / "node_modules"
MULTITOOL = TOOLS / ".bin" / "sarif-multitool"  # @microsoft/sarif-multitool's bin (a self-contained .NET build)
SCHEMA = TOOLS / "@microsoft" / "sarif-multitool-linux" / "sarif-2.1.0.json"
# The smallest selection with escapes under `none`: one attempt, its denied targets and its control.
ONLY = ("--spawner", "none", "--only", "fs.write.create*", "--no-external")
FINDINGS = {"escape", "overblock", "broken", "error"}


def run_cli(breakout_bin, *args, timeout=300):
    return subprocess.run([str(breakout_bin), *args], capture_output=True, text=True, timeout=timeout, errors="replace")


@pytest.fixture(scope="module")
def runs(run_breakout):
    if os.geteuid() != 0:
        pytest.skip("needs root for the cgroup containment of `run --spawner none`")
    first = run_breakout(*ONLY)
    second = run_breakout(*ONLY, "--sarif-all")  # another run (other run id, temp dirs, nonces), every result
    for run in (first, second):
        assert run.returncode == 3, run.stderr[-2000:]
    return first, second


def sarif(run):
    path = run.out_dir / "results.sarif"
    assert path.is_file(), f"no results.sarif beside results.json in {run.out_dir}"
    return json.loads(path.read_text())


def results(log):
    assert log["version"] == "2.1.0"
    assert len(log["runs"]) == 1
    return log["runs"][0]["results"]


def validate(path, tmp_path):
    """Microsoft's validator: its exit status says only that it ran; its findings are in the log it writes."""
    if shutil.which("node") is None or not MULTITOOL.exists():
        pytest.skip("Microsoft's SARIF multitool is not installed: bash ci/setup.sh (npm ci --prefix ci/tools)")
    out = tmp_path / f"validation-{path.parent.name}.sarif"
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    env = {**os.environ, "HOME": str(home), "DOTNET_CLI_TELEMETRY_OPTOUT": "1",
           "DOTNET_BUNDLE_EXTRACT_BASE_DIR": str(home)}
    p = subprocess.run([str(MULTITOOL), "validate", str(path), "-o", str(out), "--log", "ForceOverwrite"],
                       capture_output=True, text=True, timeout=300, env=env, errors="replace")
    assert p.returncode == 0 and out.is_file(), p.stdout[-3000:] + p.stderr[-3000:]
    found = results(json.loads(out.read_text()))
    errors = [f for f in found if f.get("level") == "error"]
    assert not errors, "\n".join(f"{f['ruleId']}: {json.dumps(f['message'])}" for f in errors)
    return found


def enum_violations(log):
    """The multitool lets an unknown level or kind through (its schema check skips enums): check them against
    the OASIS schema it ships."""
    definitions = json.loads(SCHEMA.read_text())["definitions"]["result"]["properties"]
    levels, kinds = set(definitions["level"]["enum"]), set(definitions["kind"]["enum"])
    return [(r.get("level"), r.get("kind")) for r in results(log)
            if r.get("level") not in levels or r.get("kind") not in kinds]


def test_results_sarif_passes_microsofts_validator(runs, tmp_path):
    for run in runs:
        validate(run.out_dir / "results.sarif", tmp_path)
        assert enum_violations(sarif(run)) == []


def test_the_validator_catches_a_broken_file(runs, tmp_path):
    # The check can fail: a result without its message and a location at line 0 are both errors.
    log = sarif(runs[0])
    del results(log)[0]["message"]
    results(log)[0]["locations"][0]["physicalLocation"]["region"]["startLine"] = 0
    broken = tmp_path / "broken" / "results.sarif"
    broken.parent.mkdir()
    broken.write_text(json.dumps(log))
    with pytest.raises(AssertionError) as failure:
        validate(broken, tmp_path)
    assert "JSON1002" in str(failure.value) and "JSON1008" in str(failure.value), str(failure.value)


def test_one_result_per_finding_escapes_as_errors(runs):
    first, _ = runs
    findings = {a["id"]: a for a in first.attempts if a["verdict"] in FINDINGS}
    assert any(a["verdict"] == "escape" for a in findings.values()), first.explain(first.attempts)
    got = results(sarif(first))
    assert sorted(r["properties"]["execution"] for r in got) == sorted(findings)
    rules = sarif(first)["runs"][0]["tool"]["driver"]["rules"]
    for r in got:
        a = findings[r["properties"]["execution"]]
        assert r["ruleId"] == a["attempt"] == rules[r["ruleIndex"]]["id"]
        assert (r["level"], r["kind"]) == (("error", "fail") if a["verdict"] == "escape" else ("warning", "fail"))
        assert "Reproduce: breakout run --spawner 'none' --suite 'default' --only '" + a["id"] + "'" in r["message"]["text"]


def test_location_is_the_attempt_in_its_scenario_file(runs):
    first, _ = runs
    for r in results(sarif(first)):
        where = r["locations"][0]["physicalLocation"]
        assert where["artifactLocation"] == {"uri": "scenarios/attempts/fs_write.toml", "uriBaseId": "%SRCROOT%"}
        lines = (REPO / "scenarios" / "attempts" / "fs_write.toml").read_text().splitlines()
        line = where["region"]["startLine"]
        assert lines[line - 1].strip() == "[[attempt]]"
        assert lines[line].strip() == 'id = "fs.write.create"'


def fingerprints(log, kind="fail"):
    return {r["properties"]["execution"]: r["partialFingerprints"] for r in results(log) if r["kind"] == kind}


def test_fingerprints_are_stable_across_runs(runs):
    first, second = runs
    assert first.results["run"]["id"] != second.results["run"]["id"]
    a, b = fingerprints(sarif(first)), fingerprints(sarif(second))
    assert a and a == b
    assert len({json.dumps(f, sort_keys=True) for f in a.values()}) == len(a)  # one per execution


def test_passes_only_with_sarif_all(runs):
    first, second = runs
    controls = [a["id"] for a in first.attempts if a["verdict"] == "pass"]
    assert controls, first.explain(first.attempts)
    assert fingerprints(sarif(first), "pass") == {}
    passes = fingerprints(sarif(second), "pass")
    assert sorted(passes) == sorted(a["id"] for a in second.attempts if a["verdict"] == "pass")
    assert {r["level"] for r in results(sarif(second)) if r["kind"] != "fail"} == {"none"}


def test_merge_and_report_write_it_too(runs, breakout_bin, tmp_path):
    first, second = runs
    merged = tmp_path / "merged"
    p = run_cli(breakout_bin, "merge", str(merged), str(first.out_dir), "--no-history")
    assert p.returncode == 3, p.stderr[-2000:]
    assert fingerprints(json.loads((merged / "results.sarif").read_text())) == fingerprints(sarif(first))
    # report --sarif with a baseline that accepts the first run's findings: the second run's are suppressed.
    baseline = tmp_path / "baseline.json"
    p = run_cli(breakout_bin, "baseline", str(first.out_dir), "--out", str(baseline))
    assert p.returncode == 0, p.stderr[-2000:]
    out = tmp_path / "report.sarif"
    p = run_cli(breakout_bin, "report", str(second.out_dir), "--out", str(tmp_path / "report.html"), "--baseline",
                str(baseline), "--sarif", str(out), "--no-history")
    assert p.returncode == 0, p.stderr[-2000:]
    got = results(json.loads(out.read_text()))
    assert got and all(r["kind"] == "fail" for r in got)  # without --sarif-all: findings only
    assert all(r["suppressions"][0]["kind"] == "external" for r in got)
