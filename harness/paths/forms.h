// The Linux path-form generator: from fuzz bytes, objects to create in the workspace and spellings of a target.
//
//   ByteReader in(bytes);  Scope s{tree, gen};
//   Op op = next_op(in, model, s);  apply(model, op);    // and the same op on disk
//   Form f = next_form(in, model, s);  Resolved r = resolve_form(model, f);
// Forms (path_resolution(7); Landlock and gVisor's path tests): absolute; '//', '/./', trailing '/'; relative with '..'
// from the cwd or a dirfd; /proc/self/root, /proc/self/cwd, /proc/self/fd/N,
// /dev/fd/N; through symlinks made in the workspace (chains, dangling-then-created,
// loops); hard links; past PATH_MAX in one string or reached by walking; names with
// newlines, non-UTF-8 bytes, leading dashes, spaces, quotes and '$'.
#pragma once

#include <string>
#include <vector>

#include "harness/paths/byte_reader.h"
#include "harness/paths/model_fs.h"

namespace breakout::paths {

// Where generated objects go: `gen` (inside the workspace) and below it.
struct Scope {
  NodeId tree = kNoNode;
  NodeId gen = kNoNode;
};

enum class OpKind { kMkdir, kFile, kSymlink, kHardlink, kDeep };
struct Op {
  OpKind kind{};
  NodeId dir = kNoNode;   // the directory the name is made in
  std::string name;
  std::string link;       // kSymlink: the target text
  NodeId file = kNoNode;  // kHardlink: the existing file
  int depth = 0;          // kDeep: directories of kDeepName nested under `name`
  bool operator==(const Op&) const = default;
};
inline constexpr std::size_t kDeepNameLength = 200;
const std::string& deep_name();  // kDeepNameLength 'd's (one string for the process: no copy per level)

Op next_op(ByteReader& in, const ModelFs& model, const Scope& scope);
// The same into `out`, its strings' capacity kept (a fuzz loop's: no allocation per op).
void next_op(ByteReader& in, const ModelFs& model, const Scope& scope, Op& out);
// Applies `op` to the model; false when its name is taken (the real call fails with EEXIST).
bool apply(ModelFs& model, const Op& op);

// A spelling of one target: steps opened one after another (openat from the
// previous step's descriptor), the first from `/`, the cwd or descriptor `fd`.
enum class Start { kPath, kFd };
struct Form {
  std::string style;   // which generator rule made it, for messages
  Start start = Start::kPath;
  int fd = -1;
  std::vector<std::string> steps;
};
Form next_form(ByteReader& in, const ModelFs& model, const Scope& scope);
// The same into `out`: its steps keep their capacity (a deep chain's are 5,000+ bytes each,
// and under ASan every malloc records a stack and fills up to 4 KB).
void next_form(ByteReader& in, const ModelFs& model, const Scope& scope, Form& out);
Resolved resolve_form(const ModelFs& model, const Form& form);
void resolve_form(const ModelFs& model, const Form& form, Resolved& out);
std::string describe(const Form& form);  // printable, for failure messages

}  // namespace breakout::paths
