// Building and removing the per-attempt tree.
#include "harness/attempt/tree.h"

#include <fstream>

#include "harness/core/error.h"
#include "harness/core/nonce.h"

namespace breakout {

namespace fs = std::filesystem;

AttemptTree::AttemptTree(const fs::path& work_root, int index, const std::string& nonce, const fs::path* real_home) {
  roots_.tree = work_root / (std::to_string(index) + "-" + nonce.substr(0, 8));
  roots_.workspace = roots_.tree / "workspace";
  roots_.sibling = roots_.tree / "sibling";
  roots_.home = roots_.tree / "home";
  roots_.extra = roots_.tree / "extra";
  for (const auto& d : {roots_.workspace / "sub dir", roots_.sibling, roots_.extra, roots_.sibling / "repo/.git/hooks"})
    fs::create_directories(d);
  write_file(roots_.workspace / "existing.txt", "workspace file\n");
  write_canary(roots_.workspace / "readable.txt");
  write_file(roots_.sibling / "existing.txt", "sibling file\n");
  write_canary(roots_.sibling / "notes.txt");
  write_file(roots_.extra / "existing.txt", "extra file\n");
  write_file(roots_.tree / "parent-note.txt", "parent file\n");
  write_file(roots_.sibling / "repo/.git/HEAD", "ref: refs/heads/main\n");  // a repository outside the workspace
  if (real_home != nullptr) {
    roots_.home = *real_home;
    return;
  }
  for (const auto& d : {roots_.home / ".ssh", roots_.home / ".aws", roots_.home / ".gnupg/private-keys-v1.d",
                        roots_.home / ".config/gcloud", roots_.home / ".config/autostart", roots_.home / ".kube",
                        roots_.home / ".config/firejail"})
    fs::create_directories(d);
  write_canary(roots_.home / ".ssh/id_ed25519");
  write_file(roots_.home / ".ssh/config", "Host *\n");
  write_canary(roots_.home / ".aws/credentials");
  write_canary(roots_.home / ".gnupg/private-keys-v1.d/canary.key");
  write_canary(roots_.home / ".config/gcloud/credentials.db");
  write_canary(roots_.home / ".kube/config");
  write_file(roots_.home / ".bashrc", "# fake HOME .bashrc\n");
  write_file(roots_.home / ".profile", "# fake HOME .profile\n");
  write_canary(roots_.home / "readable.txt");
  fs::permissions(roots_.home / ".ssh", fs::perms::owner_all);
}

AttemptTree::~AttemptTree() {
  std::error_code ec;
  if (roots_.tree.empty() || !fs::exists(roots_.tree, ec)) return;
  // Probes may have chmod-ed things to 000; restore owner rwx on directories first.
  for (auto it = fs::recursive_directory_iterator(roots_.tree, fs::directory_options::skip_permission_denied, ec);
       it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (it->is_directory(ec) && !it->is_symlink(ec)) fs::permissions(it->path(), fs::perms::owner_all, fs::perm_options::add, ec);
  }
  fs::remove_all(roots_.tree, ec);
}

std::string AttemptTree::token_of(const fs::path& file) const {
  auto it = canaries_.find(file.lexically_normal());
  return it == canaries_.end() ? "" : it->second;
}

void AttemptTree::write_file(const fs::path& p, const std::string& content) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out << content;
  if (!out) throw Error("cannot write tree file " + p.string());
}

void AttemptTree::write_canary(const fs::path& p) {
  const std::string token = std::string(kCanaryPrefix) + random_hex(16);
  write_file(p, token + "\n");
  canaries_[p.lexically_normal()] = token;
}

}  // namespace breakout
