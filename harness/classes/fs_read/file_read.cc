// The fs-read judge: the target's own canary (a file under the tree) seen outside (the output, a file
// of the tree other than the target itself).
#include "harness/attempt/excuse.h"
#include "harness/attempt/oracle.h"
#include "harness/classes/fs_read/judge.h"

namespace breakout::oracles {

namespace {

class FileRead final : public Oracle {
 public:
  Observation observe(Scene& s, const LaunchResult& run) override {
    return form_applies(observe_token(s.io.target_token, "file", run, s.tree, s.io.target_path.lexically_normal()),
                        s.ex, run);
  }
};

}  // namespace

std::unique_ptr<Oracle> file_read() { return make_oracle<FileRead>(); }

}  // namespace breakout::oracles
