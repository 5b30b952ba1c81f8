// One running driver process and the requests in flight to it, matched by id.
//
// A reader thread parses every answer line and hands it to the request with
// that id. The driver is hostile input: an invalid line, a line over the
// bound, a closed stdout or a missed deadline marks the connection broken,
// every waiting request fails at once with the reason, and later requests fail
// without waiting. Answers for unknown ids and repeated answers are ignored
// and noted (bounded) for the record.
//
//   DriverConnection c(options, &box);
//   Hello h = parse_hello(c.call("hello", [](long long id) { return hello_request(id); }, 10s));
//   ...
//   c.close(2s);  // stdin closed, grace, then SIGKILL
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <optional>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/driver/protocol.h"
#include "harness/platform/line_channel.h"

namespace breakout::driver {

class DriverConnection {
 public:
  struct Options {
    std::vector<std::string> argv;
    std::vector<std::string> env;  // "NAME=value": the caller's (host's) environment
    // Where argv[0] is looked up when it has no directory part (LaunchSpec::lookup_path); unset: env's PATH.
    std::optional<std::string> lookup_path;
    std::string cwd;
    std::vector<LaunchSpec::InheritedFd> inherit_fds;
    // LaunchSpec's namespace knobs, for the driver process itself (class fail-open, network = proxy).
    bool user_namespaces_off = false;
    std::vector<LaunchSpec::BindOver> bind_over;
    LineChannel::Limits limits;
    const std::atomic<bool>* cancel = nullptr;  // Ctrl-C: waiting requests fail at once
  };

  DriverConnection(const Options& options, Containment* box);  // throws Error when it cannot start
  ~DriverConnection();
  DriverConnection(const DriverConnection&) = delete;
  DriverConnection& operator=(const DriverConnection&) = delete;

  // Sends build(id) and waits for the answer with that id. Throws ProtocolError
  // (broken connection, deadline) or returns the answer (ok or not).
  Response call(const std::string& op, const std::function<std::string(long long)>& build,
                std::chrono::milliseconds timeout);

  // Closes the driver's stdin, waits `grace` for it to exit, then kills it.
  void close(std::chrono::milliseconds grace);

  bool broken() const;
  // stderr tail and size, protocol notes, how the driver ended: for the record.
  nlohmann::json evidence() const;

 private:
  struct Slot {
    bool done = false;
    Response response;
  };
  void read_answers();
  void mark_broken(const std::string& why);
  void note(const std::string& what);

  std::unique_ptr<LineChannel> channel_;
  std::thread reader_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::map<long long, Slot> pending_;
  std::map<long long, std::string> answered_;  // id -> op, to tell a repeat from a stray id
  long long next_id_ = 1;
  std::string broken_;            // why, once broken
  std::vector<std::string> notes_;
  bool stopping_ = false;
  std::string ended_;             // "exited with status 0", once reaped
  std::mutex send_mu_;
  const std::atomic<bool>* cancel_ = nullptr;
};

}  // namespace breakout::driver
