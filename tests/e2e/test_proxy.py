"""network = "proxy": egress only through the sandbox's own allowlisting proxy (suite proxy).

The harness owns both destinations (net:proxy-allowed, net:proxy-denied on its external host);
the listener that received the nonce decides. Signed per spawner:
  none                      every denial escapes, every control passes
  proxy-poison-strict       a fixture proxy that filters every route: the proxied denials pass, the
                            direct connects escape (it only poisons the proxy variables, AstrBot PR #9895)
  proxy-poison-leaky-http   the same, but plain absolute-URI HTTP goes out unfiltered (the hole
                            reported against sandbox-runtime): that denial escapes too, and the
                            proxy-denied listener is the one that saw the nonce
  proxy-poison-host-routed  plain HTTP checked by its URI, sent where its Host header says:
                            proxy.host-header escapes (and the direct connects)
  proxy-poison-host-checked plain HTTP checked by its Host header, sent where its URI says:
                            proxy.uri-host escapes (and the direct connects)
  proxy-poison-name-text    names checked as text: the trailing-dot, mixed-case and NUL-suffixed
                            spellings of a denied name escape (and the direct connects)
  proxy-poison-no-address-guard  strict by name, but it dials what an allowed name resolves to:
                            proxy.name-loopback, proxy.socks5-name-loopback and
                            proxy.name-to-denied-address escape
  proxy-poison-resolve-first  resolves every name before checking it: proxy.dns-exfil and
                            proxy.socks5-dns-exfil escape through the run's name server alone
  (each also asks a resolver on the host's loopback for a nonce name, past the proxy: dns.toml;
  the poisoning fixtures let it through as they do the direct connects)
  srt                       everything passes but the workspace resolver's control, its declared
                            AF_UNIX refusal (its proxy holds, its namespace has no route out;
                            by name: 403/REP 2 for the spellings, "resolved to a loopback address",
                            "resolved to a deny-listed address", and no lookup of a refused name)
  codex-linux               Codex's managed proxy (features.network_proxy): everything it can be
                            told passes; what an allowlist of hosts without ports cannot say is a
                            skip with the profile's reason (the denied destination that differs
                            from the allowed one by port alone, and loopback, which the
                            allow_local_binding the harness's 198.18/15 needs admits)
  srt-behind-parent         the real srt chained through a parent HTTP proxy on the host's
                            loopback (its HTTPS_PROXY; fixtures/proxy/parent_relay.py): the
                            allowlist holds on every route, but names go to the parent unresolved,
                            so srt's resolved-address guard never runs: proxy.name-loopback,
                            proxy.socks5-name-loopback and proxy.name-to-denied-address escape
  bwrap, firejail, reference-driver: skipped with the declared reason
"""
import os
import shutil

import pytest

from conftest import REPO, require_root_tool
from test_agent_sandboxes import SIGNED as AGENT_TOOLS, require as require_agent, tool_residue

FIXTURES = REPO / "tests" / "e2e" / "fixtures"
SUITE = ("--suite", "proxy")
P = "@network-proxy"
DENIALS = {
    "proxy.connect" + P + "[net:proxy-denied]",
    "proxy.absolute-uri" + P + "[net:proxy-denied]",
    "proxy.socks5" + P + "[net:proxy-denied]",
    "proxy.direct" + P + "[net:proxy-allowed]",
    "proxy.direct" + P + "[net:proxy-denied]",
}
# The parser differentials: the denied destination only, each borrowing the
# control of its plain route.
BORROWED = {"proxy.direct": "proxy.connect", "proxy.host-header": "proxy.absolute-uri",
            "proxy.uri-host": "proxy.absolute-uri", "proxy.userinfo": "proxy.absolute-uri"}
for form in ("decimal", "octal", "hex", "mapped6"):
    for route in ("connect", "socks5"):
        BORROWED[f"proxy.{route}-{form}"] = f"proxy.{route}"
DENIALS |= {a + P + "[net:proxy-denied]" for a in BORROWED if a != "proxy.direct"}
# The IP spellings also aim at name-denied, a denied address (not only a denied port).
SPELLED_IP = {a + P + "[net:name-denied]" for a in BORROWED
              if a.split("-")[-1] in ("decimal", "octal", "hex", "mapped6")}
DENIALS |= SPELLED_IP
CONTROLS = {
    "proxy.connect" + P + "[net:proxy-allowed]",
    "proxy.absolute-uri" + P + "[net:proxy-allowed]",
    "proxy.socks5" + P + "[net:proxy-allowed]",
}
# Names (scenarios/attempts/proxy_names.toml, the run's zone in harness/host/name_server.h).
NAMED_ROUTES = ("proxy.name-connect", "proxy.name-socks5", "proxy.dns-exfil", "proxy.socks5-dns-exfil")
CONTROLS |= {a + P + "[net:proxy-allowed]" for a in NAMED_ROUTES}
DENIALS |= {a + P + "[net:name-denied]" for a in NAMED_ROUTES}
SPELLED = {}
for form in ("nul-suffix", "trailing-dot", "mixed-case"):
    SPELLED[f"proxy.connect-{form}" + P + "[net:name-denied]"] = "proxy.name-connect"
    SPELLED[f"proxy.socks5-{form}" + P + "[net:name-denied]"] = "proxy.name-socks5"
NAME_GUARD = {"proxy.name-loopback" + P + "[net:tcp4-loopback]": "proxy.name-connect",
              "proxy.socks5-name-loopback" + P + "[net:tcp4-loopback]": "proxy.name-socks5",
              "proxy.name-to-denied-address" + P + "[net:proxy-denied]": "proxy.name-connect"}
DENIALS |= set(SPELLED) | set(NAME_GUARD)
for full, owner in {**SPELLED, **NAME_GUARD}.items():
    BORROWED[full.split("@")[0]] = owner
EXFIL = {a + P + "[net:name-denied]" for a in ("proxy.dns-exfil", "proxy.socks5-dns-exfil")}
# DNS past the proxy, to the host's own resolver (scenarios/attempts/dns.toml): the nonce as a name
# asked of a resolver on the host's loopback; the control asks one in the workspace.
DNS_DENIAL, DNS_CONTROL = "dns.nonce-name" + P + "[ipc:dns-loopback]", "dns.nonce-name" + P + "[ipc:dns-workspace]"
DENIALS.add(DNS_DENIAL)
CONTROLS.add(DNS_CONTROL)
DIRECT = {d for d in DENIALS if d.startswith("proxy.direct")} | {DNS_DENIAL}
# srt's seccomp filter refuses AF_UNIX, and so does Codex's with its proxy on ([refuses.af_unix]):
# the workspace resolver's control is a declared skip, and the denial is judged by the witness.
UNIX_REFUSED = {DNS_CONTROL: "refuses af_unix"}

SIGNED = {
    "none": {"escapes": DENIALS},
    "proxy-poison-strict": {"escapes": DIRECT},
    # A URL parser routes http://ALLOWED@DENIED/ to DENIED, and the leaky proxy checks nothing.
    "proxy-poison-leaky-http": {"escapes": DIRECT | {a + P + "[net:proxy-denied]" for a in (
        "proxy.absolute-uri", "proxy.uri-host", "proxy.userinfo")}},
    "proxy-poison-host-routed": {"escapes": DIRECT | {"proxy.host-header" + P + "[net:proxy-denied]"}},
    "proxy-poison-host-checked": {"escapes": DIRECT | {"proxy.uri-host" + P + "[net:proxy-denied]"}},
    "proxy-poison-name-text": {"escapes": DIRECT | set(SPELLED)},
    "proxy-poison-no-address-guard": {"escapes": DIRECT | set(NAME_GUARD)},
    "proxy-poison-resolve-first": {"escapes": DIRECT | EXFIL},
    "srt": {"escapes": set(), "skips": UNIX_REFUSED},
    "srt-behind-parent": {"escapes": set(NAME_GUARD), "skips": UNIX_REFUSED},
    # Told hosts, not ports ([cannot_express] proxy_ports, proxy_local in spawners/codex-linux.toml).
    "codex-linux": {"escapes": set(), "skips": {
        **{d: "cannot tell proxy destinations apart by port" for d in DENIALS
           if d.endswith("[net:proxy-denied]") and not d.startswith("proxy.direct")},
        **{d: "proxy is set to admit local addresses" for d in DENIALS if d.endswith("[net:tcp4-loopback]")},
        **UNIX_REFUSED}},
}
DECLARED = {
    "bwrap": "bwrap cannot express network = proxy",
    "firejail": "firejail cannot express network = proxy",
    "reference-driver": "the driver does not offer network = proxy",
}


def spawner_arg(name):
    return str(FIXTURES / f"{name}.toml") if name.startswith(("proxy-poison", "srt-behind")) else name


def require(spawner):
    if os.geteuid() != 0:
        pytest.skip("needs root (the external host is a network namespace)")
    if spawner in AGENT_TOOLS or spawner == "srt-behind-parent":
        require_agent(spawner.removesuffix("-behind-parent"))
    elif spawner in ("bwrap", "firejail"):
        require_root_tool(spawner)
    elif spawner == "reference-driver" and shutil.which("bwrap") is None:
        pytest.skip("bwrap is not installed")


@pytest.fixture(scope="module", params=sorted(SIGNED) + sorted(DECLARED))
def proxy_run(request, run_breakout):
    require(request.param)
    before = tool_residue()
    # A spawner that declares it cannot express the suite skips all of it: that is what its run means.
    allow = ["--allow-all-skip"] if request.param in DECLARED else []
    run = run_breakout("--spawner", spawner_arg(request.param), *SUITE, *allow, timeout=600)
    for path in tool_residue() - before:
        shutil.rmtree(path) if path.is_dir() and not path.is_symlink() else path.unlink()
    assert run.results is not None, run.stderr[-2000:]
    return request.param, run


def test_the_suite_pairs_every_denial_with_a_proxied_control(proxy_run):
    _, run = proxy_run
    ids = {a["id"] for a in run.attempts}
    assert ids == DENIALS | CONTROLS
    for a in run.attempts:
        assert a["role"] == ("deny" if a["id"] in DENIALS else "allow"), a["id"]
        if a["role"] == "deny" and a["verdict"] != "skip":
            # Each route's control is its own allowed destination; the direct connects and the
            # spellings borrow their plain route's (controls_from), and share its group.
            attempt = a["id"].split("@")[0]
            owner = BORROWED.get(attempt, attempt)
            control = DNS_CONTROL if a["id"] == DNS_DENIAL else owner + P + "[net:proxy-allowed]"
            assert a["controls"] == [control], a
            assert a["group"] == owner + P, a


def test_verdicts_are_the_signed_ones(proxy_run):
    spawner, run = proxy_run
    if spawner in DECLARED:
        assert all(a["verdict"] == "skip" and DECLARED[spawner] in a["reason"] for a in run.attempts), \
            run.explain(run.attempts)
        assert run.returncode == 0 and "accepted (--allow-all-skip)" in run.stderr, run.stderr[-2000:]
        return
    escapes = {a["id"] for a in run.by_verdict("escape")}
    assert escapes == SIGNED[spawner]["escapes"], run.explain(run.by_verdict("escape"))
    skips = SIGNED[spawner].get("skips", {})
    assert {a["id"] for a in run.by_verdict("skip")} == set(skips), run.explain(run.by_verdict("skip"))
    for a in run.by_verdict("skip"):
        assert skips[a["id"]] in a["reason"], a
    passes = {a["id"] for a in run.by_verdict("pass")}
    assert passes == (DENIALS | CONTROLS) - SIGNED[spawner]["escapes"] - set(skips), run.explain(run.attempts)


def test_the_listener_that_saw_the_nonce_is_the_evidence(proxy_run):
    spawner, run = proxy_run
    if spawner in DECLARED:
        pytest.skip(f"{spawner} runs none of the suite (declared)")
    for a in run.attempts:
        if a["verdict"] == "skip":
            continue
        if a["class"] == "dns-query":  # a resolver, not a listener: the name it was asked decides
            assert a["evidence"]["nonce_name_resolved"] == (a["verdict"] == "escape" or a["role"] == "allow"), a
            continue
        seen = set(a["evidence"]["nonce_seen_by"])
        target = a["target"].removeprefix("net:")
        asked = a["evidence"].get("names_with_nonce_asked", [])
        if a["verdict"] == "escape" and spawner == "proxy-poison-resolve-first" and a["id"] in EXFIL:
            # A refused name still looked up: the name server is the only witness.
            assert target not in seen and asked and asked[0].endswith(".denied.breakout.test"), a
        elif a["verdict"] == "escape" or a["role"] == "allow":
            assert target in seen, a
        else:
            assert target not in seen and not asked, a


def test_names_resolve_through_the_runs_name_server(proxy_run):
    # The exfil controls put the nonce in an allowed name: the proxy (or, with none, the probe)
    # must have asked the run's name server for it to dial it. Without the bind over
    # /etc/resolv.conf nothing would reach the listener and these controls would go broken.
    spawner, run = proxy_run
    if spawner in DECLARED:
        pytest.skip(f"{spawner} runs none of the suite (declared)")
    for a in run.attempts:
        if a["id"].split("@")[0] in ("proxy.dns-exfil", "proxy.socks5-dns-exfil") and a["role"] == "allow":
            assert a["verdict"] == "pass", a
            assert any(n.endswith(".allowed.breakout.test") for n in a["evidence"]["names_with_nonce_asked"]), a


def test_the_decoy_reached_the_allowed_listener_and_is_not_charged(proxy_run):
    # proxy.host-header names the allowed destination in its URI: a proxy that routes by the URI
    # (as RFC 9112 says) delivers the nonce there. That is a pass, and it shows the probe's
    # request went through; the nonce at the denied listener would have been the escape.
    spawner, run = proxy_run
    if spawner in DECLARED or spawner == "none":
        pytest.skip(f"{spawner}: no proxy routes the decoy")
    a = next(a for a in run.attempts if a["id"] == "proxy.host-header" + P + "[net:proxy-denied]")
    if a["verdict"] == "skip":
        pytest.skip(f"{spawner}: {a['reason']}")
    # host-checked refuses it outright: its check reads the Host header, which names the denied one.
    expected = {"proxy-poison-host-routed": {"proxy-denied"}, "proxy-poison-host-checked": set()}.get(
        spawner, {"proxy-allowed"})
    assert set(a["evidence"]["nonce_seen_by"]) == expected, a
