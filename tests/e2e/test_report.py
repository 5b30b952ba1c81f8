"""breakout report in a real browser: headless Chromium opens the file from disk; hostile output stays text."""
import json
import os
import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import pytest

from conftest import FIXTURES, REPO

CHROMIUM = "/usr/bin/chromium"
ARTIFACTS = REPO / "build" / "test-artifacts"


def run_cli(breakout_bin, *args, timeout=300):
    return subprocess.run([str(breakout_bin), *args], capture_output=True, text=True, timeout=timeout,
                          errors="replace")


class Dom(HTMLParser):
    """The elements and the text of a serialised DOM."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.tags, self.cells, self.text = [], [], []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.tags.append(tag)
        if tag == "td" and "cell" in (a.get("class") or "").split():
            self.cells.append(a)

    def handle_data(self, data):
        self.text.append(data)


def chromium(html, tmp_path, *mode):
    if not os.path.exists(CHROMIUM):
        pytest.skip("chromium is not installed (ci/setup.sh installs it)")
    profile = tmp_path / f"profile-{len(list(tmp_path.iterdir()))}"
    cmd = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
           "--disable-background-networking", "--disable-component-update", "--disable-sync",
           f"--user-data-dir={profile}", "--enable-logging=stderr", "--v=0", *mode, html.as_uri()]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=120, errors="replace")


@pytest.fixture(scope="module")
def report(breakout_bin, run_breakout, tmp_path_factory):
    tmp = tmp_path_factory.mktemp("report")
    db = tmp / "history.sqlite"
    # Two bench runs of the same spawner in the same history: the report's bench section and latency trend.
    for i in range(2):
        b = run_cli(breakout_bin, "bench", "--spawner", str(FIXTURES / "hostile-output.toml"), "--only",
                    "spawn/hostile-output", "--min-time", "0.02", "--repetitions", "3", "--budget", "5",
                    "--history", str(db), "--out", str(tmp / f"bench-{i}.json"), timeout=120)
        assert b.returncode == 0, b.stdout[-2000:] + b.stderr[-2000:]
    run = run_breakout("--spawner", str(FIXTURES / "hostile-output.toml"), "--only", "fs.write.create*",
                       "--no-external", "--history", str(db))
    assert run.returncode == 3, run.stderr[-2000:]
    html, md = tmp / "report.html", tmp / "summary.md"
    p = run_cli(breakout_bin, "report", str(run.out_dir), "--out", str(html), "--markdown", str(md),
                "--history", str(db))
    assert p.returncode == 0, p.stderr
    return run, html, md, tmp


def test_report_is_self_contained(report):
    _, html, _, _ = report
    text = html.read_text()
    assert "<script" not in text.lower()
    for ref in ["http://", "https://", "src=", "@import", "url("]:
        assert ref not in text, ref


def test_report_renders_with_matrix_and_no_injection(report):
    run, html, _, tmp = report
    p = chromium(html, tmp, "--dump-dom")
    assert p.returncode == 0, p.stderr[-3000:]
    dom = Dom()
    dom.feed(p.stdout)
    # The matrix: fs-write under both policies has escapes, so those cells carry the escape class.
    cells = {(c.get("data-class"), c.get("data-policy")): c["class"].split() for c in dom.cells}
    for policy in run.results["run"]["policies"]:
        assert "verdict-escape" in cells[("fs-write", policy)], cells
    # Hostile output: the fixture's markup is text in the DOM, never an element.
    assert "script" not in dom.tags and "injected" not in dom.tags
    text = "".join(dom.text)
    assert "<script>alert(1)</script>" in text
    assert "&amp;" in text  # the entity the sandbox printed, shown as the five characters it sent
    hostile = str(FIXTURES / "hostile-output.toml")
    assert f"breakout run --spawner '{hostile}' --suite 'default' --only 'fs.write.create@" in text
    assert "Escapes (%d)" % len(run.by_verdict("escape")) in text
    # No console errors from the page (an inline script or a CSP violation would log one).
    bad = [l for l in p.stderr.splitlines() if "Uncaught" in l or "CONSOLE" in l]
    assert not bad, bad


def test_report_screenshot_is_kept(report):
    _, html, _, tmp = report
    shot = tmp / "report.png"
    p = chromium(html, tmp, f"--screenshot={shot}", "--window-size=1280,2000")
    assert p.returncode == 0 and shot.exists() and shot.stat().st_size > 10000, p.stderr[-3000:]
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    shutil.copy(shot, ARTIFACTS / "report.png")
    shutil.copy(html, ARTIFACTS / "report.html")


def test_markdown_summary_escapes_hostile_text(report, tmp_path):
    run, _, md, _ = report
    text = md.read_text()
    assert "| pass | escape | overblock | broken | error | skip |" in text
    assert "<" not in text.replace("&lt;", "")
    assert f"reproduce: `breakout run --spawner '{FIXTURES / 'hostile-output.toml'}'" in text


def test_report_trend_comes_from_history(report):
    _, html, _, _ = report
    assert 'class="trend"' in html.read_text()


def test_report_shows_the_bench_run_and_latency_trend_from_history(report, breakout_bin):
    run, html, md, tmp = report
    p = chromium(html, tmp, "--dump-dom")
    assert p.returncode == 0, p.stderr[-3000:]
    dom = p.stdout
    newest = json.loads((tmp / "bench-1.json").read_text())["run"]["id"]
    assert 'class="bench-table"' in dom and 'class="bench-chart"' in dom and 'class="latency-trend"' in dom
    assert newest in dom  # the newest bench run of this spawner is the one shown
    assert "spawn/hostile-output" in dom and "spawn/raw" in dom
    assert "### Spawn latency (bench run" in md.read_text()


def test_diff_takes_bench_run_ids_from_history(report, breakout_bin):
    _, _, _, tmp = report
    db = tmp / "history.sqlite"
    ids = [json.loads((tmp / f"bench-{i}.json").read_text())["run"]["id"] for i in range(2)]
    p = run_cli(breakout_bin, "diff", *ids, "--history", str(db))
    # Three repetitions are too few for the U test: no verdict, and the gate passes without claiming a result.
    assert p.returncode == 0, p.stdout + p.stderr
    assert "breakout bench compare" in p.stdout and "not enough samples" in p.stdout
    mixed = run_cli(breakout_bin, "diff", ids[0], str(tmp / "bench-1.json") + ".missing", "--history", str(db))
    assert mixed.returncode == 2 and "is a bench run but" in mixed.stderr


def test_reproduce_command_names_a_relative_profile_by_its_absolute_path(breakout_bin, tmp_path):
    rel = os.path.relpath(FIXTURES / "hostile-output.toml", REPO)
    p = subprocess.run([str(breakout_bin), "run", "--spawner", rel, "--only", "fs.write.create*", "--no-external",
                        "--no-history", "--out", str(tmp_path / "out")], cwd=REPO, capture_output=True, text=True,
                       timeout=300, errors="replace")
    assert p.returncode == 3, p.stderr[-2000:]
    run = json.loads((tmp_path / "out" / "results.json").read_text())["run"]
    assert run["spawner"]["arg"] == str(FIXTURES / "hostile-output.toml")
    assert run["suite_arg"] == "default"  # a suite name stays a name


def test_run_writes_the_report_and_the_summary_beside_its_results(run_breakout):
    """`breakout run` leaves report.html and summary.md next to results.json, of the same run."""
    run = run_breakout("--spawner", "none", "--only", "fs.write.create*")
    assert run.results is not None, run.stderr[-2000:]
    html = (run.out_dir / "report.html").read_text()
    summary = (run.out_dir / "summary.md").read_text()
    assert run.results["run"]["id"] in html, html[:500]
    escapes = run.by_verdict("escape")
    assert escapes and all(a["id"] in html for a in escapes)
    assert "escape" in summary and escapes[0]["id"] in summary, summary[:800]
    assert "report.html" in run.stdout
