"""net-connect and net-listen run directly (no sandbox, no harness): each way of reaching a path
socket delivers the nonce line, and net-listen answers a connect with it.

Fast guards for the probes' own plumbing: a probe that stops reaching its target under every
sandbox reads as "overblock" on its controls, which a whole suite run shows only minutes later
(a lost unix branch in net-connect's connect chain did exactly that once).
"""
import socket
import subprocess
import threading

import pytest

NONCE = "0123456789abcdef0123456789abcdef"


class UnixListener:
    """Accepts one connection on a path socket and keeps what it sent (bounded)."""

    def __init__(self, path):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.bind(str(path))
        self.sock.listen(1)
        self.sock.settimeout(10)
        self.got = b""
        self.thread = threading.Thread(target=self.serve, daemon=True)
        self.thread.start()

    def serve(self):
        try:
            conn, _ = self.sock.accept()
        except OSError:
            return
        with conn:
            conn.settimeout(5)
            while len(self.got) < 4096:
                chunk = conn.recv(4096)
                if not chunk:
                    break
                self.got += chunk

    def close(self):
        self.thread.join(10)
        self.sock.close()


def probe(breakout_bin, name, *args, cwd):
    return subprocess.run([str(breakout_bin.resolve().parent / f"breakout-probe-{name}"), *args], cwd=cwd,
                          capture_output=True, text=True, timeout=30)


@pytest.mark.parametrize("alias", [None, "symlink", "hardlink"])
def test_net_connect_reaches_a_path_socket(breakout_bin, tmp_path, alias):
    listener = UnixListener(tmp_path / "s.sock")
    extra = ["--alias", alias] if alias else []
    proc = probe(breakout_bin, "net-connect", "--target", f"unix:{tmp_path / 's.sock'}", "--nonce", NONCE, *extra,
                 cwd=tmp_path)
    listener.close()
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert f"BREAKOUT-NONCE {NONCE}\n".encode() in listener.got
    # The alias is the probe's own and gone afterwards.
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s.sock"]


def test_net_listen_answers_the_host_with_the_nonce(breakout_bin, tmp_path):
    mark = tmp_path / "mark"
    proc = subprocess.Popen([str(breakout_bin.resolve().parent / "breakout-probe-net-listen"), "--target", "tcp:127.0.0.1:9",
                             "--nonce", NONCE, "--mark", str(mark), "--wait-ms", "5000"],
                            stdout=subprocess.PIPE, text=True)
    try:
        for _ in range(250):
            if mark.exists():
                break
            threading.Event().wait(0.02)
        address = mark.read_text()
        assert address.startswith("tcp:127.0.0.1:") and address.endswith("\n"), address
        with socket.create_connection(("127.0.0.1", int(address.strip().rsplit(":", 1)[1])), timeout=5) as c:
            got = c.recv(4096)
        assert got == f"BREAKOUT-NONCE {NONCE}\n".encode()
        assert proc.wait(10) == 0
    finally:
        proc.kill()
        proc.wait()
