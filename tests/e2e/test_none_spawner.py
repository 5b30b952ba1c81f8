"""`none` is the positive control: every deny attempt must come out `escape`, every allow and contract `pass`."""
import os

import pytest


@pytest.fixture(scope="module")
def none_run(run_breakout):
    if os.geteuid() != 0:
        pytest.skip("needs root for the external-host namespace and cgroup containment")
    return run_breakout("--spawner", "none")


SESSION_CLASSES = {"session-shutdown", "boot-failure", "session-hygiene", "session-setup"}


def fs_api(a):
    """The spawner's own file API (drivers with capability fs): no probe runs, the harness asks the driver."""
    return a["probe"] == "driver-fs"


# The spawner's own host-side writes, followed through a planted link: `none` writes nothing of its
# own, so there is nothing to follow (test_spawner_follow.py has the fixture that escapes).
SPAWNER_WRITE_CLASSES = {"spawner-follow"}


def test_every_deny_is_an_escape(none_run):
    excused = SESSION_CLASSES | SPAWNER_WRITE_CLASSES
    denies = [a for a in none_run.attempts if a["role"] == "deny" and a["class"] not in excused and not fs_api(a)]
    assert denies, "the default suite must contain deny attempts"
    not_escaped = [a for a in denies if a["verdict"] != "escape"]
    assert not not_escaped, none_run.explain(not_escaped)
    assert "env-pinned" in {a["class"] for a in denies}


def test_session_checks_are_skipped_with_their_reason_not_passed(none_run):
    """Session checks need boot/shutdown (drivers); `none` has neither, so they skip, never pass."""
    sessions = [a for a in none_run.attempts if a["class"] in SESSION_CLASSES]
    assert len(sessions) == 8
    for a in sessions:
        assert a["verdict"] == "skip", none_run.explain([a])
        assert "needs a spawner with sessions" in a["reason"]


# `none` runs commands only: no write_file/read_file to attack, and no host-side writes of its own
# to follow, so those skip with the reason, never pass.
@pytest.mark.parametrize("which,reason", [
    (fs_api, "has no file-system API"),
    (lambda a: a["class"] in SPAWNER_WRITE_CLASSES, "the spawner wrote nothing at the same path in two no-op execs"),
], ids=["fs-api", "spawner-follow"])
def test_attempts_without_their_spawner_side_are_skipped_with_the_reason(none_run, which, reason):
    skipped = [a for a in none_run.attempts if which(a)]
    assert skipped
    for a in skipped:
        assert a["verdict"] == "skip", none_run.explain([a])
        assert reason in a["reason"]


def test_every_class_of_escape_is_found(none_run):
    classes = {a["class"] for a in none_run.by_verdict("escape")}
    for expected in ["fs-write", "fs-read", "net-connect", "env-leak", "lifetime", "timeout-kill"]:
        assert expected in classes, f"no escape of class {expected}: {sorted(classes)}"


def test_every_allow_and_contract_passes(none_run):
    # role "observe" (recon under a policy it cannot check) is informational: a skip, never a pass (test_recon.py).
    others = [a for a in none_run.attempts if a["role"] not in ("deny", "observe") and not fs_api(a)]
    bad = [a for a in others if a["verdict"] != "pass"]
    assert not bad, none_run.explain(bad)


def test_exit_status_says_escape(none_run):
    assert none_run.returncode == 3, none_run.stderr[-2000:]


def test_escapes_carry_outside_evidence(none_run):
    for a in none_run.by_verdict("escape"):
        ev = a["evidence"]
        if a["class"] == "fs-write":
            assert ev["changes_outside_writable_roots"], a["id"]
        elif a["class"] in ("fs-read", "env-leak"):
            assert ev["token_seen_in"], a["id"]
        elif a["class"] == "net-connect":
            assert ev["nonce_received"] is True, a["id"]
        elif a["class"] in ("lifetime", "timeout-kill"):
            assert ev["heartbeats_after_grace"] > ev["heartbeats_at_return"], a["id"]
