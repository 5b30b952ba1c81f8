// Environment-block codecs (POSIX envp/environ, Windows UTF-16 block); rules in env_block.h.
#include "harness/core/env_block.h"

#include <algorithm>

#include "harness/core/error.h"
#include "harness/core/text.h"
#include "harness/core/wtf8.h"

namespace breakout::env_block {

namespace {

constexpr std::size_t kExcerpt = 80;

std::string excerpt(std::string_view s) { return printable_excerpt(s, kExcerpt); }

// Every check below is `if (!ok) throw`, not check(ok, message): the message (an
// excerpt, a WTF-8 conversion) is built only for a failure, not once per entry
// (env_block_fuzzer spent much of its time on messages nobody read).
void check_posix(const Entry& e) {
  if (e.first.empty() || e.first.find_first_of(std::string_view("=\0", 2)) != std::string::npos)
    throw Error("bad-env-name", "POSIX variable name '" + excerpt(e.first) + "' is empty or holds '=' or NUL");
  if (e.second.find('\0') != std::string::npos)
    throw Error("bad-env-value", "value of '" + excerpt(e.first) + "' holds a NUL byte");
}

Entry split_posix(std::string_view s) {
  const std::size_t eq = s.find('=');
  if (eq == std::string_view::npos || eq == 0)
    throw Error("bad-env-entry", "'" + excerpt(s) + "' is not NAME=value with a non-empty NAME");
  return {std::string(s.substr(0, eq)), std::string(s.substr(eq + 1))};
}

char16_t fold(char16_t c) { return c >= u'a' && c <= u'z' ? static_cast<char16_t>(c - u'a' + u'A') : c; }

bool u16_less_ci(std::u16string_view a, std::u16string_view b) {
  return std::lexicographical_compare(a.begin(), a.end(), b.begin(), b.end(),
                                      [](char16_t x, char16_t y) { return fold(x) < fold(y); });
}

bool u16_equal_ci(std::u16string_view a, std::u16string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(),
                                            [](char16_t x, char16_t y) { return fold(x) == fold(y); });
}

// Where a Windows name ends: the first '=' after the first character.
std::size_t windows_name_end(std::u16string_view s) { return s.size() < 2 ? std::u16string_view::npos : s.find(u'=', 1); }

}  // namespace

std::vector<std::string> encode_posix(const Entries& entries) {
  std::vector<std::string> out;
  out.reserve(entries.size());
  for (const auto& e : entries) {
    check_posix(e);
    out.push_back(e.first + "=" + e.second);
  }
  return out;
}

Entries decode_posix(const std::vector<std::string>& envp) {
  Entries out;
  out.reserve(envp.size());
  for (const auto& s : envp) {
    if (s.find('\0') != std::string::npos) throw Error("bad-env-entry", "'" + excerpt(s) + "' holds a NUL byte");
    out.push_back(split_posix(s));
  }
  return out;
}

std::string encode_environ(const Entries& entries) {
  std::string out;
  for (const auto& s : encode_posix(entries)) {
    out += s;
    out += '\0';
  }
  return out;
}

Entries decode_environ(std::string_view bytes) {
  if (!bytes.empty() && bytes.back() != '\0') throw Error("bad-env-block", "environ bytes do not end in NUL");
  Entries out;
  for (std::size_t at = 0; at < bytes.size();) {
    const std::size_t nul = bytes.find('\0', at);  // found: the last byte is NUL
    out.push_back(split_posix(bytes.substr(at, nul - at)));
    at = nul + 1;
  }
  return out;
}

const std::string* find_posix(const Entries& entries, std::string_view name) {
  for (const auto& e : entries)
    if (e.first == name) return &e.second;
  return nullptr;
}

bool windows_name_less(std::string_view a, std::string_view b) {
  return u16_less_ci(utf16_from_wtf8(a), utf16_from_wtf8(b));
}

void sort_windows(Entries& entries) {
  // Converted once, not per comparison; stable so same-name duplicates keep their order.
  std::vector<std::pair<std::u16string, Entry>> keyed;
  keyed.reserve(entries.size());
  for (auto& e : entries) keyed.emplace_back(utf16_from_wtf8(e.first), std::move(e));
  std::stable_sort(keyed.begin(), keyed.end(), [](const auto& x, const auto& y) { return u16_less_ci(x.first, y.first); });
  for (std::size_t i = 0; i < entries.size(); ++i) entries[i] = std::move(keyed[i].second);
}

std::u16string encode_windows(const Entries& entries) {
  std::vector<std::pair<std::u16string, std::u16string>> wide;
  wide.reserve(entries.size());
  for (const auto& [name, value] : entries) {
    std::u16string n = utf16_from_wtf8(name), v = utf16_from_wtf8(value);
    if (n.empty() || n.find(u'\0') != std::u16string::npos || (n.size() >= 2 && n.find(u'=', 1) != std::u16string::npos))
      throw Error("bad-env-name", "Windows variable name '" + excerpt(name) +
                  "' is empty or holds NUL or '=' after its first character");
    if (v.find(u'\0') != std::u16string::npos) throw Error("bad-env-value", "value of '" + excerpt(name) + "' holds a NUL");
    wide.emplace_back(std::move(n), std::move(v));
  }
  std::stable_sort(wide.begin(), wide.end(), [](const auto& x, const auto& y) { return u16_less_ci(x.first, y.first); });
  std::u16string out;
  for (const auto& [n, v] : wide) {
    out += n;
    out += u'=';
    out += v;
    out += u'\0';
  }
  // An empty block is two NULs, not one: "terminated by four zero bytes" (CreateProcessW docs).
  if (out.empty()) out += u'\0';
  out += u'\0';
  return out;
}

Entries decode_windows(std::u16string_view block) {
  Entries out;
  if (block.size() == 1 && block[0] == u'\0') return out;
  if (block.size() == 2 && block[0] == u'\0' && block[1] == u'\0') return out;
  std::size_t at = 0;
  for (;;) {
    const std::size_t nul = block.find(u'\0', at);
    if (nul == std::u16string_view::npos) throw Error("bad-env-block", "the block has no terminating NUL");
    if (nul == at) break;  // the empty string that ends the block
    const std::u16string_view s = block.substr(at, nul - at);
    const std::size_t eq = windows_name_end(s);
    if (eq == std::u16string_view::npos)
      throw Error("bad-env-block", "entry '" + excerpt(wtf8_from_utf16(s)) + "' has no '=' after its name");
    out.emplace_back(wtf8_from_utf16(s.substr(0, eq)), wtf8_from_utf16(s.substr(eq + 1)));
    at = nul + 1;
  }
  if (at + 1 != block.size())
    throw Error("bad-env-block", std::to_string(block.size() - at - 1) + " code units after the terminating NUL");
  return out;
}

const std::string* find_windows(const Entries& entries, std::string_view name) {
  const std::u16string wanted = utf16_from_wtf8(name);
  for (const auto& e : entries)
    if (u16_equal_ci(utf16_from_wtf8(e.first), wanted)) return &e.second;
  return nullptr;
}

std::string windows_block_bytes(std::u16string_view block) {
  std::string out;
  out.reserve(block.size() * 2);
  for (const char16_t c : block) {
    out += static_cast<char>(c & 0xFF);
    out += static_cast<char>(c >> 8);
  }
  return out;
}

std::u16string windows_block_from_bytes(std::string_view bytes) {
  if (bytes.size() % 2 != 0) throw Error("bad-env-block", "UTF-16LE block of odd length " + std::to_string(bytes.size()));
  std::u16string out(bytes.size() / 2, u'\0');
  for (std::size_t i = 0; i < out.size(); ++i)
    out[i] = static_cast<char16_t>(static_cast<unsigned char>(bytes[2 * i]) |
                                   (static_cast<unsigned char>(bytes[2 * i + 1]) << 8));
  return out;
}

}  // namespace breakout::env_block
