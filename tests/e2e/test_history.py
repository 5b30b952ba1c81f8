"""History: runs and merges are recorded where --history says (never the real HOME); history lists them; diff takes run ids."""
import os
import subprocess

from conftest import FIXTURES


def run_cli(breakout_bin, *args, env=None, timeout=300):
    return subprocess.run([str(breakout_bin), *args], capture_output=True, text=True, timeout=timeout,
                          errors="replace", env=env)


def test_runs_are_recorded_and_diffable_by_id(breakout_bin, run_breakout, tmp_path):
    db = tmp_path / "h" / "history.sqlite"
    a = run_breakout("--spawner", "none", "--only", "fs.write.create*", "--no-external", "--history", str(db))
    b = run_breakout("--spawner", str(FIXTURES / "blocks-everything.toml"), "--only", "fs.write.create*",
                     "--no-external", "--history", str(db))
    assert a.results and b.results, a.stderr + b.stderr
    assert db.exists()
    p = run_cli(breakout_bin, "history", "--history", str(db), "--trend", "none")
    assert p.returncode == 0, p.stderr
    ids = [a.results["run"]["id"], b.results["run"]["id"]]
    for run_id in ids:
        assert run_id in p.stdout
    assert "Escapes per run of none" in p.stdout
    # Run ids resolve through the history: none had escapes; blocks-everything broke the controls, so its
    # denials are errors: judged nothing, fixed nothing. That is lost coverage (5), and another spawner too.
    p = run_cli(breakout_bin, "diff", "--history", str(db), ids[0], ids[1])
    assert p.returncode == 5, p.stdout + p.stderr
    assert "Fixed escapes (0)" in p.stdout
    assert "the spawner differs: 'none' in BASE, 'blocks-everything' in NEW" in p.stdout, p.stdout
    assert "not judged in NEW (" in p.stdout and " error;" in p.stdout, p.stdout


def test_default_location_follows_xdg_state_home(breakout_bin, tmp_path):
    env = dict(os.environ, XDG_STATE_HOME=str(tmp_path / "state"), HOME=str(tmp_path / "home"))
    p = run_cli(breakout_bin, "run", "--spawner", "none", "--only", "contract.exit-code*", "--no-external",
                "--out", str(tmp_path / "out"), env=env)
    assert p.returncode in (0, 3), p.stderr
    assert (tmp_path / "state" / "breakout" / "history.sqlite").exists()
    assert not (tmp_path / "home").exists()
