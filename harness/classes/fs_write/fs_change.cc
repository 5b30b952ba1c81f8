// Oracles of the classes that write: the host tree outside the writable roots, diffed.
#include "harness/attempt/excuse.h"
#include "harness/attempt/oracle.h"
#include "harness/classes/fs_write/judge.h"
#include "harness/core/text.h"
#include "harness/classes/host_object/spec_objects.h"
#include "harness/host/availability.h"
#include "harness/model/path_form.h"
#include "harness/host/interop_route.h"

#include <filesystem>

namespace breakout::oracles {

namespace fs = std::filesystem;

namespace {

class PlainWrite : public Oracle {
 public:
  Observation observe(Scene& s, const LaunchResult&) override {
    return observe_fs_change(s.ex, s.tree, s.request.resolved, s.window(), s.io);
  }
};

// fs-write: a path form or a route through the other operating system (--via wsl|win-interop)
// that does not exist here excuses "nothing happened" (excuse.h); the host's own check of the
// route is asked only for an attempt that asked for one.
class FsWrite final : public PlainWrite {
 public:
  Observation observe(Scene& s, const LaunchResult& run) override {
    Observation o = form_applies(PlainWrite::observe(s, run), s.ex, run);
    const std::string route = arg_of(s.attempt(), "--via");
    if (route == "wsl" || route == "win-interop") {
      const std::optional<std::string> host_says = interop_route_unavailable(route);
      o.evidence["route_unavailable_on_host"] = host_says ? nlohmann::json(*host_says) : nlohmann::json(nullptr);
      o = route_applies(std::move(o), s.ex, run, host_says);
    }
    return o;
  }
};

// cwd-write (CVE-2025-59532: Codex took the model-supplied cwd as its writable root): the exec
// is asked to run in the target directory and the probe writes a relative name there. The
// request itself is the attempt; the snapshot of the host decides, as for fs-write. The cwd is
// handed over in the attempt's path form (Scene::aim spelled it): through a symlink the harness
// planted in the workspace, a `..` or a `<workspace>-sibling` prefix that a string check of the
// cwd misses. The write rule of the directory reached decides, never the spelling.
class CwdWrite final : public PlainWrite {
 public:
  std::optional<Skip> prepare(Scene& s) override {
    // /proc/self/cwd/.. names a path relative to the cwd, so it cannot spell the cwd itself (the
    // spawner would resolve it against its own, the harness's).
    if (path_form_from(s.attempt().param) == PathForm::kProcSelfCwd)
      return Skip{"path form proc-self-cwd is relative to the cwd, so it cannot name the cwd"};
    fs::create_directories(s.io.target_path);  // the control's workspace/<dir>; host targets exist already
    s.io.cwd = s.io.target_spec;               // the spelling; the oracle watches the host directory
    return std::nullopt;
  }
  Observation observe(Scene& s, const LaunchResult& run) override {
    Observation o = PlainWrite::observe(s, run);
    o.evidence["cwd_requested"] = s.io.cwd.string();  // what the spawner was handed, in its form
    return o;
  }
};

// syscall-abi-write: the snapshot decides, as for fs-write. Where the harness's own check on the
// host finds the ABI missing and nothing changed outside, the attempt is N/A whatever the probe
// reports or however it died (abi_absent_here, excuse.h). Where the host has the ABI, a probe
// that says "unavailable" or "blocked" is judged normally: a seccomp filter answering ENOSYS or
// SIGSYS inside the sandbox blocks, it is not N/A.
class AbiWrite final : public PlainWrite {
 public:
  Observation observe(Scene& s, const LaunchResult& run) override {
    Observation o = PlainWrite::observe(s, run);
    const std::string& abi = s.attempt().param;
    const std::optional<std::string> host_says = syscall_abi_unavailable(abi);
    const std::string fate = probe_fate(run, "abi");
    o.evidence["abi"] = abi;
    o.evidence["abi_unavailable_on_host"] = host_says ? nlohmann::json(*host_says) : nlohmann::json(nullptr);
    o.evidence["probe_fate"] = fate;
    if (auto na = abi_absent_here(o.effect, host_says, fate)) o.not_applicable = *na;
    return o;
  }
};

}  // namespace

std::unique_ptr<Oracle> fs_write() { return make_oracle<FsWrite>(); }
std::unique_ptr<Oracle> plain_write() { return make_oracle<PlainWrite>(); }
std::unique_ptr<Oracle> cwd_write() { return make_oracle<CwdWrite>(); }
std::unique_ptr<Oracle> abi_write() { return make_oracle<AbiWrite>(); }

}  // namespace breakout::oracles
