"""Protected paths inside the writable workspace (class protected-write, suite protected-paths).

`none` escapes on every protected path; the sandboxes that protect them pass, each control (the
same path without its leading dot) passes, and what a sandbox cannot protect is a skip with its
profile's reason. Signed per spawner; docs/spawners.md ("Protected paths") has the by-hand
reproduction of the one real escape (bubblewrap and firejail: renaming .git aside).
"""
import os
import shutil

import pytest

from conftest import require_root_tool
from test_agent_sandboxes import SIGNED as AGENT_TOOLS, require as require_agent, tool_residue

SUITE = ("--suite", "protected-paths")
CASE_SKIP = "the file system here is case-sensitive"
RENAME_AWAY_GIT = "protected.rename-away@workspace-protected[fs:workspace/.git]"

SIGNED = {
    "none": {"escapes": None, "declared": {}},  # None: every deny but the case variants
    # Real: a read-only bind of .git/hooks and .git/config moves along when .git is renamed;
    # a new .git of the sandbox's making takes its place (docs/spawners.md).
    "bwrap": {"escapes": {RENAME_AWAY_GIT}, "declared": {}},
    "firejail": {"escapes": {RENAME_AWAY_GIT}, "declared": {}},
    "reference-driver": {"escapes": set(), "declared": {}},
    # Codex protects .git, .codex and .agents only (profile `protects`); the rest is declared.
    "codex-linux": {"escapes": set(), "declared": {"codex-linux cannot protect": 17}},
    "srt": {"escapes": set(), "declared": {}},
}


def require(spawner):
    if spawner in AGENT_TOOLS:
        require_agent(spawner)
    elif spawner in ("bwrap", "firejail"):
        require_root_tool(spawner)
    elif os.geteuid() != 0:
        pytest.skip("needs root (namespaces, cgroups)")
    elif spawner == "reference-driver" and shutil.which("bwrap") is None:
        pytest.skip("bwrap is not installed")


@pytest.fixture(scope="module", params=sorted(SIGNED))
def protected_run(request, run_breakout):
    require(request.param)
    before = tool_residue()
    run = run_breakout("--spawner", request.param, *SUITE, timeout=900)
    for path in tool_residue() - before:
        shutil.rmtree(path) if path.is_dir() and not path.is_symlink() else path.unlink()
    assert run.results is not None, run.stderr[-2000:]
    return request.param, run


def test_the_suite_ran_the_protected_class(protected_run):
    _, run = protected_run
    assert {a["class"] for a in run.attempts} == {"protected-write"}
    assert len(run.attempts) == 66, len(run.attempts)


def test_each_denial_names_the_host_program_that_would_run_it(protected_run):
    """The attempt says which program runs the poisoned file later."""
    _, run = protected_run
    for a in run.attempts:
        if a["verdict"] == "skip":
            continue
        runs = a["evidence"]["runs_later"]
        if a["role"] == "deny" and ".envrc" in a["id"]:
            assert runs.startswith("direnv"), a
        if a["role"] == "deny" and a["id"].endswith("[fs:workspace/.git/config]"):
            assert "core.fsmonitor" in runs, a
        if a["role"] == "allow":
            assert runs.startswith("nothing"), a


def test_escapes_are_the_signed_ones(protected_run):
    spawner, run = protected_run
    escapes = {a["id"] for a in run.by_verdict("escape")}
    signed = SIGNED[spawner]["escapes"]
    if signed is None:  # none: every deny attempt that applies here
        signed = {a["id"] for a in run.attempts if a["role"] == "deny" and CASE_SKIP not in a["reason"]}
        assert len(signed) == 31
    assert escapes == signed, run.explain(run.by_verdict("escape"))


def test_controls_pass_and_nothing_errs(protected_run):
    _, run = protected_run
    allows = [a for a in run.attempts if a["role"] == "allow"]
    assert len(allows) == 32
    assert all(a["verdict"] == "pass" for a in allows), run.explain([a for a in allows if a["verdict"] != "pass"])
    for verdict in ("error", "overblock", "broken"):
        assert not run.by_verdict(verdict), run.explain(run.by_verdict(verdict))


def test_skips_are_the_case_variants_and_the_declared_limits(protected_run):
    spawner, run = protected_run
    skips = run.by_verdict("skip")
    declared = SIGNED[spawner]["declared"]
    for a in skips:
        assert CASE_SKIP in a["reason"] or any(a["reason"].startswith(r) for r in declared), run.explain([a])
    for reason, count in declared.items():
        assert len([a for a in skips if a["reason"].startswith(reason)]) == count, reason
    case = [a for a in skips if CASE_SKIP in a["reason"]]
    assert len(case) == 3 - sum(1 for a in skips if "MCP.json" in a["id"] and CASE_SKIP not in a["reason"])


def test_denials_that_passed_had_their_controls(protected_run):
    _, run = protected_run
    passes = [a for a in run.attempts if a["role"] == "deny" and a["verdict"] == "pass"]
    for a in passes:
        assert a["controls"], f"{a['id']} passed without a control"
