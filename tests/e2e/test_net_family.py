"""Socket families besides TCP/UDP/unix (scenarios/attempts/net_families.toml, suite
net-families): ICMP echo to the host's loopback and the external host, NETLINK_ROUTE on a host link the
harness made, AF_VSOCK to a VMADDR_CID_LOCAL listener. The harness's reader, link or listener decides."""
import os
import re
import subprocess

import pytest

from conftest import require_root_tool

POLICIES = ("workspace-write", "network-loopback", "network-full")


@pytest.fixture(autouse=True)
def needs_root():
    if os.geteuid() != 0:
        pytest.skip("needs root (the external host's namespace, AF_PACKET readers, a veth pair)")


def family(run, attempt):
    assert run.results is not None, run.stderr[-2000:]
    got = {a["id"]: a for a in run.attempts if a["id"].startswith(attempt + "@")}
    assert got, run.stderr[-2000:]
    return got


def host_links():
    out = subprocess.run(["ip", "-o", "link"], capture_output=True, text=True).stdout
    return set(re.findall(r"\bbo[0-9a-f]{8}[lm]\b", out))


def test_none_escapes_every_icmp_denial(run_breakout):
    got = family(run_breakout("--spawner", "none", "--suite", "net-families", "--only", "net.icmp"), "net.icmp")
    want = {"workspace-write": {"icmp-loopback": "escape", "icmp-external": "escape"},
            "network-loopback": {"icmp-loopback": "pass", "icmp-external": "escape"},
            "network-full": {"icmp-loopback": "pass", "icmp-external": "pass"}}
    for policy, targets in want.items():
        assert got[f"net.icmp@{policy}[ipc:own-icmp]"]["verdict"] == "pass"
        for target, verdict in targets.items():
            a = got[f"net.icmp@{policy}[ipc:{target}]"]
            assert a["verdict"] == verdict, a["reason"]
            assert a["evidence"]["nonce_in_echo_request"] is True  # the harness's reader saw it, whatever answered


def test_none_changes_the_host_link_and_the_link_is_removed(run_breakout):
    before = host_links()
    got = family(run_breakout("--spawner", "none", "--suite", "net-families", "--only", "net.netlink-route"),
                 "net.netlink-route")
    for policy in POLICIES:
        a = got[f"net.netlink-route@{policy}[ipc:netlink-link]"]
        assert a["verdict"] == "escape", a["reason"]
        assert a["evidence"]["alias_set_by_probe"] is True
        assert got[f"net.netlink-route@{policy}[ipc:own-netlink]"]["verdict"] == "pass"
    assert host_links() == before  # every veth pair the harness made is gone


def test_vsock_without_loopback_is_a_skip_with_the_harness_reason(run_breakout):
    got = family(run_breakout("--spawner", "none", "--suite", "net-families", "--only", "net.vsock"), "net.vsock")
    verdicts = {a["verdict"] for a in got.values()}
    if verdicts == {"skip"}:
        for a in got.values():
            assert "VMADDR_CID_LOCAL" in a["reason"] or "AF_VSOCK" in a["reason"], a["reason"]
    else:  # a kernel with vsock_loopback: none reaches the host's listener
        for policy in ("workspace-write",):
            assert got[f"net.vsock@{policy}[ipc:vsock-local]"]["verdict"] == "escape"
    assert "pass" not in {a["verdict"] for a in got.values() if "vsock-local" in a["id"] and "workspace-write" in a["id"]}


@pytest.mark.parametrize("spawner", ["bwrap", "firejail"])
def test_sandboxes_keep_icmp_in_their_namespace_but_root_changes_the_shared_one(run_breakout, spawner):
    require_root_tool(spawner)
    icmp = family(run_breakout("--spawner", spawner, "--suite", "net-families", "--only", "net.icmp"), "net.icmp")
    for target in ("own-icmp", "icmp-loopback", "icmp-external"):
        a = icmp[f"net.icmp@workspace-write[ipc:{target}]"]
        assert a["verdict"] == "pass", a["reason"]
        a = icmp[f"net.icmp@network-full[ipc:{target}]"]
        assert a["verdict"] == "pass", a["reason"]
    nl = family(run_breakout("--spawner", spawner, "--suite", "net-families", "--only", "net.netlink-route"),
                "net.netlink-route")
    assert nl["net.netlink-route@workspace-write[ipc:netlink-link]"]["verdict"] == "pass"
    # Run as root, neither drops CAP_NET_ADMIN: with the host's namespace shared (network = full)
    # the probe sets the alias of the harness's host link (docs/scenarios.md, "Socket families").
    a = nl["net.netlink-route@network-full[ipc:netlink-link]"]
    assert a["verdict"] == "escape", a["reason"]
