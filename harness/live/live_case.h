// One live-fuzzer input decoded: (policy tweak, target, path form, operation, env overrides), and its attempt.
//
// Every byte string decodes to a case (fuzz/live_fuzzer.cc, `breakout repro`
// use the same decoder), so artifacts stay reproducible and every mutation is a
// valid attempt. Bytes: [0] policy, [1] operation, [2] target, [3] path form,
// [4] env overrides; missing bytes read as 0, each taken modulo its table.
//
//   LiveCase c = decode_live_case(data, size);
//   Attempt a = live_attempt(c);   // targets: {the case's target, its workspace control}
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "harness/model/path_form.h"
#include "harness/model/scenario.h"

namespace breakout {

enum class LiveOp {
  kProbeWrite,  // breakout-probe-fs-write inside the sandbox (create or append)
  kProbeRead,   // breakout-probe-fs-read --echo inside the sandbox
  kApiWrite,    // the spawner's fs API: write_file (class fs-api-write)
  kApiRead,     // the spawner's fs API: read_file (class fs-api-read)
};
const char* to_string(LiveOp op);

struct LiveCase {
  std::string policy;   // a default-suite policy (scenarios/policies/<name>.toml)
  LiveOp op{};
  std::string target;   // "fs:sibling/new-file"
  std::string control;  // its workspace twin: "fs:workspace/new-file"
  PathForm form{};
  std::size_t env = 0;  // index into live_env_sets()
};

LiveCase decode_live_case(const std::uint8_t* data, std::size_t size);
// The bytes of a case (inverse of decode_live_case for the canonical indices): seeds, tests.
std::vector<std::uint8_t> encode_live_case(const LiveCase& c);

// Caller overrides per env set: "NAME=value" with {placeholders}; set 0 is empty.
const std::vector<std::vector<std::string>>& live_env_sets();
// Policies the decoder chooses from: the default suite's, so every find fits a regression of it.
const std::vector<std::string>& live_policies();

// The attempt a case runs: the class of its op, the form as param, targets {target, control}.
Attempt live_attempt(const LiveCase& c);

// One paragraph in plain words: policy, operation, target, path form, env.
std::string describe_live_case(const LiveCase& c);

}  // namespace breakout
