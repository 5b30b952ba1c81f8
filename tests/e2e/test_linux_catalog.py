"""linux-catalog suite (issue 8, catalog §3, §8): host processes, SysV/POSIX IPC and shared temp dirs,
the user keyring, TIOCSTI, config poisoning and DNS, asserted as each sandbox really behaves
(docs/host-ipc.md)."""
import functools
import os
import signal
import subprocess
import sys

import pytest

from conftest import require_root_tool

PROCESS = ["proc.ptrace", "proc.vm-read", "proc.mem", "proc.environ", "proc.signal-term", "proc.signal-stop"]
IPC = ["ipc.sysv-shm", "ipc.sysv-msg", "ipc.posix-shm", "ipc.tmp", "ipc.var-tmp"]
TTY = ["tty.tiocsti", "tty.tiocsti-high-bits"]
KEY = ["key.user-keyring"]
HOST_OBJECTS = PROCESS + IPC + TTY + KEY  # denied under every policy
CONFIG = ["config.shell-rc", "config.autostart", "config.git-hook", "config.spawner-profile"]
DNS = ["dns.nonce-name"]
URING = ["uring.openat-create", "uring.connect"]
HOST_ADDRESS = ["net.host-address"]
ABI = {"abi.i386-open-write": "i386", "abi.x32-open-write": "x32"}
WSL = ["wsl.interop.write"]  # a Windows cmd.exe through WSL's binfmt interop: a skip outside WSL
HOST_ENDPOINTS = ["net:tcp4-host", "net:tcp6-host"]
POLICIES = ["workspace-write", "network-full"]


def records(run, attempt, policy, role):
    return [a for a in run.attempts if a["attempt"] == attempt and a["policy"] == policy and a["role"] == role]


def one(run, attempt, policy, role):
    found = records(run, attempt, policy, role)
    assert len(found) == 1, (attempt, policy, role, len(found))
    return found[0]


@pytest.fixture(scope="module")
def none_run(run_breakout):
    if os.geteuid() != 0:
        pytest.skip("needs root for cgroup containment")
    return run_breakout("--spawner", "none", "--suite", "linux-catalog")


@pytest.fixture(scope="module")
def bwrap_run(run_breakout):
    require_root_tool("bwrap")
    return run_breakout("--spawner", "bwrap", "--suite", "linux-catalog")


@pytest.fixture(scope="module")
def firejail_run(run_breakout):
    require_root_tool("firejail")
    return run_breakout("--spawner", "firejail", "--suite", "linux-catalog")


def test_suite_is_what_the_docs_list(none_run):
    assert {a["attempt"] for a in none_run.attempts} == set(HOST_OBJECTS + CONFIG + DNS + URING + HOST_ADDRESS + list(ABI) + WSL)
    assert {a["policy"] for a in none_run.attempts} == set(POLICIES)


def test_none_every_host_object_deny_escapes_with_outside_evidence(none_run):
    for policy in POLICIES:
        for attempt in HOST_OBJECTS:
            deny, control = one(none_run, attempt, policy, "deny"), one(none_run, attempt, policy, "allow")
            if deny["verdict"] == "skip":  # N/A with the kernel's reason (no keyring, TIOCSTI disabled)
                assert deny["reason"] and control["verdict"] == "skip", attempt
                continue
            assert deny["verdict"] == "escape", (attempt, deny["reason"])
            assert deny["evidence"]["object_changed"] or deny["evidence"]["token_seen_in"], attempt
            assert control["verdict"] == "pass", (attempt, control["reason"])
            assert control["evidence"]["token_seen_in"] or control["evidence"]["object_changed"], attempt
    assert none_run.returncode == 3


def test_none_evidence_matches_the_technique(none_run):
    def ev(attempt):
        return one(none_run, attempt, "workspace-write", "deny")["evidence"]

    assert ev("proc.ptrace")["victim_tracer_seen"] > 0
    assert ev("proc.signal-term")["victim_signals"] == [15]
    assert ev("proc.signal-stop")["victim_state"] == "T"
    for attempt in ("proc.vm-read", "proc.mem", "proc.environ", "key.user-keyring"):
        assert "stdout" in ev(attempt)["token_seen_in"], attempt
    assert ev("ipc.sysv-msg")["last_receiver_pid"] > 0
    for attempt in ("ipc.tmp", "ipc.var-tmp"):
        assert ev(attempt)["contents_changed"] is True
    if one(none_run, "tty.tiocsti", "workspace-write", "deny")["verdict"] != "skip":
        assert ev("tty.tiocsti")["nonce_injected"] is True


def test_bwrap_namespaces_hide_processes_ipc_and_temp_dirs(bwrap_run):
    # --unshare-pid: host pids do not exist inside; --unshare-ipc: SysV keys are per IPC
    # namespace; --dev /dev: a private /dev/shm; --ro-bind / /: /tmp and /var/tmp read-only.
    for policy in POLICIES:
        for attempt in PROCESS + IPC:
            deny, control = one(bwrap_run, attempt, policy, "deny"), one(bwrap_run, attempt, policy, "allow")
            assert deny["verdict"] == "pass", (attempt, deny["reason"])
            assert control["verdict"] == "pass", (attempt, control["reason"])
    assert one(bwrap_run, "proc.vm-read", "workspace-write", "deny")["probe_report"]["errname"] in ("ENOENT", "ESRCH")


def test_bwrap_shares_the_user_keyring(bwrap_run):
    # FINDING (by design): keyrings belong to the user (per user namespace), not to any
    # namespace bubblewrap unshares here; without --unshare-user or a seccomp filter on
    # add_key/keyctl/request_key, a key in the caller's user keyring is readable inside.
    for policy in POLICIES:
        deny = one(bwrap_run, "key.user-keyring", policy, "deny")
        if deny["verdict"] == "skip":
            pytest.skip(deny["reason"])
        assert deny["verdict"] == "escape" and "stdout" in deny["evidence"]["token_seen_in"], deny["reason"]
        assert one(bwrap_run, "key.user-keyring", policy, "allow")["verdict"] == "pass"


def test_bwrap_tiocsti_as_root(bwrap_run):
    # --new-session (setsid) fixed CVE-2017-5226 for unprivileged callers: TIOCSTI needs the
    # terminal to be the caller's controlling tty... or CAP_SYS_ADMIN (tiocsti() in
    # drivers/tty/tty_io.c). bwrap started by root keeps every capability, so the sandbox
    # has no ctty (has_ctty false) and still injects. Asserted as the escape it is (the
    # fixture runs as root).
    for policy in POLICIES:
        for attempt in TTY:
            deny = one(bwrap_run, attempt, policy, "deny")
            if deny["verdict"] == "skip":
                continue
            assert deny["probe_report"]["has_ctty"] is False  # --new-session did its part
            assert deny["verdict"] == "escape" and deny["evidence"]["nonce_injected"] is True, deny["reason"]
            assert one(bwrap_run, attempt, policy, "allow")["verdict"] == "pass"


def test_firejail(firejail_run):
    for policy in POLICIES:
        for attempt in PROCESS + ["ipc.sysv-shm", "ipc.sysv-msg", "ipc.tmp", "ipc.var-tmp"]:
            deny = one(firejail_run, attempt, policy, "deny")
            assert deny["verdict"] == "pass", (attempt, deny["reason"])
        # FINDING: firejail --noprofile keeps the host's /dev, so /dev/shm (POSIX shm) is shared.
        shm = one(firejail_run, "ipc.posix-shm", policy, "deny")
        assert shm["verdict"] == "escape" and shm["evidence"]["contents_changed"] is True, shm["reason"]
        key = one(firejail_run, "key.user-keyring", policy, "deny")
        assert key["verdict"] in ("escape", "skip"), key["reason"]
        # The injection itself succeeds (the probe keeps the pty as its ctty), but firejail's
        # sandbox init flushes the terminal's input queue (TCFLSH TCIFLUSH) once the program
        # exits, before the caller's shell can read it: nothing arrives.
        for attempt in TTY:
            deny = one(firejail_run, attempt, policy, "deny")
            if deny["verdict"] == "skip":
                continue
            assert deny["verdict"] == "pass" and deny["evidence"]["nonce_injected"] is False, deny["reason"]
            assert deny["probe_report"]["ok"] is True  # display only: it did inject
    controls = [a for a in firejail_run.attempts if a["role"] == "allow" and a["verdict"] not in ("pass", "skip")]
    assert not controls, firejail_run.explain(controls)


def test_config_poisoning_is_a_write_outside(none_run, bwrap_run, firejail_run):
    # Fake HOME and a repository beside the workspace; judged by the snapshot diff.
    for run, verdict in ((none_run, "escape"), (bwrap_run, "pass"), (firejail_run, "pass")):
        denies = [a for a in run.attempts if a["attempt"] in CONFIG and a["role"] == "deny"]
        assert len(denies) == 5 * len(POLICIES)
        for a in denies:
            assert a["verdict"] == verdict, (a["id"], a["reason"])
            assert bool(a["evidence"]["changes_outside_writable_roots"]) == (verdict == "escape"), a["id"]
        controls = [a for a in run.attempts if a["attempt"] in CONFIG and a["role"] == "allow"]
        assert len(controls) == 4 * len(POLICIES) and all(a["verdict"] == "pass" for a in controls)
    hook = one(none_run, "config.git-hook", "workspace-write", "deny")
    assert hook["evidence"]["changes_outside_writable_roots"][0]["path"] == "sibling/repo/.git/hooks/pre-commit"


def test_dns_follows_the_network_mode(none_run, bwrap_run, firejail_run):
    # The harness's resolver on the host's 127.0.0.1: denied under network = none (a fresh
    # network namespace has its own, empty loopback), allowed under full; the workspace
    # resolver (unix datagram socket) is the control in both.
    for run in (none_run, bwrap_run, firejail_run):
        for policy in POLICIES:
            control = [a for a in records(run, "dns.nonce-name", policy, "allow") if a["target"] == "ipc:dns-workspace"]
            assert control[0]["verdict"] == "pass" and control[0]["evidence"]["nonce_name_resolved"] is True
        denied = one(run, "dns.nonce-name", "workspace-write", "deny")
        shared = [a for a in records(run, "dns.nonce-name", "network-full", "allow") if a["target"] == "ipc:dns-loopback"]
        assert shared and shared[0]["verdict"] == "pass" and shared[0]["evidence"]["nonce_name_resolved"] is True
        if run is none_run:
            assert denied["verdict"] == "escape" and denied["evidence"]["nonce_name_resolved"] is True
        else:
            assert denied["verdict"] == "pass" and denied["evidence"]["nonce_name_resolved"] is False, denied["reason"]


def test_io_uring_writes_follow_the_write_rule(none_run, bwrap_run, firejail_run):
    # IORING_OP_OPENAT skips the openat(2) syscall, not the mount table: bind-mount sandboxes
    # refuse it like any write (EROFS); only seccomp-only sandboxes would miss it.
    for run, verdict in ((none_run, "escape"), (bwrap_run, "pass"), (firejail_run, "pass")):
        for policy in POLICIES:
            denies = records(run, "uring.openat-create", policy, "deny")
            control = one(run, "uring.openat-create", policy, "allow")
            if control["verdict"] == "skip":  # io_uring unavailable: N/A with the kernel's reason
                assert control["reason"] and all(a["verdict"] == "skip" for a in denies)
                continue
            assert control["verdict"] == "pass", control["reason"]
            assert len(denies) == 2
            for a in denies:
                assert a["verdict"] == verdict, (a["id"], a["reason"])
            if verdict == "pass":
                assert denies[0]["probe_report"]["errname"] == "EROFS"  # display only


def test_io_uring_connects_follow_the_network_mode(none_run, bwrap_run, firejail_run):
    # IORING_OP_SOCKET/CONNECT/SEND skip socket(2)/connect(2)/sendto(2), not the network
    # namespace: --unshare-net and --net=none refuse them like any connect. Under
    # network = full every endpoint is allowed and must be reached (no overblock).
    for run, verdict in ((none_run, "escape"), (bwrap_run, "pass"), (firejail_run, "pass")):
        control = one(run, "uring.connect", "workspace-write", "allow")
        if control["verdict"] == "skip":  # io_uring unavailable: N/A with the kernel's reason
            assert control["reason"]
            continue
        assert control["verdict"] == "pass" and control["evidence"]["nonce_received"] is True, control["reason"]
        denies = [a for a in records(run, "uring.connect", "workspace-write", "deny") if a["verdict"] != "skip"]
        assert denies, "no io_uring connect was attempted"
        for a in denies:
            assert a["verdict"] == verdict, (a["id"], a["reason"])
            assert a["evidence"]["nonce_received"] is (verdict == "escape")
        for a in records(run, "uring.connect", "network-full", "allow"):
            assert a["verdict"] in ("pass", "skip"), (a["id"], a["reason"])


def test_no_overblock_broken_or_error(none_run, bwrap_run, firejail_run):
    for run in (none_run, bwrap_run, firejail_run):
        bad = [a for a in run.attempts if a["verdict"] in ("overblock", "broken", "error")]
        assert not bad, run.explain(bad)


# net.host-address: the host's own non-loopback address (eth0's). The linux-catalog suite runs it
# under none and full; the loopback case needs network = loopback, so the `network` suite (which
# includes the same attempt file) is run for it with --only.
@pytest.fixture(scope="module")
def none_loopback_run(run_breakout):
    if os.geteuid() != 0:
        pytest.skip("needs root for cgroup containment")
    return run_breakout("--spawner", "none", "--suite", "network", "--only", "net.host-address")


@pytest.fixture(scope="module")
def bwrap_loopback_run(run_breakout):
    require_root_tool("bwrap")
    return run_breakout("--spawner", "bwrap", "--suite", "network", "--only", "net.host-address")


def host_denies(run, policy):
    """The tcp4-host/tcp6-host executions; the one skip allowed is a host without such an address."""
    found = [a for a in records(run, "net.host-address", policy, "deny") if a["target"] in HOST_ENDPOINTS]
    assert len(found) == 2, found
    for a in found:
        if a["verdict"] == "skip":  # the harness found no such address here: say so, never pass
            assert "no non-loopback" in a["reason"], a["reason"]
    ran = [a for a in found if a["verdict"] != "skip"]
    if not ran:
        pytest.skip("this host has no non-loopback address: " + found[0]["reason"])
    return ran


def test_none_loopback_policy_reaches_the_host_address(none_loopback_run):
    run = none_loopback_run
    assert {a["attempt"] for a in run.attempts} == set(HOST_ADDRESS)
    # The control that matters: the same probe to the harness's 127.0.0.1 listener, same policy.
    controls = records(run, "net.host-address", "network-loopback", "allow")
    assert {a["target"] for a in controls} == {"net:unix-workspace", "net:tcp4-loopback"}
    control = [a for a in controls if a["target"] == "net:tcp4-loopback"][0]
    assert control["verdict"] == "pass" and control["evidence"]["nonce_received"] is True, control["reason"]
    for a in host_denies(run, "network-loopback"):
        assert a["verdict"] == "escape", (a["id"], a["reason"])
        assert a["evidence"]["nonce_received"] is True
        listener = a["target"].removeprefix("net:")
        assert a["evidence"]["nonce_seen_by"] == [listener]  # the host listener, not 127.0.0.1's
        host = a["evidence"]["endpoint"]
        assert not host.startswith("tcp:127.") and "[::1]" not in host and "198.18." not in host, host
        assert "not the host's own non-loopback address" in a["expected_why"]


def test_none_network_none_reaches_the_host_address(none_run):
    control = one(none_run, "net.host-address", "workspace-write", "allow")
    assert control["target"] == "net:unix-workspace" and control["verdict"] == "pass", control["reason"]
    for a in host_denies(none_run, "workspace-write"):
        assert a["verdict"] == "escape" and a["evidence"]["nonce_received"] is True, (a["id"], a["reason"])
    full = [a for a in records(none_run, "net.host-address", "network-full", "allow") if a["target"] in HOST_ENDPOINTS]
    assert full and all(a["verdict"] in ("pass", "skip") for a in full), none_run.explain(full)


def test_bwrap_host_address(bwrap_run, bwrap_loopback_run):
    # network = none: --unshare-net gives a namespace with only its own lo, so eth0's address
    # does not exist inside (connect fails with ENETUNREACH) and nothing arrives.
    for a in host_denies(bwrap_run, "workspace-write"):
        assert a["verdict"] == "pass" and a["evidence"]["nonce_received"] is False, (a["id"], a["reason"])
        assert a["probe_report"]["errname"] in ("ENETUNREACH", "EADDRNOTAVAIL", "ECONNREFUSED")  # display only
    # network = full shares the host's namespace: the host address is allowed and reached.
    full = [a for a in records(bwrap_run, "net.host-address", "network-full", "allow") if a["target"] in HOST_ENDPOINTS]
    assert full and all(a["verdict"] in ("pass", "skip") for a in full), bwrap_run.explain(full)
    # network = loopback: bubblewrap cannot express it (a fresh namespace is policy none, the
    # host's is full), so every execution is skipped with that reason, never passed.
    loop = records(bwrap_loopback_run, "net.host-address", "network-loopback", "deny") + \
        records(bwrap_loopback_run, "net.host-address", "network-loopback", "allow")
    assert loop and all(a["verdict"] == "skip" and "loopback" in a["reason"] for a in loop), bwrap_loopback_run.explain(loop)


def test_firejail_host_address(firejail_run):
    for a in host_denies(firejail_run, "workspace-write"):  # --net=none
        assert a["verdict"] == "pass" and a["evidence"]["nonce_received"] is False, (a["id"], a["reason"])


def kernel_config(option):
    """CONFIG_<option> from /proc/config.gz: "y", "n" (not set) or None when the kernel does not say."""
    import gzip
    try:
        text = gzip.open("/proc/config.gz", "rt").read()
    except OSError:
        return None
    for line in text.splitlines():
        if line.startswith(f"CONFIG_{option}="):
            return line.split("=", 1)[1]
        if line == f"# CONFIG_{option} is not set":
            return "n"
    return "n"


# getpid through a raw system call instruction, in a child Python of this test (independent of
# the harness's own check): exit 0 when it returns the child's pid; killed by SIGSEGV when the
# kernel takes no int $0x80.
_RAW_GETPID = """
import ctypes, mmap, os, sys
m = mmap.mmap(-1, 4096, prot=mmap.PROT_READ | mmap.PROT_WRITE | mmap.PROT_EXEC)
m.write(bytes({code}))
f = ctypes.CFUNCTYPE(ctypes.c_int)(ctypes.addressof(ctypes.c_char.from_buffer(m)))
sys.exit(0 if f() == os.getpid() else 3)
"""


@functools.lru_cache(maxsize=None)  # the host's answer does not change: two child Pythons once, not per record
def int80_runs_here():
    """Whether this host runs i386 system calls (int $0x80) at all: True, False, or None when it
    cannot tell (not x86-64, or the same code with the x86-64 `syscall` fails too). The kernel
    configuration alone does not say: this machine's kernel has CONFIG_IA32_EMULATION=y, no
    ia32_emulation=0 on its command line, and still kills int $0x80 with SIGSEGV (a
    paravirtualised guest without the 32-bit entry)."""
    import platform
    if platform.machine() != "x86_64":
        return None
    def run(code):
        return subprocess.run([sys.executable, "-c", _RAW_GETPID.format(code=code)], capture_output=True, timeout=60).returncode
    if run([0xB8, 39, 0, 0, 0, 0x0F, 0x05, 0xC3]) != 0:  # mov eax, 39 (getpid); syscall; ret: the control
        return None
    got = run([0xB8, 20, 0, 0, 0, 0xCD, 0x80, 0xC3])  # mov eax, 20 (i386 getpid); int $0x80; ret
    return True if got == 0 else False if got == -signal.SIGSEGV else None


# The kernel's reason per ABI when it lacks it (the harness's host-side check, attempt/observe.cc).
ABI_REASON = {"i386": "no ia32 emulation", "x32": "no x32 ABI"}
ABI_CONFIG = {"i386": "IA32_EMULATION", "x32": "X86_X32_ABI"}


def test_syscall_abi_writes_follow_the_write_rule(none_run, bwrap_run, firejail_run):
    # int 0x80 / x32 change the syscall number, not the path walk: bind-mount sandboxes refuse
    # the write like any other (EROFS); only a seccomp filter that forgets the architecture
    # would miss it. N/A only with the kernel's reason, the probe agreeing and nothing changed.
    for run, verdict in ((none_run, "escape"), (bwrap_run, "pass"), (firejail_run, "pass")):
        for policy in POLICIES:
            for attempt, abi in ABI.items():
                denies = records(run, attempt, policy, "deny")
                control = one(run, attempt, policy, "allow")
                assert len(denies) == 2, attempt
                if control["verdict"] == "skip":
                    for a in denies + [control]:
                        assert a["verdict"] == "skip", (a["id"], a["reason"])
                        assert a["reason"].startswith("N/A: ") and ABI_REASON[abi] in a["reason"], a["reason"]
                        assert a["probe_report"]["abi_state"] == "unavailable", a["probe_report"]
                        assert a["evidence"]["abi_unavailable_on_host"], a["evidence"]
                        assert not a["evidence"]["changes_outside_writable_roots"], a["evidence"]
                    # The host agrees, seen without the harness: for i386 a raw int $0x80 in a
                    # child of this test (the kernel configuration can say y and the host still
                    # refuse it); for x32 the kernel's configuration.
                    if abi == "i386":
                        assert int80_runs_here() in (False, None), control["reason"]
                    else:
                        assert kernel_config(ABI_CONFIG[abi]) in ("n", None), (abi, control["reason"])
                    continue
                assert kernel_config(ABI_CONFIG[abi]) in ("y", None), abi
                if abi == "i386":
                    assert int80_runs_here() in (True, None), abi
                assert control["verdict"] == "pass", (control["id"], control["reason"])
                assert control["probe_report"]["abi_state"] == "available"
                for a in denies:
                    assert a["verdict"] == verdict, (a["id"], a["reason"])
                    assert bool(a["evidence"]["changes_outside_writable_roots"]) == (verdict == "escape"), a["id"]
                    if verdict == "pass":
                        assert a["probe_report"]["errname"] == "EROFS", a["probe_report"]  # display only
    # Where int $0x80 runs, i386 is judged (the control passes); where it does not, N/A. x32 is
    # N/A where the kernel has no x32 ABI (this machine: CONFIG_X86_X32_ABI unset).
    int80 = int80_runs_here()
    if int80 is not None:
        assert one(none_run, "abi.i386-open-write", "workspace-write", "allow")["verdict"] == ("pass" if int80 else "skip")
    if kernel_config("X86_X32_ABI") == "n":
        assert one(none_run, "abi.x32-open-write", "workspace-write", "allow")["verdict"] == "skip"


def interop_present():
    return any(os.path.exists(f"/proc/sys/fs/binfmt_misc/{n}") for n in ("WSLInterop", "WSLInterop-late"))


@pytest.mark.parametrize("spawner", ["none", "bwrap", "firejail"])
def test_wsl_interop_is_a_skip_with_the_route_reason_outside_wsl(spawner, none_run, bwrap_run, firejail_run):
    """Outside WSL the route does not exist: every execution (deny and control) is a skip that names the
    route and the harness's own check, never a pass. Inside WSL this test does not apply."""
    if interop_present():
        pytest.skip("this host is WSL with binfmt interop: the route exists and is judged")
    run = {"none": none_run, "bwrap": bwrap_run, "firejail": firejail_run}[spawner]
    rows = [a for a in run.attempts if a["attempt"] == "wsl.interop.write"]
    assert len(rows) == 2 * len(POLICIES), run.explain(rows)
    for a in rows:
        assert a["verdict"] == "skip", (a["id"], a["verdict"], a["reason"])
        assert a["reason"].startswith("N/A: route win-interop unavailable here") and "the harness's own check" in a["reason"], a["reason"]
