// A fresh host tree per attempt: workspace, a sibling beside it, a fake HOME with canary secrets.
//
//   <work>/<index>-<nonce8>/            "parent": the workspace's parent
//     workspace/  existing.txt readable.txt "sub dir/"      writable by policy
//     sibling/    existing.txt notes.txt (canary), repo/.git/{HEAD,hooks/}  never writable
//     extra/      existing.txt                               writable if the policy says so
//     home/       fake HOME: .ssh/id_ed25519, .aws/credentials, .gnupg/…, .config/gcloud/…,
//                 .kube/config (canaries), .bashrc, .profile, .config/autostart/,
//                 .config/firejail/ (the spawner's own config dir), readable.txt
//
// Every canary holds "BREAKOUT-CANARY-<32 hex>"; the token appearing anywhere
// but its own file (output, other files) means it was read. The real HOME is
// never used, except by real-host attempts (real_home.h), for which `real_home`
// replaces home/ (nothing is created in it here). The destructor removes the whole tree (after restoring write
// permission, since probes chmod things), or, with a TreePool, puts it back to its built state for the next attempt.
#pragma once

#include <cstddef>
#include <filesystem>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "harness/core/nonce.h"  // kCanaryPrefix
#include "harness/host/fs_snapshot.h"

#include "harness/model/policy.h"

namespace breakout {

// Live fuzzing only (fuzz/live_fuzzer.cc): attempt trees recycled instead of deleted and built
// again. Deleting ~40 inodes per attempt and allocating ~40 more was a quarter of the live
// fuzzer's CPU on ext4 without a journal (as /tmp is here): ext4's inode allocator skips every
// inode of the group freed in the last ~30 s (fs/ext4/ialloc.c, find_inode_bit ->
// recently_deleted, only when there is no journal), one buffer lookup each, so the cost grew with
// the fuzzing rate (docs/fuzzing.md). A released tree is put back to its built state (the probe's
// extra entries removed, modes and plain files restored) and renamed to the next attempt's name;
// the next attempt gets fresh canary tokens and uses it only if a full snapshot of it (type,
// mode, owner, size, nlink, content digest, xattrs of every entry) equals a fresh tree's,
// else it is deleted and a fresh one built. Not for real-host attempts.
class TreePool {
 public:
  TreePool() = default;
  TreePool(const TreePool&) = delete;
  TreePool& operator=(const TreePool&) = delete;
  std::size_t reused() const;   // attempts that got a recycled tree
  std::size_t rebuilt() const;  // recycled trees that failed the check and were replaced

 private:
  friend class AttemptTree;
  mutable std::mutex mu_;
  std::vector<std::filesystem::path> spares_;  // restored trees, under the work root
  std::optional<Snapshot> shape_;              // a freshly built tree's snapshot (canary digests ignored)
  std::size_t reused_ = 0, rebuilt_ = 0, next_spare_ = 0;
};

class AttemptTree {
 public:
  AttemptTree(const std::filesystem::path& work_root, int index, const std::string& nonce,
              const std::filesystem::path* real_home = nullptr, TreePool* pool = nullptr);
  ~AttemptTree();
  AttemptTree(const AttemptTree&) = delete;
  AttemptTree& operator=(const AttemptTree&) = delete;

  const TreeRoots& roots() const { return roots_; }
  // Canary file -> its token.
  const std::map<std::filesystem::path, std::string>& canaries() const { return canaries_; }
  // Token of the canary at `file`, or "" when it is not a canary.
  std::string token_of(const std::filesystem::path& file) const;
  // The attempt's own full snapshot of the tree after its run (observe_fs_change): with a
  // pool, give_back starts from it instead of walking the tree once more. A cache only: the
  // tree is used again only if take_from_pool's own snapshot equals a fresh tree's.
  void keep_after_snapshot(Snapshot after) const;

 private:
  void build(const std::filesystem::path* real_home);
  bool take_from_pool();   // a recycled tree, checked; false: build a fresh one
  bool give_back() noexcept;  // restored and parked in the pool; false: remove it
  void write_file(const std::filesystem::path& p, const std::string& content);
  void write_canary(const std::filesystem::path& p, bool in_place = false);
  std::filesystem::path work_root_;
  TreePool* pool_ = nullptr;
  TreeRoots roots_;
  std::map<std::filesystem::path, std::string> canaries_;
  mutable std::optional<Snapshot> after_;  // keep_after_snapshot's, for give_back
};

}  // namespace breakout
