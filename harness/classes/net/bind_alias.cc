// bind-alias-connect (mount(2) MS_BIND, link(2)): the host's socket under a second name the host made.
//
// Hosts bind-mount service sockets into other directories (a devcontainer's
// /var/run/docker-host.sock, a socket mounted into a chroot or a CI runner's work dir): the same
// inode, reachable by a name a sandbox that hides services path by path (a --tmpfs over a
// directory, a deny list of socket paths) does not know to hide. Before the snapshot the harness,
// as root, bind-mounts its listener's socket (net:unix-outside: parent/host-service.sock; the
// control net:unix-workspace: the workspace socket) on a fresh empty file at the endpoint's
// bind_alias_policy_path (model/target.h: sibling/bind-alias.sock, outside every writable root;
// workspace/bind-alias.sock) and points the probe's {target} there; the probe (net-connect) only
// connects. The listener receiving the nonce decides, as for net-connect (listener_nonce.cc).
// The mount is the oracle's member: umount2(MNT_DETACH) and unlink when the oracle goes, on every
// path out of run_attempt (a skip, an error, an interrupt), before the listener and the tree.
// Not root (no CAP_SYS_ADMIN): skip with the reason; nothing runs.
#include "harness/attempt/oracle.h"
#include "harness/classes/net/judge.h"
#include "harness/core/error.h"
#include "harness/model/policy.h"
#include "harness/host/harness_mount.h"

namespace breakout::oracles {

namespace {

namespace fs = std::filesystem;

class BindAlias final : public Oracle {
 public:
  std::optional<Skip> prepare(Scene& s) override {
    const char* alias = bind_alias_policy_path(s.ex.target->value);
    const std::string spec = s.io.unix_listener ? s.io.unix_listener->spec() : "";
    if (alias == nullptr || spec.rfind("unix:/", 0) != 0)
      throw Error("bad-target", "bind-alias-connect needs a path socket listener of the harness, and " +
                                    s.ex.target->text + " has none");
    source_ = spec.substr(5);
    const fs::path at = resolve_policy_path(alias, s.tree.roots());
    HarnessMount::Made made = HarnessMount::bind_file(source_, at);
    if (!made.mount) return Skip{*made.unavailable};
    mount_ = std::move(made.mount);
    s.io.target_spec = "unix:" + at.string();  // what {target} expands to: the alias, never the original
    return std::nullopt;
  }
  Observation observe(Scene& s, const LaunchResult& run) override {
    Observation o = listener_->observe(s, run);
    const fs::path& tree = s.tree.roots().tree;
    o.evidence["bind_alias"] = {{"path", mount_->path().lexically_relative(tree).generic_string()},
                                {"source", source_.lexically_relative(tree).generic_string()},
                                {"still_mounted", is_mount_point(mount_->path())}};
    return o;
  }
  void clean_up(Scene& s) override {
    if (const auto failed = mount_->unmount()) s.rec.evidence["bind_alias_cleanup"] = *failed;
  }

 private:
  std::unique_ptr<Oracle> listener_ = connect();  // the judgement is net-connect's
  fs::path source_;
  std::unique_ptr<HarnessMount> mount_;  // unmounted when the oracle goes, which is before the tree
};

}  // namespace

std::unique_ptr<Oracle> bind_alias() { return make_oracle<BindAlias>(); }

}  // namespace breakout::oracles
