"""The installed breakout (cmake --install, the .deb and .tar.gz CPack builds): it finds its data and
probes relative to itself from any cwd, and judges a suite exactly as the build tree does."""
import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import REPO, require_root_tool

PROBE = "breakout-probe-noop"


@pytest.fixture(scope="module")
def build_dir(breakout_bin):
    build = breakout_bin.resolve().parent.parent
    if not (build / "CMakeCache.txt").exists():
        pytest.fail(f"{breakout_bin} is not in a CMake build tree ({build} has no CMakeCache.txt)")
    return build


@pytest.fixture(scope="module")
def prefix(build_dir, tmp_path_factory):
    root = tmp_path_factory.mktemp("prefix")
    proc = subprocess.run(["cmake", "--install", str(build_dir), "--prefix", str(root), "--component", "runtime"],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return root


def breakout(binary, *args, cwd, env=None, timeout=120):
    # Nothing of the source tree on the way: an empty cwd, and a PATH without the build.
    return subprocess.run([str(binary), *args], capture_output=True, text=True, cwd=cwd, timeout=timeout,
                          errors="replace", env={**os.environ, **(env or {})})


def test_layout(prefix):
    assert (prefix / "bin" / "breakout").is_file()
    assert (prefix / "libexec" / "breakout" / PROBE).is_file()
    assert not (prefix / "bin" / PROBE).exists(), "probes must stay off the user's PATH"
    for d in ("scenarios/suites", "scenarios/policies", "spawners", "drivers/python/breakout_driver"):
        assert (prefix / "share" / "breakout" / d).is_dir(), d
    assert (prefix / "share" / "breakout" / "spawners" / "bwrap.toml").is_file()
    assert not list((prefix / "share" / "breakout").rglob("node_modules")), "npm installs are never packaged"
    assert (prefix / "share" / "doc" / "breakout" / "results.md").is_file()


def test_finds_its_data_from_any_cwd(prefix, tmp_path):
    proc = breakout(prefix / "bin" / "breakout", "list", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert f"Data (installed): {prefix / 'share' / 'breakout'}" in proc.stdout
    assert f"Probes ({prefix / 'libexec' / 'breakout'})" in proc.stdout
    assert "(not built)" not in proc.stdout, proc.stdout


def test_breakout_data_overrides(prefix, tmp_path):
    data = tmp_path / "data"
    shutil.copytree(prefix / "share" / "breakout" / "scenarios", data / "scenarios")
    shutil.copytree(prefix / "share" / "breakout" / "spawners", data / "spawners")
    proc = breakout(prefix / "bin" / "breakout", "list", cwd=tmp_path, env={"BREAKOUT_DATA": str(data)})
    assert proc.returncode == 0, proc.stderr
    assert f"Data (BREAKOUT_DATA): {data}" in proc.stdout


def verdicts(results_dir):
    doc = json.loads((Path(results_dir) / "results.json").read_text())
    return {a["id"]: a["verdict"] for a in doc["attempts"]}


def test_installed_run_judges_as_the_build_tree(prefix, tmp_path, run_breakout):
    require_root_tool("bwrap")
    built = run_breakout("--spawner", "bwrap")  # the build tree's run (shared with test_bwrap.py)
    assert built.results, built.stderr
    proc = breakout(prefix / "bin" / "breakout", "run", "--spawner", "bwrap", "--no-history", "--out", "out",
                    cwd=tmp_path, timeout=600)
    assert proc.returncode == built.returncode, proc.stderr[-2000:]
    assert verdicts(tmp_path / "out") == {a["id"]: a["verdict"] for a in built.attempts}


@pytest.fixture(scope="module")
def packages(build_dir, tmp_path_factory):
    if shutil.which("cpack") is None or shutil.which("dpkg-deb") is None:
        pytest.skip("cpack or dpkg-deb not installed")
    out = tmp_path_factory.mktemp("packages")
    proc = subprocess.run(["cpack", "-G", "DEB;TGZ", "-B", str(out), "--config", str(build_dir / "CPackConfig.cmake")],
                          capture_output=True, text=True, timeout=600, cwd=build_dir)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    debs, tgzs = list(out.glob("*.deb")), list(out.glob("*.tar.gz"))
    assert len(debs) == 1 and len(tgzs) == 1, list(out.iterdir())
    return debs[0], tgzs[0]


def test_deb_declares_its_dependencies(packages):
    deb, _ = packages
    fields = subprocess.run(["dpkg-deb", "-f", str(deb), "Package", "Depends", "Recommends"],
                            capture_output=True, text=True, check=True).stdout
    assert "Package: breakout" in fields
    for dep in ("libc6", "libstdc++6", "libsqlite3-0", "python3"):
        assert dep in fields, fields
    assert "bubblewrap" in fields, fields


def test_deb_and_tgz_run_where_they_are_unpacked(packages, tmp_path):
    deb, tgz = packages
    root = tmp_path / "deb"
    subprocess.run(["dpkg-deb", "-x", str(deb), str(root)], check=True, timeout=120)
    (tmp_path / "tgz").mkdir()
    subprocess.run(["tar", "-xzf", str(tgz), "-C", str(tmp_path / "tgz")], check=True, timeout=120)
    (top,) = list((tmp_path / "tgz").iterdir())
    for binary in (root / "usr" / "bin" / "breakout", top / "bin" / "breakout"):
        proc = breakout(binary, "list", cwd=tmp_path)
        assert proc.returncode == 0, proc.stderr
        assert "Data (installed)" in proc.stdout and "(not built)" not in proc.stdout, proc.stdout
