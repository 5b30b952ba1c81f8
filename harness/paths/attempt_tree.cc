// Building and removing the per-attempt tree (or, for the live fuzzer, recycling it through a TreePool).
#include "harness/paths/attempt_tree.h"

#include <sys/stat.h>

#include <fstream>

#include "harness/core/error.h"
#include "harness/core/nonce.h"
#include "harness/core/sha256.h"
#include "harness/platform/tree_mounts.h"

namespace breakout {

namespace fs = std::filesystem;

namespace {

// The tree's layout, relative to its root ('/'-separated, like a snapshot's keys), parents
// first. A file without content is a canary (a fresh token per attempt).
struct FileSpec {
  const char* rel;
  const char* content;
};
const char* const kDirs[] = {"workspace/sub dir", "sibling", "extra", "sibling/repo/.git/hooks"};
const FileSpec kFiles[] = {
    {"workspace/existing.txt", "workspace file\n"}, {"workspace/readable.txt", nullptr},
    {"sibling/existing.txt", "sibling file\n"},     {"sibling/notes.txt", nullptr},
    {"extra/existing.txt", "extra file\n"},         {"parent-note.txt", "parent file\n"},
    {"sibling/repo/.git/HEAD", "ref: refs/heads/main\n"},  // a repository outside the workspace
};
const char* const kHomeDirs[] = {"home/.ssh",         "home/.aws",         "home/.gnupg/private-keys-v1.d",
                                 "home/.config/gcloud", "home/.config/autostart", "home/.kube",
                                 "home/.config/firejail"};
const FileSpec kHomeFiles[] = {
    {"home/.ssh/id_ed25519", nullptr},
    {"home/.ssh/config", "Host *\n"},
    {"home/.aws/credentials", nullptr},
    {"home/.gnupg/private-keys-v1.d/canary.key", nullptr},
    {"home/.config/gcloud/credentials.db", nullptr},
    {"home/.kube/config", nullptr},
    {"home/.bashrc", "# fake HOME .bashrc\n"},
    {"home/.profile", "# fake HOME .profile\n"},
    {"home/readable.txt", nullptr},
};

template <typename F>
void for_each_file(F f) {
  for (const FileSpec& s : kFiles) f(s);
  for (const FileSpec& s : kHomeFiles) f(s);
}

// Probes may have chmod-ed things to 000: owner rwx back on every directory, so the tree
// can be walked and removed.
void open_up_dirs(const fs::path& root) {
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(root, fs::directory_options::skip_permission_denied, ec);
       it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (it->is_directory(ec) && !it->is_symlink(ec)) fs::permissions(it->path(), fs::perms::owner_all, fs::perm_options::add, ec);
  }
}

// The pool's check: `now` has exactly the entries of a fresh tree (`shape`), each with the same
// type, permission bits, owner, size, link count and xattrs, every plain file the same content
// and every canary exactly its new token. Device and inode numbers are not compared (the same
// inodes are the point), nor times (a snapshot has none: fs_snapshot.h).
bool same_shape(const Snapshot& now, const Snapshot& shape, const std::map<std::string, std::string>& canary_digests) {
  if (now.size() != shape.size()) return false;
  for (auto a = now.begin(), b = shape.begin(); a != now.end(); ++a, ++b) {
    const FileState &x = a->second, &y = b->second;
    if (a->first != b->first || x.type != y.type || x.mode != y.mode || x.uid != y.uid || x.gid != y.gid ||
        x.size != y.size || x.nlink != y.nlink || x.xattrs != y.xattrs)
      return false;
    const auto canary = canary_digests.find(a->first);
    if (x.digest != (canary != canary_digests.end() ? canary->second : y.digest)) return false;
  }
  return true;
}

// Writes `content` over the file's first bytes without O_TRUNC, then fixes the size only when
// it differs. Truncating a file with data frees its block, and on this host's ext4 (mounted
// `discard`, no journal) freeing a block waits for a synchronous discard to the disk
// (ext4_free_blocks -> blkdev_issue_discard -> submit_bio_wait, seen in `perf record -g`);
// a canary's new token has the old one's length, so nothing is freed or allocated.
void overwrite(const fs::path& p, const std::string& content) {
  {
    std::fstream out(p, std::ios::binary | std::ios::in | std::ios::out);  // "r+b": the same inode, no truncation
    out << content;
    if (!out) throw Error("cannot write tree file " + p.string());
  }
  if (fs::file_size(p) != content.size()) fs::resize_file(p, content.size());
}

constexpr std::size_t kMaxSpares = 4;  // one attempt at a time takes one and gives one back

}  // namespace

std::size_t TreePool::reused() const {
  std::lock_guard lock(mu_);
  return reused_;
}

std::size_t TreePool::rebuilt() const {
  std::lock_guard lock(mu_);
  return rebuilt_;
}

AttemptTree::AttemptTree(const fs::path& work_root, int index, const std::string& nonce, const fs::path* real_home,
                         TreePool* pool)
    : work_root_(work_root), pool_(real_home == nullptr ? pool : nullptr) {
  roots_.tree = work_root / (std::to_string(index) + "-" + nonce.substr(0, 8));
  roots_.workspace = roots_.tree / "workspace";
  roots_.sibling = roots_.tree / "sibling";
  roots_.home = roots_.tree / "home";
  roots_.extra = roots_.tree / "extra";
  if (pool_ != nullptr && take_from_pool()) return;
  build(real_home);
  if (pool_ == nullptr) return;
  std::lock_guard lock(pool_->mu_);
  if (!pool_->shape_) pool_->shape_ = take_snapshot(roots_.tree);  // the reference every recycled tree must equal
}

void AttemptTree::build(const fs::path* real_home) {
  for (const char* d : kDirs) fs::create_directories(roots_.tree / d);
  for (const FileSpec& f : kFiles) f.content ? write_file(roots_.tree / f.rel, f.content) : write_canary(roots_.tree / f.rel);
  if (real_home != nullptr) {
    roots_.home = *real_home;
    return;
  }
  for (const char* d : kHomeDirs) fs::create_directories(roots_.tree / d);
  for (const FileSpec& f : kHomeFiles)
    f.content ? write_file(roots_.tree / f.rel, f.content) : write_canary(roots_.tree / f.rel);
  fs::permissions(roots_.home / ".ssh", fs::perms::owner_all);
}

bool AttemptTree::take_from_pool() {
  fs::path spare;
  {
    std::lock_guard lock(pool_->mu_);
    if (!pool_->shape_ || pool_->spares_.empty()) return false;
    spare = pool_->spares_.back();
    pool_->spares_.pop_back();
  }
  std::error_code ec;
  fs::rename(spare, roots_.tree, ec);  // same directory, one rename: no inode freed or allocated
  if (ec) {
    fs::remove_all(spare, ec);
    return false;
  }
  try {
    // Fresh tokens, written into the same inodes (O_TRUNC), then the whole tree checked.
    canaries_.clear();
    std::map<std::string, std::string> digests;
    for_each_file([&](const FileSpec& f) {
      if (f.content != nullptr) return;
      write_canary(roots_.tree / f.rel, /*in_place=*/true);
      digests[f.rel] = sha256_hex(token_of(roots_.tree / f.rel) + "\n");
    });
    if (same_shape(take_snapshot(roots_.tree), *pool_->shape_, digests)) {
      std::lock_guard lock(pool_->mu_);
      ++pool_->reused_;
      return true;
    }
  } catch (const std::exception&) {
  }
  open_up_dirs(roots_.tree);
  fs::remove_all(roots_.tree, ec);
  canaries_.clear();
  std::lock_guard lock(pool_->mu_);
  ++pool_->rebuilt_;
  return false;
}

// Undoes what an attempt did to the tree, as far as it can be undone in place: entries that a
// fresh tree lacks are removed, permission bits and plain files' contents put back (canaries get
// new tokens when taken). Anything else (an entry of another type, another owner, an xattr or
// ACL) gives up: the tree is removed. Whatever this misses, take_from_pool's check catches.
bool AttemptTree::give_back() noexcept {
  try {
    std::optional<Snapshot> shape;
    {
      std::lock_guard lock(pool_->mu_);
      if (!pool_->shape_ || pool_->spares_.size() >= kMaxSpares) return false;
      shape = pool_->shape_;
    }
    // The attempt's after-snapshot, when it took one (fs-write cases), saves a walk of the
    // tree. It may be stale (a survivor may have written since): then the restore below misses
    // something, and the check at take time (take_from_pool: a full snapshot of the tree must
    // equal a fresh tree's) rejects the tree.
    Snapshot now;
    if (after_) now = std::move(*after_);
    else now = take_snapshot(roots_.tree);
    after_.reset();
    // open_up_dirs is a walk of its own that only gives directories owner rwx back: needed only
    // when one lacks it, or could not be read (without root, a probe's chmod 000).
    bool closed = false;
    for (const auto& [key, st] : now)
      closed = closed || (!key.empty() && st.type == 'd' &&
                          ((st.mode & S_IRWXU) != S_IRWXU || (!st.digest.empty() && st.digest[0] == '!')));
    if (closed) {
      open_up_dirs(roots_.tree);
      now = take_snapshot(roots_.tree);
    }
    std::error_code ec;
    std::vector<std::string> removed;
    for (auto it = now.rbegin(); it != now.rend(); ++it) {  // children before their parents
      if (shape->count(it->first)) continue;
      fs::remove_all(roots_.tree / it->first, ec);
      if (ec) return false;
      removed.push_back(it->first);
    }
    // Removing names changes nothing else of the tree but link counts: instead of a new walk,
    // the removed entries are dropped and the files whose link count is not a fresh tree's
    // are looked at again (the names removed may have been their other links). Directories'
    // link counts are not compared here (below), only at take time.
    for (const auto& key : removed) now.erase(key);
    for (auto& [key, st] : now) {
      const auto want = shape->find(key);
      if (st.type != 'd' && want != shape->end() && st.nlink != want->second.nlink &&
          !stat_path(roots_.tree / key, st))
        return false;
    }
    std::map<std::string, const char*> contents;
    for_each_file([&](const FileSpec& f) { contents[f.rel] = f.content; });
    for (const auto& [key, want] : *shape) {
      const auto it = now.find(key);
      // A file with another link count may share its inode with something the extras' removal
      // did not reach: it is not written to or chmod-ed (through the other name) but given up.
      if (it == now.end() || it->second.type != want.type || it->second.uid != want.uid ||
          it->second.gid != want.gid || it->second.xattrs != want.xattrs ||
          (want.type != 'd' && it->second.nlink != want.nlink))
        return false;
      const fs::path p = key.empty() ? roots_.tree : roots_.tree / key;
      if ((it->second.mode & 07777) != (want.mode & 07777)) {
        fs::permissions(p, static_cast<fs::perms>(want.mode & 07777), ec);
        if (ec) return false;
      }
      const auto content = contents.find(key);
      if (want.type == 'f' && content != contents.end() && content->second != nullptr &&
          (it->second.digest != want.digest || it->second.size != want.size))
        overwrite(p, content->second);
    }
    std::lock_guard lock(pool_->mu_);
    const fs::path spare = work_root_ / ("spare-" + std::to_string(pool_->next_spare_++));
    fs::rename(roots_.tree, spare, ec);
    if (ec) return false;
    pool_->spares_.push_back(spare);
    return true;
  } catch (...) {
    return false;
  }
}

AttemptTree::~AttemptTree() {
  std::error_code ec;
  if (roots_.tree.empty() || !fs::exists(roots_.tree, ec)) return;
  // A mount left in the tree (a sandbox's propagated to the host) is detached before any walk:
  // neither the snapshot nor remove_all may go into a bind of a host directory. One that cannot
  // be detached keeps the whole tree where it is.
  if (!detach_mounts_under(roots_.tree)) return;
  if (pool_ != nullptr && give_back()) return;
  open_up_dirs(roots_.tree);
  fs::remove_all(roots_.tree, ec);
}

void AttemptTree::keep_after_snapshot(Snapshot after) const {
  if (pool_ != nullptr) after_ = std::move(after);
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

void AttemptTree::write_canary(const fs::path& p, bool in_place) {
  const std::string token = canary_token();
  in_place ? overwrite(p, token + "\n") : write_file(p, token + "\n");
  canaries_[p.lexically_normal()] = token;
}

}  // namespace breakout
