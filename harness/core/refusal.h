// A spawner's clear refusal of a request: an expected answer ("it did not happen"), never an error (error.h).
//
// A driver's `ok: false` with code invalid, unsupported or exec_failed (driver/protocol.h), or a
// template tool's declared refusal exit (spawner/template_profile.h). The attempt that meets one
// is judged from the host as any other (model/verdict.h, judge_refused): docs/results.md.
#pragma once

#include <cstddef>
#include <string>

namespace breakout {

inline constexpr std::size_t kMaxRefusalMessage = 1024;  // bytes of the spawner's message kept

struct Refusal {
  std::string code;     // the driver's error code, or "refusal-exit" for a template tool
  std::string message;  // printable, at most kMaxRefusalMessage bytes (hostile input)
  std::string text() const { return code + ": " + message; }
};

}  // namespace breakout
