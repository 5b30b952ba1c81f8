// The oracle of every attempt class, in the order of model/classes.def, which names each one's judge.
//
// The model's entry (model/class_table.cc) says what a class is and what the policy expects of
// it; this table makes its oracle. Two tables in two layers from one list, so the model (and the
// fuzz targets built on it) never links the runner.
#include "harness/attempt/oracle.h"
#include "harness/attempt/oracles/oracles.h"
#include "harness/core/error.h"
#include "harness/model/class_spec.h"

namespace breakout {

namespace {

using C = AttemptClass;
using OracleFactory = std::unique_ptr<Oracle> (*)();

struct OracleRow {
  AttemptClass klass;
  OracleFactory make;
};

constexpr OracleRow kOracles[] = {
#define BREAKOUT_CLASS(name, text, judge) {C::k##name, oracles::judge},
#include "harness/model/classes.def"
#undef BREAKOUT_CLASS
};

constexpr bool in_enum_order() {
  for (std::size_t i = 0; i < std::size(kOracles); ++i)
    if (static_cast<std::size_t>(kOracles[i].klass) != i || kOracles[i].make == nullptr) return false;
  return true;
}
static_assert(std::size(kOracles) == kAttemptClassCount, "every AttemptClass needs its oracle in kOracles");
static_assert(in_enum_order(), "kOracles is out of enum order or a row has no factory");

}  // namespace

std::unique_ptr<Oracle> make_oracle_for(AttemptClass c) {
  const auto i = static_cast<std::size_t>(c);
  if (i >= std::size(kOracles)) throw Error("bad-class", "not an attempt class: " + std::to_string(i));
  return kOracles[i].make();
}

}  // namespace breakout
