// "Not applicable here": what a step of run_attempt returns when the attempt cannot be tried on this host.
//
// An expected outcome, not a failure (core/error.h): no pin to aim at, a path form that
// does not apply to the target, a real secret that is not there, no `run --real-host`.
// The steps return it (std::optional<Skip>, OrSkip<T>) and run_attempt.cc turns it into
// verdict skip with this reason, in one place; only failures throw.
//
//   if (auto skip = oracle->prepare(scene)) return skip;
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <variant>

namespace breakout {

struct Skip {
  std::string reason;  // shown as the verdict's reason
};

// A step's value, or why the attempt does not apply here.
template <class T>
using OrSkip = std::variant<T, Skip>;

// Moves the value into `out`, or hands the Skip on: `if (auto skip = take(aim(), io)) return skip;`
template <class T>
std::optional<Skip> take(OrSkip<T> v, T& out) {
  if (Skip* skip = std::get_if<Skip>(&v)) return std::move(*skip);
  out = std::move(std::get<T>(v));
  return std::nullopt;
}

}  // namespace breakout
