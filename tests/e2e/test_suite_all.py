"""`--suite all` (scenarios/suites/all.toml): every suite of the platform but the opt-in ones, in one run.

The union must plan exactly the executions its member suites plan, each under its own member's
policies (an attempt two members share, network.toml in default and network, runs once per
policy of either), and judge them as the members do. Against `none` it escapes every denial.
"""
import subprocess

import pytest

MEMBERS = ("default", "network", "net-families", "host-ipc", "linux-catalog", "protected-paths", "proxy",
           "deny-read-race")


def member_args(spawner, member):
    # The spellings other test files use, so a session runs each member once (conftest's cache).
    return ("--spawner", spawner) if member == "default" else ("--spawner", spawner, "--suite", member)


def verdicts(run):
    assert run.results is not None, run.stderr[-2000:]
    return {a["id"]: a["verdict"] for a in run.attempts}


def test_all_runs_every_member_and_leaves_out_the_opt_in_suites(breakout_bin):
    listing = subprocess.run([str(breakout_bin), "list", "--suite", "all"], capture_output=True, text=True,
                             timeout=60)
    assert listing.returncode == 0, listing.stderr
    for member in MEMBERS:
        member_ids = subprocess.run([str(breakout_bin), "list", "--suite", member], capture_output=True, text=True,
                                    timeout=60).stdout
        for line in member_ids.split("Scenarios of suite", 1)[1].split("\nProbes", 1)[0].splitlines()[1:]:
            if line.strip():
                assert f"\n  {line.split()[0]}  " in listing.stdout, f"{line.split()[0]} of {member} not in all"
    assert "real.read-secrets" not in listing.stdout and "contract.no-timeout-long" not in listing.stdout


@pytest.mark.parametrize("spawner", ["none", "bwrap"])
def test_all_judges_what_its_members_judge(run_breakout, spawner):
    union_run = run_breakout("--spawner", spawner, "--suite", "all")
    union = verdicts(union_run)
    members, member_runs = {}, {}
    for member in MEMBERS:
        run = run_breakout(*member_args(spawner, member))
        members.update(verdicts(run))
        member_runs.update({a["id"]: a for a in run.attempts})
    assert set(union) == set(members), (sorted(set(union) - set(members))[:10], sorted(set(members) - set(union))[:10])
    differ = {i: (union[i], members[i]) for i in union if union[i] != members[i]}
    assert not differ, (differ, "\nin all:\n" + union_run.explain([a for a in union_run.attempts if a["id"] in differ]) +
                        "\nin the member suites:\n" + union_run.explain([member_runs[i] for i in differ]))


def test_all_under_none_escapes_every_denial_and_runs_each_attempt_under_its_own_policies(run_breakout):
    run = run_breakout("--spawner", "none", "--suite", "all")
    assert run.results["summary"]["broken"] == 0 and run.results["summary"]["error"] == 0, run.stderr[-2000:]
    denied = [a for a in run.attempts if a["expected"] == "denied" and a["verdict"] != "skip"]
    assert len(denied) > 200
    assert not [a for a in denied if a["verdict"] != "escape"], run.explain([a for a in denied if a["verdict"] != "escape"])
    policies = {}
    for a in run.attempts:
        policies.setdefault(a["attempt"], set()).add(a["policy"])
    assert policies["net.tcp"] == {"workspace-write", "network-full", "network-loopback"}
    assert policies["fs.race.rename-ancestor"] == {"workspace-deny-read"}
    assert policies["proxy.connect"] == {"network-proxy"}
    assert policies["fs.write.create"] == {"workspace-write", "network-full"}
