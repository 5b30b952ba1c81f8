// What the fake sandbox does on the host and answers (fake_spawner.h): canned results and effects.
//
// Each effect is the real thing, done by the test process on the probe's behalf: a file written in
// the attempt tree, the nonce sent to the harness's listener, a line appended to a heartbeat by a
// thread that outlives the exec. The judges see them as they would a probe's.
#pragma once

#include <atomic>
#include <filesystem>
#include <string>
#include <thread>

#include <nlohmann/json.hpp>

#include "harness/platform/process.h"
#include "harness/spawner/spawner.h"

namespace breakout::judges {

// The spawner's answers.
LaunchResult exited(int code = 0, std::string out = "", std::string err = "");
LaunchResult killed_by(int signal);
LaunchResult timed_out(std::string out = "");
// The probe's report line ("BREAKOUT-REPORT {json}", probes/common) as the output's last line.
std::string report_line(const nlohmann::json& report);

// The value after `flag` in the probe's argv (placeholders already expanded); throws when absent.
std::string arg(const SpawnRequest& r, const std::string& flag);
// The environment the sandboxed command would see: the caller's, then the per-exec overrides.
std::map<std::string, std::string> env_seen(const SpawnRequest& r);

// File effects (create the parents; throw on failure).
void write_text(const std::filesystem::path& p, const std::string& text);
void append_text(const std::filesystem::path& p, const std::string& text);
// A file's bytes as a fake probe reads them; "" when it cannot be read.
std::string contents(const std::filesystem::path& p);

// Connects to `spec` ("tcp:127.0.0.1:PORT", "tcp:[::1]:PORT", "unix:/path", "unix:@abstract") and
// sends the probe's nonce line (net_listeners.h kNonceMarker). Throws when the connect fails.
void send_nonce(const std::string& spec, const std::string& nonce);

// A process the sandbox left running, as a thread: it appends "beat\n" to `file` (the first line
// before start() returns) until stop() or destruction.
class Beater {
 public:
  Beater() = default;
  ~Beater() { stop(); }
  Beater(const Beater&) = delete;
  Beater& operator=(const Beater&) = delete;
  void start(const std::filesystem::path& file);
  void stop();

 private:
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

}  // namespace breakout::judges
