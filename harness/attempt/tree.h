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
// permission, since probes chmod things).
#pragma once

#include <filesystem>
#include <map>
#include <string>

#include "harness/model/policy.h"

namespace breakout {

class AttemptTree {
 public:
  AttemptTree(const std::filesystem::path& work_root, int index, const std::string& nonce,
              const std::filesystem::path* real_home = nullptr);
  ~AttemptTree();
  AttemptTree(const AttemptTree&) = delete;
  AttemptTree& operator=(const AttemptTree&) = delete;

  const TreeRoots& roots() const { return roots_; }
  // Canary file -> its token.
  const std::map<std::filesystem::path, std::string>& canaries() const { return canaries_; }
  // Token of the canary at `file`, or "" when it is not a canary.
  std::string token_of(const std::filesystem::path& file) const;

 private:
  void write_file(const std::filesystem::path& p, const std::string& content);
  void write_canary(const std::filesystem::path& p);
  TreeRoots roots_;
  std::map<std::filesystem::path, std::string> canaries_;
};

inline constexpr const char* kCanaryPrefix = "BREAKOUT-CANARY-";

}  // namespace breakout
