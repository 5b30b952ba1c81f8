// Oracle of net-inbound: the harness, from the host, connects into the listener the probe opened
// inside the sandbox, while the probe waits; the nonce coming back over that connection decides.
//
// The probe (net-listen) writes where it listens to its mark; a watcher thread polls for the mark
// during the exec and dials once. What the mark says is the sandbox's word, so it is only a
// hint: a TCP address is dialled only on loopback (inbound_dial.h), a path socket only at the
// path the harness expects, and the mark's text reaches the record only when it parsed.
#include <fstream>
#include <mutex>
#include <stop_token>
#include <thread>

#include "harness/attempt/oracle.h"
#include "harness/classes/net/judge.h"
#include "harness/host/inbound_dial.h"
#include "harness/host/net_listeners.h"

namespace breakout::oracles {

namespace {

constexpr auto kPoll = std::chrono::milliseconds(20);
constexpr auto kDialBudget = std::chrono::milliseconds(2000);
constexpr std::size_t kMarkCap = 256;

// The mark's first line if it is one the harness may dial, else "".
std::string address_in_mark(const std::filesystem::path& mark, const std::string& expected_unix) {
  std::ifstream in(mark, std::ios::binary);
  if (!in) return "";
  std::string text(kMarkCap, '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  text.resize(static_cast<std::size_t>(in.gcount()));
  const auto nl = text.find('\n');
  if (nl == std::string::npos) return "";
  const std::string line = text.substr(0, nl);
  if (line.rfind("unix:", 0) == 0) return line == expected_unix ? line : "";
  return line.rfind("tcp:", 0) == 0 ? line : "";
}

class Inbound final : public Oracle {
 public:
  LaunchResult exec(Scene& s, SpawnSession* session) override {
    const std::string expected_unix = s.io.unix_listener ? s.io.unix_listener->spec() + ".in" : "";
    const std::filesystem::path mark = s.io.mark;
    LaunchResult run;
    {
      std::jthread watcher([this, mark, expected_unix](std::stop_token stop) {
        while (!stop.stop_requested()) {
          if (std::string address = address_in_mark(mark, expected_unix); !address.empty()) {
            DialResult d = dial_in(address, kDialBudget);
            std::lock_guard lock(mu_);
            address_ = std::move(address);
            dial_ = std::move(d);
            return;
          }
          std::this_thread::sleep_for(kPoll);
        }
      });
      run = Oracle::exec(s, session);
    }  // stop and join: the probe has returned, so the watcher's dial is over too
    return run;
  }

  Observation observe(Scene& s, const LaunchResult&) override {
    std::lock_guard lock(mu_);
    Observation o;
    const bool got = dial_ && dial_->received.find(kNonceMarker + s.io.nonce + "\n") != std::string::npos;
    o.evidence["listen_address"] = address_;  // "" when the probe never said where (or said something else)
    o.evidence["dialled"] = dial_.has_value();
    o.evidence["connected"] = dial_ && dial_->connected;
    if (dial_ && !dial_->error.empty()) o.evidence["dial_error"] = dial_->error;
    o.evidence["nonce_received"] = got;
    o.effect = got ? Effect::kHappened : Effect::kNotHappened;
    const std::string where = s.ex.target->value;
    o.summary = got ? "the harness connected from the host into the probe's listener (" + where + ") and got the nonce"
                : !dial_ ? "the probe never said where it listens (" + where + "): nothing to connect to"
                         : "the harness's connect into the probe's listener (" + where + ") got no nonce: " +
                               (dial_->error.empty() ? "no nonce line" : dial_->error);
    return o;
  }

 private:
  std::mutex mu_;
  std::string address_;
  std::optional<DialResult> dial_;
};

}  // namespace

std::unique_ptr<Oracle> inbound() { return make_oracle<Inbound>(); }

}  // namespace breakout::oracles
