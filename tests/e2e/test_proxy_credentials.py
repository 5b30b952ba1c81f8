"""net-connect --via-proxy with credentials in the proxy URL: sent as curl sends them.

srt hands the child `http://<user>:<token>@localhost:<port>` in HTTP(S)_PROXY and ALL_PROXY, the
user percent-encoded base64, and its proxy answers 407 to a CONNECT without Proxy-Authorization.
curl percent-decodes the userinfo and sends `Proxy-Authorization: Basic base64(user:password)`.
Here a loopback proxy that demands exactly that stands in for srt's; the probe runs directly, no
sandbox, and must never print the password.
"""
import base64
import json
import os
import socket
import subprocess
import threading

import pytest

USER, PASSWORD = "c3J0+dXNlcg==", "t0k3n:with@odd%chars"  # decoded forms
URL_USER, URL_PASSWORD = "c3J0%2BdXNlcg%3D%3D", "t0k3n%3Awith%40odd%25chars"  # as srt spells them (encodeURIComponent)


class DemandingProxy:
    """Answers one CONNECT: 200 with the expected Basic credentials, else 407 (as srt's http-proxy.js)."""

    def __init__(self):
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(1)
        self.sock.settimeout(10)
        self.port = self.sock.getsockname()[1]
        self.request = b""
        self.thread = threading.Thread(target=self.serve, daemon=True)
        self.thread.start()

    def serve(self):
        try:
            conn, _ = self.sock.accept()
        except OSError:
            return
        with conn:
            conn.settimeout(5)
            while b"\r\n\r\n" not in self.request and len(self.request) < 65536:
                chunk = conn.recv(4096)
                if not chunk:
                    break
                self.request += chunk
            want = "Basic " + base64.b64encode(f"{USER}:{PASSWORD}".encode()).decode()
            ok = self.header("Proxy-Authorization") == want
            conn.sendall(b"HTTP/1.1 200 Connection established\r\n\r\n" if ok else
                         b"HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic realm=\"srt\"\r\n\r\n")

    def header(self, name):
        head = self.request.split(b"\r\n\r\n", 1)[0].decode("latin-1")
        for line in head.split("\r\n")[1:]:
            key, _, value = line.partition(":")
            if key.strip().lower() == name.lower():
                return value.strip()
        return None


def probe(breakout_bin, proxy_url):
    env = {k: v for k, v in os.environ.items() if "proxy" not in k.lower()}
    env["https_proxy"] = proxy_url
    proc = subprocess.run([str(breakout_bin.parent / "breakout-probe-net-connect"), "--target", "tcp:198.51.100.7:443",
                           "--nonce", "n0nce", "--via-proxy"], capture_output=True, text=True, timeout=30, env=env)
    line = [l for l in proc.stdout.splitlines() if l.startswith("BREAKOUT-REPORT ")][-1]
    return proc, json.loads(line[len("BREAKOUT-REPORT "):])


def test_credentials_in_the_proxy_url_are_sent_as_curl_sends_them(breakout_bin):
    proxy = DemandingProxy()
    proc, report = probe(breakout_bin, f"http://{URL_USER}:{URL_PASSWORD}@127.0.0.1:{proxy.port}")
    proxy.thread.join(10)
    assert proxy.request.startswith(b"CONNECT 198.51.100.7:443 HTTP/1.1\r\n"), proxy.request
    assert proxy.header("Proxy-Authorization") is not None, proxy.request
    assert report["proxy_status"] == 200, report
    assert report["proxy_auth"] == "basic", report
    # Never the password, in the report or anywhere else the harness keeps; the user only masked.
    for secret in (PASSWORD, URL_PASSWORD, USER, URL_USER, base64.b64encode(f"{USER}:{PASSWORD}".encode()).decode()):
        assert secret not in proc.stdout + proc.stderr, secret


def test_no_credentials_no_header(breakout_bin):
    proxy = DemandingProxy()
    _, report = probe(breakout_bin, f"http://127.0.0.1:{proxy.port}")
    proxy.thread.join(10)
    assert proxy.header("Proxy-Authorization") is None, proxy.request
    assert report["proxy_status"] == 407, report
    assert "proxy_auth" not in report, report
