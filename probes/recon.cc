// breakout-probe-recon: describes the sandbox from inside (evidence for reports).
//
//   breakout-probe-recon [--nonce N] [--hold-ms MS --release FILE]
//
// --nonce only marks the process (its command line) for the harness's outside scan;
// --hold-ms keeps the process alive after the report, until FILE exists or MS passed
// (bounded: at most 30 s), so the harness can read its confinement from the host
// (class recon, harness/host/process_view.h). The report is the probe's word only.
// Reports: uid, gid, euid, egid, pid, ppid, groups (getgroups); "status" with
// CapInh/CapPrm/CapEff/CapBnd/CapAmb, NoNewPrivs, Seccomp, Seccomp_filters from
// /proc/self/status (as the kernel writes them, hex for capabilities); "ns" with
// the target of each /proc/self/ns/* link ("mnt:[4026531841]"); "hostname";
// "extra_fds": every fd other than 0,1,2 with its readlink target (capped at 64,
// "extra_fds_truncated" then), which shows fds a sandbox leaked into the probe.
// Result: ok=true when /proc/self/status was readable; else errno of that open
// (the other fields are still filled where possible).
// Exit: 0 ok, 1 /proc unreadable, 64 usage error.
//
// POSIX only (Linux).
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <dirent.h>
#include <grp.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "probes/common/args.h"
#include "probes/common/report.h"

using namespace breakout::probe;

namespace {

constexpr char kUsage[] = "usage: breakout-probe-recon [--nonce N] [--hold-ms MS --release FILE]\n";
constexpr int kMaxFds = 64;

std::string read_link(const std::string& path) {
  char buf[4096];
  ssize_t n = ::readlink(path.c_str(), buf, sizeof buf);
  return n < 0 ? std::string("?") + errno_name(errno) : std::string(buf, static_cast<std::size_t>(n));
}

// Selected "Key:\tvalue" lines of /proc/self/status; 0 or the errno of the open.
int read_status(JsonObject* out) {
  static const char* const kKeys[] = {"CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb",
                                      "NoNewPrivs", "Seccomp", "Seccomp_filters"};
  std::FILE* f = std::fopen("/proc/self/status", "re");
  if (!f) return errno;
  char line[512];
  while (std::fgets(line, sizeof line, f)) {
    std::string l(line);
    auto colon = l.find(':');
    if (colon == std::string::npos) continue;
    const std::string key = l.substr(0, colon);
    for (const char* k : kKeys)
      if (key == k) {
        std::string v = l.substr(colon + 1);
        v.erase(0, v.find_first_not_of(" \t"));
        v.erase(v.find_last_not_of(" \t\n") + 1);
        out->set(key, v);
      }
  }
  std::fclose(f);
  return 0;
}

// Entries of a /proc/self directory, numbers or names, in directory order.
std::vector<std::string> list_dir(const char* dir) {
  std::vector<std::string> names;
  if (DIR* d = ::opendir(dir)) {
    while (dirent* e = ::readdir(d)) {
      std::string n = e->d_name;
      if (n != "." && n != "..") names.push_back(n);
    }
    ::closedir(d);
  }
  return names;
}

// Stays alive (the report already out) until `release` exists or `ms` passed: 10 ms polls.
void hold(long long ms, const std::string& release) {
  const timespec tick{0, 10 * 1000 * 1000};
  struct stat st{};
  for (long long waited = 0; waited < ms; waited += 10) {
    if (!release.empty() && ::stat(release.c_str(), &st) == 0) return;
    ::nanosleep(&tick, nullptr);
  }
}

}  // namespace

int main(int argc, char** argv) {
  Args args(argc, argv, kUsage, {{"nonce", Args::kValue}, {"hold-ms", Args::kValue}, {"release", Args::kValue}});
  const long long hold_ms = args.get_int("hold-ms", 0, 30000, 0);
  ProbeReport r("recon");
  r.set("uid", static_cast<long long>(::getuid()));
  r.set("gid", static_cast<long long>(::getgid()));
  r.set("euid", static_cast<long long>(::geteuid()));
  r.set("egid", static_cast<long long>(::getegid()));
  r.set("pid", static_cast<long long>(::getpid()));
  r.set("ppid", static_cast<long long>(::getppid()));

  JsonArray groups;
  gid_t gids[256];
  int ng = ::getgroups(256, gids);
  for (int i = 0; i < ng; ++i) groups.add(static_cast<long long>(gids[i]));
  r.set_raw("groups", groups.str());

  JsonObject status;
  const int status_err = read_status(&status);
  r.set_raw("status", status.str());

  JsonObject ns;
  for (const auto& name : list_dir("/proc/self/ns")) ns.set(name, read_link("/proc/self/ns/" + name));
  r.set_raw("ns", ns.str());

  utsname u{};
  if (::uname(&u) == 0) r.set("hostname", u.nodename);

  // opendir holds an fd of its own while listing: drop fds whose target is gone.
  JsonArray fds;
  bool truncated = false;
  for (const auto& name : list_dir("/proc/self/fd")) {
    const int fd = std::atoi(name.c_str());
    if (fd <= 2) continue;
    const std::string target = read_link("/proc/self/fd/" + name);
    if (target == "?ENOENT") continue;  // the directory fd used for the listing
    if (fds.count() >= kMaxFds) {
      truncated = true;
      break;
    }
    JsonObject o;
    o.set("fd", fd);
    o.set("target", target);
    fds.add_raw(o.str());
  }
  r.set_raw("extra_fds", fds.str());
  if (truncated) r.set("extra_fds_truncated", true);

  if (status_err) {
    r.fail("open /proc/self/status", status_err);
  } else {
    r.succeed();
  }
  r.emit();
  hold(hold_ms, args.get("release").value_or(""));
  return r.exit_code();
}
