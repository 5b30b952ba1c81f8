// breakout-probe-cwd: shows where the sandbox started the probe (cwd contract).
//
//   breakout-probe-cwd --mark NAME
//
// Reports "cwd" (getcwd) and "pwd_env" ($PWD, when set), then creates the file
// NAME relative to its cwd (NAME must be relative) containing the cwd followed
// by "\n". The harness checks the mark from outside: it must appear in the
// directory it asked the spawner to use.
// Result: ok=true when getcwd and the mark succeeded; else errno/errname of the
// failing step (getcwd: e.g. ENOENT when the cwd was removed or is outside the
// sandbox root; mark: e.g. EROFS/EACCES).
// Exit: 0 ok, 1 failed attempt, 64 usage error.
//
// Portable: Linux and Windows (mingw-w64).
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <string>

#ifdef _WIN32
#include <direct.h>
#define BREAKOUT_GETCWD _getcwd
#else
#include <unistd.h>
#define BREAKOUT_GETCWD ::getcwd
#endif

#include "probes/common/args.h"
#include "probes/common/report.h"

using namespace breakout::probe;

namespace {

constexpr char kUsage[] = "usage: breakout-probe-cwd --mark NAME   (NAME relative to the cwd)\n";

bool is_absolute(const std::string& p) {
  if (!p.empty() && (p[0] == '/' || p[0] == '\\')) return true;
  return p.size() >= 2 && p[1] == ':';  // Windows drive
}

}  // namespace

int main(int argc, char** argv) {
  Args args(argc, argv, kUsage, {{"mark", Args::kValue}});
  const std::string mark = args.require("mark");
  if (mark.empty() || is_absolute(mark)) args.usage_error("--mark must be a relative path");

  ProbeReport r("cwd");
  r.set("mark", mark);
  if (const char* pwd = std::getenv("PWD")) r.set("pwd_env", pwd);
  char buf[4096];
  if (!BREAKOUT_GETCWD(buf, sizeof buf)) {
    r.fail("getcwd", errno);
  } else {
    const std::string cwd(buf);
    r.set("cwd", cwd);
    std::FILE* f = std::fopen(mark.c_str(), "wb");
    if (!f) {
      r.fail("mark", errno);
    } else {
      const std::string content = cwd + "\n";
      const bool wrote = std::fwrite(content.data(), 1, content.size(), f) == content.size();
      const int write_errno = errno;
      if (std::fclose(f) != 0 || !wrote) {
        r.fail("mark", wrote ? errno : write_errno);
      } else {
        r.succeed();
      }
    }
  }
  r.emit();
  return r.exit_code();
}
