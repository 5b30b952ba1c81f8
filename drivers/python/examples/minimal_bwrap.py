#!/usr/bin/env python3
"""Minimal driver: a sandbox CLI (bubblewrap) wrapped as a protocol-v1 driver in under 50 lines."""
import os, subprocess, sys, threading  # noqa: E401  (one line: the example is counted)

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))  # the kit
from breakout_driver import drain, serve  # noqa: E402


class MiniBwrap:  # run this file, or: python -m breakout_driver examples/minimal_bwrap.py:MiniBwrap
    serve_options = dict(name="mini-bwrap", version="0.1", pinned_env={"HTTP_PROXY": "http://127.0.0.1:9"},
                         capabilities={"network": ["none", "full"], "concurrent_exec": 4})  # what hello says
    def __init__(self, session):  # one booter per session; session.policy is the boot policy
        self.policy, self.procs, self.lock, self.closed = session.policy, set(), threading.Lock(), False

    def boot(self, session_id):  # validate before changing anything: a failed boot leaves no trace
        if bad := [d for d in [self.policy.workspace, *self.policy.writable_roots] if not d or not os.path.isdir(d)]:
            raise ValueError(f"{bad[0]}: not an existing directory")
        return self.policy.workspace

    def exec(self, argv, cwd=None, env=None, timeout=None):  # env: the complete child env (kit rules)
        p = self.policy
        cmd = ["bwrap", "--die-with-parent", "--new-session", "--unshare-pid", "--ro-bind", "/", "/",
               "--dev", "/dev", "--proc", "/proc"] + (["--unshare-net"] if p.network == "none" else [])
        for d in [p.workspace, *p.writable_roots]:
            cmd += ["--bind", d, d]
        cmd += ["--clearenv", *[a for k, v in env.items() for a in ("--setenv", k, v)]]
        with self.lock:  # registered atomically with shutdown: no exec starts after it
            if self.closed:
                raise RuntimeError("session is shut down")
            proc = subprocess.Popen(cmd + ["--chdir", cwd or p.workspace, "--", *argv],
                                    stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            self.procs.add(proc)
        try:  # reads both pipes while waiting; on timeout kills bwrap, which takes its pid namespace along
            r = drain(proc, timeout, proc.kill)
        finally:
            with self.lock:
                self.procs.discard(proc)
        return {"stdout": r.stdout, "stderr": r.stderr, "exit_code": r.returncode, "timed_out": r.timed_out}

    def shutdown(self):  # afterwards no process of this session may live
        with self.lock:
            self.closed, procs = True, list(self.procs)
        for proc in procs:
            proc.kill()
            proc.wait()


if __name__ == "__main__":
    sys.exit(serve(MiniBwrap, **MiniBwrap.serve_options))
