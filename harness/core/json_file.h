// Reading a JSON file a user hands breakout (results.json, a baseline, a bench file), with errors in
// plain words: the file, the line, column and byte, what was expected; never the library's jargon
// and never a raw byte of the file (a crafted file must not write control characters to a terminal).
//
//   const nlohmann::json j = read_json_file(path, "results file");  // throws Error("bad-json", ...)
//   try { ...j.at("run")... } catch (const nlohmann::json::exception& e) { ...json_error_text(e)... }
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace breakout {

// The parsed file. Throws Error("no-file", ...) when it cannot be read and Error("bad-json",
// "<file>: not valid JSON at line L, column C (byte B): <what went wrong>; expected <what>; near '<text>'")
// when it does not parse. `what` names the kind of file in the read error ("results file").
nlohmann::json read_json_file(const std::filesystem::path& file, std::string_view what);

// The sentence read_json_file puts after "<file>: " for a parse error of `text`.
std::string json_parse_error_text(const nlohmann::json::parse_error& e, std::string_view text);

// Any other JSON error (a missing key, a wrong type) without the library's "[json.exception...]" prefix,
// printable ("key 'run' not found", "type must be string, but is number").
std::string json_error_text(const nlohmann::json::exception& e);

// A path as it may be shown on a terminal: control and non-ASCII bytes escaped as \xNN.
std::string printable_path(const std::filesystem::path& path);

}  // namespace breakout
