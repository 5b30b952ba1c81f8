// Every negative fixture raises exactly the error it is named after; the shipped scenarios load.
#include <gtest/gtest.h>

#include <filesystem>

#include "harness/core/error.h"
#include "harness/core/toml_schema.h"
#include "harness/model/scenario.h"
#include "harness/spawner/driver_spawner.h"
#include "harness/spawner/template_spawner.h"

namespace fs = std::filesystem;
using namespace breakout;

namespace {

const fs::path kScenarios = fs::path(BREAKOUT_SOURCE_DIR) / "scenarios";
const fs::path kInvalid = kScenarios / "fixtures/invalid";

// The code of the error `load` throws, and its text for the failure message.
std::pair<std::string, std::string> error_of(const std::function<void()>& load) {
  try {
    load();
  } catch (const Error& e) {
    return {e.code(), e.what()};
  }
  return {"", "(no error)"};
}

void expect_fixtures(const std::string& dir, const std::function<void(const fs::path&)>& load) {
  int seen = 0;
  for (const auto& e : fs::directory_iterator(kInvalid / dir)) {
    if (e.path().extension() != ".toml") continue;
    ++seen;
    const std::string code = e.path().stem().string();
    const auto [got, text] = error_of([&] { load(e.path()); });
    EXPECT_EQ(got, code) << e.path() << " should raise [" << code << "] but gave: " << text;
  }
  EXPECT_GE(seen, 3) << "fixtures missing in " << dir;
}

}  // namespace

TEST(Schema, InvalidAttemptFilesRaiseTheirNamedError) {
  expect_fixtures("attempts", [](const fs::path& p) { parse_attempts_text(schema::read_file(p.string()), p.string()); });
}

TEST(Schema, InvalidPoliciesRaiseTheirNamedError) {
  expect_fixtures("policies", [](const fs::path& p) { load_policy_file(p); });
}

TEST(Schema, InvalidProfilesRaiseTheirNamedError) {
  expect_fixtures("profiles", [](const fs::path& p) { load_profile_file(p); });
}

TEST(Schema, InvalidDriverProfilesRaiseTheirNamedError) {
  expect_fixtures("driver-profiles", [](const fs::path& p) {
    parse_driver_profile(schema::parse(schema::read_file(p.string()), p.string()), p.string(), p.parent_path());
  });
}

TEST(Schema, InvalidSuitesRaiseTheirNamedError) {
  expect_fixtures("suites", [](const fs::path& p) { load_suite(p.string(), kScenarios, "linux"); });
}

TEST(Schema, HandWrittenExpectationIsRejected) {
  const auto [code, text] = error_of([] {
    parse_attempts_text(schema::read_file((kInvalid / "attempts/unknown-field.toml").string()), "x");
  });
  EXPECT_EQ(code, "unknown-field") << text;
  EXPECT_NE(text.find("'expected'"), std::string::npos) << text;
}

TEST(Schema, ShippedSuitesLoad) {
  for (const auto& name : list_suites(kScenarios)) {
    Suite s = load_suite(name, kScenarios, "linux");
    EXPECT_FALSE(s.attempts.empty()) << name;
    EXPECT_FALSE(s.policies.empty()) << name;
  }
  const Suite def = load_suite("default", kScenarios, "linux");
  EXPECT_EQ(def.name, "default");
}

TEST(Schema, ShippedProfilesLoad) {
  for (const auto& e : fs::directory_iterator(fs::path(BREAKOUT_SOURCE_DIR) / "spawners"))
    if (e.path().extension() == ".toml") {
      const auto root = schema::parse(schema::read_file(e.path().string()), e.path().string());
      if (root["kind"].value<std::string>() == std::optional<std::string>("driver")) {
        const DriverSettings d = parse_driver_profile(root, e.path().string(), e.path().parent_path());
        ASSERT_FALSE(d.argv.empty());
        EXPECT_TRUE(fs::exists(d.argv.back())) << d.argv.back();  // the driver script the profile names
      } else {
        EXPECT_NO_THROW(load_profile_file(e.path())) << e.path();
      }
    }
}
