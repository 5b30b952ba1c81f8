// One live-fuzzer input decoded: (policy, operation, target, path form, env, cwd, PATH), and its attempts.
//
// Every byte string decodes to a case (fuzz/live_fuzzer.cc, `breakout repro`
// use the same decoder), so artifacts stay reproducible and every mutation is a
// valid attempt. Bytes: [0] policy, [1] operation, [2] target (proxy operations:
// the destination's spelling), [3] path form, [4] env overrides, [5] the exec's
// cwd, [6] the exec's PATH; missing bytes read as 0, each taken modulo its table.
// A byte a case has no use for (env for the fs API, cwd and PATH outside
// probe-write) is 0 in its canonical encoding. Table: docs/fuzzing.md.
//
//   LiveCase c = decode_live_case(data, size);
//   Attempt a = live_attempt(c);   // targets: {the case's target, its workspace control}
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "harness/model/path_form.h"
#include "harness/model/scenario.h"

namespace breakout {

enum class LiveOp {
  kProbeWrite,     // breakout-probe-fs-write inside the sandbox (create or append); with a cwd: cwd-write,
                   // with stubs on PATH: path-hijack (live_class)
  kProbeRead,      // breakout-probe-fs-read --echo inside the sandbox
  kApiWrite,       // the spawner's fs API: write_file (class fs-api-write)
  kApiRead,        // the spawner's fs API: read_file (class fs-api-read)
  kProxyConnect,   // breakout-probe-net-connect --route connect: HTTP CONNECT through the sandbox's proxy
  kProxyAbsolute,  // --route absolute: plain HTTP with an absolute URI through it
  kProxySocks5,    // --route socks5: SOCKS5 through the proxy ALL_PROXY names
};
const char* to_string(LiveOp op);
bool is_proxy(LiveOp op);

struct LiveCase {
  std::string policy;   // a live policy (scenarios/policies/<name>.toml): live_policies(), or network-proxy
  LiveOp op{};
  std::string target;   // "fs:sibling/new-file", "fs:sibling" (cwd-write, path-hijack), "net:proxy-denied"
  std::string control;  // its twin that must pass: "fs:workspace/new-file", "net:proxy-allowed"
  PathForm form{};      // how the target is spelled (cwd-write: how the cwd is)
  std::size_t env = 0;  // index into live_env_sets()
  std::size_t cwd = 0;  // index into live_cwds(): 0 the workspace (the probe writes its target)
  std::size_t path = 0;       // index into live_path_entries(): 0 the caller's PATH
  std::size_t spelling = 0;   // proxy operations: index into live_proxy_spellings()
};

LiveCase decode_live_case(const std::uint8_t* data, std::size_t size);
// The bytes of a case (inverse of decode_live_case for the canonical indices): seeds, tests.
std::vector<std::uint8_t> encode_live_case(const LiveCase& c);

// Caller overrides per env set: "NAME=value" with {placeholders}; set 0 is empty.
const std::vector<std::vector<std::string>>& live_env_sets();
// Policies the decoder chooses from for fs operations: the default suite's, so every find fits a
// regression of it. Proxy operations run under network-proxy, the proxy suite's (live_suite).
const std::vector<std::string>& live_policies();
// Every policy a case may name (load_live_policies loads these).
const std::vector<std::string>& all_live_policies();
// The exec's cwd per byte [5]: "fs:workspace" first (the probe writes its target from there), then
// directories outside every writable root it may be asked to run in (class cwd-write).
const std::vector<std::string>& live_cwds();
// The exec's PATH per byte [6]: "caller" first (unchanged), then how the harness's helper stubs in
// workspace/.bin come first on it (class path-hijack; its `param` but the first, "absolute").
const std::vector<std::string>& live_path_entries();
// Proxy operations: how the destination is written to the proxy (byte [2]): the address and name
// spellings of scenarios/attempts/proxy.toml and proxy_names.toml.
const std::vector<std::string>& live_proxy_spellings();

// What the case runs as: its operation, or for probe-write with stubs on PATH "path-hijack", with
// a cwd outside the workspace "cwd-write". Attempt ids, counters and regression names use it.
std::string live_kind(const LiveCase& c);
// The suite a find of this case is a regression of: "proxy" for proxy operations, else "default".
const char* live_suite(const LiveCase& c);

// The attempt a case runs: its class, the form as param, targets {target, control}; for proxy
// operations only {target}, controlled by live_control_attempt (the same route, unspelled, to
// the allowed destination: a proxy may refuse an odd spelling of that one too).
Attempt live_attempt(const LiveCase& c);
std::optional<Attempt> live_control_attempt(const LiveCase& c);

// One paragraph in plain words: policy, operation, target, path form, env, cwd, PATH.
std::string describe_live_case(const LiveCase& c);

}  // namespace breakout
