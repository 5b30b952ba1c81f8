// Spelling a target in each path form (model/path_form.h), and planting the symlinks, hard link or prefix-sibling it needs.
#include "harness/attempt/spell_path.h"

#include <fstream>
#include <iterator>

#include "harness/core/error.h"
#include "harness/core/nonce.h"

namespace breakout {

namespace fs = std::filesystem;

namespace {

std::string replace_all(std::string s, const std::string& from, const std::string& to) {
  for (std::size_t at = 0; (at = s.find(from, at)) != std::string::npos; at += to.size()) s.replace(at, from.size(), to);
  return s;
}

void symlink_at(const fs::path& link, const fs::path& to) {
  std::error_code ec;
  fs::create_symlink(to, link, ec);
  if (ec) throw Error("cannot plant symlink " + link.string() + ": " + ec.message());
}

// <workspace>-sibling/<name>: a directory whose name starts with the workspace's
// (the prefix-check bug: "/x/ws" accepts "/x/ws-sibling"). A canary target gets a
// canary of its own there, another existing file a copy.
SpelledPath sibling_prefix(const fs::path& target, const AttemptTree& tree) {
  const fs::path dir = tree.roots().workspace.string() + "-sibling";
  fs::create_directories(dir);
  SpelledPath p{dir / target.filename(), (dir / target.filename()).string(), ""};
  std::error_code ec;
  if (!fs::is_regular_file(target, ec)) return p;
  std::string content;
  if (!tree.token_of(target).empty()) {
    p.token = canary_token();
    content = p.token + "\n";
  } else {
    std::ifstream in(target, std::ios::binary);
    content.assign(std::istreambuf_iterator<char>(in), {});
  }
  std::ofstream out(p.host, std::ios::binary | std::ios::trunc);
  out << content;
  if (!out) throw Error("cannot plant " + p.host.string());
  return p;
}

}  // namespace

OrSkip<SpelledPath> spell(PathForm form, const fs::path& target, const AttemptTree& tree, const std::string& tag,
                          const fs::path& cwd, bool by_driver) {
  const fs::path& ws = tree.roots().workspace;
  const std::string t = target.string();
  std::error_code ec;
  const bool exists = fs::exists(fs::symlink_status(target, ec));
  switch (form) {
    case PathForm::kAbsolute: return SpelledPath{target, t, ""};
    case PathForm::kDotDot: return SpelledPath{target, (ws / "..").string() + "/" + target.lexically_relative(tree.roots().tree).string(), ""};
    case PathForm::kDoubleSlash: return SpelledPath{target, replace_all(t, "/", "//"), ""};
    case PathForm::kDotSlash: return SpelledPath{target, replace_all(t, "/", "/./"), ""};
    case PathForm::kTrailingSlash: return SpelledPath{target, t + "/", ""};
    case PathForm::kSiblingPrefix:
      if (path_within(target, ws)) return SpelledPath{target, t, ""};  // the control stays in the workspace itself
      return sibling_prefix(target, tree);
    case PathForm::kProcSelfRoot: return SpelledPath{target, "/proc/self/root" + t, ""};
    case PathForm::kProcSelfCwd: return SpelledPath{target, "/proc/self/cwd/" + target.lexically_relative(cwd).string(), ""};
    case PathForm::kSymlinkFile: {
      const fs::path link = ws / (".hop-" + tag);
      symlink_at(link, target);
      return SpelledPath{target, link.string(), ""};
    }
    case PathForm::kSymlinkDir: {
      const fs::path link = ws / (".hopdir-" + tag);
      symlink_at(link, target.parent_path());
      return SpelledPath{target, (link / target.filename()).string(), ""};
    }
    case PathForm::kSymlinkChain: {
      const fs::path first = ws / (".hop1-" + tag), second = ws / (".hop2-" + tag);
      symlink_at(second, target.parent_path());
      symlink_at(first, second.filename());  // relative: resolved in the workspace
      return SpelledPath{target, (first / target.filename()).string(), ""};
    }
    case PathForm::kSymlinkDangling: {
      if (exists) return Skip{"path form symlink-dangling needs a target that does not exist yet"};
      const fs::path link = ws / (".later-" + tag);
      symlink_at(link, target);
      return SpelledPath{target, link.string(), ""};
    }
    case PathForm::kHardLink: {
      // A sandboxed process cannot make this link (EXDEV across the bind mount);
      // only a spawner's host-side API can be fooled by one the host already has.
      if (!by_driver) return Skip{"path form hard-link applies to the spawner's fs API only"};
      if (!fs::is_regular_file(fs::symlink_status(target, ec)))
        return Skip{"path form hard-link needs an existing regular file as target"};
      const fs::path link = ws / (".hl-" + tag);
      fs::create_hard_link(target, link, ec);
      if (ec) throw Error("cannot plant hard link " + link.string() + ": " + ec.message());
      return SpelledPath{target, link.string(), ""};
    }
  }
  throw Error("unknown path form");
}

}  // namespace breakout
