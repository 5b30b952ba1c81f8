"""bubblewrap with the shipped profile: zero escapes, zero overblocks; every skip says why."""
import pytest

from conftest import require_root_tool


@pytest.fixture(scope="module")
def bwrap_run(run_breakout):
    require_root_tool("bwrap")
    return run_breakout("--spawner", "bwrap")


def test_no_escape(bwrap_run):
    assert not bwrap_run.by_verdict("escape"), bwrap_run.explain(bwrap_run.by_verdict("escape"))


def test_no_overblock_broken_or_error(bwrap_run):
    bad = [a for a in bwrap_run.attempts if a["verdict"] in ("overblock", "broken", "error")]
    assert not bad, bwrap_run.explain(bad)


def test_denials_were_really_tried(bwrap_run):
    passes = [a for a in bwrap_run.attempts if a["role"] == "deny" and a["verdict"] == "pass"]
    assert len(passes) >= 20
    for a in passes:
        if a["class"] not in ("lifetime", "timeout-kill", "recon"):  # in-run controls: the beat started, the probe was seen
            assert a["controls"], f"{a['id']} passed without a control"


def test_skips_carry_reasons(bwrap_run):
    for a in bwrap_run.by_verdict("skip"):
        assert a["reason"].strip(), a["id"]


def test_exit_status_zero(bwrap_run):
    assert bwrap_run.returncode == 0, bwrap_run.stdout[-3000:] + bwrap_run.stderr[-2000:]


def test_default_suite_under_30_seconds(bwrap_run):
    assert bwrap_run.results["run"]["wall_seconds"] < 30


def test_loopback_policy_is_skipped_with_reason(run_breakout):
    require_root_tool("bwrap")
    run = run_breakout("--spawner", "bwrap", "--suite", "network")
    loop = [a for a in run.attempts if a["policy"] == "network-loopback"]
    assert loop and all(a["verdict"] == "skip" for a in loop)
    assert all("loopback" in a["reason"] for a in loop)
    assert not run.by_verdict("escape") and not run.by_verdict("overblock"), run.explain(run.attempts)
