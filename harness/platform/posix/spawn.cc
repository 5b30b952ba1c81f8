// Starting one child for run_process and LineChannel: executable lookup, argv/envp/leaked dirs, vfork_spawn::start.
//
// vfork_spawn's child shares our memory and may not allocate (vfork_spawn.cc says why it is
// not fork), so everything it reads is prepared here first. argv[0]: the child sees it as
// given, execve gets the resolved path. The PATH lookup is ours, a few lines, because
// process::v2::environment::find_executable takes an environment view, not our "NAME=value"
// vector.
#include "harness/platform/posix/spawn.h"

#include <fcntl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <utility>
#include <vector>

#include "harness/core/error.h"
#include "harness/platform/posix/containment.h"
#include "harness/platform/posix/unique_fd.h"

namespace breakout {

namespace {

// argv[0] without '/' is searched on the child's PATH (spec.env), like env(1)
// and execvpe do; without PATH in spec.env, on ours.
bool resolve_executable(const std::string& arg0, const std::vector<std::string>& env, std::string* exe,
                        std::string* why) {
  if (arg0.empty()) {
    *why = "argv[0] is empty";
    return false;
  }
  if (arg0.find('/') != std::string::npos) {
    *exe = arg0;  // a missing/unrunnable file: execve's errno, via vfork_spawn
    return true;
  }
  std::string path;
  bool have_path = false;
  for (const std::string& kv : env) {
    if (kv.rfind("PATH=", 0) == 0) {
      path = kv.substr(5);
      have_path = true;
      break;  // getenv() semantics: the first one wins
    }
  }
  if (!have_path) {
    const char* ours = std::getenv("PATH");
    path = ours != nullptr ? ours : "/usr/local/bin:/usr/bin:/bin";
  }
  std::size_t start = 0;
  for (;;) {
    const std::size_t colon = path.find(':', start);
    std::string dir = path.substr(start, colon == std::string::npos ? std::string::npos : colon - start);
    if (dir.empty()) dir = ".";
    std::error_code ec;
    std::filesystem::path candidate = std::filesystem::absolute(std::filesystem::path(dir) / arg0, ec);
    struct stat st {};
    if (!ec && ::stat(candidate.c_str(), &st) == 0 && S_ISREG(st.st_mode) &&
        ::access(candidate.c_str(), X_OK) == 0) {
      *exe = candidate.string();
      return true;
    }
    if (colon == std::string::npos) break;
    start = colon + 1;
  }
  *why = "'" + arg0 + "' not found on PATH (" + path + ")";
  return false;
}

// Everything vfork_spawn::start needs, owned here (the child only reads it).
struct PreparedLaunch {
  std::string exe;
  std::string uid_map, gid_map;  // LaunchSpec::user_namespaces_off
  std::vector<const char*> argv, envp;
  std::vector<UniqueFd> leaked;  // parent copies of spec.inherit_fds
  vfork_spawn::ChildPlan plan;
};

// Resolves the executable and prepares argv/envp/leaked dirs before cloning:
// the CLONE_VM child may not allocate. False with *error set on failure.
bool prepare(const LaunchSpec& spec, Containment* box, int in_fd, int out_fd, int err_fd, PreparedLaunch& l,
             std::string* error) {
  if (spec.argv.empty()) {
    *error = "empty argv";
    return false;
  }
  const std::vector<std::string> lookup =
      spec.lookup_path ? std::vector<std::string>{"PATH=" + *spec.lookup_path} : spec.env;
  if (!resolve_executable(spec.argv[0], lookup, &l.exe, error)) return false;
  if (spec.inherit_fds.size() > kMaxInheritedFds) {
    *error = "too many inherit_fds";
    return false;
  }
  auto sys_fail = [error](const std::string& step) {
    *error = step + ": " + std::strerror(errno);
    return false;
  };
  for (const std::string& a : spec.argv) l.argv.push_back(a.c_str());
  l.argv.push_back(nullptr);
  for (const std::string& e : spec.env) l.envp.push_back(e.c_str());
  l.envp.push_back(nullptr);

  vfork_spawn::ChildPlan& p = l.plan;
  p.exe = l.exe.c_str();
  p.argv = l.argv.data();  // argv[0] as given, not the resolved path
  p.envp = l.envp.data();
  p.stdio[0] = in_fd;
  p.stdio[1] = out_fd;
  p.stdio[2] = err_fd;
  p.cgroup_procs_fd = box != nullptr ? box->impl().cgroup_procs_fd() : -1;
  p.cgroup_dir_fd = box != nullptr && p.cgroup_procs_fd >= 0 ? box->impl().cgroup_dir_fd() : -1;
  if (box != nullptr) ++box->impl().starts;  // a sweep no longer covers it
  p.cwd = spec.cwd.empty() ? nullptr : spec.cwd.c_str();
  p.make_ctty = !spec.controlling_tty.empty();
  if (spec.bind_over.size() > kMaxBindOver) {
    *error = "too many bind_over entries";
    return false;
  }
  if (spec.user_namespaces_off) {
    l.uid_map = std::to_string(::geteuid()) + " " + std::to_string(::geteuid()) + " 1\n";
    l.gid_map = std::to_string(::getegid()) + " " + std::to_string(::getegid()) + " 1\n";
    p.uid_map = l.uid_map.c_str();
    p.gid_map = l.gid_map.c_str();
  }
  for (const auto& b : spec.bind_over) {
    p.bind_source[p.binds] = b.source.c_str();
    p.bind_target[p.binds] = b.target.c_str();
    ++p.binds;
  }
  // Deliberate leaks (class fd-leak). Parent copies sit above every target number,
  // so no dup2 onto a target clobbers another leak's source.
  int highest = 2;
  for (const auto& d : spec.inherit_fds) highest = std::max(highest, d.number);
  for (const auto& d : spec.inherit_fds) {
    if (d.number < 3) {
      *error = "inherit_fds: fd number " + std::to_string(d.number) + " is below 3";
      return false;
    }
    const bool dir = d.as == LaunchSpec::InheritedFd::Open::kDirectory;
    UniqueFd opened;
    if (d.as == LaunchSpec::InheritedFd::Open::kUnixConnect) {
      sockaddr_un sa{};
      sa.sun_family = AF_UNIX;
      if (d.path.size() >= sizeof sa.sun_path) {
        *error = "inherited socket path too long: " + d.path;
        return false;
      }
      std::memcpy(sa.sun_path, d.path.c_str(), d.path.size() + 1);
      opened.reset(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
      if (opened.get() < 0 || ::connect(opened.get(), reinterpret_cast<sockaddr*>(&sa), sizeof sa) != 0)
        return sys_fail("connect inherited socket " + d.path);
    } else {
      opened.reset(::open(d.path.c_str(), dir ? O_RDONLY | O_DIRECTORY | O_CLOEXEC
                                              : O_WRONLY | O_APPEND | O_NOFOLLOW | O_CLOEXEC));
      if (opened.get() < 0) return sys_fail(std::string(dir ? "open inherited dir " : "open inherited file ") + d.path);
    }
    UniqueFd high(::fcntl(opened.get(), F_DUPFD_CLOEXEC, highest + 1));
    if (high.get() < 0) return sys_fail("fcntl F_DUPFD");
    p.leak_from[p.leaks] = high.get();
    p.leak_to[p.leaks] = d.number;
    ++p.leaks;
    l.leaked.push_back(std::move(high));
  }
  return true;
}

}  // namespace

std::optional<vfork_spawn::Child> start_child(const LaunchSpec& spec, Containment* box, int in_fd, int out_fd,
                                              int err_fd, std::string* error) {
  PreparedLaunch l;
  if (!prepare(spec, box, in_fd, out_fd, err_fd, l, error)) return std::nullopt;
  try {
    return vfork_spawn::start(l.plan);
  } catch (const Error& e) {
    *error = e.what();
    return std::nullopt;
  }
}

int spawn_with_stdio(const LaunchSpec& spec, Containment* box, int in_fd, int out_fd, int err_fd,
                     std::string* error) {
  std::optional<vfork_spawn::Child> child = start_child(spec, box, in_fd, out_fd, err_fd, error);
  return child ? child->pid : -1;  // the pidfd closes here; the caller reaps with waitpid
}

}  // namespace breakout
