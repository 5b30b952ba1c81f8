// Linux: a probe's confinement read from /proc/<pid> on the host (status, ns links, uid_map), found by argv[0] and the nonce.
#include "harness/host/process_view.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>

#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include "harness/core/text.h"
#include "harness/platform/posix/proc_file.h"
#include "harness/platform/posix/unique_fd.h"

namespace breakout {

namespace {

using nlohmann::json;

// The "Key:\tvalue" lines of /proc/<pid>/status(5) the recon probe reports too, same format.
json status_fields(const std::string& text) {
  static const char* const kKeys[] = {"Uid", "Gid", "CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb",
                                      "NoNewPrivs", "Seccomp", "Seccomp_filters"};
  json out = json::object();
  std::size_t at = 0;
  while (at < text.size()) {
    std::size_t end = text.find('\n', at);
    if (end == std::string::npos) end = text.size();
    const std::string line = text.substr(at, end - at);
    at = end + 1;
    const std::size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    const std::string key = line.substr(0, colon);
    for (const char* k : kKeys)
      if (key == k) {
        std::string v = line.substr(colon + 1);
        v.erase(0, v.find_first_not_of(" \t"));
        v.erase(v.find_last_not_of(" \t") + 1);
        out[key] = printable_excerpt(v, 128);
      }
  }
  return out;
}

// The process's confinement as the kernel shows it to the host (proc(5), namespaces(7)).
json view_of(const std::string& pid_dir, long pid) {
  json v = {{"pid", pid}};
  json errors = json::array();
  if (auto s = read_bounded(pid_dir + "/status", 16384)) v["status"] = status_fields(*s);
  else errors.push_back("read status: " + std::string(std::strerror(errno)));
  json ns = json::object();
  static const char* const kNs[] = {"cgroup", "ipc", "mnt", "net", "pid", "pid_for_children",
                                    "time", "time_for_children", "user", "uts"};
  for (const char* name : kNs) {
    char buf[256];
    const std::string link = pid_dir + "/ns/" + name;
    const ssize_t n = ::readlink(link.c_str(), buf, sizeof buf);
    if (n > 0) ns[name] = printable_excerpt(std::string_view(buf, static_cast<std::size_t>(n)), 128);
    else if (errno != ENOENT) errors.push_back("readlink ns/" + std::string(name) + ": " + std::strerror(errno));
  }
  v["ns"] = ns;
  if (auto m = read_bounded(pid_dir + "/uid_map", 1024)) v["uid_map"] = printable_excerpt(*m, 1024);
  v["errors"] = errors;
  return v;
}

// argv[0]'s file name is `image` and the nonce is one of the arguments: the probe itself,
// not the spawner whose command line names it (bwrap ... -- breakout-probe-recon --nonce N).
bool is_probe(const std::string& cmdline, const std::string& image, const std::string& nonce) {
  const std::string argv0 = cmdline.substr(0, cmdline.find('\0'));
  const std::string base = argv0.substr(argv0.rfind('/') == std::string::npos ? 0 : argv0.rfind('/') + 1);
  return base == image && cmdline.find(nonce) != std::string::npos;
}

}  // namespace

json read_probe_processes(const Containment& box, const std::string& image) {
  json views = json::array();
  if (box.nonce().size() < 8) return views;  // a short token would match strangers
  DIR* proc = ::opendir("/proc");
  if (proc == nullptr) return views;
  const long self = static_cast<long>(::getpid());
  while (const dirent* e = ::readdir(proc)) {
    char* end = nullptr;
    const long pid = std::strtol(e->d_name, &end, 10);
    if (end == e->d_name || *end != '\0' || pid <= 0 || pid == self) continue;
    const std::string dir = "/proc/" + std::string(e->d_name);
    const auto cmdline = read_bounded(dir + "/cmdline", 65536);
    if (!cmdline || !is_probe(*cmdline, image, box.nonce())) continue;
    views.push_back(view_of(dir, pid));
    if (views.size() >= kMaxProbeViews) break;
  }
  ::closedir(proc);
  return views;
}

json read_own_process() { return view_of("/proc/self", static_cast<long>(::getpid())); }

}  // namespace breakout
