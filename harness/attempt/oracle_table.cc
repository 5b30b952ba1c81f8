// The oracle of every attempt class, in the order of model/classes.def, whose families' .def files
// name each one's judge (a factory of the family's judge.h, harness/classes/<family>/).
//
// The model's entry (model/class_table.cc) says what a class is and what the policy expects of
// it; this table makes its oracle. Two tables in two layers from one list, so the model (and the
// fuzz targets built on it) never links the runner.
#include "harness/attempt/oracle.h"
#include "harness/core/error.h"
#include "harness/model/class_spec.h"

// Every family's judge.h, from the family list itself (each .def gives its judge.h with this defined).
#define BREAKOUT_FAMILY_JUDGE
#include "harness/model/classes.def"
#undef BREAKOUT_FAMILY_JUDGE

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
