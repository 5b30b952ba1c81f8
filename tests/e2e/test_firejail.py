"""firejail with the shipped profile, asserted as it really behaves (docs/spawners.md explains each point)."""
import pytest

from conftest import require_root_tool


@pytest.fixture(scope="module")
def firejail_run(run_breakout):
    require_root_tool("firejail")
    return run_breakout("--spawner", "firejail")


# Real: --read-only=/ leaves a file system mounted below / writable (the harness's tmpfs standing
# in for /run/user/$UID; docs/spawners.md, "A writable submount", by hand).
SIGNED_ESCAPES = {"fs.write.submount@workspace-write[fs:sibling/run-user/new-file]",
                  "fs.write.submount@network-full[fs:sibling/run-user/new-file]"}


def test_only_the_signed_escapes_and_no_overblock(firejail_run):
    bad = [a for a in firejail_run.attempts if a["verdict"] in ("overblock", "error")]
    assert not bad, firejail_run.explain(bad)
    escapes = {a["id"] for a in firejail_run.attempts if a["verdict"] == "escape"}
    assert escapes == SIGNED_ESCAPES, firejail_run.explain(firejail_run.by_verdict("escape"))


def test_contracts_hold(firejail_run):
    bad = [a for a in firejail_run.attempts if a["role"] == "contract" and a["verdict"] != "pass"]
    assert not bad, firejail_run.explain(bad)


def test_background_processes_hold_the_spawn_until_the_timeout(firejail_run):
    # firejail does not return while any process of the sandbox lives: a daemonised
    # grandchild keeps the caller waiting until its timeout kills firejail, which then
    # takes the sandbox down. No process outlives the spawn (pass), but the caller pays
    # the whole timeout. bubblewrap instead returns when the probe exits.
    lifetime = [a for a in firejail_run.attempts if a["class"] == "lifetime"]
    assert lifetime
    for a in lifetime:
        assert a["verdict"] == "pass", a["id"]
        assert a["exit"]["timed_out"] is True, f"{a['id']}: firejail returned before the timeout"


def test_signal_death_reported_as_128_plus_n(firejail_run):
    sig = [a for a in firejail_run.attempts if a["class"] == "exit-signal"]
    assert sig and all(a["exit"]["exit_code"] == 128 + 15 for a in sig)
