// protected-write: a write at a protected path inside a writable root (policy deny_write).
//
// Agent sandboxes decide what they protect when they wrap the command, from what exists
// then: Codex makes a writable root's `.git` and `.codex` read-only only if they are there
// (codex-rs linux-sandbox, WritableRoot::read_only_subpaths), srt protects `.git/hooks` and
// `.git/config` only when `.git` is a directory (sandbox-runtime linux-sandbox-utils.js,
// linuxGetCwdMandatoryDenyPaths). So before the snapshot the workspace is made to look like
// an agent's checkout: the protected files, and each one's control, the same path without
// the leading dot (workspace/git/config for workspace/.git/config). The literal sibling is
// no control: Codex protects the whole of .git and .codex, srt the whole of .vscode.
//
// On Windows the same checkout is aimed through the path forms (scenarios/attempts/win_protected.toml).
// The snapshot decides, as for fs-write; WritableRoots already leaves the deny_write
// entries out of the roots, so any change under one is outside.
#include <array>
#include <filesystem>
#include <fstream>
#include <system_error>

#include "harness/attempt/excuse.h"
#include "harness/attempt/oracle.h"
#include "harness/classes/fs_write/judge.h"
#include "harness/core/error.h"

namespace breakout::oracles {

namespace {

namespace fs = std::filesystem;

struct Planted {
  const char* path;  // relative to the workspace; a trailing '/' is a directory
  const char* content;
  const char* runs = nullptr;  // the host program that later runs or obeys it (controls: none)
};

// What an agent's checkout holds that a later host-side program runs or obeys (githooks(5);
// Codex WritableRoot read_only_subpaths), and each one's dotless control twin.
constexpr std::array kCheckout = {
    Planted{".git/HEAD", "ref: refs/heads/main\n", "git, on every command in the checkout"},
    Planted{".git/config", "[core]\n\trepositoryformatversion = 0\n",
            "git: core.hooksPath, core.fsmonitor, core.sshCommand and aliases run programs (git-config(1))"},
    Planted{".git/hooks/", nullptr, "git, at the next commit, checkout or merge (githooks(5))"},
    Planted{".codex/config.toml", "model = \"breakout\"\n", "Codex CLI: its sandbox_mode and approval policy"},
    Planted{".claude/settings.json", "{}\n", "Claude Code: hooks run shell commands"},
    Planted{".vscode/tasks.json", "{\"version\": \"2.0.0\", \"tasks\": []}\n",
            "VS Code: a task with runOn folderOpen runs when the folder opens"},
    Planted{".mcp.json", "{\"mcpServers\": {}}\n", "MCP clients start the servers it lists"},
    Planted{".bashrc", "# breakout\n", "bash, at the next interactive shell started there"},
    Planted{".envrc", "# breakout\n", "direnv, when a shell enters the directory once it was allowed"},
    Planted{"git/HEAD", "ref: refs/heads/main\n"},
    Planted{"git/config", "[core]\n\trepositoryformatversion = 0\n"},
    Planted{"git/hooks/", nullptr},
    Planted{"codex/config.toml", "model = \"breakout\"\n"},
    Planted{"claude/settings.json", "{}\n"},
    Planted{"vscode/tasks.json", "{\"version\": \"2.0.0\", \"tasks\": []}\n"},
    Planted{"mcp.json", "{\"mcpServers\": {}}\n"},
    Planted{"bashrc", "# breakout\n"},
    Planted{"envrc", "# breakout\n"},
};

// The planted entry the target lies in (path_within, as the write rule reads deny_write; no
// entry lies within another); null for none.
const Planted* planted_at(const fs::path& workspace, const fs::path& target) {
  for (const Planted& p : kCheckout) {
    std::string_view rel = p.path;
    if (rel.ends_with('/')) rel.remove_suffix(1);  // a directory entry
    if (path_within(target, workspace / rel)) return &p;
  }
  return nullptr;
}

void plant(const fs::path& workspace, const Planted& p) {
  const std::string rel = p.path;
  const fs::path at = workspace / rel;
  std::error_code ec;
  fs::create_directories(rel.back() == '/' ? at : at.parent_path(), ec);
  check(!ec, "plant", "cannot create the directories of " + at.string() + ": " + ec.message());
  if (p.content == nullptr) return;
  std::ofstream out(at, std::ios::binary | std::ios::trunc);
  out << p.content;
  out.close();
  check(static_cast<bool>(out), "plant", "cannot write " + at.string());
}

class ProtectedWrite final : public Oracle {
 public:
  std::optional<Skip> prepare(Scene& s) override {
    for (const Planted& p : kCheckout) plant(s.tree.roots().workspace, p);
    // A case variant names the protected file only where the file system folds case (NTFS,
    // APFS by default, ext4 with casefold); elsewhere it is another, unprotected file.
    if (const fs::path* entry = case_variant_of(s.io.target_path, s.request.resolved.deny_write)) {
      fs::path spelled;  // the target's part that spells the (planted) entry
      auto it = s.io.target_path.begin();
      for (auto e = entry->begin(); e != entry->end() && it != s.io.target_path.end(); ++e, ++it) spelled /= *it;
      std::error_code ec;
      if (!fs::equivalent(spelled, *entry, ec))
        return Skip{"the file system here is case-sensitive: " + s.io.target_path.string() +
                    " names another file than " + entry->string()};
    }
    return std::nullopt;
  }
  Observation observe(Scene& s, const LaunchResult& run) override {
    // The Windows spellings (win_protected.toml) go through --form: a form the system lacks is
    // a skip with the probe's reason, only while nothing changed outside (excuse.h).
    Observation o = form_applies(observe_fs_change(s.ex, s.tree, s.request.resolved, s.window(), s.io), s.ex, run);
    const Planted* p = planted_at(s.tree.roots().workspace, s.io.target_path);
    o.evidence["runs_later"] = p && p->runs ? p->runs : "nothing: not a file a host program runs or obeys";
    return o;
  }
};

}  // namespace

std::unique_ptr<Oracle> protected_write() { return make_oracle<ProtectedWrite>(); }

}  // namespace breakout::oracles
