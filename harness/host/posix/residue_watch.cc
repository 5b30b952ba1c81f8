// Linux: the spawner's residue seen through fanotify(7) directory-entry events on /tmp, /dev/shm
// and /run and the directories already in them, each creator identified by its cgroup (the
// attempt's box) while it is alive.
//
// fanotify_init(2) with FAN_REPORT_DFID_NAME reports which directory gained which name, and the
// pid of the process that made it (Linux 5.9). The event is queued inside the creating syscall,
// so a read before the box is emptied sees every entry its processes made. A creator that exited
// before it was read cannot be told from a stranger: it is counted, never charged or removed.
#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/fanotify.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string_view>
#include <thread>
#include <utility>

#include "harness/core/text.h"
#include "harness/host/spawner_residue.h"
#include "harness/platform/posix/remove_at.h"
#include "harness/platform/posix/containment.h"
#include "harness/platform/posix/proc_file.h"
#include "harness/platform/posix/unique_fd.h"

namespace breakout {

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

// The directories every process shares (hier(7)): where a spawner keeps sockets and state.
constexpr const char* kWatched[] = {"/tmp", "/dev/shm", "/run"};
// A spawner's own helpers normally exit with it; give them this long before counting them.
constexpr auto kProcessGrace = 300ms;
constexpr std::size_t kMaxProcessesPerBox = 16;
// Entries remembered while the run goes on (bounded against a spawner that floods /tmp).
constexpr std::size_t kMaxRemembered = 20000;
constexpr std::size_t kMaxProcessesScanned = 65536;
// The directories already in the watched ones when the run starts are watched too (Codex makes a
// directory per spawn in its /tmp/codex-bwrap-synthetic-mount-targets-0, which outlives runs);
// bounded, as each holds an fd and a mark.
constexpr std::size_t kMaxSubdirs = 256;

using InodeKey = std::pair<dev_t, ino_t>;

struct WatchedDir {
  std::string path;
  UniqueFd fd;
  std::string key;    // fsid + handle_type + f_handle bytes, as fanotify reports the directory
  bool root = false;  // one of kWatched (else a directory already in one when the watch started)
};

struct WatchEntry {
  std::size_t dir = 0;
  std::string name;  // raw bytes, for the removal
  InodeKey inode{};
  mode_t mode = 0;
  std::string creator, execution;
};

// A handle names an inode only within its filesystem (tmpfs numbers its inodes from 1 in each
// instance), so the key holds the filesystem id too: fanotify reports statfs's f_fsid
// (fanotify(7), fanotify_event_info_fid).
std::string dir_key(const void* fsid, const file_handle& h) {
  std::string key(static_cast<const char*>(fsid), sizeof(fsid_t));
  key.append(reinterpret_cast<const char*>(&h.handle_type), sizeof h.handle_type);
  key.append(reinterpret_cast<const char*>(h.f_handle), h.handle_bytes);
  return key;
}

std::optional<std::string> own_key(int fd) {
  struct statfs fs{};
  alignas(file_handle) unsigned char buf[sizeof(file_handle) + MAX_HANDLE_SZ];
  auto* h = reinterpret_cast<file_handle*>(buf);
  h->handle_bytes = MAX_HANDLE_SZ;
  int mount_id = 0;
  if (::fstatfs(fd, &fs) != 0 || ::name_to_handle_at(fd, "", h, &mount_id, AT_EMPTY_PATH) != 0) return std::nullopt;
  return dir_key(&fs.f_fsid, *h);
}

std::string kind_of(mode_t m) {
  if (S_ISREG(m)) return "file";
  if (S_ISDIR(m)) return "directory";
  if (S_ISSOCK(m)) return "socket";
  if (S_ISFIFO(m)) return "fifo";
  if (S_ISLNK(m)) return "symlink";
  return "other";
}

std::string comm_of(int pid) {
  auto c = read_bounded("/proc/" + std::to_string(pid) + "/comm", 64);
  if (!c) return "?";
  while (!c->empty() && c->back() == '\n') c->pop_back();
  return printable_excerpt(*c, 64);
}

std::optional<InodeKey> exe_of(int pid) {
  struct stat st{};
  if (::stat(("/proc/" + std::to_string(pid) + "/exe").c_str(), &st) != 0) return std::nullopt;
  return InodeKey{st.st_dev, st.st_ino};
}

// The box name in /proc/<pid>/cgroup ("0::/breakout/<name>[/...]"; cgroup.h), or "".
std::string box_of(int pid) {
  const auto text = read_bounded("/proc/" + std::to_string(pid) + "/cgroup", 4096);
  if (!text) return "";
  const std::size_t line = text->find("0::");
  if (line == std::string::npos) return "";
  const std::string path = text->substr(line + 3, text->find('\n', line) - line - 3);
  const std::size_t at = path.find("/breakout/");
  if (at == std::string::npos) return "";
  const std::string rest = path.substr(at + 10);
  return rest.substr(0, rest.find('/'));
}

std::string box_name(const Containment& box) {
  const auto& cg = box.impl().cgroup;
  return cg ? fs::path(cg->path()).filename().string() : "";
}

// ppid of every process, from /proc/<pid>/stat (proc(5): the field after the parenthesised comm).
std::map<int, int> parents() {
  std::map<int, int> out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator("/proc", ec)) {
    const std::string pid_text = e.path().filename().string();
    if (pid_text.empty() || pid_text.find_first_not_of("0123456789") != std::string::npos) continue;
    if (out.size() >= kMaxProcessesScanned) break;
    const auto stat = read_bounded(e.path() / "stat", 1024);
    if (!stat) continue;
    const std::size_t close = stat->rfind(')');
    if (close == std::string::npos || close + 4 >= stat->size()) continue;
    int ppid = 0;
    if (std::sscanf(stat->c_str() + close + 2, "%*c %d", &ppid) != 1) continue;
    out[std::atoi(pid_text.c_str())] = ppid;
  }
  return out;
}

bool kill_and_wait(int pid) {
  ::kill(pid, SIGKILL);
  for (const auto until = Clock::now() + 1s; Clock::now() < until; std::this_thread::sleep_for(10ms))
    if (::kill(pid, 0) != 0 && errno == ESRCH) return true;
  // A zombie nobody reaps still answers kill(0); it no longer runs.
  const auto stat = read_bounded("/proc/" + std::to_string(pid) + "/stat", 1024);
  return !stat || stat->find(") Z ") != std::string::npos;
}

class FanotifyResidueWatch final : public ResidueWatch {
 public:
  FanotifyResidueWatch(UniqueFd fan, UniqueFd wake, std::vector<WatchedDir> dirs, std::set<InodeKey> probes)
      : fan_(std::move(fan)), wake_(std::move(wake)), dirs_(std::move(dirs)), probes_(std::move(probes)) {
    for (std::size_t i = 0; i < dirs_.size(); ++i) by_key_.emplace(dirs_[i].key, i);
    reader_ = std::thread([this] { read_until_stopped(); });
  }
  ~FanotifyResidueWatch() override { finish(); }

  void enroll(const Containment& box, const std::string& execution) override {
    const std::string name = box_name(box);
    if (name.empty()) return;
    std::lock_guard lock(mu_);
    boxes_[name] = execution;
  }

  void before_kill(const Containment& box, const std::string& execution) override {
    drain();
    if (!box.impl().cgroup) return;
    const std::string name = box_name(box);
    // The spawner's helpers get a moment to exit on their own; probes are their attempt's.
    std::vector<ResidueProcess> left;
    for (const auto until = Clock::now() + kProcessGrace;;) {
      left = still_running(box, name, execution);
      if (left.empty() || Clock::now() >= until) break;
      std::this_thread::sleep_for(25ms);
    }
    for (auto& p : left) {
      // In the box: the box's kill_all follows. Outside it, nobody else would end it.
      p.killed = !p.outside_box || kill_and_wait(p.pid);
    }
    std::lock_guard lock(mu_);
    for (auto& p : left) {
      ++found_.processes_total;
      if (found_.processes.size() < kMaxResidueItems) found_.processes.push_back(std::move(p));
    }
  }

  ResidueFindings finish() override {
    std::lock_guard once(finish_mu_);
    if (finished_) return found_;
    const std::uint64_t one = 1;
    if (::write(wake_.get(), &one, sizeof one) < 0) {}  // the reader polls this too
    if (reader_.joinable()) reader_.join();
    drain();
    std::lock_guard lock(mu_);
    for (const auto& d : dirs_) {
      if (d.root) found_.watched.push_back(d.path);
      else ++found_.subdirs_watched;
    }
    for (const WatchEntry& e : entries_) {
      struct stat st{};
      const int dirfd = dirs_[e.dir].fd.get();
      if (::fstatat(dirfd, e.name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) continue;  // its spawner removed it
      if (InodeKey{st.st_dev, st.st_ino} != e.inode) continue;                       // someone else's now
      paths::remove_at(dirfd, e.name.c_str());
      const bool removed = ::fstatat(dirfd, e.name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0 && errno == ENOENT;
      ++found_.files_total;
      if (found_.files.size() < kMaxResidueItems)
        found_.files.push_back({printable_excerpt(dirs_[e.dir].path + "/" + e.name, 512), kind_of(e.mode), e.creator,
                                e.execution, removed});
    }
    entries_.clear();
    finished_ = true;
    return found_;
  }

 private:
  void read_until_stopped() {
    pollfd fds[2] = {{fan_.get(), POLLIN, 0}, {wake_.get(), POLLIN, 0}};
    for (;;) {
      if (::poll(fds, 2, -1) < 0 && errno != EINTR) return;
      if (fds[1].revents) return;
      if (fds[0].revents) drain();
    }
  }

  // The box's processes that are not probes, and the processes outside it whose ancestry reaches
  // one of the box's (a child that left the box's cgroup).
  std::vector<ResidueProcess> still_running(const Containment& box, const std::string& name,
                                            const std::string& execution) const {
    std::vector<ResidueProcess> out;
    const std::vector<int> in_box = box.impl().cgroup->pids();
    const std::set<int> members(in_box.begin(), in_box.end());
    int probes_alive = 0;
    for (int pid : in_box) {
      const auto exe = exe_of(pid);
      if (!exe) continue;  // exited (a zombie has no exe)
      if (probes_.count(*exe)) ++probes_alive;
      else if (out.size() < kMaxProcessesPerBox) out.push_back({comm_of(pid), pid, execution, 0, false, false});
    }
    if (!members.empty()) {
      const auto ppid = parents();
      for (const auto& [pid, parent] : ppid) {
        if (members.count(pid) || pid == ::getpid() || out.size() >= kMaxProcessesPerBox) continue;
        int up = parent;
        for (int depth = 0; depth < 64 && up > 1 && !members.count(up); ++depth) {
          const auto it = ppid.find(up);
          up = it == ppid.end() ? 0 : it->second;
        }
        if (!members.count(up) || box_of(pid) == name) continue;
        const auto exe = exe_of(pid);
        if (!exe || probes_.count(*exe)) continue;  // a probe that left the box is its oracle's finding
        out.push_back({comm_of(pid), pid, execution, 0, true, false});
      }
    }
    for (auto& p : out) p.probes_alive = probes_alive;
    return out;
  }

  // Reads every queued event; serialised (the reader thread and before_kill both call it).
  void drain() {
    std::lock_guard lock(drain_mu_);
    alignas(fanotify_event_metadata) char buf[16384];
    for (;;) {
      const ssize_t n = ::read(fan_.get(), buf, sizeof buf);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return;  // EAGAIN: the queue is empty
      auto len = static_cast<std::size_t>(n);
      for (auto* m = reinterpret_cast<fanotify_event_metadata*>(buf); FAN_EVENT_OK(m, len); m = FAN_EVENT_NEXT(m, len)) {
        if (m->vers != FANOTIFY_METADATA_VERSION) return;
        if (m->mask & FAN_Q_OVERFLOW) {
          std::lock_guard l(mu_);
          found_.overflowed = true;
          continue;
        }
        on_event(*m);
      }
    }
  }

  void on_event(const fanotify_event_metadata& m) {
    const char* p = reinterpret_cast<const char*>(&m) + m.metadata_len;
    const char* end = reinterpret_cast<const char*>(&m) + m.event_len;
    while (p + sizeof(fanotify_event_info_header) <= end) {
      const auto* h = reinterpret_cast<const fanotify_event_info_header*>(p);
      if (h->len < sizeof *h || p + h->len > end) return;
      if (h->info_type == FAN_EVENT_INFO_TYPE_DFID_NAME && h->len > sizeof(fanotify_event_info_fid) + sizeof(file_handle)) {
        const auto* fid = reinterpret_cast<const fanotify_event_info_fid*>(p);
        const auto* fh = reinterpret_cast<const file_handle*>(fid->handle);
        const char* name = reinterpret_cast<const char*>(fh->f_handle) + fh->handle_bytes;
        const char* record_end = p + h->len;
        if (name < record_end) {
          const std::size_t name_len = ::strnlen(name, static_cast<std::size_t>(record_end - name));
          on_created(dir_key(&fid->fsid, *fh), std::string(name, name_len), m.pid);
        }
      }
      p += h->len;
    }
  }

  void on_created(const std::string& dir_key, const std::string& name, int pid) {
    const auto at = by_key_.find(dir_key);
    if (at == by_key_.end() || name.empty() || name == "." || name == "..") return;
    const std::size_t dir = at->second;
    if (pid == ::getpid()) return;  // the harness's own (its work root, listeners)
    const std::string box = box_of(pid);
    const auto exe = exe_of(pid);
    std::lock_guard lock(mu_);
    const auto it = boxes_.find(box);
    if (it == boxes_.end()) {
      if (!exe) ++found_.unidentified;  // gone before we looked: ours or a stranger's
      return;
    }
    if (exe && probes_.count(*exe)) return;  // the probe's own act: its attempt judges it
    struct stat st{};
    if (::fstatat(dirs_[dir].fd.get(), name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) return;  // already gone
    if (entries_.size() >= kMaxRemembered) {
      ++found_.files_total;
      return;
    }
    entries_.push_back({dir, name, {st.st_dev, st.st_ino}, st.st_mode, comm_of(pid), it->second});
  }

  UniqueFd fan_, wake_;
  std::vector<WatchedDir> dirs_;
  std::map<std::string, std::size_t> by_key_;  // WatchedDir::key -> index in dirs_
  std::set<InodeKey> probes_;
  std::thread reader_;
  std::mutex drain_mu_, mu_, finish_mu_;
  std::map<std::string, std::string> boxes_;  // box name -> execution
  std::vector<WatchEntry> entries_;
  ResidueFindings found_;
  bool finished_ = false;
};

// The directories directly in `dir_fd` (symlinks to directories are not), by name.
std::vector<std::string> subdirectories(int dir_fd) {
  std::vector<std::string> out;
  UniqueFd own(::openat(dir_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC));  // readdir moves the offset
  DIR* d = own.get() < 0 ? nullptr : ::fdopendir(own.get());
  if (!d) return out;
  own.release();  // closedir closes it
  while (const dirent* e = ::readdir(d)) {
    const std::string name = e->d_name;
    if (name == "." || name == "..") continue;
    struct stat st{};
    if (e->d_type == DT_DIR || (e->d_type == DT_UNKNOWN && ::fstatat(dir_fd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
                                S_ISDIR(st.st_mode)))
      out.push_back(name);
  }
  ::closedir(d);
  return out;
}

std::set<InodeKey> probe_binaries(const fs::path& dir) {
  std::set<InodeKey> out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    if (e.path().filename().string().rfind("breakout-probe-", 0) != 0) continue;
    struct stat st{};
    if (::stat(e.path().c_str(), &st) == 0) out.insert({st.st_dev, st.st_ino});
  }
  return out;
}

}  // namespace

std::unique_ptr<ResidueWatch> ResidueWatch::start(const fs::path& probes_dir, const fs::path& own_root,
                                                  std::string* why_not) {
  const unsigned flags = FAN_CLASS_NOTIF | FAN_CLOEXEC | FAN_NONBLOCK | FAN_REPORT_DFID_NAME;
  UniqueFd fan(::fanotify_init(flags | FAN_UNLIMITED_QUEUE, O_RDONLY | O_CLOEXEC | O_LARGEFILE));
  if (fan.get() < 0) fan.reset(::fanotify_init(flags, O_RDONLY | O_CLOEXEC | O_LARGEFILE));  // unprivileged: bounded queue
  if (fan.get() < 0) {
    *why_not = std::string("fanotify_init: ") + std::strerror(errno) + " (Linux 5.9+, CAP_SYS_ADMIN or 5.13+ unprivileged)";
    return nullptr;
  }
  std::optional<InodeKey> skip;  // the run's own work root: the harness's, and removed by it
  if (struct stat st{}; ::stat(own_root.c_str(), &st) == 0) skip = InodeKey{st.st_dev, st.st_ino};
  std::vector<WatchedDir> dirs;
  const auto watch = [&](UniqueFd fd, std::string path, bool root) {
    const auto key = own_key(fd.get());
    if (!key) return false;  // its filesystem has no handles
    if (::fanotify_mark(fan.get(), FAN_MARK_ADD, FAN_CREATE | FAN_MOVED_TO | FAN_ONDIR, fd.get(), nullptr) != 0)
      return false;
    dirs.push_back({std::move(path), std::move(fd), *key, root});
    return true;
  };
  std::size_t subdirs = 0;
  for (const char* path : kWatched) {
    UniqueFd fd(::open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (fd.get() < 0) continue;  // absent here
    const int root_fd = fd.get();
    if (!watch(std::move(fd), path, true)) continue;
    for (const auto& name : subdirectories(root_fd)) {
      if (subdirs >= kMaxSubdirs) break;
      UniqueFd sub(::openat(root_fd, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
      struct stat st{};
      if (sub.get() < 0 || ::fstat(sub.get(), &st) != 0 || (skip && *skip == InodeKey{st.st_dev, st.st_ino})) continue;
      if (watch(std::move(sub), std::string(path) + "/" + name, false)) ++subdirs;
    }
  }
  if (dirs.empty()) {
    *why_not = "none of /tmp, /dev/shm, /run could be watched with fanotify";
    return nullptr;
  }
  UniqueFd wake(::eventfd(0, EFD_CLOEXEC));
  if (wake.get() < 0) {
    *why_not = std::string("eventfd: ") + std::strerror(errno);
    return nullptr;
  }
  return std::make_unique<FanotifyResidueWatch>(std::move(fan), std::move(wake), std::move(dirs), probe_binaries(probes_dir));
}

}  // namespace breakout
