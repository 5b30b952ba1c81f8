// JSON files given to breakout (core/json_file.h): errors in plain words, never a raw byte of the file.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "error_code.h"
#include "harness/core/json_file.h"

using namespace breakout;

namespace {

// The sentence for `text`'s parse error, as read_json_file words it.
std::string parse_error_of(const std::string& text) {
  try {
    const auto parsed = nlohmann::json::parse(text);
    return "parsed: " + parsed.dump();
  } catch (const nlohmann::json::parse_error& e) {
    return json_parse_error_text(e, text);
  }
}

// No library jargon, no control byte, no byte >= 0x80.
void expect_plain(const std::string& s) {
  EXPECT_EQ(s.find("json.exception"), std::string::npos) << s;
  EXPECT_EQ(s.find("last read"), std::string::npos) << s;
  for (unsigned char c : s) EXPECT_TRUE(c >= 0x20 && c < 0x7f) << "byte " << int(c) << " in " << s;
}

}  // namespace

TEST(JsonParseError, ControlCharacterInAStringIsNamedNotPrinted) {
  const std::string s = parse_error_of("{\"a\": \"x\x01y\"}");
  EXPECT_EQ(s.rfind("not valid JSON at line 1, column 9 (byte 9): ", 0), 0u) << s;
  EXPECT_NE(s.find("control character U+0001"), std::string::npos) << s;
  EXPECT_NE(s.find("near '{\"a\": \"x\\x01y\"}'"), std::string::npos) << s;
  expect_plain(s);
}

TEST(JsonParseError, LineColumnAndWhatWasExpected) {
  const std::string s = parse_error_of("{\"a\": 1,\n \"b\" 2}");
  EXPECT_EQ(s, "not valid JSON at line 2, column 6 (byte 15): unexpected number literal; expected ':'; near ' \"b\" 2}'");
  const std::string cut = parse_error_of("{\"a\": [1, 2");
  EXPECT_EQ(cut, "not valid JSON at line 1, column 12 (byte 12): unexpected end of input; expected ']'");
  const std::string empty = parse_error_of("");
  EXPECT_NE(empty.find("line 1, column 1"), std::string::npos) << empty;
  EXPECT_NE(empty.find("unexpected end of input"), std::string::npos) << empty;
}

TEST(JsonParseError, AnEscapeSequenceIsShownEscaped) {
  const std::string s = parse_error_of("\x1b[31mred");
  EXPECT_NE(s.find("invalid literal; expected a JSON value"), std::string::npos) << s;
  EXPECT_NE(s.find("\\x1b"), std::string::npos) << s;
  expect_plain(s);
  const std::string high = parse_error_of("{\"a\": \xff\xfe}");
  expect_plain(high);
}

TEST(JsonError, OtherErrorsLoseThePrefix) {
  try {
    (void)nlohmann::json::object().at("run");
    FAIL();
  } catch (const nlohmann::json::exception& e) {
    EXPECT_EQ(json_error_text(e), "key 'run' not found");
  }
  try {
    (void)nlohmann::json(1).get<std::string>();
    FAIL();
  } catch (const nlohmann::json::exception& e) {
    EXPECT_EQ(json_error_text(e), "type must be string, but is number");
  }
}

TEST(ReadJsonFile, NamesTheFileAndTypesTheFailure) {
  const auto dir = std::filesystem::temp_directory_path() / ("json_file_test-" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()));
  std::filesystem::create_directories(dir);
  const auto bad = dir / "results.json";
  std::ofstream(bad) << "{\"schema\": \"breakout.results/1\",\n\"run\": \x07}";
  EXPECT_EQ(test_util::code_of([&] { (void)read_json_file(bad, "results file"); }), "bad-json");
  try {
    (void)read_json_file(bad, "results file");
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find(bad.string() + ": not valid JSON at line 2, column 8"), std::string::npos) << what;
    expect_plain(what);
  }
  EXPECT_EQ(test_util::code_of([&] { (void)read_json_file(dir / "missing.json", "results file"); }), "no-file");
  std::ofstream(bad) << "{\"ok\": true}";
  EXPECT_EQ(read_json_file(bad, "results file")["ok"], true);
  std::filesystem::remove_all(dir);
}
