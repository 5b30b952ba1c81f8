// TmpfsMount on Windows: there is no tmpfs and no /run/user; the class is a skip with this reason.
#include "harness/oracle/tmpfs_mount.h"

namespace breakout {

TmpfsMount::Made TmpfsMount::make(const std::filesystem::path&, std::uint64_t) {
  return {nullptr, "no tmpfs submount on Windows (the class stands in for a Linux /run/user/$UID mount)"};
}

std::optional<std::string> TmpfsMount::unmount() noexcept { return std::nullopt; }

TmpfsMount::~TmpfsMount() = default;

bool is_mount_point(const std::filesystem::path&) { return false; }

std::string host_run_user_state() { return "no /run/user on Windows"; }

}  // namespace breakout
