// The class table: one entry per attempt class, in the order of model/classes.def.
//
// An entry is what the model knows of a class: its name in scenario files (from its family's .def),
// its probe, its traits and its expectation rule (model/expectation_rules.h, a family's own, or a
// fixed sentence): its row `spec::Name` in its family's spec.h (harness/classes/<family>/). Its
// oracle is named in the .def too (attempt/oracle_table.cc). Adding a class: docs/architecture.md,
// "How to add a class".
#include "harness/core/error.h"
#include "harness/model/class_spec.h"

// Every family's spec.h, from the family list itself (each .def gives its spec.h with this defined).
#define BREAKOUT_FAMILY_SPEC
#include "harness/model/classes.def"
#undef BREAKOUT_FAMILY_SPEC

namespace breakout {

namespace {

using C = AttemptClass;

constexpr ClassSpec identified(ClassSpec row, AttemptClass klass, const char* name) {
  row.klass = klass;
  row.name = name;
  return row;
}

constexpr ClassSpec kClasses[] = {
#define BREAKOUT_CLASS(name, text, judge) identified(spec::name, C::k##name, text),
#include "harness/model/classes.def"
#undef BREAKOUT_CLASS
};

// Every class has its entry, at its own index, with a name, a probe and a rule:
// a class added to the enum without one fails to compile here.
constexpr bool complete() {
  for (std::size_t i = 0; i < std::size(kClasses); ++i) {
    const ClassSpec& s = kClasses[i];
    if (static_cast<std::size_t>(s.klass) != i || s.name == nullptr || s.probe == nullptr) return false;
    if (s.expect == nullptr && s.why == nullptr) return false;
    if (s.targets && s.expect == nullptr) return false;  // a class with targets is judged per target
  }
  return true;
}
static_assert(std::size(kClasses) == kAttemptClassCount, "every AttemptClass needs its entry in kClasses");
static_assert(complete(), "kClasses is out of enum order or an entry lacks its name, probe or rule");

}  // namespace

const ClassSpec& class_spec(AttemptClass c) {
  const auto i = static_cast<std::size_t>(c);
  if (i >= std::size(kClasses)) throw Error("bad-class", "not an attempt class: " + std::to_string(i));
  return kClasses[i];
}

std::span<const ClassSpec> class_table() { return kClasses; }

}  // namespace breakout
