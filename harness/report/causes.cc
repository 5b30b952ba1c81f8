// Grouping findings by cause (causes.h).
#include "harness/report/causes.h"

#include <cctype>
#include <map>
#include <tuple>

#include "harness/model/verdict.h"

namespace breakout {

namespace {

void replace_all(std::string& s, const std::string& what, const std::string& with) {
  if (what.empty()) return;
  for (std::size_t at = s.find(what); at != std::string::npos; at = s.find(what, at + with.size()))
    s.replace(at, what.size(), with);
}

bool is_hex(char c) { return std::isxdigit(static_cast<unsigned char>(c)) != 0; }

// Digit runs -> N, runs of 8+ hex digits that hold a digit (nonces, tags) -> H.
std::string mask_numbers(const std::string& s) {
  std::string out;
  for (std::size_t i = 0; i < s.size();) {
    std::size_t j = i;
    bool digit = false;
    while (j < s.size() && is_hex(s[j])) digit = digit || std::isdigit(static_cast<unsigned char>(s[j])), ++j;
    const bool word_edge = (i == 0 || !std::isalnum(static_cast<unsigned char>(s[i - 1]))) &&
                           (j == s.size() || !std::isalnum(static_cast<unsigned char>(s[j])));
    if (j - i >= 8 && digit && word_edge) {
      out += 'H';
      i = j;
    } else if (std::isdigit(static_cast<unsigned char>(s[i]))) {
      while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i;
      out += 'N';
    } else {
      out += s[i++];
    }
  }
  return out;
}

}  // namespace

std::string reason_signature(const AttemptRecord& a) {
  std::string s = a.reason;
  // Longest first: a control id holds the group, the group holds nothing shorter we replace.
  for (const auto& c : a.controls) replace_all(s, c, "<control>");
  replace_all(s, a.id, "<self>");
  replace_all(s, a.group, "<group>");
  if (!a.target.empty()) {
    replace_all(s, a.target, "<target>");
    const auto colon = a.target.find(':');  // "net:tcp4-loopback" is "listener tcp4-loopback" in reasons
    if (colon != std::string::npos && colon + 1 < a.target.size()) replace_all(s, a.target.substr(colon + 1), "<target>");
  }
  return mask_numbers(s);
}

std::vector<Cause> group_by_cause(const std::vector<const AttemptRecord*>& findings) {
  std::vector<Cause> causes;
  std::map<std::tuple<std::string, std::string, std::string, std::string>, std::size_t> index;
  for (const AttemptRecord* a : findings) {
    const std::string verdict = to_string(a->verdict);
    const std::string signature = reason_signature(*a);
    const auto key = std::make_tuple(verdict, a->klass, a->policy, signature);
    auto [it, fresh] = index.try_emplace(key, causes.size());
    if (fresh) causes.push_back({verdict, a->klass, a->policy, signature, {}, a});
    causes[it->second].ids.push_back(a->id);
  }
  return causes;
}

}  // namespace breakout
