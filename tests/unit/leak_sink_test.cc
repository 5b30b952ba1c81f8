// The harness's ends of leaked streams (harness/host/leak_sink.h) and the spawn layer's leak of
// the other end (LaunchSpec::InheritedFd kAppend on a FIFO, kUnixConnect on a socket).
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <string>

#include "harness/core/nonce.h"
#include "harness/host/leak_sink.h"
#include "harness/platform/process.h"

namespace breakout {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

class LeakSinkTest : public ::testing::TestWithParam<LeakSink::Kind> {
 protected:
  fs::path dir = fs::temp_directory_path() / ("breakout-leak-" + random_hex(6));
  void SetUp() override { fs::create_directories(dir); }
  void TearDown() override { fs::remove_all(dir); }
};

TEST_P(LeakSinkTest, WhatTheChildWritesThroughTheLeakedFdIsReadBack) {
  const fs::path path = dir / "sink";
  {
    auto sink = LeakSink::make(GetParam(), path);
    ASSERT_TRUE(fs::exists(fs::symlink_status(path)));
    LaunchSpec spec;
    spec.argv = {"/bin/sh", "-c", "echo 'breakout fd-walk line' >&8; echo done"};
    spec.env = {"PATH=/usr/bin:/bin"};
    spec.timeout = 10s;
    spec.inherit_fds = {{path.string(), 8, sink->leaked_end()}};
    const LaunchResult r = run_process(spec, nullptr, nullptr);
    ASSERT_TRUE(r.started) << r.start_error;
    EXPECT_EQ(r.out, "done\n") << r.err;
    EXPECT_EQ(sink->drain(1 << 16), "breakout fd-walk line\n");
    EXPECT_EQ(sink->drain(1 << 16), "");  // read once; nothing waits for more
  }
  EXPECT_FALSE(fs::exists(fs::symlink_status(path)));  // the sink removes its path
}

TEST_P(LeakSinkTest, ReadsAreBounded) {
  auto sink = LeakSink::make(GetParam(), dir / "sink");
  LaunchSpec spec;
  spec.argv = {"/bin/sh", "-c", "head -c 20000 /dev/zero >&8"};
  spec.env = {"PATH=/usr/bin:/bin"};
  spec.timeout = 10s;
  spec.inherit_fds = {{(dir / "sink").string(), 8, sink->leaked_end()}};
  ASSERT_TRUE(run_process(spec, nullptr, nullptr).started);
  EXPECT_EQ(sink->drain(100).size(), 100u);
}

INSTANTIATE_TEST_SUITE_P(FifoAndSocket, LeakSinkTest,
                         ::testing::Values(LeakSink::Kind::kFifo, LeakSink::Kind::kUnixSocket));

}  // namespace
}  // namespace breakout
