"""Declared refusals ([refuses.af_unix], docs/spawners.md): a sandbox that refuses AF_UNIX by
design has no passing unix-workspace control, so its net denials are judged by the probe's witness.

Fixture sandboxes (fixtures/refuse-unix-*.toml): an empty network namespace plus a seccomp
filter that fails socket(AF_UNIX) with EPERM, as sandbox-runtime's does.
  declared     the refusal is declared: controls skip with its reason, denials pass on the witness
  undeclared   the same sandbox, not declared: controls are overblocks, denials errors (as before)
  mute         declared, but the command never runs: no witness, so every denial is an error
The suite is the default suite's connects (net.*), under workspace-write (network off).
"""
import pytest

from conftest import FIXTURES, require_root_tool

SELECT = ("--suite", "default", "--only", "net.*")


@pytest.fixture(scope="module", params=["declared", "undeclared", "mute"])
def refusal_run(request, run_breakout):
    require_root_tool("unshare")
    run = run_breakout("--spawner", str(FIXTURES / f"refuse-unix-{request.param}.toml"), *SELECT, timeout=600)
    assert run.results is not None, run.stderr[-2000:]
    ran = [a for a in run.attempts if not a["reason"].startswith("refuse-unix-" + request.param + " cannot express")]
    assert len(ran) >= 8, run.explain(run.attempts)  # the workspace-write connects
    return request.param, run, ran


def controls(ran):
    return [a for a in ran if a["role"] == "allow"]


def denials(ran):
    return [a for a in ran if a["role"] == "deny"]


def test_the_unix_controls_are_the_declared_refusal_or_an_overblock(refusal_run):
    kind, run, ran = refusal_run
    assert controls(ran) and all(a["target"] == "net:unix-workspace" for a in controls(ran))
    for a in controls(ran):
        if kind == "undeclared":
            assert a["verdict"] == "overblock", run.explain([a])
        else:
            assert a["verdict"] == "skip", run.explain([a])
            assert a["reason"].startswith(f"refuse-unix-{kind} refuses af_unix under network = none: its seccomp"), a["reason"]


def test_denials_stand_on_the_witness_only_when_it_is_there(refusal_run):
    kind, run, ran = refusal_run
    assert len(denials(ran)) >= 6
    for a in denials(ran):
        assert a["evidence"]["nonce_received"] is False, run.explain([a])
        if kind == "declared":
            assert a["verdict"] == "pass", run.explain([a])
            assert a["evidence"]["witness"]["present"] is True
            assert a["evidence"]["witness"]["report"].startswith("BREAKOUT-REPORT ")
            assert "declared refusal" in a["reason"], a["reason"]
        elif kind == "mute":  # a probe that never ran must not pass
            assert a["verdict"] == "error", run.explain([a])
            assert a["evidence"]["witness"]["present"] is False
            assert "witness" in a["reason"], a["reason"]
        else:  # not declared: no witness is asked for, the failed control decides
            assert a["verdict"] == "error", run.explain([a])
            assert "witness" not in a["evidence"]
            assert "--witness" not in a["probe_argv"]


def test_nothing_escapes_and_the_exit_status_says_so(refusal_run):
    kind, run, _ = refusal_run
    assert not run.by_verdict("escape"), run.explain(run.by_verdict("escape"))
    assert run.returncode == (0 if kind == "declared" else 1), run.stdout[-2000:]


# [refusal_exit] (docs/spawners.md): the tool's own refusal, judged as a driver's ok:false is.
def test_a_profile_refusal_exit_is_a_refused_verdict(run_breakout):
    require_root_tool("sh")
    run = run_breakout("--spawner", str(FIXTURES / "refusal-exit.toml"), "--only", "exec.cwd-outside*")
    assert run.results is not None, run.stderr[-2000:]
    denials = [a for a in run.attempts if a["role"] == "deny"]
    assert len(denials) >= 4, run.explain(run.attempts)
    for a in denials:
        assert a["verdict"] == "pass", run.explain([a])
        assert a["reason"].startswith("refused: nothing happened outside (refusal-exit: exit 1: refuser: cwd "), a["reason"]
        assert a["evidence"]["refusal"] == {"code": "refusal-exit", "message": a["evidence"]["refusal"]["message"]}
        assert a["evidence"]["refusal"]["message"].endswith("is outside the workspace")
    controls = [a for a in run.attempts if a["role"] == "allow"]
    assert controls and all(a["verdict"] == "pass" and "refusal" not in a["evidence"] for a in controls), \
        run.explain(controls)
