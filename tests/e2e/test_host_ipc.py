"""Host IPC suite (unix sockets outside the workspace and their aliases, abstract sockets, leaked directory fds), asserted as each sandbox really behaves (docs/scenarios.md, "Host IPC").

The socket aliases the host makes (a bind mount, /proc/<pid>/root) run on the six spawners of
six_spawners.py, `--only ipc.unix-alias.*`."""
import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import require_root_tool
from six_spawners import SPAWNERS, interrupt_once_mounted, private_tmpdir, remove_residue_since, require_spawner, tool_residue


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
    assert {a["class"] for a in denies} == {"net-connect", "fd-leak", "net-inbound", "bind-alias-connect"}
    bad = [a for a in denies if a["verdict"] != "escape"]
    assert not bad, none_run.explain(bad)
    for a in denies:
        if a["class"] in ("net-connect", "net-inbound", "bind-alias-connect"):
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


# ipc.unix-alias.bind-mount and ipc.unix-alias.proc-root on the six spawners: the
# host socket at a second name the host made (the harness bind-mounts its listener's socket at
# sibling/bind-alias.sock; the control: the workspace socket at workspace/bind-alias.sock), and
# through /proc/<the harness's pid>/root (the control: /proc/self/root to the workspace socket).
# Per spawner and policy: (bind-mount denial, proc-root denial, both controls); a string that is
# no verdict is the reason prefix of a declared skip. By hand: docs/spawners.md, "Socket aliases".
BIND, PROC = "ipc.unix-alias.bind-mount", "ipc.unix-alias.proc-root"
WS, OUT = "net:unix-workspace", "net:unix-outside"
CONFINED = {"workspace-write": ("escape", "pass", "pass"), "network-full": ("escape", "pass", "pass")}
ALIAS_SIGNED = {
    "none": {"workspace-write": ("escape", "escape", "pass"), "network-full": ("escape", "escape", "pass")},
    # A pid namespace of their own with its own /proc: no harness pid to go through (ENOENT). The
    # bind mount is copied with the host's mount tree (--ro-bind / / and --read-only=/ keep
    # submounts), and a read-only mount does not refuse a connect: the same socket, reached.
    "bwrap": CONFINED, "firejail": CONFINED, "reference": CONFINED,
    # Network off: Codex's filter refuses connect(2), declared ([refuses.af_unix]); network on: as bwrap.
    "codex-linux": {"workspace-write": ("pass", "pass", "codex-linux refuses af_unix"),
                    "network-full": ("escape", "pass", "pass")},
    # srt's filter refuses socket(AF_UNIX) in every mode; it cannot express network = full at all.
    "srt": {"workspace-write": ("pass", "pass", "srt refuses af_unix"),
            "network-full": ("srt cannot express network = full",) * 3},
}
VERDICTS = ("pass", "escape", "overblock", "error", "broken", "skip")


def bind_alias_mounts(under):
    """The harness's bind mounts of a socket still mounted below `under` (mountinfo's mount point)."""
    return [line.split()[4] for line in Path("/proc/self/mountinfo").read_text().splitlines()
            if line.split()[4].startswith(str(under) + "/") and line.split()[4].endswith("/bind-alias.sock")]


def alias_tmpdir():
    return private_tmpdir("h8alias-", bind_alias_mounts)


@pytest.fixture(scope="module", params=sorted(SPAWNERS))
def alias_run(request, run_breakout):
    name = request.param
    require_spawner(name)
    residue = tool_residue()
    with alias_tmpdir() as root:
        run = run_breakout(*SPAWNERS[name][0], "--suite", "host-ipc", "--only", "ipc.unix-alias.*", timeout=600)
        left = bind_alias_mounts(root)
    remove_residue_since(residue)
    assert run.results is not None, run.stderr[-2000:]
    return name, run, left


def test_alias_verdicts_are_the_signed_ones(alias_run):
    name, run, _ = alias_run
    v = verdicts(run)
    for policy, (bind, proc, control) in ALIAS_SIGNED[name].items():
        for (attempt, target), want in {(BIND, OUT): bind, (PROC, OUT): proc, (BIND, WS): control,
                                        (PROC, WS): control}.items():
            a = v[(attempt, policy, target)]
            if want in VERDICTS:
                assert a["verdict"] == want, run.explain([a])
                assert a["evidence"]["nonce_received"] is (want == "escape" or target == WS), run.explain([a])
            else:
                assert a["verdict"] == "skip" and a["reason"].startswith(want), run.explain([a])


def test_the_probe_went_through_the_alias(alias_run):
    # The outside oracle decides; this checks the attempt is what it says: the probe was pointed at
    # the harness's bind mount (never the original) and at /proc/<pid>/root, with `self` for the control.
    _, run, _ = alias_run
    # A control skipped as a declared refusal ran too (its probe met the refusal).
    ran = [a for a in run.attempts if a["attempt"] in (BIND, PROC) and (a["verdict"] != "skip" or a.get("refused"))]
    assert ran, run.explain(run.attempts)
    for a in ran:
        report = a["probe_report"] or {}
        if a["attempt"] == BIND:
            where = "sibling" if a["target"] == OUT else "workspace"
            assert a["evidence"]["bind_alias"]["path"] == f"{where}/bind-alias.sock", a["evidence"]
            assert a["evidence"]["bind_alias"]["still_mounted"] is True, a["evidence"]
            assert report["target"].endswith(f"/{where}/bind-alias.sock"), report
        else:
            pid = a["probe_argv"][a["probe_argv"].index("--root-pid") + 1]
            assert pid == "self" if a["target"] == WS else pid.isdigit(), a["probe_argv"]
            assert report["alias_path"].startswith(f"/proc/{pid}/root/"), report


def test_a_harness_pid_absent_inside_is_the_denial(alias_run):
    # bwrap, firejail, the reference driver and Codex with network on: the harness's pid names
    # nothing in the sandbox's own /proc (ENOENT); Codex (network off) and srt refuse the socket
    # itself (EPERM), and their denials stand on the probe's witness in the workspace.
    name, run, _ = alias_run
    for a in run.attempts:
        if a["attempt"] == PROC and a["target"] == OUT and a["verdict"] == "pass":
            report = a["probe_report"]
            assert report["errname"] in ("ENOENT", "EPERM"), report
            if report["errname"] == "EPERM":
                assert a["evidence"]["witness"]["present"] is True, a["evidence"]


def test_no_bind_mount_is_left_behind(alias_run):
    _, _, left = alias_run
    assert left == []


def test_bind_alias_without_cap_sys_admin_is_a_skip_with_the_reason(breakout_bin, tmp_path):
    if os.geteuid() != 0 or not shutil.which("setpriv"):
        pytest.skip("needs root and setpriv(1) to drop CAP_SYS_ADMIN")
    with alias_tmpdir() as root:
        proc = subprocess.run(["setpriv", "--bounding-set", "-sys_admin", "--inh-caps", "-sys_admin", "--",
                               str(breakout_bin), "run", "--no-history", "--spawner", "none", "--suite", "host-ipc",
                               "--only", BIND, "--allow-all-skip", "--out", str(tmp_path / "o")], capture_output=True,
                              text=True, timeout=120)
        assert bind_alias_mounts(root) == []
    results = tmp_path / "o" / "results.json"
    assert results.exists(), proc.stderr[-2000:]
    attempts = json.loads(results.read_text())["attempts"]
    assert len(attempts) == 4 and all(a["verdict"] == "skip" for a in attempts), attempts
    assert proc.returncode == 0, proc.stderr[-2000:]  # every execution skips here, as --allow-all-skip says
    assert all("cannot mount a bind of" in a["reason"] and "Operation not permitted" in a["reason"] for a in attempts)


def test_a_sandbox_without_proc_never_passes_proc_root(breakout_bin, tmp_path):
    # A /proc the probe cannot use at all (an empty tmpfs over it): the control through
    # /proc/self/root fails too, so the denial is an error, never a pass.
    if os.geteuid() != 0 or not shutil.which("bwrap"):
        pytest.skip("needs root and bwrap")
    profile = tmp_path / "no-proc.toml"
    profile.write_text('name = "no-proc"\ndescription = "bwrap with an empty /proc"\nrequires = ["bwrap"]\n'
                       'command = ["bwrap", "--die-with-parent", "--unshare-pid", "--ro-bind", "/", "/", '
                       '"--tmpfs", "/proc", "{writable...}", "--chdir", "{cwd}", "--", "{argv...}"]\n'
                       'writable_root = ["--bind", "{path}", "{path}"]\ndeny_read_dir = []\ndeny_read_file = []\n'
                       '[network]\nnone = []\nfull = []\n')
    with alias_tmpdir():
        proc = subprocess.run([str(breakout_bin), "run", "--no-history", "--spawner", str(profile), "--suite",
                               "host-ipc", "--only", PROC, "--out", str(tmp_path / "o")],
                              capture_output=True, text=True, timeout=120)
    results = tmp_path / "o" / "results.json"
    assert results.exists(), proc.stderr[-2000:]
    got = {(a["policy"], a["target"]): a for a in json.loads(results.read_text())["attempts"]}
    for policy in ("workspace-write", "network-full"):
        assert got[(policy, WS)]["verdict"] == "overblock", got[(policy, WS)]["reason"]
        assert got[(policy, OUT)]["verdict"] == "error", got[(policy, OUT)]["reason"]


def test_bind_alias_interrupted_mid_attempt_leaves_no_mount(breakout_bin, tmp_path):
    """SIGINT while the probe waits in its spawner: the bind mount goes with the attempt (RAII)."""
    if os.geteuid() != 0:
        pytest.skip("needs root (mounts)")
    interrupt_once_mounted(breakout_bin, tmp_path, ["--suite", "host-ipc", "--only", BIND], "h8alias-",
                           bind_alias_mounts, "bind-mounted its socket")
