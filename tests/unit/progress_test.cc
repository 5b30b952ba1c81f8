// The run's progress lines for a log (run/progress.h): the line, the interval's test hook, the ticker.
#include <gtest/gtest.h>

#include <cstdlib>
#include <sstream>
#include <thread>

#include "harness/run/progress.h"

using namespace breakout;

TEST(ProgressLine, SaysDoneTotalEscapesAndElapsed) {
  EXPECT_EQ(progress_line(12, 40, 1, std::chrono::seconds(30)),
            "breakout: progress: 12/40 executions done, 1 escape so far, 0:30 elapsed\n");
  EXPECT_EQ(progress_line(0, 3, 0, std::chrono::seconds(605)),
            "breakout: progress: 0/3 executions done, 0 escapes so far, 10:05 elapsed\n");
}

TEST(ProgressInterval, TenSecondsUnlessTheTestHookSaysOtherwise) {
  ::unsetenv("BREAKOUT_PROGRESS_INTERVAL_S");
  EXPECT_EQ(progress_interval(), std::chrono::milliseconds(10000));
  ::setenv("BREAKOUT_PROGRESS_INTERVAL_S", "0.25", 1);
  EXPECT_EQ(progress_interval(), std::chrono::milliseconds(250));
  for (const char* bad : {"0", "-1", "soon", "1s"}) {
    ::setenv("BREAKOUT_PROGRESS_INTERVAL_S", bad, 1);
    EXPECT_EQ(progress_interval(), std::chrono::milliseconds(10000)) << bad;
  }
  ::unsetenv("BREAKOUT_PROGRESS_INTERVAL_S");
}

TEST(ProgressTicker, WritesWholeLinesWithTheCountsSoFar) {
  std::ostringstream out;
  {
    ProgressTicker ticker(out, std::chrono::milliseconds(10), 3);
    AttemptRecord escape;
    escape.verdict = Verdict::kEscape;
    ticker.record(escape);
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
  }  // joined: `out` is ours again
  const std::string text = out.str();
  EXPECT_NE(text.find("breakout: progress: 1/3 executions done, 1 escape so far, 0:00 elapsed\n"), std::string::npos)
      << text;
  EXPECT_EQ(text.back(), '\n');
}

TEST(ProgressTicker, SilentWhenTheRunEndsWithinTheInterval) {
  std::ostringstream out;
  { ProgressTicker ticker(out, std::chrono::milliseconds(60000), 3); }
  EXPECT_EQ(out.str(), "");
}
