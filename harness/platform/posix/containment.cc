// POSIX Containment: the box's cgroup v2 (cgroup.h), with the /proc nonce scan (process_scan.h) as fallback and second net.
#include "harness/platform/posix/containment.h"

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <set>
#include <thread>
#include <utility>
#include <vector>

#include "harness/platform/posix/process_scan.h"

namespace breakout {

using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

namespace {

bool env_flag(const char* name) {
  const char* v = std::getenv(name);
  return v != nullptr && *v != '\0' && std::strcmp(v, "0") != 0;
}

}  // namespace

Containment::Containment(std::string label, std::string nonce)
    : nonce_(std::move(nonce)), impl_(std::make_unique<Impl>()) {
  impl_->since = process_scan::boot_ticks_now();
  // BREAKOUT_FORCE_NONCE_SCAN=1 skips cgroups (tests of the fallback; hosts
  // whose cgroup2 delegation is broken).
  if (env_flag("BREAKOUT_FORCE_NONCE_SCAN")) return;
  impl_->cgroup = CgroupDir::create(label);
}

Containment::~Containment() {
  // kill_all() after judging already swept /proc clean; nothing started since, so one scan
  // per attempt is enough (the cgroup is still emptied: it is cheap and rmdir needs it).
  const bool swept = impl_->starts_at_sweep.load() == impl_->starts.load();
  if (swept) {
    if (impl_->cgroup) impl_->cgroup->kill_all(Clock::now() + 2s);
  } else {
    kill_all();
  }
  impl_->cgroup.reset();  // waits until the kernel counts it empty, then removes it
}

int Containment::kill_all() noexcept {
  try {
    const auto deadline = Clock::now() + 2s;
    const long long starts = impl_->starts.load();
    std::set<int> seen = impl_->cgroup ? impl_->cgroup->kill_all(deadline) : std::set<int>{};
    // The nonce scan: the whole mechanism without a cgroup, and a second net
    // for anything that left the cgroup (a root probe can write cgroup.procs).
    for (;;) {
      const std::vector<int> pids = process_scan::nonce_scan(nonce_, /*kill_them=*/true, impl_->since);
      if (pids.empty()) {
        impl_->starts_at_sweep = starts;  // clean: only a later start needs another scan
        break;
      }
      seen.insert(pids.begin(), pids.end());
      if (Clock::now() >= deadline) break;
      std::this_thread::sleep_for(10ms);
    }
    return static_cast<int>(seen.size());
  } catch (...) {
    return 0;
  }
}

int Containment::live_count() const {
  std::set<int> live;
  if (impl_->cgroup) {
    for (int pid : impl_->cgroup->pids()) live.insert(pid);
  }
  for (int pid : process_scan::nonce_scan(nonce_, /*kill_them=*/false, impl_->since)) live.insert(pid);
  return static_cast<int>(live.size());
}

std::string Containment::mechanism() const {
  return impl_->cgroup ? "cgroup2 " + impl_->cgroup->path() : "nonce-scan";
}

}  // namespace breakout
