// What the session classes share: they drive a spawner's whole lifecycle (boot, exec, shutdown) themselves.
//
// AstrBot PR #9895 review, comments 3, 6 and 7: one job handle for concurrent execs (shutdown kills
// only the last), ACL revocation that drops pre-existing entries, and grants left
// behind when boot fails. Each check runs the real session and judges from outside:
// heartbeat files, and snapshots of the attempt tree (workspace parent, workspace,
// fake HOME, policy paths) taken before boot with a pre-existing ACL entry and xattr
// planted on every one of them (host_marks.h), so a grant to any uid shows as a new entry.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/attempt/oracle.h"

namespace breakout::oracles {

class SessionCheck : public Oracle {
 public:
  // Plants the pre-existing ACL entry and xattr on the tree's directories (before the snapshot).
  std::optional<Skip> prepare(Scene& s) override;
  // A plain boot: the session's own setup is what some checks judge, so none is taken out.
  std::unique_ptr<SpawnSession> open(Scene& s) override;
  // The check shuts the session down itself, as part of what it judges; this only lets go of it.
  void end(Scene&, SpawnSession* session) override {
    if (session) session->close();
  }
  // The check's own judgement covers the host (snapshots outside the workspace).
  bool collateral() const override { return false; }
};

nlohmann::json describe_exec(const LaunchResult& r);
// The exec's record fields, as describe_exec gives them (display only).
void record_exec(AttemptRecord& rec, const LaunchResult& r);
nlohmann::json describe_changes(const std::vector<FsChange>& changes);
std::string first_change(const std::vector<FsChange>& changes);
// shutdown(), with "ok" or the failure in evidence["shutdown"].
void shutdown_into(SpawnSession& s, nlohmann::json& evidence);

}  // namespace breakout::oracles
