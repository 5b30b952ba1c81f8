"""Driver spawners end to end: the reference driver passes, every fixture modelled on the AstrBot PR #9895 review is flagged, hostile drivers stay bounded."""
import os
import sys
import time
from pathlib import Path

import pytest

from conftest import FIXTURES, REPO

PYTHON = "/usr/bin/python3" if os.path.exists("/usr/bin/python3") else sys.executable
DRIVERS = FIXTURES / "drivers"
REFERENCE = REPO / "drivers" / "python" / "reference_driver.py"


@pytest.fixture(autouse=True)
def needs_root_and_bwrap():
    if os.geteuid() != 0:
        pytest.skip("needs root (namespaces, cgroups, bwrap inside the drivers)")


def fixture_driver(name, *args):
    return " ".join([PYTHON, str(DRIVERS / name), *args])


@pytest.fixture(scope="module")
def reference_run(run_breakout):
    t0 = time.monotonic()
    load_before = os.getloadavg()[0]
    run = run_breakout("--driver", f"{PYTHON} {REFERENCE}")
    run.seconds = time.monotonic() - t0
    run.load = max(load_before, os.getloadavg()[0])
    return run


def test_reference_driver_passes_everything_its_capabilities_allow(reference_run):
    bad = [a for a in reference_run.attempts if a["verdict"] not in ("pass", "skip")]
    assert not bad, reference_run.explain(bad)
    assert reference_run.returncode == 0, reference_run.stderr[-2000:]
    classes = {a["class"] for a in reference_run.by_verdict("pass")}
    for c in ["session-shutdown", "boot-failure", "session-hygiene", "session-setup", "env-pinned", "lifetime", "fs-write"]:
        assert c in classes, f"class {c} did not run against the reference driver: {sorted(classes)}"


def test_reference_driver_run_is_fast_enough(reference_run):
    # 60 s on an otherwise idle machine; the bound grows with the run
    # queue, since other work on these 2-core runners (parallel builds) stretches wall time.
    cores = os.cpu_count() or 1
    bound = 60 * max(1.0, reference_run.load / cores)
    assert reference_run.seconds < bound, (
        f"default suite against the reference driver took {reference_run.seconds:.1f} s "
        f"(bound {bound:.0f} s at load {reference_run.load:.1f} on {cores} cores)")


def test_results_name_the_driver(reference_run):
    spawner = reference_run.results["run"]["spawner"]
    assert spawner["name"] == "driver:reference-bwrap"
    assert spawner["version"] == "1.0.0"
    assert spawner["arg"].startswith("--driver ")


# fixture driver -> (--only glob, {attempt id substring: verdict}) — the table in docs/drivers.md.
FIXTURE_VERDICTS = {
    "output_after_exit.py": ("contract.output-flood*", {"contract.output-flood": "broken"}),
    "single_job_handle.py": ("session.shutdown-under-load*", {"session.shutdown-under-load": "escape"}),
    "ignored_cwd.py": ("contract.cwd*", {"contract.cwd": "broken"}),
    # CVE-2025-59532: the requested cwd becomes writable.
    "cwd_writable_root.py": ("exec.cwd-outside@workspace-write*", {
        "[fs:sibling]": "escape", "[fs:~]": "escape", "[fs:workspace/cwd]": "pass"}),
    # The enforcer looked up on the caller's PATH runs the planted stub.
    "path_hijack.py": ("exec.path-hijack@workspace-write*", {"[fs:sibling]": "escape", "[fs:workspace/marks]": "pass"}),
    "env_override.py": ("env.pinned-override*", {"[pin:exact]": "escape", "[pin:other-case]": "escape",
                                                 "[pin:both-cases]": "escape", "[pin:duplicate]": "escape",
                                                 "[pin:control]": "pass"}),
    "lossy_acl_revoke.py": ("session.hygiene-after-shutdown*", {"session.hygiene-after-shutdown": "escape"}),
    "boot_fail_leaves_grant.py": ("session.boot-refused-clean*", {"session.boot-refused-clean": "escape"}),
    "no_timeout_default.py": ("contract.no-timeout*", {"contract.no-timeout": "broken"}),
    "no_pid_namespace.py": ("lifetime.*@workspace-write", {"lifetime.double-fork-setsid": "escape",
                                                          "lifetime.background": "escape",
                                                          "lifetime.timeout-tree-kill": "escape"}),
    "pgrp_kill_only.py": ("lifetime.*@workspace-write", {"lifetime.new-pgrp": "escape",
                                                        "lifetime.double-fork-setsid": "escape",
                                                        "lifetime.background": "pass"}),
    "direct_child_kill.py": ("lifetime.*@workspace-write", {"lifetime.timeout-tree-kill": "escape"}),
    # Planted fs-API escapes (the live fuzzer finds them too: test_live_fuzzer.py).
    "prefix_confined_fs.py": ("fs.api.write*@workspace-write*", {
        "fs.api.write-dotdot@workspace-write[fs:parent/new-file]": "escape",
        "fs.api.write-sibling-prefix@workspace-write[fs:sibling/new-file]": "escape",
        "fs.api.write@workspace-write[fs:sibling/new-file]": "pass",
        "fs.api.write@workspace-write[fs:workspace/new-file]": "pass"}),
    "normalise_no_resolve_fs.py": ("fs.api.*@workspace-write*", {
        "fs.api.write-symlink-dir@workspace-write[fs:sibling/new-file]": "escape",
        "fs.api.read-symlink-file@workspace-write[fs:~/.ssh/id_ed25519]": "escape",
        "fs.api.write-dotdot@workspace-write[fs:parent/new-file]": "pass",
        "fs.api.write-sibling-prefix@workspace-write[fs:sibling/new-file]": "pass"}),
    # write_file checks the resolved path, then opens the name again (CWE-367).
    "check_then_open_fs.py": ("fs.api.*@workspace-write*", {
        "fs.api.race-flip@workspace-write[fs:sibling/new-file]": "escape",
        "fs.api.race-flip@workspace-write[fs:~/.bashrc]": "escape",
        "fs.api.race-flip@workspace-write[fs:workspace/new-file]": "pass",
        "fs.api.write-symlink-dir@workspace-write[fs:sibling/new-file]": "pass",
        "fs.api.write-dotdot@workspace-write[fs:parent/new-file]": "pass",
        "fs.api.read-hard-link@workspace-write[fs:~/.ssh/id_ed25519]": "pass"}),
}


@pytest.mark.parametrize("driver", sorted(FIXTURE_VERDICTS))
def test_fixture_is_flagged_with_its_documented_verdict(run_breakout, driver):
    only, expected = FIXTURE_VERDICTS[driver]
    run = run_breakout("--driver", fixture_driver(driver), "--only", only)
    assert run.results is not None, run.stderr[-2000:]
    for needle, verdict in expected.items():
        hits = [a for a in run.attempts if needle in a["id"]]
        assert hits, f"{driver}: no attempt matches {needle}"
        wrong = [a for a in hits if a["verdict"] != verdict]
        assert not wrong, f"{driver}: expected {verdict}\n" + run.explain(wrong)
    flagged = {a["verdict"] for a in run.attempts} & {"escape", "broken"}
    assert run.returncode == (3 if "escape" in flagged else 1), run.stderr[-2000:]


RACE = "fs.api.race-flip@workspace-write"
RACE_DENIES = {f"{RACE}[fs:sibling/new-file]", f"{RACE}[fs:~/.bashrc]"}


def test_every_race_flip_carries_its_calibration(reference_run, run_breakout):
    """Against the reference driver (opens what it checked) each denial passes with its race won
    beside it; against check_then_open_fs.py each denial escapes and the calibration is recorded."""
    racy = run_breakout("--driver", fixture_driver("check_then_open_fs.py"), "--only", f"{RACE}*")
    for run, verdict in ((reference_run, "pass"), (racy, "escape")):
        hits = [a for a in run.attempts if a["id"] in RACE_DENIES]
        assert len(hits) == 2 and all(a["verdict"] == verdict for a in hits), run.explain(hits)
        for a in hits:
            race = a["evidence"]["race"]
            assert race["calibration"]["victim"] == "racy" and race["calibration"]["tries"] >= 200, race
            assert race["flips"] >= 64 and race["tries"] == race["calibration"]["tries"], race
            if verdict == "pass":
                assert race["calibration"]["won"] and "race calibrated: won" in a["reason"], (race, a["reason"])


def test_an_unwinnable_race_flip_calibration_is_inconclusive(run_breakout):
    """The test hook makes the harness's victim race-proof: the reference driver's denials have no
    positive control then, and are skipped as inconclusive, never passed; the control still passes."""
    run = run_breakout("--driver", f"{PYTHON} {REFERENCE}", "--only", f"{RACE}*",
                       env={"BREAKOUT_TEST_RACE_VICTIM": "safe"})
    got = {a["id"]: a["verdict"] for a in run.attempts}
    assert got == {**{i: "skip" for i in RACE_DENIES}, f"{RACE}[fs:workspace/new-file]": "pass"}, run.explain(run.attempts)
    for a in run.attempts:
        if a["id"] in RACE_DENIES:
            assert a["reason"].startswith("inconclusive: the race could not be won against a known-racy victim"), a["reason"]
            assert a["evidence"]["race"]["calibration"]["wins"] == 0, a["evidence"]["race"]


def test_a_driver_that_cannot_boot_fails_the_run_loudly(run_breakout):
    run = run_breakout("--driver", fixture_driver("boot_cannot_start.py"))
    ran = [a for a in run.attempts if a["verdict"] != "skip"]
    assert ran and all(a["verdict"] == "error" for a in ran), run.explain(ran)
    assert all("boot failed" in a["reason"] for a in ran)
    assert run.returncode == 1
    assert "FAILED: the spawner did not run a single attempt" in run.stderr


def hostile_profile(tmp_path, mode, at):
    """A driver profile with short timeouts, so the bounded waits are short too."""
    p = tmp_path / f"hostile-{mode}-{at}.toml"
    p.write_text(f'''kind = "driver"
name = "hostile-{mode}-{at}"
command = ["{PYTHON}", "{DRIVERS / 'hostile_driver.py'}", "--mode", "{mode}", "--at", "{at}"]
[timeouts]
hello_ms = 3000
boot_ms = 3000
exec_grace_ms = 1000
shutdown_ms = 2000
close_grace_ms = 500
''')
    return p


# mode at exec -> (verdict of each attempt, text its reason must contain)
HOSTILE_AT_EXEC = {
    "invalid-json": ("error", "broke the protocol"),
    "huge-line": ("error", "over the bound"),
    "no-answer": ("error", "did not answer exec"),
    "wrong-id": ("error", "did not answer exec"),
    "early-exit": ("error", "exited with status 3"),
    "repeat-id": ("pass", ""),     # the first answer counts; the repeat is noted
    "stderr-flood": ("pass", ""),  # drained all along, bounded in the record
}


@pytest.mark.parametrize("mode", sorted(HOSTILE_AT_EXEC))
def test_hostile_driver_at_exec_is_an_error_within_its_bound(run_breakout, tmp_path, mode):
    verdict, reason = HOSTILE_AT_EXEC[mode]
    t0 = time.monotonic()
    run = run_breakout("--spawner", str(hostile_profile(tmp_path, mode, "exec")), "--only", "contract.exit-code*")
    took = time.monotonic() - t0
    assert run.results is not None, run.stderr[-2000:]
    assert len(run.attempts) == 4  # the run went on with the next attempts
    for a in run.attempts:
        assert a["verdict"] == verdict and reason in a["reason"], run.explain([a])
    # policy timeout 10 s + exec grace 1 s is the longest wait; attempts run 4 at a time
    assert took < 40, f"{mode}: the run took {took:.1f} s"
    if mode == "repeat-id":
        notes = [n for a in run.attempts for n in a["evidence"]["spawner"]["protocol_notes"]]
        assert any("repeated answer" in n for n in notes), notes
    if mode == "stderr-flood":
        spawner = run.attempts[0]["evidence"]["spawner"]
        assert spawner["stderr_bytes"] >= 50 << 20 and len(spawner["stderr_tail"]) < 8192


@pytest.mark.parametrize("mode", ["no-answer", "invalid-json", "early-exit"])
def test_hostile_driver_at_hello_fails_the_run_before_any_attempt(run_breakout, tmp_path, mode):
    t0 = time.monotonic()
    run = run_breakout("--spawner", str(hostile_profile(tmp_path, mode, "hello")))
    assert time.monotonic() - t0 < 20
    assert run.returncode == 2
    assert "driver handshake failed" in run.stderr
    assert run.results is None  # no results that could read as "no escapes found"


@pytest.mark.parametrize("at", ["boot", "shutdown"])
def test_hostile_driver_at_boot_or_shutdown_errors_each_attempt(run_breakout, tmp_path, at):
    run = run_breakout("--spawner", str(hostile_profile(tmp_path, "no-answer", at)), "--only", "contract.exit-code*")
    assert len(run.attempts) == 4
    for a in run.attempts:
        assert a["verdict"] == "error", run.explain([a])
        assert f"did not answer {at}" in a["reason"] or f"did not answer {at}" in str(a["evidence"]), run.explain([a])
