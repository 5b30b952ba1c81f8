// The class table: every class reachable by name, its traits consistent with its rule and oracle.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "harness/attempt/oracle.h"
#include "harness/model/class_spec.h"

namespace breakout {
namespace {

TEST(ClassTable, EveryClassRoundTripsByNameAndHasAnOracle) {
  std::set<std::string> names;
  for (std::size_t i = 0; i < kAttemptClassCount; ++i) {
    const auto c = static_cast<AttemptClass>(i);
    const ClassSpec& spec = class_spec(c);
    EXPECT_EQ(spec.klass, c);
    EXPECT_TRUE(names.insert(spec.name).second) << "two classes named " << spec.name;
    ASSERT_EQ(attempt_class_from(spec.name), c) << spec.name;
    EXPECT_NE(make_oracle_for(c), nullptr) << spec.name;  // a fresh oracle per execution
  }
  EXPECT_EQ(class_table().size(), kAttemptClassCount);
  EXPECT_FALSE(attempt_class_from("no-such-class"));
}

TEST(ClassTable, TraitsAgreeWithEachOther) {
  for (const ClassSpec& s : class_table()) {
    SCOPED_TRACE(s.name);
    if (s.contract) {  // a contract holds; it aims at nothing
      EXPECT_FALSE(s.targets);
      EXPECT_EQ(s.fixed, Expected::kHolds);
    }
    EXPECT_TRUE(!s.real_home || s.real_host);
    EXPECT_TRUE(!s.fs_api || std::string(s.probe) == kDriverFsProbe);
    EXPECT_TRUE(s.fs == FsRule::kNone || s.path_form || s.real_home);
    EXPECT_TRUE(s.host_noun == nullptr || s.targets);
    // A class not available everywhere says why (the skip's reason); one going through the proxy
    // is a network class with targets.
    EXPECT_EQ(s.platforms != Platforms::kAny, s.platform_why != nullptr);
    EXPECT_TRUE(!s.via_proxy || (s.targets && s.decided_by == PolicyField::kNetwork));
    EXPECT_TRUE(s.helper_probe == nullptr || std::string(s.helper_probe) != s.probe);
  }
}

TEST(ClassTable, AnIndexOutsideTheEnumIsRefused) {
  EXPECT_THROW(class_spec(AttemptClass::kCount), Error);
  EXPECT_THROW(make_oracle_for(AttemptClass::kCount), Error);
}

}  // namespace
}  // namespace breakout
