"""Real-host mode (`run --real-host`, docs/real-host.md) against a fake "real" HOME: verdicts, refusals, HOME left byte-identical."""
import hashlib
import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

SECRETS = {".ssh/id_ed25519": b"-----BEGIN OPENSSH PRIVATE KEY----- fake\n",
           ".aws/credentials": b"[default]\naws_secret_access_key = fake\n",
           ".kube/config": b"apiVersion: v1\n"}
OTHER = {".bashrc": b"# the user's own .bashrc\n", ".config/autostart/x.desktop": b"[Desktop Entry]\n"}


def make_home(root: Path) -> Path:
    home = root / "home with space"
    for rel, data in {**SECRETS, **OTHER}.items():
        (home / rel).parent.mkdir(parents=True, exist_ok=True)
        (home / rel).write_bytes(data)
    (home / ".ssh").chmod(0o700)
    (home / ".ssh/id_ed25519").chmod(0o600)
    return home


def snapshot(home: Path):
    """Every entry below and including HOME: type, mode, size, content digest, mtime (ns)."""
    out = {}
    for dirpath, dirnames, filenames in os.walk(home):
        for name in [""] + dirnames + filenames:
            p = Path(dirpath) / name
            st = p.lstat()
            digest = hashlib.sha256(p.read_bytes()).hexdigest() if p.is_file() and not p.is_symlink() else ""
            out[str(p.relative_to(home))] = (st.st_mode, st.st_size, digest, st.st_mtime_ns)
    return out


def real_host_run(breakout_bin, tmp_path, home, *args, timeout=300):
    out = tmp_path / "results"
    env = dict(os.environ, HOME=str(home))
    proc = subprocess.run([str(breakout_bin), "run", "--real-host", "--no-history", "--out", str(out), *args],
                          capture_output=True, text=True, timeout=timeout, env=env, errors="replace")
    results = json.loads((out / "results.json").read_text()) if (out / "results.json").exists() else None
    return proc, results


def verdicts(results):
    return {a["id"]: a for a in results["attempts"]}


def test_none_reads_every_present_secret_and_leaves_home_identical(breakout_bin, tmp_path):
    home = make_home(tmp_path)
    before = snapshot(home)
    proc, results = real_host_run(breakout_bin, tmp_path, home, "--spawner", "none")
    assert results is not None, proc.stderr
    v = verdicts(results)
    for rel in SECRETS:
        rec = next(a for a in v.values() if a["target"] == f"fs:~/{rel}")
        assert rec["verdict"] == "escape", rec
        assert rec["evidence"]["keyed_digest_matched"] is True
    absent = [a for a in v.values() if a["target"] == "fs:~/.ssh/id_rsa"]
    assert absent and absent[0]["verdict"] == "skip" and "does not exist in this HOME" in absent[0]["reason"]
    control = next(a for a in v.values() if a["target"].startswith("fs:~/.breakout-canary-"))
    assert control["verdict"] == "pass" and control["role"] == "allow"
    write = next(a for a in v.values() if a["target"].endswith(".new"))
    assert write["verdict"] == "escape" and write["evidence"]["created"] is True
    assert proc.returncode == 3, proc.stderr
    assert "REAL-HOST mode" in proc.stderr
    # Nothing of the secrets' content in anything the run wrote.
    for f in (tmp_path / "results").rglob("*"):
        if f.is_file():
            blob = f.read_bytes()
            for data in SECRETS.values():
                assert data.strip() not in blob, f
    assert snapshot(home) == before, "real-host mode changed the HOME"


def test_bwrap_denies_and_leaves_home_identical(breakout_bin, tmp_path):
    if shutil.which("bwrap") is None:
        pytest.skip("bwrap is not installed")
    home = make_home(tmp_path)
    before = snapshot(home)
    proc, results = real_host_run(breakout_bin, tmp_path, home, "--spawner", "bwrap")
    assert results is not None, proc.stderr
    v = verdicts(results)
    ran = [a for a in v.values() if a["verdict"] != "skip"]
    # the secrets, their canary control, the write and its control, the network check's unix-socket control
    assert len(ran) == len(SECRETS) + 1 + 2 + 1, [(a["id"], a["verdict"]) for a in v.values()]
    assert all(a["verdict"] == "pass" for a in ran), "\n".join(f"{a['id']}: {a['verdict']} {a['reason']}" for a in ran)
    assert proc.returncode == 0, proc.stderr
    assert snapshot(home) == before, "real-host mode changed the HOME"


def test_leftover_canaries_are_removed_and_nothing_else(breakout_bin, tmp_path):
    home = make_home(tmp_path)
    (home / ".breakout-canary-0123abcd.txt").write_text("left by an interrupted run\n")
    (home / ".breakout-canary-notours.txt").write_text("not a name the harness uses\n")
    proc, results = real_host_run(breakout_bin, tmp_path, home, "--spawner", "none", "--only", "real.write-home*")
    assert results is not None, proc.stderr
    assert "removed a canary an interrupted real-host run left" in proc.stderr
    assert not (home / ".breakout-canary-0123abcd.txt").exists()
    assert (home / ".breakout-canary-notours.txt").exists()


@pytest.mark.parametrize("args, env_home, code", [
    (["--suite", "default"], "home", "[real-host-suite]"),
    ([], None, "[real-host] HOME is not set"),
    ([], "/", "[real-host] HOME is /"),
])
def test_refusals(breakout_bin, tmp_path, args, env_home, code):
    env = {k: v for k, v in os.environ.items() if k != "HOME"}
    if env_home == "home":
        env["HOME"] = str(make_home(tmp_path))
    elif env_home is not None:
        env["HOME"] = env_home
    proc = subprocess.run([str(breakout_bin), "run", "--real-host", "--spawner", "none", "--no-history",
                           "--out", str(tmp_path / "r"), *args], capture_output=True, text=True, env=env, timeout=60)
    assert proc.returncode == 2, proc.stderr
    assert code in proc.stderr
    assert not (tmp_path / "r" / "results.json").exists()


def test_without_the_flag_real_host_attempts_are_skipped(run_breakout):
    run = run_breakout("--spawner", "none", "--suite", "real-host")
    assert run.results is not None, run.stderr
    assert run.attempts and all(a["verdict"] == "skip" for a in run.attempts)
    assert all("needs `breakout run --real-host`" in a["reason"] for a in run.attempts)
    # Nothing was judged: the run says so and does not exit 0 (--allow-all-skip would accept it).
    assert run.returncode == 5 and "skipped, so nothing was judged" in run.stderr, run.stderr[-2000:]


# --- the network check: a `breakout listen` the user runs outside (here: on loopback, the only place tests may reach)

import signal
import socket
import time


@pytest.fixture
def listener(breakout_bin):
    proc = subprocess.Popen([str(breakout_bin), "listen", "--bind", "127.0.0.1:0", "--for", "300"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        first = proc.stdout.readline()
        assert first.startswith("listening on 127.0.0.1:"), first + proc.stderr.read()
        yield first.split()[-1].strip()
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            assert proc.wait(timeout=10) == 0
        finally:
            if proc.poll() is None:
                proc.kill()


def ask(endpoint, line, reply=True):
    host, port = endpoint.rsplit(":", 1)
    with socket.create_connection((host, int(port)), timeout=5) as s:
        if reply:
            s.sendall(line)
            return s.recv(64)
        try:  # a peer past the listener's bounds is hung up on: that is the point
            s.sendall(line)
        except OSError:
            pass
    return b""


def by_target(results, target):
    return next(a for a in results["attempts"] if a["target"] == target)


def test_none_reaches_the_external_listener(breakout_bin, tmp_path, listener):
    home = make_home(tmp_path)
    proc, results = real_host_run(breakout_bin, tmp_path, home, "--spawner", "none", "--real-host-endpoint", listener)
    assert results is not None, proc.stderr
    assert "answers (a nonce sent from the host was seen)" in proc.stderr
    ext = by_target(results, "net:real-external")
    assert ext["verdict"] == "escape", ext
    assert ext["evidence"]["nonce_received"] is True
    assert by_target(results, "net:unix-workspace")["verdict"] == "pass"


def test_bwrap_keeps_the_external_listener_unreached(breakout_bin, tmp_path, listener):
    if shutil.which("bwrap") is None:
        pytest.skip("bwrap is not installed")
    home = make_home(tmp_path)
    proc, results = real_host_run(breakout_bin, tmp_path, home, "--spawner", "bwrap", "--real-host-endpoint", listener)
    assert results is not None, proc.stderr
    ext = by_target(results, "net:real-external")
    assert ext["verdict"] == "pass", ext
    assert ext["evidence"]["nonce_received"] is False
    assert by_target(results, "net:unix-workspace")["verdict"] == "pass"


def test_without_an_endpoint_the_network_check_is_skipped_saying_why(breakout_bin, tmp_path):
    home = make_home(tmp_path)
    proc, results = real_host_run(breakout_bin, tmp_path, home, "--spawner", "none")
    ext = by_target(results, "net:real-external")
    assert ext["verdict"] == "skip" and "--real-host-endpoint" in ext["reason"], ext


def test_an_endpoint_nobody_answers_fails_the_run(breakout_bin, tmp_path):
    with socket.socket() as s:  # a port that was free a moment ago: nothing listens there
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    home = make_home(tmp_path)
    proc, results = real_host_run(breakout_bin, tmp_path, home, "--spawner", "none",
                                  "--real-host-endpoint", f"127.0.0.1:{port}")
    assert proc.returncode == 2 and "[real-host-endpoint]" in proc.stderr, proc.stderr
    assert results is None
    for bad in ["localhost:4719", "127.0.0.1", "127.0.0.1:99999"]:
        proc, _ = real_host_run(breakout_bin, tmp_path, home, "--spawner", "none", "--real-host-endpoint", bad)
        assert proc.returncode == 2 and "[bad-endpoint]" in proc.stderr, (bad, proc.stderr)
    proc = subprocess.run([str(breakout_bin), "run", "--spawner", "none", "--no-history", "--real-host-endpoint",
                           f"127.0.0.1:{port}"], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and "[real-host] --real-host-endpoint belongs to --real-host" in proc.stderr


def test_listener_survives_hostile_peers_and_still_answers(listener):
    host, port = listener.rsplit(":", 1)
    idle = [socket.create_connection((host, int(port)), timeout=5) for _ in range(70)]  # past its 64 at once
    time.sleep(0.5)
    for s in idle:
        s.close()
    with socket.create_connection((host, int(port)), timeout=5) as s:  # binary past its 4 KiB: it hangs up
        try:
            s.sendall(b"\x00\xff" * 50000)
        except OSError:
            pass
    ask(listener, b"BREAKOUT-NONCE " + b"z" * 5000 + b"\n", reply=False)  # not a nonce
    assert ask(listener, b"BREAKOUT-QUERY <script>\n") == b"UNSEEN\n"
    ask(listener, b"noise BREAKOUT-NONCE 0123abcd\n", reply=False)
    deadline = time.time() + 5
    while ask(listener, b"BREAKOUT-QUERY 0123abcd\n") != b"SEEN\n":
        assert time.time() < deadline, "the listener never recorded a well-formed nonce"
        time.sleep(0.1)
    assert ask(listener, b"BREAKOUT-QUERY 0123abce\n") == b"UNSEEN\n"
