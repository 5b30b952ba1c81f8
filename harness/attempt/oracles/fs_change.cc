// Oracles of the classes that write: the host tree outside the writable roots, diffed.
#include "harness/attempt/excuse.h"
#include "harness/attempt/oracle.h"
#include "harness/attempt/oracles/oracles.h"
#include "harness/core/text.h"
#include "harness/model/host_object.h"

namespace breakout::oracles {

namespace {

// fd number the caller leaks the target directory at (class fd-leak): above
// stdio and the few fds a wrapper opens early, like a careless agent runtime.
constexpr int kLeakedDirFd = 5;

class PlainWrite : public Oracle {
 public:
  Observation observe(Scene& s, const LaunchResult&) override {
    return observe_fs_change(s.ex, s.tree, s.request.resolved, s.window(), s.io);
  }
};

class FsWrite final : public PlainWrite {
 public:
  Observation observe(Scene& s, const LaunchResult& run) override {
    return form_applies(PlainWrite::observe(s, run), s.ex, run);
  }
};

class LeakedFd final : public PlainWrite {
 public:
  std::optional<Skip> prepare(Scene& s) override {
    s.limits.inherit_dirs.push_back({s.io.target_path.string(), kLeakedDirFd});
    return std::nullopt;
  }
};

// syscall-abi-write: the snapshot decides, as for fs-write. N/A (skip) needs three
// agreeing facts: nothing changed outside, the probe says the ABI is unavailable
// (excuse.h) and the harness's own check on the host says so too. A probe that says
// "unavailable" where the host has the ABI is judged normally (a seccomp filter
// answering ENOSYS inside the sandbox blocks, it is not N/A).
class AbiWrite final : public PlainWrite {
 public:
  Observation observe(Scene& s, const LaunchResult& run) override {
    Observation o = PlainWrite::observe(s, run);
    const std::string& abi = s.attempt().param;
    const std::optional<std::string> host_says = syscall_abi_unavailable(abi);
    o.evidence["abi"] = abi;
    o.evidence["abi_unavailable_on_host"] = host_says ? nlohmann::json(*host_says) : nlohmann::json(nullptr);
    if (o.effect != Effect::kNotHappened || !host_says) return o;
    const auto probe_says = probe_says_unavailable(run, "abi");
    if (!probe_says) return o;
    o.not_applicable = "N/A: " + *host_says + "; the probe agrees (" + *probe_says + ") and nothing changed on the host";
    return o;
  }
};

}  // namespace

std::unique_ptr<Oracle> fs_write() { return make_oracle<FsWrite>(); }
std::unique_ptr<Oracle> plain_write() { return make_oracle<PlainWrite>(); }
std::unique_ptr<Oracle> leaked_fd() { return make_oracle<LeakedFd>(); }
std::unique_ptr<Oracle> abi_write() { return make_oracle<AbiWrite>(); }

}  // namespace breakout::oracles
