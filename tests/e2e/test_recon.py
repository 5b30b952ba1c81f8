"""Class recon: the probe holds still, the harness reads its confinement from the host (/proc).

network = none promises a network namespace of its own: `none` must show it missing (escape),
bwrap and firejail must show it held (pass). network = full promises nothing recon can check:
an informational record (skip with its reason, role `observe`), never a pass. The probe's own
report is shown beside the host's view and never decides.
"""
import pytest

from conftest import require_root_tool

ID = "recon.confinement@{}"


def recon(run, policy):
    found = [a for a in run.attempts if a["id"] == ID.format(policy)]
    assert len(found) == 1, run.explain(run.attempts)
    return found[0]


@pytest.fixture(scope="module", params=["none", "bwrap", "firejail"])
def spawner_run(request, run_breakout):
    if request.param == "none":
        require_root_tool("true")  # the none suite needs root for its namespaces and cgroups
    else:
        require_root_tool(request.param)
    return request.param, run_breakout("--spawner", request.param)


def test_network_none_judged_from_the_host(spawner_run):
    name, run = spawner_run
    a = recon(run, "workspace-write")
    ev = a["evidence"]
    assert a["role"] == "deny" and a["class"] == "recon"
    assert ev["found_alive"] is True and ev["outside"], a["reason"]
    [check] = [c for c in ev["checks"] if c["check"] == "network-namespace"]
    host_net = ev["host"]["ns"]["net"]
    outside_net = ev["outside"][0]["ns"]["net"]
    if name == "none":
        assert a["verdict"] == "escape", run.explain([a])
        assert check["outcome"] == "missing" and outside_net == host_net
    else:
        assert a["verdict"] == "pass", run.explain([a])
        assert check["outcome"] == "held" and outside_net != host_net


def test_network_full_is_informational_never_a_pass(spawner_run):
    _, run = spawner_run
    a = recon(run, "network-full")
    assert a["role"] == "observe" and a["expected"] == "observed"
    assert a["verdict"] == "skip", run.explain([a])
    assert "informational" in a["reason"]
    assert a["evidence"]["found_alive"] is True and a["evidence"]["outside"]  # it ran and was read
    junit = (run.out_dir / "junit.xml").read_text()
    case = junit[junit.index('classname="recon.confinement@network-full"'):].split("</testcase>")[0]
    assert "<skipped" in case and "<failure" not in case, case


def test_inside_and_outside_agree_here(spawner_run):
    """None of these sandboxes lies to its process: every field both sides carry agrees."""
    _, run = spawner_run
    for policy in ("workspace-write", "network-full"):
        ev = recon(run, policy)["evidence"]
        rows = {r["field"]: r for r in ev["side_by_side"]}
        assert "/ns/net" in rows and "/status/CapEff" in rows and "/status/NoNewPrivs" in rows, rows
        assert ev["disagreements"] == [], ev["side_by_side"]
