"""syscall-abi-write on a host without the ABI: N/A whatever the sandbox answered.

Two fixture sandboxes answer the foreign ABI as seccomp filters do: abi-sigsys kills the probe with
SIGSYS before it reports (SECCOMP_RET_KILL_PROCESS), abi-blocked lets it report abi_state "blocked"
(srt: the probe's checking child died of SIGSYS). Where the host lacks the ABI (checked here
without the harness, as tests/e2e/test_linux_catalog.py does) the attempt cannot be tried on this
machine: every execution, the control included, is N/A with the host's reason and the probe's
fate, never an overblock or an error. Where the host has the ABI the fixture's answer is a real
block: the control overblocks and the denials are errors, as for any sandbox.
"""
import os
import platform

import pytest

from conftest import FIXTURES
from test_linux_catalog import ABI, ABI_REASON, POLICIES, int80_runs_here, kernel_config, one, records

# What the reason must show of the probe's fate, per fixture.
FATE = {"abi-sigsys": "signal 31 (SIGSYS)", "abi-blocked": "blocked"}


def host_lacks(abi):
    """True/False when this host (seen without the harness) lacks/has the ABI, None when it cannot tell."""
    if abi == "i386":
        runs = int80_runs_here()
        return None if runs is None else not runs
    config = kernel_config("X86_X32_ABI")
    return None if config is None else config == "n"


@pytest.fixture(scope="module", params=sorted(FATE))
def fixture_run(request, run_breakout):
    if os.geteuid() != 0:
        pytest.skip("needs root for cgroup containment")
    if platform.machine() != "x86_64":
        pytest.skip("the i386 and x32 ABIs exist only on x86-64 (the class is skipped elsewhere)")
    name = request.param
    run = run_breakout("--spawner", str(FIXTURES / f"{name}.toml"), "--suite", "linux-catalog",
                       "--only", "abi.*", "--no-external")
    assert run.results is not None, run.stderr
    return name, run


def test_absent_abi_is_not_applicable_whatever_the_sandbox_answered(fixture_run):
    name, run = fixture_run
    judged = 0
    for attempt, abi in ABI.items():
        lacks = host_lacks(abi)
        if lacks is None:
            continue
        for policy in POLICIES:
            control = one(run, attempt, policy, "allow")
            denies = records(run, attempt, policy, "deny")
            assert len(denies) == 2, attempt
            judged += 1
            if lacks:
                for a in [control] + denies:
                    assert a["verdict"] == "skip", (name, a["id"], a["verdict"], a["reason"])
                    assert a["reason"].startswith("N/A: ") and ABI_REASON[abi] in a["reason"], a["reason"]
                    assert FATE[name] in a["reason"], (name, a["reason"])
                    assert FATE[name] in a["evidence"]["probe_fate"], a["evidence"]
                    assert a["evidence"]["abi_unavailable_on_host"], a["evidence"]
                    assert not a["evidence"]["changes_outside_writable_roots"], a["evidence"]
            else:
                assert control["verdict"] == "overblock", (control["id"], control["reason"])
                for a in denies:
                    assert a["verdict"] == "error", (a["id"], a["reason"])
    assert judged, "neither ABI's presence could be told on this host"
