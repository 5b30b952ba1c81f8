// The path model's ground truth on Linux: a temp tree on disk mirrored into a ModelFs, ops applied to both, forms resolved by the kernel.
//
//   RealTree t;                       // /dev/shm (or $TMPDIR)/breakout-paths-<pid>-XXXXXX/0-<nonce>/ (paths/attempt_tree.h layout)
//   ModelFs& m = t.reset();           // workspace/gen emptied; the model back at the base tree
//   t.apply(op, m);                   // on disk, identities recorded in m
//   RealResolved r = t.resolve(form); // open(O_PATH) + fstat, readlink of /proc/self/fd
// The destructor removes the whole temp tree; trees of dead processes (a crash
// skips destructors) are removed by the next RealTree. Building: real_tree.cc; ops
// and their undoing: real_tree_ops.cc; forms: real_tree_resolve.cc.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "harness/model/policy.h"
#include "harness/paths/forms.h"
#include "harness/platform/posix/unique_fd.h"

namespace breakout {
class AttemptTree;
}

namespace breakout::paths {

struct RealResolved {
  int err = 0;                 // errno of the failing openat, 0 on success
  std::uint64_t dev = 0, ino = 0;
  int fd_path_err = 0;         // readlink("/proc/self/fd/N") of the result
  std::string fd_path;
};
Outcome outcome_of(int err);  // ENOENT -> kNoEnt, ... anything else -> kUnknown

class RealTree {
 public:
  RealTree();
  ~RealTree();
  RealTree(const RealTree&) = delete;
  RealTree& operator=(const RealTree&) = delete;

  const TreeRoots& roots() const;
  Scope scope() const { return scope_; }
  // Starts an input: returns the model rolled back to the base tree (ModelFs::rollback(): no
  // copy per input). On disk workspace/gen still holds the ops the previous input applied before
  // its first form: while this input's ops are the same ones, in the same order, apply() reuses
  // them instead of making and removing them again (libFuzzer's next input is mostly a one-spot
  // mutation of the last, so its first ops are usually the same). Anything else is removed
  // before this input's own op or form needs the names: the disk is at every form exactly what
  // this input's ops made. Only what apply() made is removed, newest first (no readdir);
  // anything else there (a failed removal) falls back to removing gen recursively and making it
  // again.
  ModelFs& reset();
  // Ends an input: removes what it made after its first form and rolls the model back, so the
  // input frees what it allocated (libFuzzer re-runs an input under LeakSanitizer when it does
  // not).
  void undo();
  // Removes every name apply() made (nothing is kept for the next input).
  void clear();
  // Applies `op` on disk; true on success. On success the model copy gets the
  // new nodes' identities (apply(model, op) must have run first).
  bool apply(const Op& op, ModelFs& model);
  RealResolved resolve(const Form& form);
  // The same into `out`, whose fd_path keeps its capacity (no allocation per form).
  void resolve(const Form& form, RealResolved& out);
  // While one is alive the process's cwd is the workspace (the model's cwd), so resolve() skips
  // its own fchdir(2) pair per form (~10 of an input's ~50 system calls); its destructor goes
  // back to the cwd the tree was made in. Meanwhile relative paths of the holder's own (a fuzz
  // engine's artifact prefix) would land in the workspace: path_model_fuzzer.cc makes them
  // absolute first.
  class InWorkspace {
   public:
    explicit InWorkspace(const RealTree& tree);
    ~InWorkspace();
    InWorkspace(const InWorkspace&) = delete;
    InWorkspace& operator=(const InWorkspace&) = delete;

   private:
    const RealTree& tree_;
  };
  // Base-tree label of an object by identity, "" when it is none of them (a reference: no
  // copy per checked form).
  const std::string& label_of(std::uint64_t dev, std::uint64_t ino) const;

 private:
  static constexpr const char* kGen = "gen";  // workspace/gen: where an input's ops make their names
  std::string work_;  // the mkdtemp directory
  std::unique_ptr<AttemptTree> tree_;
  ModelFs base_;                // checkpointed at the base tree; each input's ops go on top
  std::size_t base_size_ = 0;   // nodes of the base tree
  Scope scope_;
  // Directory descriptor of model node `id` (O_PATH, walked by first names without
  // following symlinks), opened once: base dirs for the process, gen's for the input.
  int dir_fd(const ModelFs& m, NodeId id);

  std::vector<UniqueFd> fds_;  // the descriptors the model's /proc/self/fd/N name
  UniqueFd workspace_fd_;
  UniqueFd gen_fd_;
  UniqueFd cwd_fd_;            // the process's cwd, restored after each resolve()
  mutable bool in_workspace_ = false;  // an InWorkspace is alive
  UniqueFd proc_fds_;          // /proc/self/fd (O_PATH): resolve() reads each result's link there
  std::map<NodeId, UniqueFd> base_dirs_;  // base-tree directories (ids below base_size_)
  // This input's directories under gen, by id - base_size_: -1 when not open. Either one that
  // dir_fd() opened (owned in gen_owned_, closed by undo()) or a deep chain level's (owned by its
  // Chain). Vectors, cleared per input and kept at their capacity: no allocation per directory.
  std::vector<int> gen_dirs_;
  std::vector<std::pair<NodeId, UniqueFd>> gen_owned_;
  int gen_dir(NodeId id) const;
  void set_gen_dir(NodeId id, int fd);
  std::vector<NodeId> down_;  // dir_fd()'s walk up, reused
  std::string rel_;           // dir_fd()'s names down, reused
  // Deep chains (OpKind::kDeep, up to 26 levels past PATH_MAX) are built once in a stash
  // beside the tree (outside every modelled name) and renamed into place: one
  // renameat2(RENAME_NOREPLACE) per op instead of ~80 calls, and one to put them back. A kMkdir
  // takes a chain of depth 0 and a kFile one of depth kFileDepth (a regular file) the same way:
  // one call instead of mkdirat/mknodat plus the fstatat for its identity, and a directory's
  // O_PATH descriptor comes with it (no openat2 for an op made inside it).
  struct Chain {
    std::string stash_name;
    std::vector<std::pair<std::uint64_t, std::uint64_t>> ids;  // dev+inode: the top, then each level
    // O_PATH descriptors of the top and each level, opened while the chain was built (that
    // walk opens them anyway) and kept: a descriptor follows its directory through the renames,
    // so once the chain is in place dir_fd() has each level without an openat2(2) of ~4 KB of
    // names per op made in it (perf: openat2 in dir_fd was 2.7 % of the CPU, the strings it
    // built another ~4 %). Empty past chain_fd_budget_ descriptors: then dir_fd() walks as before.
    std::vector<UniqueFd> fds;
  };
  // At most 768 (a 25 s session reaches it: ~35 chains), and at most half of RLIMIT_NOFILE.
  int chain_fd_budget_ = 768;
  int chain_fds_ = 0;
  static constexpr int kFileDepth = -1;
  Chain take_chain(int depth);
  UniqueFd stash_fd_;
  int chains_made_ = 0;
  std::map<int, std::vector<Chain>> free_chains_;  // by depth (kFileDepth: files)
  struct Made {
    NodeId dir;
    std::string name;
    bool is_dir;
    bool from_stash = false;  // renamed in from the stash, renamed back by undo()
    int depth = 0;            // from_stash: the chain's depth (kFileDepth: a file)
    Chain chain;
  };
  std::vector<Made> made_;     // the names under gen, in creation order
  // The ops applied before the first form (the kept prefix), in order, failed ones too: what
  // reset() keeps on disk for the next input. kept_ keeps its strings' capacity; kept_size_ are
  // in use. An entry's `made` is made_.size() and `nodes` the model's size after it.
  struct Kept {
    Op op;
    bool ok = false;
    std::size_t made = 0;
    std::size_t nodes = 0;
  };
  std::vector<Kept> kept_;
  std::size_t kept_size_ = 0;
  // kMatching: this input's ops so far are kept_[0, matched_); kRecording: they diverged, or
  // kept_ ran out, before any form: new ops join the kept prefix; kFree: a form was checked,
  // later ops are removed by undo().
  enum class Phase { kMatching, kRecording, kFree };
  Phase phase_ = Phase::kFree;
  std::size_t matched_ = 0;
  // Removes made_[keep..] newest first and forgets the descriptors of model nodes from `nodes`
  // on; on any failure, all of gen (clean_gen()) and false.
  bool remove_made(std::size_t keep, std::size_t nodes);
  // remove_made() of everything past the first `ops` kept ops.
  bool remove_after_kept(std::size_t ops);
  void clean_gen();
  // Ends the matching: the kept ops this input did not repeat are removed.
  void stop_matching();
  bool apply_on_disk(const Op& op, ModelFs& m);
  // Gives the model the identities (and the directory descriptors) of a stash object in place.
  void record_stash(ModelFs& m, const Op& op, const Chain& chain);
  std::map<std::pair<std::uint64_t, std::uint64_t>, std::string> labels_;
};

}  // namespace breakout::paths
