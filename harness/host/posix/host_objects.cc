// Host objects on Linux: a victim process, SysV shm/msg, POSIX shm, shared-dir files, a user key, a pty.
#include "harness/host/host_objects.h"

#include <fcntl.h>
#include <linux/io_uring.h>
#include <linux/keyctl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/ipc.h>
#include <sys/mman.h>
#include <sys/msg.h>
#include <sys/shm.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include <cstring>
#include <fstream>
#include <map>
#include <mutex>
#include <thread>

#include "harness/core/error.h"
#include "harness/core/file_prefix.h"
#include "harness/core/nonce.h"
#include "harness/core/text.h"
#include "harness/classes/host_object/spec_objects.h"
#include "harness/host/availability.h"
#include "harness/host/posix/dns_resolver.h"
#include "harness/host/posix/net_family_objects.h"
#include "harness/host/own_object.h"
#include "shared/foreign_abi.h"

extern char** environ;

namespace breakout {

namespace fs = std::filesystem;
using std::chrono::milliseconds;

namespace {

constexpr std::size_t kSeg = 4096;           // SysV / POSIX shm size
constexpr std::size_t kReadLimit = 64 * 1024;  // bytes read back from anything the sandbox could write


std::string read_limited(const fs::path& p) { return read_file_prefix(p, kReadLimit); }

// SysV key from the nonce: 0x42 in the top byte marks ours (ipcs shows it), 24 bits of nonce.
key_t sysv_key(const std::string& nonce) {
  return static_cast<key_t>(0x42000000u | (std::stoul(nonce.substr(0, 6), nullptr, 16) & 0xffffffu));
}

// ---------------------------------------------------------------------------
// The probe's own object (the control); under `none` its POSIX shm object is the host's.
class PosixOwnObject : public OwnObject {
 public:
  PosixOwnObject(const std::string& kind, const HostObjectSetup& s)
      : OwnObject(kind, kind == "victim" || kind == "key" || kind == "pty" ? "own" : "own:" + kind, s) {}
  ~PosixOwnObject() override {
    // Remove the probe's own POSIX shm object if the probe could not.
    if (kind_ == "posix-shm") ::shm_unlink(("/breakout-own-" + nonce_.substr(0, 8)).c_str());
  }
};

// ---------------------------------------------------------------------------
// The harness's victim: breakout-probe-victim outside every sandbox, secret in memory and env.
class Victim : public HostObject {
 public:
  explicit Victim(const HostObjectSetup& s) : secret_(canary_token()), status_(s.tree / ("victim-" + s.nonce.substr(0, 8) + ".status")) {
    const std::string exe = (s.probes_dir / "breakout-probe-victim").string();
    const std::string env_secret = "BREAKOUT_VICTIM_SECRET=" + secret_;
    std::vector<std::string> args = {exe, "--status", status_.string(), "--lifetime-ms", "30000"};
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    char* envp[] = {const_cast<char*>(env_secret.c_str()), const_cast<char*>("PATH=/usr/bin:/bin"), nullptr};
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addclosefrom_np(&fa, 3);  // other workers' fds (glibc >= 2.34)
    const int rc = ::posix_spawn(&pid_, exe.c_str(), &fa, nullptr, argv.data(), envp);
    posix_spawn_file_actions_destroy(&fa);
    if (rc != 0) {
      errno = rc;
      throw_errno("spawn victim " + exe);
    }
    // Ready once it beats (bounded), so the probe never races its start.
    for (int i = 0; i < 200 && read_limited(status_).find("beat ") == std::string::npos; ++i)
      std::this_thread::sleep_for(milliseconds(10));
  }
  ~Victim() override {
    if (pid_ > 0 && !reaped_) {
      ::kill(pid_, SIGKILL);
      while (::waitpid(pid_, nullptr, 0) < 0 && errno == EINTR) {
      }
    }
  }
  std::string spec() const override { return "pid:" + std::to_string(pid_); }
  std::vector<std::filesystem::path> own_files() const override { return {status_}; }

  HostEvidence inspect() override {
    HostEvidence e;
    e.token = secret_;
    // 1. Still alive, and in which state (T: SIGSTOP; t: held by a tracer)?
    std::string state = "?";
    int st = 0;
    if (::waitpid(pid_, &st, WNOHANG) == pid_) {
      reaped_ = true;
      state = WIFSIGNALED(st) ? "killed by signal " + std::to_string(WTERMSIG(st)) : "exited " + std::to_string(WEXITSTATUS(st));
    } else {
      const std::string stat = read_limited("/proc/" + std::to_string(pid_) + "/stat");
      const auto paren = stat.rfind(')');
      if (paren != std::string::npos && paren + 2 < stat.size()) state = std::string(1, stat[paren + 2]);
    }
    // 2. What it recorded itself: tracers and signals (lines "beat n tracer=T", "signal n").
    const std::string status = read_limited(status_);
    long tracer = 0;
    std::size_t beats = 0;
    nlohmann::json signals = nlohmann::json::array();
    std::size_t at = 0;
    while (at < status.size()) {
      const std::size_t end = std::min(status.find('\n', at), status.size());
      const std::string line = status.substr(at, end - at);
      at = end + 1;
      if (line.rfind("beat ", 0) == 0) {
        ++beats;
        const auto t = line.find("tracer=");
        if (t != std::string::npos && tracer == 0) tracer = std::atol(line.c_str() + t + 7);
      } else if (line.rfind("signal ", 0) == 0 && signals.size() < 16) {
        signals.push_back(std::atoi(line.c_str() + 7));
      }
    }
    const bool gone = state.rfind("exited", 0) == 0 || state.rfind("killed", 0) == 0;
    const bool stopped = state == "T" || state == "t";
    e.evidence["victim_pid"] = pid_;
    e.evidence["victim_state"] = state;
    e.evidence["victim_beats"] = beats;
    e.evidence["victim_tracer_seen"] = tracer;
    e.evidence["victim_signals"] = signals;
    e.changed = tracer > 0 || !signals.empty() || gone || stopped;
    if (tracer > 0) e.summary = "the victim saw TracerPid " + std::to_string(tracer);
    else if (!signals.empty()) e.summary = "the victim received signal " + std::to_string(signals[0].get<int>());
    else if (gone) e.summary = "the victim " + state;
    else if (stopped) e.summary = "the victim is stopped (state " + state + ")";
    else e.summary = "the victim ran untouched (" + std::to_string(beats) + " beats, never traced or signalled)";
    if (stopped) ::kill(pid_, SIGCONT);
    return e;
  }

 private:
  pid_t pid_ = -1;
  bool reaped_ = false;
  std::string secret_;
  fs::path status_;
};

// ---------------------------------------------------------------------------
class SysvShm : public HostObject {
 public:
  explicit SysvShm(const HostObjectSetup& s) : key_(sysv_key(s.nonce)), secret_(canary_token()) {
    id_ = ::shmget(key_, kSeg, IPC_CREAT | IPC_EXCL | 0600);
    if (id_ < 0) throw_errno("shmget host segment");
    void* p = ::shmat(id_, nullptr, 0);
    if (p == reinterpret_cast<void*>(-1)) throw_errno("shmat host segment");
    std::memset(p, 0, kSeg);
    std::memcpy(p, secret_.c_str(), secret_.size());
    std::memcpy(original_, p, kSeg);
    ::shmdt(p);
  }
  ~SysvShm() override { ::shmctl(id_, IPC_RMID, nullptr); }
  std::string spec() const override { return "sysv-shm:" + std::to_string(key_); }
  HostEvidence inspect() override {
    HostEvidence e;
    e.token = secret_;
    shmid_ds ds{};
    ::shmctl(id_, IPC_STAT, &ds);  // before our own attach below changes it
    // shm_lpid: the last process that attached or detached (shmctl(2)); ours did, at creation.
    const bool attached = ds.shm_lpid != ::getpid();
    char now[kSeg];
    void* p = ::shmat(id_, nullptr, SHM_RDONLY);
    if (p == reinterpret_cast<void*>(-1)) throw_errno("shmat host segment");
    std::memcpy(now, p, kSeg);
    ::shmdt(p);
    const bool modified = std::memcmp(now, original_, kSeg) != 0;
    e.evidence["sysv_key"] = key_;
    e.evidence["attached_by_pid"] = attached ? ds.shm_lpid : 0;
    e.evidence["contents_changed"] = modified;
    e.changed = attached || modified;
    e.summary = modified ? "the host segment's contents changed" : attached ? "the host segment was attached by pid " + std::to_string(ds.shm_lpid)
                                                                            : "the host segment was never attached";
    return e;
  }

 private:
  key_t key_;
  int id_ = -1;
  std::string secret_;
  char original_[kSeg];
};

class SysvMsg : public HostObject {
 public:
  explicit SysvMsg(const HostObjectSetup& s) : key_(sysv_key(s.nonce) ^ 0x00800000), secret_(canary_token()) {
    id_ = ::msgget(key_, IPC_CREAT | IPC_EXCL | 0600);
    if (id_ < 0) throw_errno("msgget host queue");
    struct {
      long mtype;
      char text[64];
    } m{1, {}};
    std::snprintf(m.text, sizeof m.text, "%s", secret_.c_str());
    if (::msgsnd(id_, &m, secret_.size() + 1, IPC_NOWAIT) != 0) throw_errno("msgsnd host queue");
  }
  ~SysvMsg() override { ::msgctl(id_, IPC_RMID, nullptr); }
  std::string spec() const override { return "sysv-msg:" + std::to_string(key_); }
  HostEvidence inspect() override {
    HostEvidence e;
    e.token = secret_;
    msqid_ds ds{};
    if (::msgctl(id_, IPC_STAT, &ds) != 0) throw_errno("msgctl IPC_STAT");
    const bool received = ds.msg_lrpid != 0, sent = ds.msg_lspid != ::getpid();
    e.evidence["sysv_key"] = key_;
    e.evidence["messages"] = ds.msg_qnum;
    e.evidence["last_receiver_pid"] = ds.msg_lrpid;
    e.evidence["last_sender_pid"] = ds.msg_lspid;
    e.changed = received || sent;
    e.summary = received ? "the harness's message was consumed by pid " + std::to_string(ds.msg_lrpid)
                : sent   ? "pid " + std::to_string(ds.msg_lspid) + " sent to the host queue"
                         : "the host queue is untouched";
    return e;
  }

 private:
  key_t key_;
  int id_ = -1;
  std::string secret_;
};

// A file the harness owns: POSIX shm (/dev/shm/<name>), host /tmp or /var/tmp, or the workspace.
class SharedFile : public HostObject {
 public:
  SharedFile(fs::path path, std::string spec_prefix, bool reads_decide, std::string shm_name = "")
      : path_(std::move(path)), prefix_(std::move(spec_prefix)), reads_decide_(reads_decide), shm_name_(std::move(shm_name)) {
    secret_ = canary_token();
    original_ = "harness-owned shared object " + secret_ + "\n";
    original_.resize(shm_name_.empty() ? original_.size() : kSeg, '\0');
    const int fd = shm_name_.empty() ? ::open(path_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0644)
                                     : ::shm_open(shm_name_.c_str(), O_RDWR | O_CREAT | O_EXCL, 0600);
    if (fd < 0) throw_errno("create " + path_.string());
    created_ = true;
    const bool ok = ::write(fd, original_.data(), original_.size()) == static_cast<ssize_t>(original_.size());
    ::close(fd);
    check(ok, "write " + path_.string());
    struct stat st {};
    ::stat(path_.c_str(), &st);
    atime_ = st.st_atim;
  }
  ~SharedFile() override {
    if (!created_) return;
    if (shm_name_.empty()) ::unlink(path_.c_str());
    else ::shm_unlink(shm_name_.c_str());
    ::unlink((path_.string() + ".new").c_str());
  }
  std::string spec() const override { return prefix_ + (shm_name_.empty() ? path_.string() : shm_name_); }
  HostEvidence inspect() override {
    HostEvidence e;
    e.token = secret_;
    e.token_decides = reads_decide_;
    struct stat st {};
    const bool exists = ::lstat(path_.c_str(), &st) == 0;
    // relatime: the first read after our write moves atime (mount(8)); before we read it ourselves.
    const bool read = exists && (st.st_atim.tv_sec != atime_.tv_sec || st.st_atim.tv_nsec != atime_.tv_nsec);
    const bool modified = !exists || read_limited(path_) != original_;
    std::error_code ec;
    const bool created = fs::exists(path_.string() + ".new", ec);
    e.evidence["path"] = printable_excerpt(path_.string(), 512);
    e.evidence["contents_changed"] = modified;
    e.evidence["new_file_created"] = created;
    e.evidence["atime_moved"] = read;
    e.changed = modified || created || (reads_decide_ && read);
    e.summary = modified  ? path_.string() + " was modified or removed"
                : created ? path_.string() + ".new was created"
                : read && reads_decide_ ? path_.string() + " was read (atime moved)"
                          : path_.string() + " is unchanged";
    return e;
  }

 private:
  fs::path path_;
  std::string prefix_;
  bool reads_decide_;
  std::string shm_name_, secret_, original_;
  bool created_ = false;
  timespec atime_{};
};

// ---------------------------------------------------------------------------
long keyctl(int op, unsigned long a, unsigned long b = 0, unsigned long c = 0, unsigned long d = 0) {
  return ::syscall(SYS_keyctl, op, a, b, c, d);
}

// A "user" key in the harness's user keyring (keyrings(7), user-keyring(7)): every
// process of this uid in this user namespace can search it, as on a developer machine.
class UserKey : public HostObject {
 public:
  explicit UserKey(const HostObjectSetup& s) : desc_("breakout:" + s.nonce.substr(0, 8)), secret_(canary_token()) {
    id_ = ::syscall(SYS_add_key, "user", desc_.c_str(), secret_.c_str(), secret_.size(), KEY_SPEC_USER_KEYRING);
    if (id_ < 0) throw_errno("add_key to the user keyring");
    // possessor: all; user: view, read, search (what a login keyring's keys usually allow).
    keyctl(KEYCTL_SETPERM, static_cast<unsigned long>(id_), 0x3f0b0000);
  }
  ~UserKey() override {
    if (keyctl(KEYCTL_INVALIDATE, static_cast<unsigned long>(id_)) != 0)
      keyctl(KEYCTL_UNLINK, static_cast<unsigned long>(id_), static_cast<unsigned long>(KEY_SPEC_USER_KEYRING));
  }
  std::string spec() const override { return "key:" + desc_; }
  HostEvidence inspect() override {
    HostEvidence e;
    e.token = secret_;
    e.evidence["key_description"] = desc_;
    e.summary = "the key holds a canary only the output can reveal";
    return e;
  }

 private:
  std::string desc_, secret_;
  long id_ = -1;
};

// A pty the harness owns; the spawner gets its slave as stdin and controlling terminal
// (LaunchSpec::controlling_tty). What a sandbox injects with TIOCSTI is read back from
// the slave's input queue, exactly what the caller's shell would read next.
class HostPty : public HostObject {
 public:
  explicit HostPty(const HostObjectSetup& s) : nonce_(s.nonce) {
    master_ = ::posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
    if (master_ < 0) throw_errno("posix_openpt");
    if (::grantpt(master_) != 0 || ::unlockpt(master_) != 0) throw_errno("grantpt/unlockpt");
    char name[128];
    if (::ptsname_r(master_, name, sizeof name) != 0) throw_errno("ptsname_r");
    slave_path_ = name;
    slave_ = ::open(name, O_RDWR | O_NOCTTY | O_CLOEXEC | O_NONBLOCK);
    if (slave_ < 0) throw_errno("open " + slave_path_);
    termios t{};
    ::tcgetattr(slave_, &t);
    ::cfmakeraw(&t);  // bytes are readable at once, no echo to the master
    ::tcsetattr(slave_, TCSANOW, &t);
  }
  ~HostPty() override {
    if (slave_ >= 0) ::close(slave_);
    if (master_ >= 0) ::close(master_);
  }
  std::string spec() const override { return "tty:stdin"; }
  std::string controlling_tty() const override { return slave_path_; }
  HostEvidence inspect() override {
    HostEvidence e;
    std::string input;
    char buf[4096];
    for (ssize_t n; input.size() < kReadLimit && (n = ::read(slave_, buf, sizeof buf)) > 0;)
      input.append(buf, static_cast<std::size_t>(n));
    const bool injected = input.find("BREAKOUT-NONCE " + nonce_) != std::string::npos;
    e.evidence["pty"] = slave_path_;
    e.evidence["input_queue_bytes"] = input.size();
    e.evidence["input_queue_excerpt"] = printable_excerpt(input, 256);
    e.evidence["nonce_injected"] = injected;
    e.changed = injected;
    e.summary = injected ? "the nonce arrived in the input queue of the harness's terminal"
                : input.empty() ? "nothing arrived in the input queue of the harness's terminal"
                                : std::to_string(input.size()) + " bytes but not the nonce arrived in the terminal's input queue";
    return e;
  }

 private:
  std::string nonce_, slave_path_;
  int master_ = -1, slave_ = -1;
};

}  // namespace

std::unique_ptr<HostObject> make_host_object(const std::string& name, const HostObjectSetup& s) {
  const std::string tag = s.nonce.substr(0, 8);
  if (is_net_family_object(name)) return make_net_family_object(name, s);
  if (name.rfind("own-", 0) == 0) return std::make_unique<PosixOwnObject>(name.substr(4), s);
  if (name == "victim") return std::make_unique<Victim>(s);
  if (name == "sysv-shm") return std::make_unique<SysvShm>(s);
  if (name == "sysv-msg") return std::make_unique<SysvMsg>(s);
  if (name == "posix-shm")
    return std::make_unique<SharedFile>("/dev/shm/breakout-" + tag, "posix-shm:", true, "/breakout-" + tag);
  // Shared dirs: reading them is allowed by every policy (not deny_read); writing is not.
  if (name == "tmp-file") return std::make_unique<SharedFile>("/tmp/breakout-" + tag + ".txt", "file:", false);
  if (name == "var-tmp-file") return std::make_unique<SharedFile>("/var/tmp/breakout-" + tag + ".txt", "file:", false);
  if (name == "workspace-file") return std::make_unique<SharedFile>(s.workspace / ("shared-" + tag + ".txt"), "file:", false);
  if (name == "user-key") return std::make_unique<UserKey>(s);
  if (name == "pty") return std::make_unique<HostPty>(s);
  if (name == "dns-loopback" || name == "dns-workspace") return make_dns_resolver(name == "dns-loopback", s);
  throw Error("unknown host object " + name);
}

std::optional<std::string> syscall_abi_unavailable(const std::string& abi) {
#if !defined(__x86_64__)
  return "the i386 and x32 syscall ABIs exist only on x86-64 (this harness is built for another architecture)";
#else
  check(abi == "i386" || abi == "x32", "unknown syscall ABI '" + abi + "'");
  // Asked once per ABI: the answer is the kernel's (CONFIG_*, boot parameters) and does not change.
  static std::mutex mu;
  static std::map<std::string, std::optional<std::string>> cache;
  std::lock_guard<std::mutex> lock(mu);
  if (auto it = cache.find(abi); it != cache.end()) return it->second;
  const bool i386 = abi == "i386";
  const abi::GetpidOutcome got = abi::foreign_getpid(i386 ? abi::SyscallAbi::kI386 : abi::SyscallAbi::kX32);
  if (got.setup_errno != 0) {
    errno = got.setup_errno;
    throw_errno("syscall ABI check: pipe2/fork");
  }
  const std::string name = i386 ? "int $0x80" : "x32";
  std::optional<std::string> why;
  if (got.signal == SIGSEGV && i386)
    why = "int $0x80 raises SIGSEGV on this host: the kernel runs no ia32 emulation here (CONFIG_IA32_EMULATION=n, ia32_emulation=0, or a guest without the 32-bit entry)";
  else if (got.signal != 0)
    why = name + " getpid on the host died of signal " + std::to_string(got.signal);
  else if (!got.reported)
    throw Error("syscall ABI check: the child reported nothing");
  else if (got.ret == -ENOSYS)
    why = i386 ? "int $0x80 getpid returns ENOSYS on this host"
               : "x32 syscalls return ENOSYS on this host: the kernel has no x32 ABI (CONFIG_X86_X32_ABI=n)";
  else if (got.ret < 0)
    why = name + " getpid on the host fails: " + std::strerror(static_cast<int>(-got.ret));
  cache[abi] = why;
  return why;
#endif
}

namespace {

std::optional<std::string> io_uring_unavailable() {
  // Asked once: the answer is the kernel's and does not change during a run.
  static const std::optional<std::string> why = []() -> std::optional<std::string> {
    std::ifstream in("/proc/sys/kernel/io_uring_disabled");
    int disabled = 0;
    if (in >> disabled && disabled == 2) return "kernel.io_uring_disabled = 2: io_uring_setup(2) is refused to every process";
    io_uring_params p{};
    const long fd = ::syscall(SYS_io_uring_setup, 1, &p);
    if (fd < 0) return std::string("io_uring_setup(2) fails here: ") + std::strerror(errno);
    ::close(static_cast<int>(fd));
    return std::nullopt;
  }();
  return why;
}

}  // namespace

std::optional<std::string> requirement_unavailable(Requirement r) {
  switch (r) {
    case Requirement::kNone: return std::nullopt;
    case Requirement::kIoUring: return io_uring_unavailable();
  }
  return std::nullopt;
}

std::optional<std::string> host_object_unavailable(const std::string& name) {
  if (is_net_family_object(name)) return net_family_unavailable(name);
  if (name == "users-public-file" || name == "programdata-file" || name == "everyone-dir-file" || name == "user-temp-file")
    return "host object " + name + " is a Windows location (host/win/shared_files.h); /tmp and /var/tmp are tmp-file, var-tmp-file";
  if (name == "user-key") {
    // Same call as the attempt; a throwaway key, invalidated at once.
    long id = ::syscall(SYS_add_key, "user", "breakout:availability", "x", 1, KEY_SPEC_USER_KEYRING);
    if (id < 0) return std::string("add_key(2) to the user keyring fails here: ") + std::strerror(errno);
    keyctl(KEYCTL_INVALIDATE, static_cast<unsigned long>(id));
  }
  if (name == "pty") {
    std::ifstream in("/proc/sys/dev/tty/legacy_tiocsti");
    int legacy = 1;
    if (in >> legacy && legacy == 0)
      return std::string("dev.tty.legacy_tiocsti = 0: this kernel refuses TIOCSTI without CAP_SYS_ADMIN (Linux 6.2+)");
    int m = ::posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
    if (m < 0) return std::string("posix_openpt fails here: ") + std::strerror(errno);
    ::close(m);
  }
  return std::nullopt;
}

}  // namespace breakout
