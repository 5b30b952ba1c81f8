// The real-host network check's outside sensor: `breakout listen` on a machine the user controls.
//
// In real-host mode the "external" endpoint is not a namespace the harness made, so only a
// listener at that endpoint can tell whether a probe's nonce arrived. The user runs
// `breakout listen --bind ADDR:PORT` there; the probe sends "BREAKOUT-NONCE <n>\n" as to any
// harness listener, and the harness, from the host (outside the sandbox), connects to the same
// listener and asks "BREAKOUT-QUERY <n>\n", answered "SEEN\n" or "UNSEEN\n". Before the run the
// harness delivers and queries a nonce of its own (preflight): the sensor's own control, so an
// unreachable or broken listener can never read as "the sandbox blocked it".
//
//   RemoteNonceListener remote("203.0.113.7:4719");
//   if (auto why = remote.preflight()) fail(*why);
//   probe gets remote.spec(); afterwards remote.wait_for(nonce, 1s) decides.
#pragma once

#include <atomic>
#include <chrono>
#include <optional>
#include <ostream>
#include <string>

namespace breakout {

class RemoteNonceListener {
 public:
  // "A.B.C.D:PORT" or "[V6]:PORT": a literal address (no DNS: the sandbox and the host could
  // resolve a name differently). Throws Error("bad-endpoint", "...") otherwise.
  explicit RemoteNonceListener(const std::string& host_port);

  std::string spec() const;   // what the net-connect probe takes: "tcp:A.B.C.D:PORT"
  std::string label() const;  // "A.B.C.D:PORT"

  // True once the listener reports `nonce`; asks again until `max_wait` passed. Throws Error
  // when the listener cannot be asked at all (then nothing can be judged).
  bool wait_for(const std::string& nonce, std::chrono::milliseconds max_wait) const;

  // Delivers a fresh nonce from the host and asks for it. nullopt when the sensor works, else why not.
  std::optional<std::string> preflight() const;

 private:
  std::string host_, port_;
  bool v6_ = false;
};

// `breakout listen`: records nonces sent to ADDR:PORT and answers queries, until `stop` is set or
// `max_time` passed. Bounded against hostile peers: 64 connections at once, 4 KiB read per
// connection, 5 s per connection, the last 100,000 nonces. Prints "listening on ADDR:PORT" (the
// port the kernel chose for PORT 0) and one line per nonce received. Returns 0, or throws Error.
int serve_nonces(const std::string& bind_host_port, std::chrono::seconds max_time, const std::atomic<bool>* stop,
                 std::ostream& log);

inline constexpr const char* kQueryMarker = "BREAKOUT-QUERY ";

}  // namespace breakout
