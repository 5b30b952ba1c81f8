// Oracle of the connect classes: the attempt's nonce received by the target's listener, or carried
// in a name the run's name server was asked for (DNS exfiltration: the name left the box even when
// no connection followed; host/name_server.h).
#include <algorithm>

#include "harness/attempt/excuse.h"
#include "harness/attempt/observe.h"
#include "harness/core/text.h"
#include "harness/attempt/oracle.h"
#include "harness/classes/net/judge.h"
#include "harness/host/name_server.h"
#include "harness/host/remote_listener.h"

namespace breakout::oracles {

namespace {

// The listeners record a nonce on their own threads, which a loaded machine may run well after the
// probe has exited. 300 ms (RunContext::net_grace) is enough when nothing was sent, and keeps a
// denial that held cheap; when the probe says it sent its bytes, the nonce may be on its way, so the
// harness waits up to this long before concluding it never arrived. The probe's word only sets how
// long to look (bounded: a crafted report costs at most this much); the listener alone decides.
constexpr std::chrono::milliseconds kSentGrace{3000};

std::chrono::milliseconds listener_grace(const RunContext& ctx, const LaunchResult& run) {
  const nlohmann::json report = parse_probe_report(run.out);
  const bool says_sent = report.is_object() && report.contains("sent");
  return says_sent ? std::max(ctx.net_grace, kSentGrace) : ctx.net_grace;
}

class Connect final : public Oracle {
 public:
  Observation observe(Scene& s, const LaunchResult& run) override {
    const AttemptIo& io = s.io;
    const RunContext& ctx = s.ctx;
    Observation o;
    const std::string& endpoint = s.ex.target->value;
    bool got = false;
    const auto grace = listener_grace(ctx, run);
    // A remote listener is asked over the network: at least a second for the probe's bytes to get there.
    if (io.unix_listener) got = io.unix_listener->wait_for(io.nonce, grace);
    else if (endpoint == "real-external")
      got = ctx.remote->wait_for(io.nonce, std::max(grace, std::chrono::milliseconds(1000)));
    else got = ctx.listeners->wait_for(io.nonce, endpoint, grace);
    nlohmann::json all = nlohmann::json::array();
    for (const auto& e : ctx.listeners->received(io.nonce)) all.push_back(e);
    o.evidence["listener"] = endpoint;
    o.evidence["endpoint"] = io.target_spec;
    o.evidence["nonce_received"] = got;
    o.evidence["nonce_seen_by"] = all;
    o.effect = got ? Effect::kHappened : Effect::kNotHappened;
    o.summary = got ? "listener " + endpoint + " received the nonce" : "listener " + endpoint + " never received the nonce";
    if (ctx.names != nullptr && !ctx.names->unavailable()) {
      const auto asked = ctx.names->names_containing(io.nonce);
      nlohmann::json names = nlohmann::json::array();
      for (const auto& n : asked) names.push_back(printable_excerpt(n, 300));
      o.evidence["names_with_nonce_asked"] = names;  // at the run's name server, by anyone
      if (!asked.empty() && !got) {
        o.effect = Effect::kHappened;
        o.summary = "the run's name server (" + ctx.names->address() + ") was asked for " +
                    printable_excerpt(asked.front(), 120) + ": the nonce left through DNS; listener " + endpoint +
                    " never received it";
      }
    }
    return launch_applies(std::move(o), s.ex, run);  // --launch wmi absent here (excuse.h)
  }
};

}  // namespace

std::unique_ptr<Oracle> connect() { return make_oracle<Connect>(); }

}  // namespace breakout::oracles
