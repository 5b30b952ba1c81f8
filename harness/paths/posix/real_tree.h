// The path model's ground truth on Linux: a temp tree on disk mirrored into a ModelFs, ops applied to both, forms resolved by the kernel.
//
//   RealTree t;                       // /dev/shm (or $TMPDIR)/breakout-paths-<pid>-XXXXXX/0-<nonce>/ (attempt/tree.h layout)
//   ModelFs m = t.reset();            // workspace/gen emptied; the model of the base tree
//   t.apply(op, m);                   // on disk, identities recorded in m
//   RealResolved r = t.resolve(form); // open(O_PATH) + fstat, readlink of /proc/self/fd, realpath
// The destructor removes the whole temp tree; trees of dead processes (a crash
// skips destructors) are removed by the next RealTree.
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
  bool has_realpath = false;   // single-string forms from "/" or the cwd
  int realpath_err = 0;
  std::string realpath;
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
  // Empties workspace/gen on disk and returns a fresh copy of the base model.
  ModelFs reset();
  // Applies `op` on disk; true on success. On success the model copy gets the
  // new nodes' identities (apply(model, op) must have run first).
  bool apply(const Op& op, ModelFs& model) const;
  RealResolved resolve(const Form& form) const;
  // Base-tree label of an object by identity, "" when it is none of them.
  std::string label_of(std::uint64_t dev, std::uint64_t ino) const;

 private:
  std::string work_;  // the mkdtemp directory
  std::unique_ptr<AttemptTree> tree_;
  ModelFs base_;
  Scope scope_;
  std::vector<UniqueFd> fds_;  // the descriptors the model's /proc/self/fd/N name
  UniqueFd workspace_fd_;
  std::map<std::pair<std::uint64_t, std::uint64_t>, std::string> labels_;
};

}  // namespace breakout::paths
