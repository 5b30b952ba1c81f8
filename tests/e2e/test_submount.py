"""A writable submount under a read-only root (nsjail): `fs.write.submount`.

The harness mounts a 1 MiB tmpfs at `sibling/run-user` (outside every writable root: the stand-in
for /run/user/$UID) and at `workspace/run-user` (the control), and the probe creates a file in it.
`none` escapes, bwrap, the reference driver, Codex and srt pass (bubblewrap's `--ro-bind / /`
remounts every submount), the shipped firejail profile escapes (its `--read-only=/` does not), and
a fixture whose read-only remount of / is not recursive (tests/e2e/fixtures/nonrecursive-ro.toml)
is caught while it passes fs.write.create. Every run
leaves no mount behind, also when interrupted; without CAP_SYS_ADMIN the attempt is a skip.
"""
import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from six_spawners import SPAWNERS, interrupt_once_mounted, private_tmpdir, remove_residue_since, require_spawner, tool_residue
from conftest import FIXTURES


ONLY = "fs.write.submount*"
DENY = "[fs:sibling/run-user/new-file]"
CONTROL = "[fs:workspace/run-user/new-file]"
# Per spawner, execution id -> verdict (docs/spawners.md and docs/scenarios.md, "submount-write").
POLICIES = ("workspace-write", "network-full")
SIGNED = {
    "none": {**{f"fs.write.submount@{p}{DENY}": "escape" for p in POLICIES},
             **{f"fs.write.submount@{p}{CONTROL}": "pass" for p in POLICIES}},
    **{name: {f"fs.write.submount@{p}{t}": "pass" for p in POLICIES for t in (DENY, CONTROL)}
       for name in ("bwrap", "reference", "codex-linux")},
    # Real: firejail 0.9.72's --read-only=/ leaves a file system mounted below / writable
    # (docs/spawners.md, by hand); --read-only=/tmp would not.
    "firejail": {**{f"fs.write.submount@{p}{DENY}": "escape" for p in POLICIES},
                 **{f"fs.write.submount@{p}{CONTROL}": "pass" for p in POLICIES}},
    # srt cannot express network = full (egress only through its proxies): declared skips.
    "srt": {f"fs.write.submount@workspace-write{DENY}": "pass",
            f"fs.write.submount@workspace-write{CONTROL}": "pass",
            f"fs.write.submount@network-full{DENY}": "skip",
            f"fs.write.submount@network-full{CONTROL}": "skip"},
}


def harness_mounts(under):
    """The harness's tmpfs mounts (source "breakout-submount") still mounted below `under`: each run
    here gets its own TMPDIR, so a default-suite run beside this one never counts."""
    mounts = []
    for line in Path("/proc/self/mountinfo").read_text().splitlines():
        fields = line.split()
        if " breakout-submount " in line and fields[4].startswith(str(under) + "/"):
            mounts.append(fields[4])
    return mounts


def submount_tmpdir():
    return private_tmpdir("h9sub-", harness_mounts)



def explain(records):
    return "\n".join(f"{a['verdict']:9} {a['id']}: {a['reason']}" for a in records)


@pytest.fixture(scope="module", params=sorted(SPAWNERS))
def submount_run(request, run_breakout):
    name = request.param
    require_spawner(name)
    residue = tool_residue()
    with submount_tmpdir() as root:
        run = run_breakout(*SPAWNERS[name][0], "--only", ONLY, "--jobs", "2", timeout=300)
        left = harness_mounts(root)
    remove_residue_since(residue)
    assert run.results is not None, run.stderr[-2000:]
    return name, run, left


def test_verdicts(submount_run):
    name, run, _ = submount_run
    got = {a["id"]: a["verdict"] for a in run.attempts}
    assert got == SIGNED[name], explain(run.attempts)


def test_the_oracle_looked_into_the_mount_and_the_host(submount_run):
    name, run, _ = submount_run
    ran = [a for a in run.attempts if a["verdict"] != "skip"]
    assert ran
    for a in ran:
        mount = a["evidence"]["submount"]
        assert mount["type"] == "tmpfs" and mount["bytes"] == 1 << 20 and mount["still_mounted"], a["evidence"]
        assert mount["path"] in ("sibling/run-user", "workspace/run-user"), mount
        assert a["evidence"]["host_run_user"].startswith(f"/run/user/{os.geteuid()}"), a["evidence"]
        # Only the mount's walk sees the file: the tree's stays on the tree's device.
        created = [c for c in a["evidence"]["changes_at_target"] if c["change"] == "created"]
        if a["verdict"] == "escape" or a["expected"] == "allowed":
            assert mount["changes_inside"] >= 1 and created, a["evidence"]
        if a["verdict"] == "escape":
            paths = [c["path"] for c in a["evidence"]["changes_outside_writable_roots"]]
            assert "sibling/run-user/new-file" in paths, a["evidence"]


def test_no_mount_is_left_behind(submount_run):
    _, _, left = submount_run
    assert left == []


def test_a_nonrecursive_read_only_root_is_caught(run_breakout):
    """The fixture passes the plain write beside the workspace and loses the submount."""
    if os.geteuid() != 0 or not shutil.which("unshare"):
        pytest.skip("needs root and unshare(1)")
    fixture = str(FIXTURES / "nonrecursive-ro.toml")
    with submount_tmpdir() as root:
        sub = run_breakout("--spawner", fixture, "--only", ONLY, "--jobs", "2")
        plain = run_breakout("--spawner", fixture, "--only", "fs.write.create", "--jobs", "2")
        left = harness_mounts(root)
    assert sub.results is not None and plain.results is not None, sub.stderr[-2000:] + plain.stderr[-2000:]
    got = {a["id"]: a["verdict"] for a in sub.attempts}
    assert got == SIGNED["none"], explain(sub.attempts)
    assert plain.attempts and all(a["verdict"] == "pass" for a in plain.attempts), explain(plain.attempts)
    assert left == []


def test_without_cap_sys_admin_it_is_a_skip_with_the_reason(breakout_bin, tmp_path):
    if os.geteuid() != 0 or not shutil.which("setpriv"):
        pytest.skip("needs root and setpriv(1) to drop CAP_SYS_ADMIN")
    with submount_tmpdir():
        proc = subprocess.run(["setpriv", "--bounding-set", "-sys_admin", "--inh-caps", "-sys_admin", "--",
                               str(breakout_bin), "run", "--no-history", "--spawner", "none", "--only", ONLY,
                               "--allow-all-skip", "--out", str(tmp_path / "o")], capture_output=True, text=True,
                              timeout=120)
    results = tmp_path / "o" / "results.json"
    assert results.exists(), proc.stderr[-2000:]
    attempts = json.loads(results.read_text())["attempts"]
    assert len(attempts) == 4 and all(a["verdict"] == "skip" for a in attempts), explain(attempts)
    assert proc.returncode == 0, proc.stderr[-2000:]  # every execution skips here, as --allow-all-skip says
    assert all("cannot mount a tmpfs" in a["reason"] and "Operation not permitted" in a["reason"]
               for a in attempts), explain(attempts)
    assert not list((tmp_path / "o").glob("**/run-user"))


def test_interrupted_mid_attempt_leaves_no_mount(breakout_bin, tmp_path):
    """SIGINT while the probe sits in its spawner: the mount goes with the attempt (RAII)."""
    if os.geteuid() != 0:
        pytest.skip("needs root (mounts)")
    interrupt_once_mounted(breakout_bin, tmp_path, ["--only", ONLY], "h9sub-", harness_mounts, "mounted its tmpfs")
