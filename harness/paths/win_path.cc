// Win32 path forms: classification, GetFullPathNameW's normalisation, what CreateFileW opens, and containment.
#include "harness/paths/win_path.h"

#include "harness/core/error.h"

namespace breakout::winpath {

const char* to_string(Form f) {
  switch (f) {
    case Form::kEmpty: return "empty";
    case Form::kDriveAbsolute: return "drive-absolute";
    case Form::kDriveRelative: return "drive-relative";
    case Form::kRooted: return "rooted";
    case Form::kRelative: return "relative";
    case Form::kUnc: return "unc";
    case Form::kLocalDevice: return "local-device";
    case Form::kRootLocalDevice: return "root-local-device";
    case Form::kVerbatim: return "verbatim";
    case Form::kNtObject: return "nt-object";
  }
  return "?";
}
const char* to_string(Kind k) {
  switch (k) {
    case Kind::kFile: return "file";
    case Kind::kDevice: return "device";
    case Kind::kRemote: return "remote";
    case Kind::kNothing: return "nothing";
    case Kind::kUnknown: return "unknown";
  }
  return "?";
}
const char* to_string(Inside i) {
  switch (i) {
    case Inside::kInside: return "inside";
    case Inside::kOutside: return "outside";
    case Inside::kUnknown: return "unknown";
  }
  return "?";
}

namespace {

bool sep(char c) { return c == '\\' || c == '/'; }
bool letter(char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z'); }
bool starts(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

std::vector<std::string> split(std::string_view s) {
  std::vector<std::string> out;
  std::size_t i = 0;
  while (i <= s.size()) {
    const std::size_t j = std::min(s.find('\\', i), s.size());
    out.emplace_back(s.substr(i, j - i));
    i = j + 1;
  }
  return out;
}

std::string backslashes(std::string_view s) {
  std::string out(s);
  for (char& c : out)
    if (c == '/') c = '\\';
  return out;
}

// "File path formats", "Normalize separators", "Evaluate relative components",
// "Trim characters": runs of separators collapse; '.' goes, '..' removes the previous
// segment but never the root; a segment ending in a single period loses it; when the
// path does not end in a separator, the last segment loses all trailing periods and spaces.
std::string normalise_below(const std::string& root, std::string_view tail) {
  std::vector<std::string> kept;
  for (auto& part : split(tail)) {
    if (part.empty() || part == ".") continue;
    if (part == "..") {
      if (!kept.empty()) kept.pop_back();
      continue;
    }
    kept.push_back(std::move(part));
  }
  const bool trailing_sep = !tail.empty() && tail.back() == '\\';
  for (std::size_t i = 0; i + 1 < kept.size() || (trailing_sep && i < kept.size()); ++i) {
    std::string& s = kept[i];
    if (s.size() >= 2 && s.back() == '.' && s[s.size() - 2] != '.') s.pop_back();
  }
  // A last segment trimmed to nothing goes; the one before is then last and trimmed
  // too, so normalising twice changes nothing (the model's choice: [unverified] on Windows).
  while (!trailing_sep && !kept.empty()) {
    std::string& s = kept.back();
    while (!s.empty() && (s.back() == '.' || s.back() == ' ')) s.pop_back();
    if (!s.empty()) break;
    kept.pop_back();
  }
  std::string out = root;
  for (std::size_t i = 0; i < kept.size(); ++i) out += (i ? "\\" : "") + kept[i];
  if (trailing_sep && !kept.empty()) out += '\\';
  return out;
}

// The root a rooted path ("\x") starts from: the cwd's drive or share.
std::string root_of_cwd(const Env& env) {
  if (starts(env.cwd, "\\\\")) {
    const std::size_t server_end = env.cwd.find('\\', 2);
    const std::size_t share_end = server_end == std::string::npos ? server_end : env.cwd.find('\\', server_end + 1);
    return env.cwd.substr(0, share_end);
  }
  return env.cwd.substr(0, 2);
}

}  // namespace

Form form_of(std::string_view p) {
  if (p.empty()) return Form::kEmpty;
  if (starts(p, "\\\\?\\")) return Form::kVerbatim;  // exactly backslashes: "//?/" is normalised
  if (starts(p, "\\??\\")) return Form::kNtObject;
  if (p.size() >= 2 && sep(p[0]) && sep(p[1])) {
    if (p.size() >= 3 && (p[2] == '.' || p[2] == '?')) {
      if (p.size() == 3) return Form::kRootLocalDevice;
      if (sep(p[3])) return Form::kLocalDevice;
    }
    return Form::kUnc;
  }
  if (sep(p[0])) return Form::kRooted;
  if (p.size() >= 2 && letter(p[0]) && p[1] == ':') return p.size() >= 3 && sep(p[2]) ? Form::kDriveAbsolute : Form::kDriveRelative;
  return Form::kRelative;
}

std::string full_path(std::string_view path, const Env& env) {
  const Form form = form_of(path);
  const std::string s = backslashes(path);
  switch (form) {
    case Form::kEmpty: return "";
    case Form::kVerbatim: return std::string(path);
    case Form::kRootLocalDevice: return "\\\\.\\";
    case Form::kLocalDevice: return normalise_below(s.substr(0, 4), s.substr(4));
    case Form::kUnc: {
      // "\\server\share" is the root; runs of separators after the leading two are one
      // (FPF "Collapse repeated separators"), so "\\srv\\share" has the share "share".
      std::string u = "\\\\";
      for (std::size_t i = 2; i < s.size(); ++i)
        if (s[i] != '\\' || u.back() != '\\' || u.size() == 2) u += s[i];  // "\\\x": an empty server stays empty
      const std::size_t server_end = std::min(u.find('\\', 2), u.size());
      const std::size_t share_end = std::min(u.find('\\', server_end + 1), u.size());
      const std::string root = u.substr(0, share_end);
      std::string out = normalise_below(root + "\\", u.substr(std::min(share_end + 1, u.size())));
      if (share_end == u.size() && out.size() == root.size() + 1) out.pop_back();  // "\\srv\share" stays as written
      return out;
    }
    case Form::kDriveAbsolute: return normalise_below(s.substr(0, 3), s.substr(3));
    case Form::kDriveRelative: {
      // "C:x" is relative to drive C:'s current directory: the process cwd when it is on C:,
      // else the hidden "=C:" variable, else the drive's root.
      const char drive = upper(s.substr(0, 1))[0];
      std::string base = s.substr(0, 2) + "\\";
      if (upper(env.cwd.substr(0, 1))[0] == drive && env.cwd.size() >= 2 && env.cwd[1] == ':') base = env.cwd;
      else if (const auto it = env.drive_cwd.find(drive); it != env.drive_cwd.end()) base = it->second;
      return full_path(base + "\\" + s.substr(2), env);
    }
    case Form::kRooted:
    case Form::kNtObject: return full_path(root_of_cwd(env) + s, env);  // GetFullPathNameW calls "\??\x" rooted
    case Form::kRelative: return full_path(env.cwd + "\\" + s, env);
  }
  return "";
}

namespace {

// The NT side: "X:\..", "UNC\server\share\..", "GLOBALROOT\Device\..", "Volume{..}\..", devices.
Object parse_nt(std::string_view nt, bool verbatim, const Env& env) {
  Object o;
  auto parts = split(nt);
  std::size_t rest = 1;
  const std::string first = upper(parts[0]);
  auto on_drive = [&](char d, std::string why) {
    o.kind = Kind::kFile;
    o.volume = std::string(1, d) + ":";
    o.why = std::move(why);
  };
  if (first.size() == 2 && letter(first[0]) && first[1] == ':') {
    if (parts.size() == 1) return {Kind::kDevice, first, {}, "", -1, "the volume itself (raw device), not a file"};
    on_drive(first[0], "drive letter");
  } else if (first == "UNC") {
    if (parts.size() < 3) return {Kind::kNothing, "", {}, "", -1, "UNC without server and share"};
    const std::string server = upper(parts[1]), share = upper(parts[2]);
    rest = 3;
    bool local = false;
    for (const auto& h : env.local_hosts) local = local || h == server;
    if (!local) return {Kind::kRemote, "\\\\" + server + "\\" + share, {}, "", -1, "a share of another machine"};
    if (share.size() == 2 && letter(share[0]) && share[1] == '$') on_drive(share[0], "loopback administrative share " + share);
    else return {Kind::kUnknown, "\\\\" + server + "\\" + share, {}, "", -1, "a loopback share: its directory is the share's definition"};
  } else if (first == "GLOBALROOT") {
    const std::string dev = parts.size() > 2 && upper(parts[1]) == "DEVICE" ? upper(parts[2]) : "";
    const auto it = env.volume_devices.find(dev);
    if (it == env.volume_devices.end()) return {Kind::kUnknown, dev, {}, "", -1, "an object-manager device the model has no volume for"};
    rest = 3;
    on_drive(it->second, "\\Device\\" + dev);
  } else if (starts(first, "VOLUME{") && first.back() == '}') {
    const auto it = env.volume_guids.find(first.substr(6));
    if (it == env.volume_guids.end()) return {Kind::kUnknown, first, {}, "", -1, "a volume GUID the model does not know"};
    on_drive(it->second, "volume " + first);
  } else {
    return {Kind::kDevice, first, {}, "", -1, "a device in the DOS device namespace"};
  }
  for (std::size_t i = rest; i < parts.size(); ++i) {
    std::string& p = parts[i];
    const bool last = i + 1 == parts.size();
    if (p.empty() && last) break;  // a trailing separator
    if (verbatim && (p.empty() || p == "." || p == "..")) {
      o.kind = Kind::kUnknown;
      o.why = "a verbatim path hands '" + p + "' to the file system as a name; only a Windows host can say what it opens";
      return o;
    }
    const std::size_t colon = p.find(':');
    if (colon != std::string::npos) {
      // "Naming Files": ':' is reserved except as the stream separator of the last
      // component ("File Streams": name:stream:type; "::$DATA" is the default stream).
      if (!last || colon == 0) return {Kind::kNothing, o.volume, {}, "", -1, "':' in a directory name is invalid"};
      const std::string spec = upper(std::string_view(p).substr(colon + 1));
      const std::size_t type_at = spec.find(':');
      const std::string name = spec.substr(0, type_at), type = type_at == std::string::npos ? "" : spec.substr(type_at + 1);
      if (name.empty() && type == "$INDEX_ALLOCATION") o.stream = "$INDEX_ALLOCATION";
      else if (type.empty() || type == "$DATA") o.stream = name;
      else return {Kind::kNothing, o.volume, {}, "", -1, "stream type " + type + " of a file"};
      p.resize(colon);
    }
    o.parts.push_back(upper(p));
    if (o.short_name_at < 0 && may_be_short_name(p)) o.short_name_at = static_cast<int>(o.parts.size() - 1);
  }
  return o;
}

}  // namespace

Object open_target(std::string_view path, const Env& env) {
  const Form form = form_of(path);
  // "\\?\" and "\??\" reach the NT layer untouched ("Naming Files": "disable all string parsing").
  if (form == Form::kVerbatim || form == Form::kNtObject) return parse_nt(path.substr(4), true, env);
  const std::string full = full_path(path, env);
  if (full.empty()) return {Kind::kNothing, "", {}, "", -1, "an empty path"};
  // MAX_PATH is 260 with the terminating NUL ("Maximum Path Length Limitation").
  if (!env.long_paths && full.size() >= 260) return {Kind::kNothing, "", {}, "", -1, "longer than MAX_PATH without \\\\?\\"};
  if (form == Form::kDriveAbsolute || form == Form::kDriveRelative || form == Form::kRooted || form == Form::kRelative) {
    // A legacy device name as the last component is the device (RtlIsDosDeviceName_U; before Windows 11).
    const std::size_t last = full.rfind('\\');
    const std::string device = dos_device(std::string_view(full).substr(last == std::string::npos ? 0 : last + 1));
    if (!device.empty()) return {Kind::kDevice, device, {}, "", -1, "legacy DOS device " + device + " (\\\\.\\" + device + ")"};
  }
  if (starts(full, "\\\\.\\") || starts(full, "\\\\?\\")) return parse_nt(std::string_view(full).substr(4), false, env);
  if (starts(full, "\\\\")) return parse_nt("UNC\\" + full.substr(2), false, env);
  return parse_nt(full, false, env);
}

Verdict within(std::string_view path, std::string_view root, const Env& env) {
  const Object r = open_target(root, env);
  return within(open_target(path, env), r, root);
}

Verdict within(const Object& o, const Object& r, std::string_view root) {
  if (r.kind != Kind::kFile || !r.stream.empty() || r.short_name_at >= 0)
    throw Error("bad-root", "'" + std::string(root) + "' is no local directory path");
  switch (o.kind) {
    case Kind::kFile: break;
    case Kind::kUnknown: return {Inside::kUnknown, o.why};
    default: return {Inside::kOutside, std::string(to_string(o.kind)) + ": " + o.why};
  }
  if (o.volume != r.volume) return {Inside::kOutside, "volume " + o.volume + ", not " + r.volume};
  const std::size_t depth = r.parts.size();
  const std::size_t check = o.short_name_at >= 0 ? std::min<std::size_t>(depth, static_cast<std::size_t>(o.short_name_at)) : depth;
  if (o.parts.size() < check) return {Inside::kOutside, "above the root"};
  for (std::size_t i = 0; i < check; ++i)
    if (o.parts[i] != r.parts[i]) return {Inside::kOutside, "leaves the root at '" + o.parts[i] + "'"};
  if (check < depth)
    return {Inside::kUnknown, "'" + o.parts[check] + "' may be the 8.3 alias of any name in its directory, the root's among them"};
  if (o.parts.size() < depth) return {Inside::kOutside, "above the root"};
  return {Inside::kInside, o.why + (o.stream.empty() ? "" : ", stream " + o.stream)};
}

}  // namespace breakout::winpath
