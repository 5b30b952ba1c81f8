// Named-object host objects (class named-object-reach): the pipe server receives the nonce within its bounds; the event shows a signal.
#include <gtest/gtest.h>
#include <windows.h>

#include <chrono>
#include <thread>

#include "harness/core/nonce.h"
#include "harness/host/host_objects.h"
#include "tests/win/object_setup.h"
#include "harness/host/win/named_objects.h"
#include "harness/platform/win/unique_handle.h"
#include "harness/platform/win/win_util.h"

using namespace breakout;
using Clock = std::chrono::steady_clock;

namespace {

using win_test::setup_with;


std::wstring name_of(const HostObject& obj) {
  const std::string spec = obj.spec();
  return win::wide(spec.substr(spec.find(':') + 1));
}

// What the probe does (probes/win/win-object.cc): connect as a client, write, close.
bool write_to_pipe(const std::wstring& name, const std::string& data) {
  UniqueHandle h(::CreateFileW(name.c_str(), GENERIC_WRITE, 0, nullptr, OPEN_EXISTING, 0, nullptr));
  if (!h) return false;
  DWORD done = 0;
  return ::WriteFile(h.get(), data.data(), static_cast<DWORD>(data.size()), &done, nullptr) && done == data.size();
}

}  // namespace

TEST(WinNamedObject, PipeReceivesTheNonce) {
  const std::string nonce = random_hex(16);
  auto obj = make_host_object("pipe", setup_with(nonce));
  EXPECT_EQ(obj->spec(), "pipe:\\\\.\\pipe\\breakout-" + nonce.substr(0, 8));
  ASSERT_TRUE(write_to_pipe(name_of(*obj), nonce + "\n"));
  const HostEvidence e = obj->inspect();
  EXPECT_TRUE(e.changed) << e.summary;
  EXPECT_EQ(e.evidence["pipe_bytes_received"], nonce.size() + 1) << e.evidence.dump();
}

TEST(WinNamedObject, PipeWithoutClientIsUnchangedWithinTheBound) {
  auto obj = make_host_object("pipe", setup_with(random_hex(16)));
  const auto start = Clock::now();
  const HostEvidence e = obj->inspect();
  EXPECT_FALSE(e.changed) << e.summary;
  EXPECT_EQ(e.evidence["pipe_client_connected"], false);
  EXPECT_LT(Clock::now() - start, kPipeReadWait + std::chrono::milliseconds(1000));
}

TEST(WinNamedObject, PipeFloodWithoutNonceIsBounded) {
  const std::string nonce = random_hex(16);
  auto obj = make_host_object("pipe", setup_with(nonce));
  const std::wstring name = name_of(*obj);
  UniqueHandle client(::CreateFileW(name.c_str(), GENERIC_WRITE, 0, nullptr, OPEN_EXISTING, 0, nullptr));
  ASSERT_TRUE(client);
  // A client that keeps writing (and never sends the nonce) blocks once the 4 KiB buffer is full;
  // the server reads at most kPipeReadLimit and gives up after kPipeReadWait.
  std::thread flood([h = client.get()] {
    const std::string chunk(1024, 'x');
    DWORD done = 0;
    for (int i = 0; i < 64; ++i)
      if (!::WriteFile(h, chunk.data(), static_cast<DWORD>(chunk.size()), &done, nullptr)) break;
  });
  const auto start = Clock::now();
  const HostEvidence e = obj->inspect();
  const auto took = Clock::now() - start;
  obj.reset();  // closing the server ends the blocked writer (ERROR_NO_DATA / broken pipe)
  flood.join();
  EXPECT_FALSE(e.changed) << e.summary;
  EXPECT_LE(e.evidence["pipe_bytes_received"].get<std::size_t>(), kPipeReadLimit);
  EXPECT_LT(took, kPipeReadWait + std::chrono::milliseconds(1000));
}

TEST(WinNamedObject, PipeNameIsNotShared) {
  const std::string nonce = random_hex(16);
  auto first = make_host_object("pipe", setup_with(nonce));
  EXPECT_THROW(make_host_object("pipe", setup_with(nonce)), std::exception);  // FILE_FLAG_FIRST_PIPE_INSTANCE
}

TEST(WinNamedObject, EventShowsASignal) {
  const std::string nonce = random_hex(16);
  auto obj = make_host_object("event", setup_with(nonce));
  EXPECT_EQ(obj->spec(), "event:Local\\breakout-" + nonce.substr(0, 8));
  EXPECT_FALSE(obj->inspect().changed);
  UniqueHandle h(::OpenEventW(EVENT_MODIFY_STATE, FALSE, name_of(*obj).c_str()));
  ASSERT_TRUE(h);
  ASSERT_TRUE(::SetEvent(h.get()));
  EXPECT_TRUE(obj->inspect().changed);
  EXPECT_THROW(make_host_object("event", setup_with(nonce)), std::exception);  // a squatted name is refused
}
