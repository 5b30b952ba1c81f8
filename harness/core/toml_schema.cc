// Implementation of the TOML schema helpers.
#include "harness/core/toml_schema.h"

#include <fstream>
#include <sstream>

#include "harness/core/error.h"

namespace breakout::schema {

void fail(std::string_view code, const std::string& where, const std::string& message) {
  throw Error(std::string(code), where + ": " + message);
}

void only_fields(const toml::table& table, std::initializer_list<std::string_view> allowed,
                 const std::string& where) {
  for (const auto& [key, value] : table) {
    bool known = false;
    for (auto a : allowed) known = known || key.str() == a;
    if (!known) {
      std::string list;
      for (auto a : allowed) list += (list.empty() ? "" : ", ") + std::string(a);
      fail("unknown-field", where, "unknown field '" + std::string(key.str()) + "' (allowed: " + list + ")");
    }
  }
}

std::string required_string(const toml::table& t, std::string_view key, const std::string& where) {
  auto value = optional_string(t, key, where);
  if (!value) fail("missing-field", where, "missing field '" + std::string(key) + "'");
  if (value->empty()) fail("empty-field", where, "field '" + std::string(key) + "' is empty");
  return *value;
}

std::optional<std::string> optional_string(const toml::table& t, std::string_view key,
                                           const std::string& where) {
  const toml::node* node = t.get(key);
  if (!node) return std::nullopt;
  if (!node->is_string()) fail("wrong-type", where, "field '" + std::string(key) + "' must be a string");
  return node->value<std::string>();
}

std::vector<std::string> string_array(const toml::table& t, std::string_view key,
                                      const std::string& where, bool required) {
  const toml::node* node = t.get(key);
  if (!node) {
    if (required) fail("missing-field", where, "missing field '" + std::string(key) + "'");
    return {};
  }
  const toml::array* arr = node->as_array();
  if (!arr) fail("wrong-type", where, "field '" + std::string(key) + "' must be an array of strings");
  std::vector<std::string> out;
  for (const auto& element : *arr) {
    if (!element.is_string())
      fail("wrong-type", where, "field '" + std::string(key) + "' must hold only strings");
    out.push_back(*element.value<std::string>());
  }
  return out;
}

std::optional<std::int64_t> optional_int(const toml::table& t, std::string_view key,
                                         const std::string& where) {
  const toml::node* node = t.get(key);
  if (!node) return std::nullopt;
  if (!node->is_integer()) fail("wrong-type", where, "field '" + std::string(key) + "' must be an integer");
  return node->value<std::int64_t>();
}

// toml++ stays with exceptions (TOML_EXCEPTIONS=1): its parse_result mode checks
// for an error after every step of the parser, a compare per character that cost
// the fuzz targets more than the one throw per syntax error it saves.
toml::table parse(const std::string& text, const std::string& origin) {
  try {
    return toml::parse(text, origin);
  } catch (const toml::parse_error& e) {
    // Plain concatenation: an ostringstream per syntax error was a locale and a stream buffer for one line.
    fail("toml-syntax", origin,
         std::string(e.description()) + " at line " + std::to_string(e.source().begin.line) + ", column " +
             std::to_string(e.source().begin.column));
  }
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error("cannot read " + path);
  std::ostringstream buf;
  buf << in.rdbuf();
  return buf.str();
}

}  // namespace breakout::schema
