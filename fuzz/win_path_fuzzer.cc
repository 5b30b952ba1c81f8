// Fuzzes the Win32 path-form model: never crashes, normalising is idempotent, verbatim stays verbatim, rewrites Windows ignores change nothing.
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz/fuzz_check.h"
#include "harness/core/text.h"
#include "harness/paths/win_path.h"

using namespace breakout;
using namespace breakout::winpath;

namespace {

const Env& env() {
  static const Env e = [] {
    Env x;
    x.drive_cwd['D'] = "D:\\data";
    x.volume_devices["HARDDISKVOLUME3"] = 'C';
    x.volume_guids["{0B1C2D3E-0000-0000-0000-000000000001}"] = 'C';
    return x;
  }();
  return e;
}

bool same_object(const Object& a, const Object& b) {
  return a.kind == b.kind && a.volume == b.volume && a.parts == b.parts && a.stream == b.stream &&
         a.short_name_at == b.short_name_at;
}

std::string flip_case(const std::string& s) {
  std::string out = s;
  for (char& c : out) {
    if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
    else if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

// Rewrites after the first three characters (so "C:\" and a relative start keep their form).
std::string rewrite_tail(const std::string& s, std::uint8_t how) {
  std::string out = s.substr(0, 3);
  for (std::size_t i = 3; i < s.size(); ++i) {
    const char c = s[i];
    if (c == '\\' || c == '/') {
      out += (how & 1) ? (c == '\\' ? '/' : '\\') : c;  // '/' and '\' are the same separator
      if (how & 2) out += '\\';                        // runs of separators are one
    } else {
      out += c;
    }
  }
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::uint8_t how = data[0];
  const std::string path(reinterpret_cast<const char*>(data) + 1, size - 1);
  const Form form = form_of(path);
  const std::string full = full_path(path, env());
  // Built only when a check fails (FUZZ_CHECK_MSG evaluates its detail lazily).
  const auto what = [&] { return "'" + printable_excerpt(path, 300) + "' -> '" + printable_excerpt(full, 300) + "'"; };
  if (form == Form::kVerbatim) FUZZ_CHECK_MSG(full == path, what());  // "\\?\" skips normalisation
  if (!full.empty() && form != Form::kVerbatim && form != Form::kNtObject)
    FUZZ_CHECK_MSG(full_path(full, env()) == full, what() + " then '" + printable_excerpt(full_path(full, env()), 300) + "'");
  const Object o = open_target(path, env());
  if (form == Form::kDriveAbsolute || form == Form::kRelative) {
    // Case, separator style and runs of separators: the same object.
    FUZZ_CHECK_MSG(same_object(o, open_target(flip_case(path), env())), what() + " case");
    FUZZ_CHECK_MSG(same_object(o, open_target(rewrite_tail(path, how), env())), what() + " separators");
    const bool ends_sep = path.back() == '\\' || path.back() == '/';
    const std::size_t last = path.find_last_of("\\/");
    const std::string tail = path.substr(last == std::string::npos ? 0 : last + 1);
    // A trailing '.' or ' ' on the last segment is trimmed (unless the segment is all dots, or holds a stream).
    if (!ends_sep && tail.find_first_not_of('.') != std::string::npos && tail.find(':') == std::string::npos)
      FUZZ_CHECK_MSG(same_object(o, open_target(path + ((how & 4) ? "." : " "), env())), what() + " trailing");
  }
  // The full path made verbatim names the same file (long paths aside: "\\?\" lifts MAX_PATH).
  if (o.kind == Kind::kFile && form != Form::kVerbatim && form != Form::kNtObject && full.size() < 200 &&
      (full.size() < 4 || full.substr(0, 2) != "\\\\")) {
    const Object v = open_target("\\\\?\\" + full, env());
    FUZZ_CHECK_MSG(v.kind != Kind::kFile || same_object(o, v), what() + " verbatim");
  }
  try {
    // The root opened once per process and `o` reused: within(path, root, env) is exactly
    // within(open_target(path), open_target(root), root), and the opens were a third of the time.
    static const Object root = open_target("C:\\ws", env());
    const Verdict v = within(o, root, "C:\\ws");
    if (v.inside == Inside::kInside) FUZZ_CHECK_MSG(o.kind == Kind::kFile && o.volume == "C:" && !o.parts.empty() && o.parts[0] == "WS", what());
  } catch (const Error& e) {
    FUZZ_CHECK_MSG(false, std::string("a valid root threw: ") + e.what());
  }
  return 0;
}
