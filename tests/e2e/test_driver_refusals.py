"""Refusals are verdicts (docs/results.md "Refused"): a driver's clear refusal (`ok: false` with
invalid / unsupported / exec_failed) passes a denial when the host shows nothing happened, and
stays an overblock for a control; a driver declares the mechanisms its sandbox refuses in hello
(`refuses`, the profiles' [refuses.*] vocabulary, docs/drivers.md).

Fixture drivers (fixtures/drivers/):
  cwd_refused.py    refuses an exec whose cwd lies outside the workspace (`invalid`)
  cap_drop_icmp.py  bwrap --cap-drop ALL: no raw or ping socket; declares refuses.icmp
  gvisor_limits.py  stands in for gVisor: four design limits, each declared
Each also runs `--undeclared` where that shows the declaration is what changes the verdict.
"""
import os
import sys

import pytest

from conftest import FIXTURES

PYTHON = "/usr/bin/python3" if os.path.exists("/usr/bin/python3") else sys.executable
DRIVERS = FIXTURES / "drivers"


@pytest.fixture(autouse=True)
def needs_root():
    if os.geteuid() != 0:
        pytest.skip("needs root (namespaces, cgroups, bwrap inside the drivers)")


def driver(name, *args):
    return ("--driver", " ".join([PYTHON, str(DRIVERS / name), *args]))


def printable(text):
    return all(c.isprintable() for c in text)


# (a) The safest answer to CVE-2025-59532's request: refuse it.
@pytest.fixture(scope="module")
def cwd_run(run_breakout):
    run = run_breakout(*driver("cwd_refused.py"), "--only", "exec.cwd-outside*")
    assert run.results is not None, run.stderr[-2000:]
    return run


def test_a_refused_cwd_outside_passes_under_every_policy(cwd_run):
    denials = [a for a in cwd_run.attempts if a["role"] == "deny"]
    policies = {a["policy"] for a in denials}
    assert len(denials) >= 4 and len(policies) >= 2, cwd_run.explain(cwd_run.attempts)
    for a in denials:
        assert a["verdict"] == "pass", cwd_run.explain([a])
        assert a["reason"].startswith("refused: nothing happened outside (invalid: cwd "), a["reason"]
        refusal = a["evidence"]["refusal"]
        assert refusal["code"] == "invalid"
        assert "outside the workspace" in refusal["message"] and printable(refusal["message"])
        assert len(refusal["message"]) <= 1024
    assert cwd_run.returncode == 0, cwd_run.explain(cwd_run.attempts)


def test_its_controls_run_and_pass(cwd_run):
    controls = [a for a in cwd_run.attempts if a["role"] == "allow"]
    assert controls and all(a["target"] == "fs:workspace/cwd" for a in controls)
    for a in controls:
        assert a["verdict"] == "pass", cwd_run.explain([a])
        assert "refusal" not in a["evidence"]


# (b) No raw or ping socket in the sandbox, declared in hello as refuses.icmp.
@pytest.fixture(scope="module", params=["declared", "undeclared"])
def icmp_run(request, run_breakout):
    extra = ("--undeclared",) if request.param == "undeclared" else ()
    run = run_breakout(*driver("cap_drop_icmp.py", *extra), "--suite", "net-families", "--only", "net.icmp*")
    assert run.results is not None, run.stderr[-2000:]
    ran = [a for a in run.attempts if "does not offer network" not in a["reason"]]
    assert len(ran) >= 6, run.explain(run.attempts)  # workspace-write and network-full, three targets each
    return request.param, run, ran


def test_declared_icmp_refusal_leaves_no_overblock_or_error(icmp_run):
    kind, run, ran = icmp_run
    bad = [a for a in ran if a["verdict"] in ("overblock", "error")]
    if kind == "undeclared":  # the same sandbox, not declared: red, as before the field existed
        assert any(a["verdict"] == "overblock" for a in bad), run.explain(ran)
        return
    assert not bad, run.explain(bad)
    skipped = [a for a in ran if a["verdict"] == "skip"]
    assert skipped and all("refuses icmp under network = " in a["reason"] for a in skipped), run.explain(skipped)
    assert all("--cap-drop ALL" in a["reason"] for a in skipped)
    witnessed = [a for a in ran if a["verdict"] == "pass" and a["role"] == "deny"]
    assert witnessed, run.explain(ran)
    for a in witnessed:
        assert a["evidence"]["witness"]["present"] is True, run.explain([a])
        assert "declared refusal" in a["reason"], a["reason"]
    assert not run.by_verdict("escape")


# (c) gVisor's design limits, declared; the fixture behaves that way (seccomp in bwrap, recon refused).
GVISOR_SELECTIONS = {
    "mknod": "fs.write.mk*",  # mkfifo and mknod (and mkdir, which no limit touches: it passes)
    "af_unix": "net.*",
    "rename_exchange": "fs.race.exchange-dir*",
    "host_proc": "recon.*",
}


@pytest.fixture(scope="module", params=sorted(GVISOR_SELECTIONS))
def gvisor_run(request, run_breakout):
    run = run_breakout(*driver("gvisor_limits.py"), "--only", GVISOR_SELECTIONS[request.param])
    assert run.results is not None, run.stderr[-2000:]
    ran = [a for a in run.attempts if "does not offer network" not in a["reason"] and a["attempt"] != "fs.write.mkdir"]
    assert ran, run.explain(run.attempts)
    return request.param, run, ran


def test_gvisor_limits_are_skips_or_witnessed_passes_never_errors(gvisor_run):
    mechanism, run, ran = gvisor_run
    bad = [a for a in ran if a["verdict"] in ("error", "overblock", "escape", "broken")]
    assert not bad, run.explain(bad)
    declared = [a for a in ran if a["verdict"] == "skip"]
    assert declared, run.explain(ran)
    for a in declared:
        assert f"fixture-gvisor-limits refuses {mechanism} under network = " in a["reason"], run.explain([a])
    for a in ran:
        if a["verdict"] == "pass" and a["role"] == "deny":  # stands on the probe's witness
            assert a["evidence"]["witness"]["present"] is True, run.explain([a])
    if mechanism in ("mknod", "af_unix", "rename_exchange"):
        assert any(a["verdict"] == "pass" and a["role"] == "deny" for a in ran), run.explain(ran)
    if mechanism == "host_proc":  # the driver refused the exec; the evidence says so
        for a in ran:
            assert a["evidence"]["refusal"]["code"] == "unsupported", run.explain([a])
            assert "invisible to the host" in a["evidence"]["refusal"]["message"]
    # recon.* judges nothing against this sandbox (every execution a declared skip): exit 5, the
    # status of a run that judged nothing (docs/results.md), not a green 0.
    assert run.returncode == (5 if mechanism == "host_proc" else 0), run.explain(ran)


def test_gvisor_fixture_really_has_the_limits(run_breakout):
    """Without the declarations the same sandbox is red there: the controls are overblocks and the
    denials errors (what the harness said of a real runsc driver before drivers could declare)."""
    run = run_breakout(*driver("gvisor_limits.py", "--undeclared"), "--only", "fs.write.mk*")
    assert run.results is not None, run.stderr[-2000:]
    nodes = [a for a in run.attempts if a["attempt"] in ("fs.write.mkfifo", "fs.write.mknod")]
    controls = [a for a in nodes if a["role"] == "allow"]
    assert controls and all(a["verdict"] == "overblock" for a in controls), run.explain(controls)
    denials = [a for a in nodes if a["role"] == "deny"]
    assert denials and all(a["verdict"] == "error" for a in denials), run.explain(denials)
