"""The CLI as a user meets it: list, schema errors, --only with controls, results files, hostile output,
help footers, "did you mean", colour, progress in a log, plain parse errors."""
import json
import os
import re
import subprocess
import xml.etree.ElementTree as ET

import pytest

from conftest import FIXTURES, REPO


def run_cli(breakout_bin, *args, timeout=300):
    return subprocess.run([str(breakout_bin), *args], capture_output=True, text=True, timeout=timeout,
                          errors="replace")


def test_list_names_suites_probes_and_spawners(breakout_bin):
    p = run_cli(breakout_bin, "list")
    assert p.returncode == 0, p.stderr
    for word in ["default", "fs.write.create", "fs-write", "spawn-escape", "none", "bwrap", "firejail"]:
        assert word in p.stdout, word
    assert "(not built)" not in p.stdout


def test_schema_error_is_exit_2_with_the_code(breakout_bin, tmp_path):
    suite = tmp_path / "bad.toml"
    suite.write_text('name = "bad"\ndescription = "d"\npolicies = ["workspace-write"]\ninclude = ["x.attempts"]\n')
    (tmp_path / "x.attempts").write_text((REPO / "scenarios/fixtures/invalid/attempts/unknown-field.toml").read_text())
    p = run_cli(breakout_bin, "run", "--spawner", "none", "--suite", str(suite), "--out", str(tmp_path / "o"))
    assert p.returncode == 2
    assert "[unknown-field]" in p.stderr


def test_unknown_spawner_is_exit_2(breakout_bin, tmp_path):
    p = run_cli(breakout_bin, "run", "--spawner", "no-such-sandbox", "--out", str(tmp_path))
    assert p.returncode == 2
    assert "no-such-sandbox" in p.stderr


@pytest.fixture(scope="module")
def only_run(run_breakout):
    return run_breakout("--spawner", "none", "--only", "fs.write.create@workspace-write[fs:sibling/new-file]",
                        "--no-external")


def test_only_pulls_in_the_controls(only_run):
    ids = {a["id"] for a in only_run.attempts}
    assert "fs.write.create@workspace-write[fs:workspace/new-file]" in ids
    assert all(i.startswith("fs.write.create@workspace-write") for i in ids)


def test_results_and_junit_agree(only_run):
    r = only_run.results
    assert r["schema"] == "breakout.results/1"
    for key in ["id", "class", "policy", "expected", "verdict", "evidence", "probe_report", "duration_ms",
                "probe_argv", "spawner_argv"]:
        assert key in r["attempts"][0]
    tree = ET.parse(only_run.out_dir / "junit.xml")
    cases = tree.getroot().findall(".//testcase")
    assert len(cases) == len(r["attempts"])
    failures = tree.getroot().findall(".//failure")
    assert len(failures) == r["summary"]["escape"] + r["summary"]["overblock"] + r["summary"]["broken"]
    assert r["summary"]["escape"] >= 1


def test_summary_names_the_results_path(only_run):
    assert str(only_run.out_dir / "results.json") in only_run.stdout


def test_sandbox_that_blocks_everything_never_passes(run_breakout):
    run = run_breakout("--spawner", str(FIXTURES / "blocks-everything.toml"), "--no-external")
    assert run.returncode == 1, run.stderr[-2000:]
    assert not run.by_verdict("pass"), run.explain(run.by_verdict("pass"))
    assert run.by_verdict("overblock") and run.by_verdict("error") and run.by_verdict("broken")


def test_hostile_output_stays_inert(run_breakout):
    run = run_breakout("--spawner", str(FIXTURES / "hostile-output.toml"), "--only", "contract.exit-code@*",
                       "--no-external")
    assert run.results is not None, run.stderr
    raw_json = (run.out_dir / "results.json").read_text()
    assert "\x1b" not in raw_json
    assert "<script>" in run.attempts[0]["stdout_excerpt"]  # shown as text in JSON...
    xml_text = (run.out_dir / "junit.xml").read_text()
    ET.fromstring(xml_text)  # ...and the XML still parses
    assert "<injected/>" not in xml_text
    assert "\x1b" not in run.stdout
    # The fake report line cannot change the verdict: the exit code decides the contract.
    assert run.attempts[0]["verdict"] == "pass"


# --- command-line conventions: help, "did you mean", colour, progress in a log, plain parse errors ---

def subcommands(breakout_bin):
    """The subcommands `breakout --help` lists (so a new one without a help footer fails below)."""
    p = run_cli(breakout_bin, "--help")
    assert p.returncode == 0, p.stderr
    lines = p.stdout.split("Subcommands:", 1)[1].splitlines()
    names = [line.split()[0] for line in lines if line.startswith("  ") and line.split()]
    assert {"list", "run", "listen", "merge", "diff", "history", "report", "baseline", "bench", "repro"} <= set(names)
    return names


def test_every_help_has_an_example_and_the_exit_statuses(breakout_bin):
    for args in [[]] + [[name] for name in subcommands(breakout_bin)]:
        p = run_cli(breakout_bin, *args, "--help")
        assert p.returncode == 0, (args, p.stderr)
        assert "Example" in p.stdout, args
        assert "Exit status" in p.stdout, args


def test_report_no_history_says_it_stops_reading(breakout_bin):
    p = run_cli(breakout_bin, "report", "--help")
    line = next(line for line in p.stdout.splitlines() if "--no-history" in line)
    assert "do not read the history" in line and "record" not in line, line


def test_unknown_command_suggests_the_nearest(breakout_bin):
    p = run_cli(breakout_bin, "rnu")
    assert p.returncode == 2
    assert "did you mean 'run'?" in p.stderr, p.stderr
    assert "list, run, listen" in p.stderr, p.stderr
    # A top-level option's value is not taken for the command.
    p = run_cli(breakout_bin, "--scenarios", str(REPO / "scenarios"), "lsit")
    assert p.returncode == 2
    assert "unknown command 'lsit'; did you mean 'list'?" in p.stderr, p.stderr


def test_unknown_spawner_and_suite_suggest_the_nearest(breakout_bin, tmp_path):
    p = run_cli(breakout_bin, "run", "--spawner", "bwarp", "--out", str(tmp_path / "o"))
    assert p.returncode == 2
    assert "did you mean 'bwrap'?" in p.stderr, p.stderr
    assert "valid: none, " in p.stderr and "firejail" in p.stderr, p.stderr
    p = run_cli(breakout_bin, "run", "--spawner", "none", "--suite", "defualt", "--out", str(tmp_path / "o"))
    assert p.returncode == 2
    assert "did you mean 'default'?" in p.stderr, p.stderr
    assert "proxy" in p.stderr, p.stderr  # the valid suites are listed
    p = run_cli(breakout_bin, "list", "--suite", "defualt")
    assert p.returncode == 2 and "did you mean 'default'?" in p.stderr, p.stderr


ONE_GROUP = ["--spawner", "none", "--only", "fs.write.create@workspace-write[fs:sibling/new-file]", "--no-external"]


def test_summary_in_a_pipe_has_no_colour_unless_asked(only_run, run_breakout):
    assert only_run.results["summary"]["escape"] >= 1  # what would be painted
    assert "\x1b" not in only_run.stdout
    painted = run_breakout(*ONE_GROUP, "--color=always")
    assert painted.returncode == 3, painted.stderr[-2000:]
    assert "\x1b[1;31m" in painted.stdout and "\x1b[0m" in painted.stdout
    never = run_breakout(*ONE_GROUP, "--color", "never")
    assert never.returncode == 3 and "\x1b" not in never.stdout


def run_on_a_terminal(breakout_bin, args, env):
    """`breakout ARGS` with stdout on a pseudo-terminal (stderr a pipe); returns (status, stdout text)."""
    import pty
    master, slave = pty.openpty()
    try:
        proc = subprocess.Popen([str(breakout_bin), *args], stdout=slave, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL,
                                env={**os.environ, **env})
    finally:
        os.close(slave)
    out = b""
    try:
        while True:
            try:
                chunk = os.read(master, 65536)
            except OSError:  # EIO: the terminal's last writer is gone
                break
            if not chunk:
                break
            out += chunk
        proc.stderr.read()
        return proc.wait(timeout=300), out.decode(errors="replace")
    finally:
        os.close(master)
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_summary_on_a_terminal_is_coloured_unless_no_color(breakout_bin, only_run, tmp_path):
    # merge prints the same summary as run; the shard is the run above (an escape in it).
    env = {"TERM": "xterm"}
    rc, out = run_on_a_terminal(breakout_bin, ["merge", "--no-history", str(tmp_path / "m1"), str(only_run.out_dir)],
                                {**env, "NO_COLOR": ""})
    assert rc == 3, out
    assert "\x1b[1;31m" in out, out
    rc, out = run_on_a_terminal(breakout_bin, ["merge", "--no-history", str(tmp_path / "m2"), str(only_run.out_dir)],
                                {**env, "NO_COLOR": "1"})
    assert rc == 3, out
    assert "escape" in out and "\x1b" not in out, out


PROGRESS = re.compile(r"^breakout: progress: \d+/(\d+) executions done, \d+ escapes? so far, \d+:\d\d elapsed$", re.M)


def test_a_run_into_a_log_prints_progress_lines(run_breakout):
    # BREAKOUT_PROGRESS_INTERVAL_S is the test hook for the 10 s interval. The attempt lasts by design
    # (its policy timeout of 1.5 s has to pass, and more while the tree is checked), however fast the
    # machine: fs.write.create once took 0.2 s for all 8 executions and printed no line.
    run = run_breakout("--spawner", "none", "--only", "lifetime.timeout-tree-kill", "--no-external", "--jobs", "1",
                       env={"BREAKOUT_PROGRESS_INTERVAL_S": "0.2"})
    assert run.results is not None, run.stderr[-2000:]
    assert run.results["run"]["wall_seconds"] > 1.5, "the run was too short to show a progress line"
    lines = PROGRESS.findall(run.stderr)
    assert lines, run.stderr[-2000:]
    assert all(int(total) == len(run.attempts) for total in lines)
    assert "\r" not in run.stderr and "\x1b" not in run.stderr  # no terminal counter in a log


def crafted_results(tmp_path):
    bad = tmp_path / "results.json"
    # A run id holding a terminal escape (OSC title) and a raw BEL, then JSON that stops mid-object.
    bad.write_bytes(b'{"schema": "breakout.results/1",\n "run": {"id": "\x1b]0;owned\x07", "suite": ')
    return bad


def assert_plain(p, path):
    assert p.returncode == 2, p.stderr
    assert f"{path}: not valid JSON at line 2, column " in p.stderr, p.stderr
    assert "json.exception" not in p.stderr and "parse_error" not in p.stderr, p.stderr
    assert not any(ord(c) < 0x20 and c not in "\n\t" for c in p.stderr), repr(p.stderr)


def test_a_crafted_results_file_gets_a_plain_message(breakout_bin, tmp_path):
    bad = crafted_results(tmp_path)
    p = run_cli(breakout_bin, "report", str(bad), "--out", str(tmp_path / "r.html"), "--no-history")
    assert_plain(p, bad)
    assert "control character U+001B" in p.stderr, p.stderr
    p = run_cli(breakout_bin, "baseline", str(bad), "--out", str(tmp_path / "b.json"))
    assert_plain(p, bad)
    p = run_cli(breakout_bin, "diff", "--baseline", str(bad), str(bad))
    assert_plain(p, bad)
    # Valid JSON whose content is hostile: the message that quotes it is escaped too.
    odd = tmp_path / "odd.json"
    odd.write_text(json.dumps({"schema": "breakout.results/1", "run": {},
                               "attempts": [{"id": "\x1b[2J\x1b]0;owned\x07", "verdict": "maybe"}]}))
    p = run_cli(breakout_bin, "report", str(odd), "--out", str(tmp_path / "r2.html"), "--no-history")
    assert p.returncode == 2
    assert "unknown verdict" in p.stderr and "\\x1b[2J" in p.stderr, p.stderr
    assert "\x1b" not in p.stderr and "\x07" not in p.stderr, repr(p.stderr)
