"""Synthetic results.json files for the gate's tests (diff, baseline, ci/gate.sh): no sandbox needed.

`base_attempts()` is a small run: two denials that pass, their control, an accepted-looking escape and a skip.
`write_results(path, attempts, **run)` writes a breakout.results/1 document; `run` overrides the identity
(spawner, version, suite, policies, platform) and may set interrupted=True (top-level "interrupted": true).
"""
import copy
import json

IDENTITY = {"spawner": "bwrap", "version": "bubblewrap 0.8.0", "suite": "default",
            "policies": ["workspace-write", "read-only"], "platform": "linux"}


def attempt(exec_id, verdict, reason="because"):
    group = exec_id.split("[", 1)[0]
    attempt_id, policy = group.split("@", 1)
    return {"id": exec_id, "group": group, "attempt": attempt_id, "title": attempt_id, "class": "fs-write",
            "policy": policy, "target": exec_id[len(group) + 1:-1] if "[" in exec_id else "", "role": "deny",
            "expected": "denied", "expected_why": "synthetic", "verdict": verdict, "reason": reason,
            "evidence": {}, "exit": {"spawn_ms": 2.0}, "duration_ms": 10.0}


def base_attempts():
    return [attempt("fs.write.create@workspace-write[fs:sibling/a]", "pass"),
            attempt("fs.write.create@workspace-write[fs:parent/b]", "pass"),
            attempt("fs.write.create@workspace-write[fs:workspace/c]", "pass"),
            attempt("fs.write.delete@read-only[fs:sibling/d]", "escape", "known: accepted"),
            attempt("fs.write.mkfifo@read-only[fs:sibling/e]", "skip", "not applicable here")]


def results_doc(attempts, interrupted=None, run_id="20260101T000000Z-aaaaaa", **identity):
    ident = dict(IDENTITY, **identity)
    summary = {v: 0 for v in ["pass", "escape", "overblock", "broken", "error", "skip"]}
    for a in attempts:
        summary[a["verdict"]] += 1
    doc = {"schema": "breakout.results/1",
           "run": {"id": run_id, "suite": ident["suite"], "policies": ident["policies"],
                   "spawner": {"name": ident["spawner"], "version": ident["version"], "description": "", "notes": "",
                               "arg": ident["spawner"]},
                   "suite_arg": ident["suite"], "commit": "0123456789ab", "shard": None, "merged_from": [],
                   "breakout_version": "0.1.0", "platform": ident["platform"], "kernel": "6.1.0", "host": "h",
                   "started": "2026-01-01T00:00:00Z", "finished": "2026-01-01T00:00:01Z", "wall_seconds": 1.0,
                   "jobs": 1},
           "summary": summary, "exit_status": 0, "attempts": copy.deepcopy(attempts)}
    if interrupted is not None:
        doc["interrupted"] = interrupted
    return doc


def write_results(path, attempts, **run):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(results_doc(attempts, **run)))
    return path


def with_verdict(attempts, index, verdict, reason="changed"):
    out = copy.deepcopy(attempts)
    out[index]["verdict"] = verdict
    out[index]["reason"] = reason
    return out


# The lost-coverage cases of the gate: name -> (NEW attempts, NEW run overrides, what the reason says).
# Each is measured against base_attempts() with IDENTITY.
def lost_coverage_cases():
    base = base_attempts()
    return {
        "pass-to-skip": (with_verdict(base, 0, "skip"), {}, "1 skip"),
        "pass-to-error": (with_verdict(base, 0, "error"), {}, "1 error"),
        "missing-execution": (base[1:], {}, "1 missing"),
        "other-spawner": (base, {"spawner": "firejail", "version": "firejail 0.9.72"}, "the spawner differs"),
        "other-version": (base, {"version": "bubblewrap 0.9.0"}, "the spawner version differs"),
        "other-suite": (base, {"suite": "network"}, "the suite differs"),
        "other-policy-set": (base, {"policies": ["workspace-write"]}, "the policy set differs"),
        "other-platform": (base, {"platform": "windows"}, "the platform differs"),
        "nothing-judged": ([dict(a, verdict="skip") for a in base], {}, "nothing was judged in NEW"),
        "zero-executions": ([], {}, "it has no executions"),
        "interrupted-new": (base, {"interrupted": True}, "NEW is an interrupted run"),
    }


# The --allow-change field that waives each identity case.
ALLOW_FOR = {"other-spawner": "spawner", "other-version": "version", "other-suite": "suite",
             "other-policy-set": "policies", "other-platform": "platform"}
