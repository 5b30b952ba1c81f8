// The Windows victim (class process-reach): untouched it reads unchanged; a signalled event, a suspended thread
// or a terminated victim each read as changed; the harness undoes a suspension and its job kills the victim.
// What the probe does to it is probes/win/proc-reach.cc; these tests do the same from here.
#include <gtest/gtest.h>
#include <windows.h>

#include <cstdio>
#include <filesystem>
#include <thread>

#include "harness/core/nonce.h"
#include "harness/host/host_objects.h"
#include "harness/platform/os.h"
#include "harness/platform/win/unique_handle.h"

using namespace breakout;
namespace fs = std::filesystem;

namespace {

struct Ref {
  unsigned long pid = 0, tid = 0;
  unsigned long long event = 0;
};

Ref parse(const std::string& spec) {
  Ref r;
  EXPECT_EQ(std::sscanf(spec.c_str(), "pid:%lu:tid:%lu:event:%llx", &r.pid, &r.tid, &r.event), 3) << spec;
  return r;
}

class WinVictimTest : public ::testing::Test {
 protected:
  void SetUp() override {
    tree_ = fs::temp_directory_path() / ("breakout-victim-test-" + random_hex(4));
    fs::create_directories(tree_);
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(tree_, ec);
  }
  std::unique_ptr<HostObject> make() { return make_host_object("victim", {random_hex(16), tree_, tree_, self_exe_dir()}); }
  fs::path tree_;
};

}  // namespace

TEST_F(WinVictimTest, UntouchedVictimIsUnchangedAndHoldsTheCanary) {
  auto v = make();
  const HostEvidence e = v->inspect();
  EXPECT_FALSE(e.changed) << e.summary;
  EXPECT_EQ(e.token.rfind("BREAKOUT-CANARY-", 0), 0u) << e.token;
  EXPECT_EQ(e.evidence["victim_suspend_count"], 0) << e.evidence.dump();
}

TEST_F(WinVictimTest, ItsEventSignalledThroughADuplicatedHandleIsAChange) {
  auto v = make();
  const Ref r = parse(v->spec());
  UniqueHandle p(::OpenProcess(PROCESS_DUP_HANDLE, FALSE, r.pid));
  ASSERT_TRUE(p);
  HANDLE mine = nullptr;
  ASSERT_TRUE(::DuplicateHandle(p.get(), reinterpret_cast<HANDLE>(static_cast<std::uintptr_t>(r.event)),
                                ::GetCurrentProcess(), &mine, EVENT_MODIFY_STATE, FALSE, 0));
  UniqueHandle copy(mine);
  ASSERT_TRUE(::SetEvent(copy.get()));
  HostEvidence e;
  for (int i = 0; i < 200 && !e.changed; ++i) {  // the victim's watcher writes "poked" (bounded: 2 s)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    e = v->inspect();
  }
  EXPECT_TRUE(e.changed) << e.summary;
  EXPECT_TRUE(e.evidence["victim_event_signalled"].get<bool>()) << e.evidence.dump();
}

TEST_F(WinVictimTest, ASuspendedThreadIsAChangeAndIsResumed) {
  auto v = make();
  const Ref r = parse(v->spec());
  UniqueHandle t(::OpenThread(THREAD_SUSPEND_RESUME, FALSE, r.tid));
  ASSERT_TRUE(t);
  ASSERT_EQ(::SuspendThread(t.get()), 0u);
  const HostEvidence e = v->inspect();
  EXPECT_TRUE(e.changed) << e.summary;
  EXPECT_EQ(e.evidence["victim_suspend_count"], 1) << e.evidence.dump();
  // inspect() resumed it: our own suspension now finds a count of 0 again.
  EXPECT_EQ(::SuspendThread(t.get()), 0u);
  ::ResumeThread(t.get());
}

TEST_F(WinVictimTest, ATerminatedVictimIsAChangeAndTheGuardKillsALiveOne) {
  unsigned long pid = 0;
  {
    auto v = make();
    pid = parse(v->spec()).pid;
    UniqueHandle p(::OpenProcess(PROCESS_TERMINATE | SYNCHRONIZE, FALSE, pid));
    ASSERT_TRUE(p);
    ASSERT_TRUE(::TerminateProcess(p.get(), 7));
    ASSERT_EQ(::WaitForSingleObject(p.get(), 5000), WAIT_OBJECT_0);
    const HostEvidence e = v->inspect();
    EXPECT_TRUE(e.changed) << e.summary;
    EXPECT_EQ(e.evidence["victim_exit_code"], 7) << e.evidence.dump();
  }
  UniqueHandle live;
  {
    auto v = make();
    pid = parse(v->spec()).pid;
    live.reset(::OpenProcess(SYNCHRONIZE, FALSE, pid));
    ASSERT_TRUE(live);
  }
  EXPECT_EQ(::WaitForSingleObject(live.get(), 5000), WAIT_OBJECT_0) << "the victim outlived its host object";
}
