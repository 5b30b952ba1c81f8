// breakout-probe-noop: does nothing and exits 0 — the probe spawn-latency benchmarks time.
//
//   breakout-probe-noop [ANY...]
//
// Arguments are ignored. No report line, no output, no library beyond the C
// runtime (linked --as-needed), so a spawn of it measures the spawner, not the
// probe. Why not breakout-probe-exit --code 0: that one parses arguments and
// formats and writes a JSON report line, work that would be counted as spawn
// latency and that a bench of the pipe path would also drain.
// Exit: 0.
//
// Portable: Linux and Windows (mingw-w64).
int main() { return 0; }
