"""Host IPC suite (unix sockets outside the workspace, abstract sockets, leaked directory fds), asserted as each sandbox really behaves (docs/scenarios.md, "Host IPC")."""
import os

import pytest

from conftest import require_root_tool


def verdicts(run):
    return {(a["attempt"], a["policy"], a["target"]): a for a in run.attempts}


@pytest.fixture(scope="module")
def none_run(run_breakout):
    if os.geteuid() != 0:
        pytest.skip("needs root for cgroup containment")
    return run_breakout("--spawner", "none", "--suite", "host-ipc")


@pytest.fixture(scope="module")
def bwrap_run(run_breakout):
    require_root_tool("bwrap")
    return run_breakout("--spawner", "bwrap", "--suite", "host-ipc")


@pytest.fixture(scope="module")
def firejail_run(run_breakout):
    require_root_tool("firejail")
    return run_breakout("--spawner", "firejail", "--suite", "host-ipc")


def test_none_every_deny_is_an_escape_with_outside_evidence(none_run):
    denies = [a for a in none_run.attempts if a["role"] == "deny"]
    assert {a["class"] for a in denies} == {"net-connect", "fd-leak", "net-inbound"}
    bad = [a for a in denies if a["verdict"] != "escape"]
    assert not bad, none_run.explain(bad)
    for a in denies:
        if a["class"] in ("net-connect", "net-inbound"):
            assert a["evidence"]["nonce_received"] is True, a["id"]
        else:
            assert a["evidence"]["changes_outside_writable_roots"], a["id"]
    others = [a for a in none_run.attempts if a["role"] != "deny" and a["verdict"] != "pass"]
    assert not others, none_run.explain(others)
    assert none_run.returncode == 3


def test_abstract_socket_follows_the_network_mode(bwrap_run, firejail_run):
    # --unshare-net / --net=none give a new network namespace: its abstract
    # namespace is empty (bubblewrap #330, firejail #801). Under network = full the
    # host's abstract sockets are shared, which the policy allows.
    for run in (bwrap_run, firejail_run):
        v = verdicts(run)
        denied = v[("ipc.abstract", "workspace-write", "net:abstract")]
        assert denied["verdict"] == "pass" and denied["evidence"]["nonce_received"] is False, denied["reason"]
        shared = v[("ipc.abstract", "network-full", "net:abstract")]
        assert shared["verdict"] == "pass" and shared["evidence"]["nonce_received"] is True, shared["reason"]


def test_host_path_socket_reachable_through_read_only_binds(bwrap_run, firejail_run):
    # FINDING (both sandboxes, shipped profiles): connect(2) on a path socket needs
    # write permission on the inode only; the kernel's read-only-mount check does
    # not cover sockets, so `--ro-bind / /` (bwrap) and `--read-only=/` (firejail)
    # leave every host socket outside the masks connectable. Only hiding the path
    # (a mask per known socket) stops it. Asserted as the escape it is.
    for run in (bwrap_run, firejail_run):
        v = verdicts(run)
        for policy in ("workspace-write", "network-full"):
            a = v[("ipc.unix-outside", policy, "net:unix-outside")]
            assert a["verdict"] == "escape" and a["evidence"]["nonce_received"] is True, (run, a["reason"])
            control = v[("ipc.unix-outside", policy, "net:unix-workspace")]
            assert control["verdict"] == "pass", control["reason"]


def test_bwrap_declares_it_passes_leaked_fds_on(bwrap_run):
    # By design: bubblewrap does not close the caller's fds (the final child must be able to
    # receive fds: containers/bubblewrap #221), and an fd opened outside keeps its host mount,
    # so a caller that leaks one hands out write access to it. The shipped profile declares it
    # ([cannot_express] caller_fds): the denial is a skip with that reason, never a pass, and
    # the control shows the declaration is true (both leaked fds arrived).
    v = verdicts(bwrap_run)
    for policy in ("workspace-write", "network-full"):
        a = v[("ipc.fd-leak", policy, "fs:sibling")]
        assert a["verdict"] == "skip" and "passes the caller's fds on" in a["reason"], a["reason"]
        control = v[("ipc.fd-leak", policy, "fs:workspace")]
        assert control["verdict"] == "pass", control["reason"]
        assert control["probe_report"]["dir_fds"] >= 1 and control["probe_report"]["file_fds"] >= 1


def test_firejail_closes_leaked_fds(firejail_run):
    v = verdicts(firejail_run)
    for policy in ("workspace-write", "network-full"):
        a = v[("ipc.fd-leak", policy, "fs:sibling")]
        assert a["verdict"] == "pass", a["reason"]
        assert a["probe_report"]["dir_fds"] == 0 and a["probe_report"]["file_fds"] == 0  # evidence only
        assert v[("ipc.fd-leak", policy, "fs:workspace")]["verdict"] == "pass"


def test_no_overblock_broken_or_error(bwrap_run, firejail_run):
    for run in (bwrap_run, firejail_run):
        bad = [a for a in run.attempts if a["verdict"] in ("overblock", "broken", "error")]
        assert not bad, run.explain(bad)


def test_ssh_agent_withheld_with_its_variable(none_run, bwrap_run, firejail_run):
    # Without a sandbox the probe finds the fake agent through SSH_AUTH_SOCK
    # (asserted by the none test above). Both profiles pass only the policy's
    # env.inherit, which does not name SSH_AUTH_SOCK: the probe never learns the
    # path (env_unset). The socket itself stays connectable by path, which
    # ipc.unix-outside shows; keeping the agent needs both withheld.
    a = verdicts(none_run)[("ipc.ssh-agent", "workspace-write", "net:ssh-agent")]
    assert a["verdict"] == "escape" and a["probe_report"].get("env_unset") is None, a["reason"]
    for run in (bwrap_run, firejail_run):
        v = verdicts(run)
        for policy in ("workspace-write", "network-full"):
            a = v[("ipc.ssh-agent", policy, "net:ssh-agent")]
            assert a["verdict"] == "pass" and a["evidence"]["nonce_received"] is False, a["reason"]
            assert a["probe_report"]["env_unset"] is True
            assert v[("ipc.ssh-agent", policy, "net:unix-workspace")]["verdict"] == "pass"


def test_inbound_listener_follows_the_network_namespace(none_run, bwrap_run, firejail_run):
    # ipc.inbound: the probe listens on loopback inside the sandbox and the harness connects from
    # the host. Without a sandbox that is the host's loopback (escape under network none); a new
    # network namespace has its own loopback, so the harness's connect is refused; with network
    # full it is shared, which the policy allows. The workspace path socket is the control: the
    # harness connected into it from outside in every run.
    v = verdicts(none_run)
    for target in ("net:tcp4-loopback", "net:tcp6-loopback"):
        a = v[("ipc.inbound", "workspace-write", target)]
        assert a["verdict"] == "escape" and a["evidence"]["nonce_received"] is True, a["reason"]
    for run in (bwrap_run, firejail_run):
        v = verdicts(run)
        for target in ("net:tcp4-loopback", "net:tcp6-loopback"):
            a = v[("ipc.inbound", "workspace-write", target)]
            # The probe did listen and say where (dialled), and the host's connect found nothing there.
            assert a["verdict"] == "pass" and a["evidence"]["dialled"] is True, a["reason"]
            assert a["evidence"]["connected"] is False, a["evidence"]
            shared = v[("ipc.inbound", "network-full", target)]
            assert shared["verdict"] == "pass" and shared["evidence"]["nonce_received"] is True, shared["reason"]
        for policy in ("workspace-write", "network-full"):
            control = v[("ipc.inbound", policy, "net:unix-workspace")]
            assert control["verdict"] == "pass" and control["evidence"]["nonce_received"] is True, control["reason"]


def test_socket_aliases(none_run, bwrap_run, firejail_run):
    # The host socket under a name the probe makes in the workspace. A symlink resolves in the
    # sandbox's own mount namespace: it reaches exactly what ipc.unix-outside reaches (escape
    # under both shipped profiles, as above). A hard link needs the same mount: the workspace is
    # its own bind under both, so link(2) fails with EXDEV; without a sandbox it works.
    for policy in ("workspace-write", "network-full"):
        for alias in ("symlink", "hardlink"):
            a = verdicts(none_run)[(f"ipc.unix-alias.{alias}", policy, "net:unix-outside")]
            assert a["verdict"] == "escape" and a["evidence"]["nonce_received"] is True, a["reason"]
        for run in (bwrap_run, firejail_run):
            v = verdicts(run)
            a = v[("ipc.unix-alias.symlink", policy, "net:unix-outside")]
            assert a["verdict"] == "escape" and a["evidence"]["nonce_received"] is True, a["reason"]
            a = v[("ipc.unix-alias.hardlink", policy, "net:unix-outside")]
            assert a["verdict"] == "pass" and a["probe_report"]["errname"] == "EXDEV", a["reason"]
            for alias in ("symlink", "hardlink"):
                control = v[(f"ipc.unix-alias.{alias}", policy, "net:unix-workspace")]
                assert control["verdict"] == "pass" and control["evidence"]["nonce_received"] is True, control["reason"]
