// Host objects: the expectation rule, and each oracle seeing an untouched object as untouched
// and a touched one as touched, with nothing left on the host afterwards.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <linux/keyctl.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/msg.h>
#include <sys/shm.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <map>
#include <thread>

#include "harness/core/error.h"
#include "harness/core/nonce.h"
#include "harness/model/expectation.h"
#include "harness/classes/host_object/spec_objects.h"
#include "harness/host/availability.h"
#include "harness/host/host_objects.h"

namespace fs = std::filesystem;
using namespace breakout;

namespace {

Expected exp(AttemptClass c, const std::string& target, NetworkMode mode) {
  Policy p;
  p.name = "t";
  p.network = mode;
  const Target t = parse_target(target);
  return expect(c, &t, p, placeholder_roots()).value;
}

struct Scratch {
  fs::path dir = fs::temp_directory_path() / ("breakout-hostobj-" + random_hex(4));
  Scratch() { fs::create_directories(dir / "workspace"); }
  ~Scratch() { fs::remove_all(dir); }
  HostObjectSetup setup(const std::string& nonce) const {
    return {nonce, dir, dir / "workspace", fs::read_symlink("/proc/self/exe").parent_path().parent_path() / "bin"};
  }
};

}  // namespace

TEST(HostObject, HostDeniedOwnAllowedUnderEveryNetworkMode) {
  for (NetworkMode m : {NetworkMode::kNone, NetworkMode::kLoopback, NetworkMode::kFull}) {
    EXPECT_EQ(exp(AttemptClass::kProcessReach, "ipc:victim", m), Expected::kDenied);
    EXPECT_EQ(exp(AttemptClass::kProcessReach, "ipc:own-victim", m), Expected::kAllowed);
    EXPECT_EQ(exp(AttemptClass::kIpcReach, "ipc:sysv-shm", m), Expected::kDenied);
    EXPECT_EQ(exp(AttemptClass::kIpcReach, "ipc:tmp-file", m), Expected::kDenied);
    EXPECT_EQ(exp(AttemptClass::kIpcReach, "ipc:workspace-file", m), Expected::kAllowed);
    EXPECT_EQ(exp(AttemptClass::kKeyRead, "ipc:user-key", m), Expected::kDenied);
    EXPECT_EQ(exp(AttemptClass::kTtyInject, "ipc:pty", m), Expected::kDenied);
    EXPECT_EQ(exp(AttemptClass::kTtyInject, "ipc:own-pty", m), Expected::kAllowed);
  }
}

TEST(HostObject, WindowsObjectsHostDeniedControlsAllowed) {
  struct Row {
    AttemptClass klass;
    const char* target;
    Expected want;
  };
  const Row rows[] = {{AttemptClass::kRegistryWrite, "ipc:hkcu-run", Expected::kDenied},
                      {AttemptClass::kRegistryWrite, "ipc:hkcu-canary", Expected::kDenied},
                      {AttemptClass::kRegistryWrite, "ipc:reg-grant", Expected::kAllowed},
                      {AttemptClass::kNamedObjectReach, "ipc:pipe", Expected::kDenied},
                      {AttemptClass::kNamedObjectReach, "ipc:event", Expected::kDenied},
                      {AttemptClass::kNamedObjectReach, "ipc:own-pipe", Expected::kAllowed},
                      {AttemptClass::kNamedObjectReach, "ipc:own-event", Expected::kAllowed},
                      {AttemptClass::kDesktopReach, "ipc:window", Expected::kDenied},
                      {AttemptClass::kDesktopReach, "ipc:clipboard-read", Expected::kDenied},
                      {AttemptClass::kDesktopReach, "ipc:clipboard-write", Expected::kDenied},
                      {AttemptClass::kDesktopReach, "ipc:own-window", Expected::kAllowed},
                      {AttemptClass::kRegistryRead, "ipc:hkcu-secret", Expected::kDenied},
                      {AttemptClass::kRegistryRead, "ipc:hklm-secret", Expected::kDenied},
                      {AttemptClass::kRegistryRead, "ipc:reg-grant-read", Expected::kAllowed},
                      {AttemptClass::kDeviceRead, "ipc:physical-drive", Expected::kDenied},
                      {AttemptClass::kDeviceRead, "ipc:own-device", Expected::kAllowed},
                      {AttemptClass::kIpcReach, "ipc:users-public-file", Expected::kDenied},
                      {AttemptClass::kIpcReach, "ipc:programdata-file", Expected::kDenied},
                      {AttemptClass::kIpcReach, "ipc:everyone-dir-file", Expected::kDenied},
                      {AttemptClass::kIpcReach, "ipc:user-temp-file", Expected::kDenied}};
  for (NetworkMode m : {NetworkMode::kNone, NetworkMode::kLoopback, NetworkMode::kFull})
    for (const Row& r : rows) EXPECT_EQ(exp(r.klass, r.target, m), r.want) << r.target;
  // A registry target is not a named-object target, and the reverse.
  EXPECT_THROW(exp(AttemptClass::kNamedObjectReach, "ipc:hkcu-run", NetworkMode::kNone), Error);
  EXPECT_THROW(exp(AttemptClass::kRegistryWrite, "ipc:pipe", NetworkMode::kNone), Error);
  EXPECT_THROW(exp(AttemptClass::kDesktopReach, "ipc:pipe", NetworkMode::kNone), Error);
  EXPECT_THROW(exp(AttemptClass::kNamedObjectReach, "ipc:window", NetworkMode::kNone), Error);
  EXPECT_THROW(exp(AttemptClass::kRegistryRead, "ipc:reg-grant", NetworkMode::kNone), Error);  // the write class's control
  EXPECT_THROW(exp(AttemptClass::kRegistryWrite, "ipc:hkcu-secret", NetworkMode::kNone), Error);
  EXPECT_THROW(exp(AttemptClass::kDeviceRead, "ipc:workspace-file", NetworkMode::kNone), Error);
  // On Linux the classes are unavailable, saying why (a skip, never a pass).
  EXPECT_TRUE(class_unavailable(AttemptClass::kRegistryWrite));
  EXPECT_TRUE(class_unavailable(AttemptClass::kNamedObjectReach));
  EXPECT_TRUE(class_unavailable(AttemptClass::kDesktopReach));
  EXPECT_TRUE(class_unavailable(AttemptClass::kRegistryRead));
  EXPECT_TRUE(class_unavailable(AttemptClass::kDeviceRead));
  for (const char* name : {"users-public-file", "programdata-file", "everyone-dir-file", "user-temp-file"})
    EXPECT_TRUE(host_object_unavailable(name)) << name;  // Windows locations; the class itself runs on Linux
}

// Availability comes from the class table, never from the class: a class outside its platforms
// is unavailable with its entry's sentence, one on them as its requirement says.
TEST(HostObject, ClassAvailabilityFollowsTheTableEntry) {
  for (const ClassSpec& s : class_table()) {
    SCOPED_TRACE(s.name);
    const auto why = class_unavailable(s.klass);
    if (s.platforms == Platforms::kWindows) {
      ASSERT_TRUE(why);
      EXPECT_EQ(*why, s.platform_why);
    } else {
      EXPECT_EQ(why, requirement_unavailable(s.needs));  // Linux x86-64: every other platform set runs here
    }
  }
  EXPECT_EQ(requirement_unavailable(Requirement::kNone), std::nullopt);
  EXPECT_EQ(class_spec(AttemptClass::kIoUringConnect).needs, Requirement::kIoUring);
}

// Every object of a class is of a kind the class's objects share (the host makes it by kind), and
// the kinds of one class are few: the IPC class alone spans two (SysV/POSIX objects, shared files).
TEST(HostObject, EveryObjectHasTheKindOfItsClass) {
  for (const char* name : {"victim", "own-victim", "sysv-shm", "posix-shm", "tmp-file", "workspace-file",
                           "users-public-file", "user-key", "pty", "dns-loopback", "hkcu-run", "reg-grant", "pipe",
                           "own-event", "window", "clipboard-read", "own-window", "hkcu-secret", "reg-grant-read",
                           "physical-drive", "own-device", "icmp-loopback", "own-vsock"}) {
    const HostObjectInfo* o = host_object_info(name);
    ASSERT_NE(o, nullptr) << name;
    const std::string n = name;
    const bool ipc_object = n.find("sysv") != std::string::npos || n.find("posix-shm") != std::string::npos;
    const std::map<AttemptClass, HostObjectKind> kind_of{
        {AttemptClass::kIpcReach, ipc_object ? HostObjectKind::kIpc : HostObjectKind::kSharedFile},
        {AttemptClass::kRegistryRead, HostObjectKind::kRegistrySecret},
        {AttemptClass::kRegistryWrite, HostObjectKind::kRegistryKey},
        {AttemptClass::kDeviceRead, HostObjectKind::kRawDevice},
        {AttemptClass::kProcessReach, HostObjectKind::kProcess},
        {AttemptClass::kDesktopReach, HostObjectKind::kDesktop},
        {AttemptClass::kNamedObjectReach, HostObjectKind::kNamedObject},
        {AttemptClass::kKeyRead, HostObjectKind::kKey},
        {AttemptClass::kTtyInject, HostObjectKind::kPty},
        {AttemptClass::kDnsQuery, HostObjectKind::kResolver},
        {AttemptClass::kNetFamily, HostObjectKind::kNetFamily}};
    EXPECT_EQ(o->kind, kind_of.at(o->klass)) << name;
  }
}

TEST(HostObject, LoopbackResolverFollowsTheNetworkMode) {
  EXPECT_EQ(exp(AttemptClass::kDnsQuery, "ipc:dns-loopback", NetworkMode::kNone), Expected::kDenied);
  EXPECT_EQ(exp(AttemptClass::kDnsQuery, "ipc:dns-loopback", NetworkMode::kLoopback), Expected::kAllowed);
  EXPECT_EQ(exp(AttemptClass::kDnsQuery, "ipc:dns-loopback", NetworkMode::kFull), Expected::kAllowed);
  for (NetworkMode m : {NetworkMode::kNone, NetworkMode::kLoopback, NetworkMode::kFull})
    EXPECT_EQ(exp(AttemptClass::kDnsQuery, "ipc:dns-workspace", m), Expected::kAllowed);
}

TEST(HostObject, WrongClassOrUnknownNameIsABadTarget) {
  try {
    (void)exp(AttemptClass::kIpcReach, "ipc:victim", NetworkMode::kNone);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), "bad-target") << e.what();
  }
  EXPECT_THROW(parse_target("ipc:docker"), Error);
  try {
    (void)exp(AttemptClass::kFsWrite, "ipc:own-victim", NetworkMode::kNone);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), "bad-target") << e.what();
  }
}

TEST(HostObject, SysvShmUntouchedThenWritten) {
  if (::geteuid() != 0) GTEST_SKIP() << "runs as root in CI";
  Scratch s;
  const std::string nonce = random_hex(16);
  key_t key = 0;
  {
    auto obj = make_host_object("sysv-shm", s.setup(nonce));
    key = static_cast<key_t>(std::stol(obj->spec().substr(9)));
    EXPECT_FALSE(obj->inspect().changed);
    const int id = ::shmget(key, 0, 0);
    ASSERT_GE(id, 0);
    char* p = static_cast<char*>(::shmat(id, nullptr, 0));
    p[3000] = 'x';
    ::shmdt(p);
    EXPECT_TRUE(obj->inspect().changed);
  }
  EXPECT_LT(::shmget(key, 0, 0), 0) << "segment left behind";
}

TEST(HostObject, SysvMsgUntouchedThenConsumed) {
  if (::geteuid() != 0) GTEST_SKIP() << "runs as root in CI";
  Scratch s;
  auto obj = make_host_object("sysv-msg", s.setup(random_hex(16)));
  const key_t key = static_cast<key_t>(std::stol(obj->spec().substr(9)));
  EXPECT_FALSE(obj->inspect().changed);
  struct {
    long t;
    char b[128];
  } m{};
  // The harness's own inspect ran in this process, so consume from a child (another pid).
  if (pid_t c = ::fork(); c == 0) {
    ::_exit(::msgrcv(::msgget(key, 0), &m, sizeof m.b, 0, IPC_NOWAIT) > 0 ? 0 : 1);
  } else {
    int st = 0;
    ::waitpid(c, &st, 0);
    ASSERT_EQ(WEXITSTATUS(st), 0);
  }
  EXPECT_TRUE(obj->inspect().changed);
  obj.reset();
  EXPECT_LT(::msgget(key, 0), 0) << "queue left behind";
}

TEST(HostObject, SharedFilesUntouchedThenAppendedAndRemoved) {
  if (::geteuid() != 0) GTEST_SKIP() << "runs as root in CI";
  Scratch s;
  for (const char* name : {"tmp-file", "posix-shm", "workspace-file"}) {
    auto obj = make_host_object(name, s.setup(random_hex(16)));
    const std::string spec = obj->spec();
    const fs::path path = spec.rfind("posix-shm:", 0) == 0 ? fs::path("/dev/shm" + spec.substr(10)) : fs::path(spec.substr(5));
    ASSERT_TRUE(fs::exists(path)) << path;
    EXPECT_FALSE(obj->inspect().changed) << name;
    std::ofstream(path, std::ios::app) << "x";
    EXPECT_TRUE(obj->inspect().changed) << name;
    obj.reset();
    EXPECT_FALSE(fs::exists(path)) << path;
  }
}

TEST(HostObject, UserKeyInvalidatedAfterwards) {
  if (host_object_unavailable("user-key")) GTEST_SKIP() << *host_object_unavailable("user-key");
  Scratch s;
  std::string desc;
  {
    auto obj = make_host_object("user-key", s.setup(random_hex(16)));
    desc = obj->spec().substr(4);
    EXPECT_GE(::syscall(SYS_keyctl, KEYCTL_SEARCH, KEY_SPEC_USER_KEYRING, "user", desc.c_str(), 0), 0);
    EXPECT_FALSE(obj->inspect().token.empty());
  }
  EXPECT_LT(::syscall(SYS_keyctl, KEYCTL_SEARCH, KEY_SPEC_USER_KEYRING, "user", desc.c_str(), 0), 0) << "key left behind";
}

TEST(HostObject, VictimUntouchedThenSignalled) {
  if (::geteuid() != 0) GTEST_SKIP() << "runs as root in CI";
  Scratch s;
  auto obj = make_host_object("victim", s.setup(random_hex(16)));
  const pid_t pid = static_cast<pid_t>(std::stol(obj->spec().substr(4)));
  const HostEvidence quiet = obj->inspect();
  EXPECT_FALSE(quiet.changed) << quiet.summary;
  EXPECT_EQ(quiet.token.rfind("BREAKOUT-CANARY-", 0), 0u);
  ASSERT_EQ(::kill(pid, SIGSTOP), 0);
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  EXPECT_TRUE(obj->inspect().changed);  // state T (and SIGCONT after)
  obj.reset();
  EXPECT_NE(::kill(pid, 0), 0) << "victim left running";
}

TEST(HostObject, PtyReadsBackTheInjectedNonce) {
  if (host_object_unavailable("pty")) GTEST_SKIP() << *host_object_unavailable("pty");
  Scratch s;
  const std::string nonce = random_hex(16);
  auto obj = make_host_object("pty", s.setup(nonce));
  EXPECT_FALSE(obj->inspect().changed);
  const int fd = ::open(obj->controlling_tty().c_str(), O_RDWR | O_NOCTTY);
  ASSERT_GE(fd, 0);
  for (char c : "BREAKOUT-NONCE " + nonce) ASSERT_EQ(::ioctl(fd, TIOCSTI, &c), 0) << "needs CAP_SYS_ADMIN or legacy_tiocsti";
  ::close(fd);
  EXPECT_TRUE(obj->inspect().changed);
}

// The harness's own check of the foreign x86 ABIs (syscall-abi-write's N/A needs it to agree):
// stable across calls, and a reason that names the kernel's missing piece.
TEST(SyscallAbi, HostCheckIsStableAndNamesTheKernelsReason) {
  for (const char* abi : {"i386", "x32"}) {
    const auto first = syscall_abi_unavailable(abi);
    EXPECT_EQ(first, syscall_abi_unavailable(abi)) << abi;
#if defined(__x86_64__)
    if (first) {
      EXPECT_NE(first->find(std::string(abi) == "i386" ? "int $0x80" : "x32"), std::string::npos) << *first;
    }
#endif
  }
#if defined(__x86_64__)
  EXPECT_THROW(syscall_abi_unavailable("arm64"), Error);
#else
  EXPECT_TRUE(syscall_abi_unavailable("i386"));
#endif
}
