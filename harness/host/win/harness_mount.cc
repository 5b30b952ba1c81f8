// HarnessMount on Windows: there is no tmpfs, no bind mount of a file and no /run/user; the classes are a skip with this reason.
#include "harness/host/harness_mount.h"

namespace breakout {

HarnessMount::Made HarnessMount::tmpfs(const std::filesystem::path&, std::uint64_t) {
  return {nullptr, "no tmpfs submount on Windows (the class stands in for a Linux /run/user/$UID mount)"};
}

HarnessMount::Made HarnessMount::bind_file(const std::filesystem::path&, const std::filesystem::path&) {
  return {nullptr, "no bind mount of a file on Windows (the class stands in for a Linux socket bind-mounted elsewhere)"};
}

std::optional<std::string> HarnessMount::unmount() noexcept { return std::nullopt; }

HarnessMount::~HarnessMount() = default;

bool is_mount_point(const std::filesystem::path&) { return false; }

std::string host_run_user_state() { return "no /run/user on Windows"; }

}  // namespace breakout
