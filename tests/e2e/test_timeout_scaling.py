"""timeout-kill against a spawner whose start-up outlasts the attempt's timeout.

lifetime.timeout-tree-kill asks for 1.5 s; srt takes 2-4 s to start on two loaded cores. Killed
before the probe's beater started, the spawner was never tested on the tree kill: that used to
come out as `error` ("probe broken") on one run and as the real verdict on the next. The oracle
now doubles the timeout (at most four times) until the beater has started before the kill, and says so
in the evidence.
"""
from conftest import FIXTURES, require_root_tool

ID = "lifetime.timeout-tree-kill@workspace-write"


def test_the_timeout_is_raised_until_the_probe_started(run_breakout):
    require_root_tool("sh")  # the attempt's containment (cgroup) needs root
    run = run_breakout("--spawner", str(FIXTURES / "slow-start.toml"), "--suite", "default",
                       "--only", "lifetime.timeout-tree-kill")
    assert run.results is not None, run.stderr[-2000:]
    [a] = [a for a in run.attempts if a["id"] == ID]
    # No isolation: the signal-ignoring tree outlives the killed spawner, as under `none`.
    assert a["verdict"] == "escape", run.explain([a])
    rounds = a["evidence"]["timeout_rounds"]
    assert rounds[0] == {"timeout_ms": 1500, "timed_out": True, "beater_started": False}, rounds
    assert rounds[-1]["beater_started"] and rounds[-1]["timeout_ms"] > 2000, rounds
