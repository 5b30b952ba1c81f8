// Mounts left inside a directory the harness is about to remove. std::filesystem::remove_all
// walks into a mount point like into any directory: a bind of the host's / (or of any host
// directory) that a sandbox let propagate into an attempt tree, or a spawner's own setup left
// behind, would have its files deleted on the host. Every removal of a tree or spawner directory
// detaches what is mounted under it first.
//
//   if (detach_mounts_under(tree)) std::filesystem::remove_all(tree, ec);
#pragma once

#include <filesystem>
#include <vector>

namespace breakout {

// Detaches every mount whose mount point is `dir` or lies under it, deepest first (Linux:
// umount2(MNT_DETACH | UMOUNT_NOFOLLOW), the mount points read from /proc/self/mountinfo, proc(5);
// bounded: at most 256 detaches), each appended to `detached` when given. True when nothing is
// mounted under `dir` any more: only then may it be removed (false: a mount the harness could not
// detach; leave the directory). Windows: true (nothing is mounted under a directory).
bool detach_mounts_under(const std::filesystem::path& dir, std::vector<std::filesystem::path>* detached = nullptr);

}  // namespace breakout
