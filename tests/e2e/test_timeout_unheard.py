"""An execution the harness killed at the policy's timeout before the probe said anything was not
judged: for an allowed execution that is `error` with the reason, never `overblock` (nothing shows
the sandbox blocked it), and the denials it controls are `error` too, never `pass`."""
from conftest import FIXTURES, require_root_tool


def test_a_control_killed_before_the_probe_spoke_is_not_an_overblock(run_breakout):
    require_root_tool("sh")  # the attempt's containment (cgroup) needs root
    run = run_breakout("--spawner", str(FIXTURES / "stalls.toml"), "--suite", "default",
                       "--only", "fs.write.create", "--jobs", "8", timeout=300)
    assert run.results is not None, run.stderr[-2000:]
    allowed = [a for a in run.attempts if a["role"] == "allow"]
    denied = [a for a in run.attempts if a["role"] == "deny"]
    assert allowed and denied, run.explain(run.attempts)
    for a in allowed:
        assert a["exit"]["timed_out"] and a["probe_report"] is None, run.explain([a])
        assert a["verdict"] == "error", run.explain([a])
        assert a["reason"].startswith("not judged: killed at the policy's timeout after "), run.explain([a])
    for a in denied:
        assert a["verdict"] == "error", run.explain([a])
