"""Real agent sandboxes on the default suite: the verdicts signed in docs/spawners.md ("Agent sandboxes").

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
        # Real: SIGKILL of codex leaves its codex-linux-sandbox helper, and bubblewrap's
        # --die-with-parent watches the helper (docs/spawners.md has the by-hand reproduction).
        "escapes": {"lifetime.timeout-tree-kill@workspace-write", "lifetime.timeout-tree-kill@network-full"},
        "overblocks": set(),
        "errors": set(),
        # Declared in the profile: reads of denied paths (5 fs-read + 5 fs-api-read per policy),
        # and AF_UNIX under network off.
        "declared": {"codex-linux cannot express deny_read": 20, "codex-linux refuses af_unix": 3},
    },
    "srt": {
        "tools": [SRT, "bwrap", "socat", "rg"],
        # Real: srt's bubblewrap watches a /bin/sh -c that survives the caller's SIGKILL, so the
        # signal-ignoring tree lives on (docs/spawners.md has the by-hand reproduction). It used to
        # read as "error" when srt's 2-4 s start-up outlasted the attempt's 1.5 s timeout; the
        # timeout-kill oracle now raises the timeout until the probe started (test_timeout_scaling.py).
        "escapes": {"lifetime.timeout-tree-kill@workspace-write"},
        "overblocks": set(),
        "errors": set(),
        "declared": {"srt cannot express network = full": 87, "srt cannot pin variables": 5,
                     "srt refuses af_unix": 3},
    },
}



def require(sandbox):
    if os.geteuid() != 0:
        pytest.skip("needs root (namespaces, cgroups, bubblewrap as root)")
    for tool in SIGNED[sandbox]["tools"]:
        found = Path(tool).exists() if isinstance(tool, Path) else shutil.which(tool)
        if not found:
            pytest.skip(f"{tool} is not installed (bash ci/setup.sh installs it)")


# What the tools themselves leave in /tmp, outside every attempt tree, which breakout does not
# report or remove yet (issue 18, "the spawner's own residue"): Codex's per-user directories on
# first use, and srt's sockets and empty mount targets after a spawn killed at the timeout.
RESIDUE = ("claude-", "srt-mux-", "codex-bwrap-synthetic-mount-targets-", "codex-daemon-")


def tool_residue():
    return {p for p in Path("/tmp").iterdir() if p.name.startswith(RESIDUE)}


@pytest.fixture(scope="module", params=sorted(SIGNED))
def sandbox_run(request, run_breakout):
    require(request.param)
    before = tool_residue()
    run = run_breakout("--spawner", request.param, "--suite", "default", timeout=900)
    for path in tool_residue() - before:  # only what appeared during this run
        shutil.rmtree(path) if path.is_dir() and not path.is_symlink() else path.unlink()
    return request.param, run


def ids(run, verdict, sandbox):
    return {a["id"] for a in run.by_verdict(verdict)}


def test_ran_the_real_tool(sandbox_run):
    sandbox, run = sandbox_run
    assert run.results is not None, run.stderr[-2000:]
    version = run.results["run"]["spawner"]["version"]
    assert ("codex-cli 0.171.0" if sandbox == "codex-linux" else "0.0.83") in version, version
    passes = [a for a in run.attempts if a["verdict"] == "pass"]
    assert len(passes) >= 40, run.explain(run.attempts)


def test_escapes_are_the_signed_ones(sandbox_run):
    sandbox, run = sandbox_run
    assert ids(run, "escape", sandbox) == SIGNED[sandbox]["escapes"], run.explain(run.by_verdict("escape"))


def test_overblocks_and_errors_are_the_signed_ones(sandbox_run):
    sandbox, run = sandbox_run
    assert ids(run, "overblock", sandbox) == SIGNED[sandbox]["overblocks"], run.explain(run.by_verdict("overblock"))
    assert ids(run, "error", sandbox) == SIGNED[sandbox]["errors"], run.explain(run.by_verdict("error"))
    assert not run.by_verdict("broken"), run.explain(run.by_verdict("broken"))


def test_declared_limitations_are_skips_with_the_profiles_reason(sandbox_run):
    sandbox, run = sandbox_run
    skips = run.by_verdict("skip")
    assert all(a["reason"].strip() for a in skips)
    for reason, count in SIGNED[sandbox]["declared"].items():
        got = [a for a in skips if a["reason"].startswith(reason)]
        assert len(got) == count, f"{reason}: {len(got)} skips, signed {count}"


def test_refused_controls_hand_their_denials_to_the_witness(sandbox_run):
    sandbox, run = sandbox_run
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


def test_denials_were_really_tried(sandbox_run):
    _, run = sandbox_run
    passes = [a for a in run.attempts if a["role"] == "deny" and a["verdict"] == "pass"]
    assert len(passes) >= 15
    for a in passes:
        if a["class"] not in ("lifetime", "timeout-kill", "recon"):  # in-run controls
            assert a["controls"], f"{a['id']} passed without a control"


def test_exit_status_follows_the_verdicts(sandbox_run):
    _, run = sandbox_run
    expected = 3 if run.by_verdict("escape") else 1 if run.by_verdict("error") or run.by_verdict("overblock") else 0
    assert run.returncode == expected, run.stdout[-3000:] + run.stderr[-2000:]

