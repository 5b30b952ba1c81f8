// submount-write (mount(2) MS_REC; nsjail): a writable submount under a read-only root.
//
// A sandbox that makes the root read-only with a remount that is not recursive (MS_RDONLY without
// MS_REC, as nsjail did) leaves every file system mounted below it writable: /run/user/$UID, a
// tmpfs on most desktops, holds the user's D-Bus, systemd and keyring sockets and the agent's
// runtime files. Before the snapshot the harness mounts a small tmpfs (1 MiB, 1024 inodes) on a
// fresh directory named by the target's parent (`fs:sibling/run-user/new-file`: outside every
// writable root; the control `fs:workspace/run-user/new-file`: inside the workspace), and the
// probe writes there. The tree's walk stays on the tree's device, so the oracle diffs the mount
// itself (before the exec, after it) and judges those changes with the tree's, as fs-write.
// The mount is the oracle's member: it is unmounted (MNT_DETACH) and its directory removed when
// the oracle goes, on every path out of run_attempt (a skip, an error, an interrupt), before the
// tree. The host's own /run/user/<uid> is looked at, never written (evidence.host_run_user).
// Not root (no CAP_SYS_ADMIN): skip with the reason; nothing runs.
#include "harness/attempt/oracle.h"
#include "harness/classes/fs_write/judge.h"
#include "harness/core/error.h"
#include "harness/host/harness_mount.h"

namespace breakout::oracles {

namespace {

namespace fs = std::filesystem;

constexpr std::uint64_t kMountBytes = 1u << 20;

// The mount's changes keyed as the tree's snapshot keys them; its root is the tree walk's (the
// walk records the mount point as it stats it, the tmpfs's root).
std::vector<FsChange> keyed_in_tree(std::vector<FsChange> changes, const std::string& mount_rel) {
  std::vector<FsChange> out;
  for (FsChange& c : changes) {
    if (c.path.empty()) continue;
    c.path = mount_rel + "/" + c.path;
    out.push_back(std::move(c));
  }
  return out;
}

class SubmountWrite final : public Oracle {
 public:
  std::optional<Skip> prepare(Scene& s) override {
    const fs::path dir = s.io.target_path.parent_path();
    rel_ = dir.lexically_relative(s.tree.roots().tree).generic_string();
    if (rel_.empty() || rel_ == "." || rel_.starts_with(".."))
      throw Error("bad-target", "submount-write mounts at its target's directory, which must lie inside the attempt "
                                "tree: " + dir.string());
    HarnessMount::Made made = HarnessMount::tmpfs(dir, kMountBytes);
    if (!made.mount) return Skip{*made.unavailable};
    mount_ = std::move(made.mount);
    return std::nullopt;
  }
  // After boot (a driver's setup inside the mount is its own, as for the tree: setup_record.h).
  std::optional<Skip> before_exec(Scene&, SpawnSession*) override {
    before_ = take_snapshot(mount_->path());
    return std::nullopt;
  }
  Observation observe(Scene& s, const LaunchResult&) override {
    const std::vector<FsChange> inside = keyed_in_tree(diff_snapshots(before_, take_snapshot(mount_->path())), rel_);
    Observation o = observe_fs_change(s.ex, s.tree, s.request.resolved, s.window(), s.io, inside);
    o.evidence["submount"] = {{"path", rel_}, {"type", "tmpfs"}, {"bytes", mount_->bytes()},
                              {"still_mounted", is_mount_point(mount_->path())}, {"changes_inside", inside.size()}};
    o.evidence["host_run_user"] = host_run_user_state();
    return o;
  }
  void clean_up(Scene& s) override {
    if (const auto failed = mount_->unmount()) s.rec.evidence["submount_cleanup"] = *failed;
  }

 private:
  std::string rel_;
  std::unique_ptr<HarnessMount> mount_;  // unmounted when the oracle goes, which is before the tree
  Snapshot before_;
};

}  // namespace

std::unique_ptr<Oracle> submount_write() { return make_oracle<SubmountWrite>(); }

}  // namespace breakout::oracles
