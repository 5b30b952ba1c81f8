// JSON escaping, errno names and the report line (see report.h).
#include "probes/common/report.h"

#include <cerrno>
#include <cstring>

namespace breakout::probe {

std::string json_quote(std::string_view s) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(s.size() + 2);
  out.push_back('"');
  for (char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    if (c == '"' || c == '\\') {
      out.push_back('\\');
      out.push_back(ch);
    } else if (c < 0x20 || c >= 0x7f) {  // controls, DEL and every non-ASCII byte
      out += "\\u00";
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 0xf]);
    } else {
      out.push_back(ch);
    }
  }
  out.push_back('"');
  return out;
}

namespace {

struct ErrnoName {
  int value;
  const char* name;
};

// First match wins, so aliases (EWOULDBLOCK == EAGAIN on Linux) print the
// common name. Each entry is guarded: mingw lacks some of them.
constexpr ErrnoName kErrnoNames[] = {
#define BREAKOUT_E(x) {x, #x},
    BREAKOUT_E(EPERM) BREAKOUT_E(ENOENT) BREAKOUT_E(ESRCH) BREAKOUT_E(EINTR) BREAKOUT_E(EIO)
    BREAKOUT_E(ENXIO) BREAKOUT_E(E2BIG) BREAKOUT_E(ENOEXEC) BREAKOUT_E(EBADF) BREAKOUT_E(ECHILD)
    BREAKOUT_E(EAGAIN) BREAKOUT_E(ENOMEM) BREAKOUT_E(EACCES) BREAKOUT_E(EFAULT) BREAKOUT_E(EBUSY)
    BREAKOUT_E(EEXIST) BREAKOUT_E(EXDEV) BREAKOUT_E(ENODEV) BREAKOUT_E(ENOTDIR) BREAKOUT_E(EISDIR)
    BREAKOUT_E(EINVAL) BREAKOUT_E(ENFILE) BREAKOUT_E(EMFILE) BREAKOUT_E(ENOTTY) BREAKOUT_E(EFBIG)
    BREAKOUT_E(ENOSPC) BREAKOUT_E(ESPIPE) BREAKOUT_E(EROFS) BREAKOUT_E(EMLINK) BREAKOUT_E(EPIPE)
    BREAKOUT_E(EDOM) BREAKOUT_E(ERANGE) BREAKOUT_E(EDEADLK) BREAKOUT_E(ENAMETOOLONG)
    BREAKOUT_E(ENOLCK) BREAKOUT_E(ENOSYS) BREAKOUT_E(ENOTEMPTY) BREAKOUT_E(EILSEQ)
    BREAKOUT_E(ELOOP) BREAKOUT_E(ENOTSUP) BREAKOUT_E(EOPNOTSUPP) BREAKOUT_E(ETIMEDOUT)
    BREAKOUT_E(ECONNREFUSED) BREAKOUT_E(ECONNRESET) BREAKOUT_E(ECONNABORTED)
    BREAKOUT_E(ENETUNREACH) BREAKOUT_E(ENETDOWN) BREAKOUT_E(EHOSTUNREACH) BREAKOUT_E(EADDRINUSE)
    BREAKOUT_E(EADDRNOTAVAIL) BREAKOUT_E(EAFNOSUPPORT) BREAKOUT_E(EPROTONOSUPPORT)
    BREAKOUT_E(EPROTOTYPE) BREAKOUT_E(ENOTSOCK) BREAKOUT_E(EINPROGRESS) BREAKOUT_E(EALREADY)
    BREAKOUT_E(EISCONN) BREAKOUT_E(ENOTCONN) BREAKOUT_E(EMSGSIZE) BREAKOUT_E(EDESTADDRREQ)
    BREAKOUT_E(ENOBUFS) BREAKOUT_E(ETXTBSY) BREAKOUT_E(EOVERFLOW) BREAKOUT_E(ECANCELED)
    BREAKOUT_E(EOWNERDEAD)
#undef BREAKOUT_E
#ifdef ENOTBLK
    {ENOTBLK, "ENOTBLK"},
#endif
#ifdef EDQUOT
    {EDQUOT, "EDQUOT"},
#endif
#ifdef ESTALE
    {ESTALE, "ESTALE"},
#endif
#ifdef EHOSTDOWN
    {EHOSTDOWN, "EHOSTDOWN"},
#endif
#ifdef ESHUTDOWN
    {ESHUTDOWN, "ESHUTDOWN"},
#endif
#ifdef EPFNOSUPPORT
    {EPFNOSUPPORT, "EPFNOSUPPORT"},
#endif
#ifdef ESOCKTNOSUPPORT
    {ESOCKTNOSUPPORT, "ESOCKTNOSUPPORT"},
#endif
#ifdef ENOMEDIUM
    {ENOMEDIUM, "ENOMEDIUM"},
#endif
#ifdef ENODATA
    {ENODATA, "ENODATA"},
#endif
#ifdef ENOKEY
    {ENOKEY, "ENOKEY"},
#endif
};

}  // namespace

std::string errno_name(int e) {
  if (e == 0) return "";
  for (const auto& n : kErrnoNames)
    if (n.value == e) return n.name;
  return "E" + std::to_string(e);
}

void JsonObject::set_raw(std::string_view key, std::string json) {
  for (auto& [k, v] : fields_)
    if (k == key) {
      v = std::move(json);
      return;
    }
  fields_.emplace_back(std::string(key), std::move(json));
}

std::string JsonObject::str() const {
  std::string out = "{";
  for (const auto& [k, v] : fields_) {
    if (out.size() > 1) out.push_back(',');
    out += json_quote(k);
    out.push_back(':');
    out += v;
  }
  out.push_back('}');
  return out;
}

void JsonArray::add_raw(std::string json) {
  if (count_++ > 0) body_.push_back(',');
  body_ += json;
}

std::string JsonArray::str() const { return "[" + body_ + "]"; }

ProbeReport::ProbeReport(std::string_view probe) {
  fields_.set("probe", probe);
  fields_.set("ok", false);
  fields_.set("errno", 0);
  fields_.set("errname", "");
  fields_.set("detail", "");
}

void ProbeReport::set_errno(int e) {
  ok_ = e == 0;
  fields_.set("ok", ok_);
  fields_.set("errno", e);
  fields_.set("errname", errno_name(e));
}

void ProbeReport::fail(std::string_view step, int e) {
  if (e == 0) e = EINVAL;  // a failure must never read as success
  set_errno(e);
  fields_.set("step", step);
  fields_.set("detail", std::string(step) + ": " + std::strerror(e));
}

std::string ProbeReport::line() const { return "BREAKOUT-REPORT " + fields_.str() + "\n"; }

bool ProbeReport::write_line(std::FILE* out, const std::string& l) {
  const bool wrote = std::fwrite(l.data(), 1, l.size(), out) == l.size();
  return std::fflush(out) == 0 && wrote;
}

bool ProbeReport::emit(std::FILE* out) const {
  const std::string l = line();
  bool ok = write_line(out, l);
  if (!witness_.empty()) {
    std::FILE* f = std::fopen(witness_.c_str(), "wb");
    ok = f != nullptr && write_line(f, l) && ok;
    if (f) ok = std::fclose(f) == 0 && ok;
  }
  return ok;
}

bool ProbeReport::emit_to_file(const std::string& path) const {
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) return false;
  const bool wrote = write_line(f, line());
  return std::fclose(f) == 0 && wrote;
}

}  // namespace breakout::probe
