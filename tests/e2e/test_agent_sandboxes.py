"""Real agent sandboxes on the default, network, host-ipc and linux-catalog suites: the verdicts
signed in docs/spawners.md ("Agent sandboxes").

Codex CLI (spawners/codex-linux.toml) and sandbox-runtime (spawners/srt.toml), installed pinned by
ci/setup.sh into spawners/tools. Every non-pass verdict is listed here with its classification; a
new escape, a new overblock, a lost skip reason or a pass where the sandbox is known to leak turns
a test red. Skipped (with the reason) where the tool or root is missing, never silently passed.
"""
import os
import shutil
from pathlib import Path

import pytest

from conftest import REPO

TOOLS = REPO / "spawners" / "tools" / "node_modules"
CODEX = TOOLS / "@openai" / "codex-linux-x64" / "vendor" / "x86_64-unknown-linux-musl" / "bin" / "codex"
SRT = TOOLS / ".bin" / "srt"

# The net-deny controls connect to an AF_UNIX socket in the workspace. Under network off both
# sandboxes refuse that by design (Codex: seccomp EPERM at connect(2); srt: EPERM at
# socket(AF_UNIX)), and both profiles declare it ([refuses.af_unix]): each such control is a skip
# with that reason, and each denial it pairs with is judged by the probe's witness in the
# workspace instead (docs/spawners.md, "[refuses.af_unix]").
UNIX_CONTROLS = {
    "net.tcp@workspace-write[net:unix-workspace]",
    "net.udp@workspace-write[net:unix-workspace]",
    "net.proxy-honouring@workspace-write[net:unix-workspace]",
}
WITNESSED = {
    "net.tcp@workspace-write[net:tcp4-loopback]",
    "net.tcp@workspace-write[net:tcp6-loopback]",
    "net.tcp@workspace-write[net:tcp4-external]",
    "net.udp@workspace-write[net:udp4-loopback]",
    "net.udp@workspace-write[net:udp6-loopback]",
    "net.udp@workspace-write[net:udp4-external]",
    "net.proxy-honouring@workspace-write[net:tcp4-external]",
    "net.proxy-honouring@workspace-write[net:tcp4-host]",
}

SIGNED = {
    "codex-linux": {
        "tools": [CODEX],
        "version": "codex-cli 0.171.0",
        "suites": {
            "default": {
                # Real: SIGKILL of codex leaves its codex-linux-sandbox helper, and bubblewrap's
                # --die-with-parent watches the helper (docs/spawners.md has the by-hand reproduction).
                # Real: a directory fd the caller leaks reaches the command, which creates a file
                # through it outside the writable roots (docs/spawners.md, "host-ipc escapes").
                "escapes": {"lifetime.timeout-tree-kill@workspace-write", "lifetime.timeout-tree-kill@network-full",
                            "ipc.fd-leak@workspace-write[fs:sibling]", "ipc.fd-leak@network-full[fs:sibling]"},
                # Declared in the profile: reads of denied paths (5 fs-read + 5 fs-api-read per
                # policy), and AF_UNIX under network off.
                # Declared too: workspace-write makes the exec's cwd a writable root (exec.cwd-outside
                # at sibling and HOME, per policy; CVE-2025-59532's class, by design in `codex sandbox`).
                "declared": {"codex-linux cannot express deny_read": 20, "codex-linux refuses af_unix": 3,
                             "codex-linux makes the exec's cwd writable": 4},
                "min_passes": 80,
            },
            "network": {
                "escapes": set(),
                "declared": {"codex-linux refuses af_unix": 4, "codex-linux cannot express network = loopback": 15},
                "min_passes": 20,
            },
            "host-ipc": {
                # Real, shared with the shipped bwrap profile: a leaked directory fd is passed in,
                # and with network on a host unix socket is reachable (docs/spawners.md, by hand).
                # The symlink alias of that socket is the same socket (the hard link: EXDEV), and so
                # is the host's bind mount of it (copied with --ro-bind / /; /proc/<harness pid>/root:
                # ENOENT, a pid namespace of its own).
                "escapes": {"ipc.fd-leak@workspace-write[fs:sibling]", "ipc.fd-leak@network-full[fs:sibling]",
                            "ipc.unix-outside@network-full[net:unix-outside]",
                            "ipc.unix-alias.symlink@network-full[net:unix-outside]",
                            "ipc.unix-alias.bind-mount@network-full[net:unix-outside]"},
                "declared": {"codex-linux refuses af_unix": 8},
                "min_passes": 8,
            },
            "net-families": {
                # Declared: no ICMP from inside (no CAP_NET_RAW; a ping socket needs the host's
                # net.ipv4.ping_group_range, '1 0' here), no netlink under network off (its filter);
                # vsock: no loopback transport on this kernel (the harness's own skip, not declared).
                "escapes": set(),
                "declared": {"codex-linux refuses icmp": 4, "codex-linux refuses netlink": 1,
                             "codex-linux cannot express network = loopback": 7},
                "min_passes": 5,
            },
            "linux-catalog": {
                "escapes": set(),
                # i386: on a host with ia32 emulation (this machine's kernel; before it, N/A) Codex's
                # filter kills int 0x80 with SIGSYS, in the workspace too (docs/spawners.md, by hand).
                "declared": {"codex-linux refuses ptrace": 2, "codex-linux refuses af_unix": 2,
                             "codex-linux refuses io_uring": 7, "codex-linux refuses i386_abi": 2},
                "min_passes": 70,
            },
        },
    },
    "srt": {
        "tools": [SRT, "bwrap", "socat", "rg"],
        "version": "0.0.83",
        "suites": {
            "default": {
                # Real: srt's bubblewrap watches a /bin/sh -c that survives the caller's SIGKILL, so
                # the signal-ignoring tree lives on (docs/spawners.md has the by-hand reproduction).
                # It used to read as "error" when srt's 2-4 s start-up outlasted the attempt's 1.5 s
                # timeout; the timeout-kill oracle now raises the timeout until the probe started
                # (test_timeout_scaling.py).
                # Real: srt looks bwrap, socat and rg (and its launcher `node`) up on the caller's
                # PATH and runs them on the host; a stub a sandboxed command planted in a workspace
                # directory first on that PATH runs unconfined (exec.path-hijack; by hand in
                # docs/spawners.md).
                "escapes": {"lifetime.timeout-tree-kill@workspace-write", "exec.path-hijack@workspace-write[fs:sibling]"},
                # network = full: every execution under it; 124 since fs.api.race-flip joined (its 3
                # targets there are this skip before they are "no file-system API"), 128 with fs-meta.
                "declared": {"srt cannot express network = full": 128, "srt cannot pin variables": 5,
                             "srt refuses af_unix": 3},
                "min_passes": 40,
            },
            "network": {
                "escapes": set(),
                "declared": {"srt refuses af_unix": 4, "srt cannot express network = loopback": 15,
                             "srt cannot express network = full": 15},
                "min_passes": 8,
            },
            "host-ipc": {
                "escapes": set(),
                "declared": {"srt refuses af_unix": 8, "srt cannot express network = full": 19},
                "min_passes": 4,
            },
            "net-families": {
                "escapes": set(),
                "declared": {"srt refuses icmp": 1, "srt cannot express network = loopback": 7,
                             "srt cannot express network = full": 7},
                "min_passes": 4,
            },
            "linux-catalog": {
                # Real: srt's bubblewrap shares the host's IPC namespace (docs/spawners.md, by hand).
                "escapes": {"ipc.sysv-shm@workspace-write[ipc:sysv-shm]", "ipc.sysv-msg@workspace-write[ipc:sysv-msg]"},
                "declared": {"srt refuses procfs": 4, "srt refuses af_unix": 2, "srt refuses io_uring": 2,
                             "srt refuses i386_abi": 1,
                             "srt cannot express network = full": 58},
                "min_passes": 30,
            },
        },
    },
}
RUNS = [(sandbox, suite) for sandbox in sorted(SIGNED) for suite in SIGNED[sandbox]["suites"]]
# Whether the real ~/.codex existed before any run of this module: Codex creates its home's tmp/arg0-linux
# even for --version, and the profile's version command once ran with no HOME (so the passwd entry's).
REAL_CODEX_HOME = Path(os.path.expanduser("~")) / ".codex"
REAL_CODEX_HOME_EXISTED = REAL_CODEX_HOME.exists()


def require(sandbox):
    if os.geteuid() != 0:
        pytest.skip("needs root (namespaces, cgroups, bubblewrap as root)")
    for tool in SIGNED[sandbox]["tools"]:
        found = Path(tool).exists() if isinstance(tool, Path) else shutil.which(tool)
        if not found:
            pytest.skip(f"{tool} is not installed (bash ci/setup.sh installs it)")


# What the tools themselves leave in /tmp, outside every attempt tree, which breakout does not
# report or remove yet (docs/spawners.md, "the spawner's own residue"): Codex's per-user directories on
# first use, and srt's sockets and empty mount targets after a spawn killed at the timeout.
RESIDUE = ("claude-", "srt-mux-", "codex-bwrap-synthetic-mount-targets-", "codex-daemon-")


def tool_residue():
    return {p for p in Path("/tmp").iterdir() if p.name.startswith(RESIDUE)}


@pytest.fixture(scope="module", params=RUNS, ids=[f"{a}-{b}" for a, b in RUNS])
def sandbox_run(request, run_breakout):
    sandbox, suite = request.param
    require(sandbox)
    before = tool_residue()
    run = run_breakout("--spawner", sandbox, "--suite", suite, timeout=900)
    for path in tool_residue() - before:  # only what appeared during this run
        shutil.rmtree(path) if path.is_dir() and not path.is_symlink() else path.unlink()
    return sandbox, suite, run


def ids(run, verdict):
    return {a["id"] for a in run.by_verdict(verdict)}


def test_ran_the_real_tool(sandbox_run):
    sandbox, suite, run = sandbox_run
    assert run.results is not None, run.stderr[-2000:]
    version = run.results["run"]["spawner"]["version"]
    assert SIGNED[sandbox]["version"] in version, version
    passes = [a for a in run.attempts if a["verdict"] == "pass"]
    assert len(passes) >= SIGNED[sandbox]["suites"][suite]["min_passes"], run.explain(run.attempts)


def test_escapes_are_the_signed_ones(sandbox_run):
    sandbox, suite, run = sandbox_run
    assert ids(run, "escape") == SIGNED[sandbox]["suites"][suite]["escapes"], run.explain(run.by_verdict("escape"))


def test_no_overblock_error_or_broken(sandbox_run):
    _, _, run = sandbox_run
    bad = run.by_verdict("overblock") + run.by_verdict("error") + run.by_verdict("broken")
    assert not bad, run.explain(bad)


def test_declared_limitations_are_skips_with_the_profiles_reason(sandbox_run):
    sandbox, suite, run = sandbox_run
    skips = run.by_verdict("skip")
    assert all(a["reason"].strip() for a in skips)
    for reason, count in SIGNED[sandbox]["suites"][suite]["declared"].items():
        if reason.endswith("refuses i386_abi") and not host_has_i386(run):
            count = 0  # no ia32 emulation here: the control is N/A with the kernel's reason, nothing to refuse
        got = [a for a in skips if a["reason"].startswith(reason)]
        assert len(got) == count, f"{reason}: {len(got)} skips, signed {count}"


def host_has_i386(run):
    """The harness's own check of the host, as the abi.i386 rows record it (harness/classes/fs_write/fs_change.cc)."""
    rows = [a.get("evidence") or {} for a in run.attempts if a["attempt"] == "abi.i386-open-write"]
    return any("abi_unavailable_on_host" in e and e["abi_unavailable_on_host"] is None for e in rows)


def test_refused_controls_hand_their_denials_to_the_witness(sandbox_run):
    sandbox, suite, run = sandbox_run
    if suite != "default":
        pytest.skip("the default suite's connects are the signed witness cases")
    by_id = {a["id"]: a for a in run.attempts}
    for cid in UNIX_CONTROLS:
        assert by_id[cid]["verdict"] == "skip", run.explain([by_id[cid]])
        assert by_id[cid]["reason"].startswith(f"{sandbox} refuses af_unix under network = none"), by_id[cid]["reason"]
    for did in WITNESSED:
        a = by_id[did]
        assert a["verdict"] == "pass", run.explain([a])
        assert a["evidence"]["witness"]["present"] is True, a["evidence"]
        assert "BREAKOUT-REPORT" in a["evidence"]["witness"]["report"]
        assert a["evidence"]["nonce_received"] is False
        assert "--witness" in a["probe_argv"], a["probe_argv"]
    # Only the groups with a refused control get a witness.
    for a in run.attempts:
        if a["id"] not in WITNESSED and a["verdict"] != "skip":
            assert "--witness" not in a.get("probe_argv", []), a["id"]


# fs.write.spawner-follows-link, default suite: what each tool writes every exec
# and whether its next write follows the planted link (docs/spawners.md, "The spawner follows").
# Codex writes CODEX_HOME/tmp/arg0-linux/<new> per exec; the plant there is refused (read-only).
# srt writes nothing at the same path twice in the attempt tree or its settings directory.
FOLLOW_SKIP = "the spawner wrote nothing at the same path in two no-op execs"
SPAWNER_FOLLOW = {
    "codex-linux": {"workspace-write": ("pass", "no plant reached the host"),
                    "network-full": ("pass", "no plant reached the host")},
    "srt": {"workspace-write": ("skip", FOLLOW_SKIP), "network-full": ("skip", "srt cannot express network = full")},
}


def test_spawner_follow_is_signed(sandbox_run):
    sandbox, suite, run = sandbox_run
    if suite != "default":
        pytest.skip("fs.write.spawner-follows-link is in the default suite")
    for policy, (verdict, reason) in SPAWNER_FOLLOW[sandbox].items():
        a = next(a for a in run.attempts if a["id"] == f"fs.write.spawner-follows-link@{policy}[fs:sibling]")
        assert a["verdict"] == verdict and reason in a["reason"], run.explain([a])
    if sandbox == "codex-linux":
        learned = a["evidence"]["written_every_exec"]
        assert any("arg0-linux" in p["path"] and p["dir"] for p in learned), learned


def test_denials_were_really_tried(sandbox_run):
    _, _, run = sandbox_run
    passes = [a for a in run.attempts if a["role"] == "deny" and a["verdict"] == "pass"]
    assert len(passes) >= 2
    for a in passes:
        if a["class"] not in ("lifetime", "timeout-kill", "recon"):  # in-run controls
            assert a["controls"], f"{a['id']} passed without a control"


def test_exit_status_follows_the_verdicts(sandbox_run):
    _, _, run = sandbox_run
    expected = 3 if run.by_verdict("escape") else 1 if run.by_verdict("error") or run.by_verdict("overblock") else 0
    assert run.returncode == expected, run.stdout[-3000:] + run.stderr[-2000:]


def test_the_real_codex_home_is_never_created(sandbox_run):
    sandbox, _, _ = sandbox_run
    if sandbox != "codex-linux":
        pytest.skip("only Codex keeps a home of its own (~/.codex)")
    if REAL_CODEX_HOME_EXISTED:
        pytest.skip(f"{REAL_CODEX_HOME} existed before these runs, so a write into it cannot be told from here")
    assert not REAL_CODEX_HOME.exists(), f"a Codex run created the real {REAL_CODEX_HOME}"
