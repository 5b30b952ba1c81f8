// Classes fs-api-write / fs-api-read: ask the spawner's own file API (driver capability fs) to write or read a target.
//
// No probe runs. The verdict comes from outside only: the host snapshot for a
// write (the nonce file appeared or changed), and for a read the canary token
// the harness planted coming back in the driver's answer — that answer is the
// outside evidence, the harness put the secret there. A refusal is "did not
// happen"; a broken or silent driver is an error (Error propagates).
#include "harness/attempt/oracle.h"
#include "harness/attempt/oracles/oracles.h"
#include "harness/core/error.h"
#include "harness/core/text.h"
#include "harness/model/path_form.h"

namespace breakout::oracles {

namespace {

class FsApi final : public Oracle {
 public:
  explicit FsApi(bool write) : write_(write) {}

  // A second name inside the workspace makes a plain file part of it; only deny_read (an
  // inode rule: deny wins) still holds across names. So a denied read through a hard link
  // is tried on deny_read files only.
  std::optional<Skip> prepare(Scene& s) override {
    if (write_ || path_form_from(s.attempt().param) != PathForm::kHardLink ||
        s.ex.expectation.value != Expected::kDenied)
      return std::nullopt;
    bool secret = false;
    for (const auto& d : s.request.resolved.deny_read) secret = secret || path_within(s.io.target_path, d);
    if (!secret)
      return Skip{"path form hard-link reads a deny_read file only: a link to any other file puts it in the workspace"};
    return std::nullopt;
  }

  // The API call stands in for the probe's exec: nothing runs in the sandbox.
  LaunchResult exec(Scene& s, SpawnSession* session) override {
    check(session != nullptr, "no session to ask");
    api_ = {{"op", write_ ? "write_file" : "read_file"}, {"path", printable_excerpt(s.io.target_spec, 1024)}};
    const FsAnswer answer = write_ ? session->write_file(s.io.target_spec, "breakout-" + s.io.nonce + "\n")
                                   : session->read_file(s.io.target_spec);
    content_ = answer.content;
    api_["answer"] = answer.refusal ? "refused" : "ok";
    if (answer.refusal) api_["refusal"] = printable_excerpt(*answer.refusal, 512);
    return {};
  }

  Observation observe(Scene& s, const LaunchResult&) override {
    Observation o;
    if (write_) {
      o = observe_fs_change(s.ex, s.tree, s.request.resolved, s.window(), s.io);
    } else {
      check(!s.io.target_token.empty(), "fs-api-read needs a canary target (" + s.io.target_path.string() + " is none)");
      const bool seen = content_.find(s.io.target_token) != std::string::npos;
      o.evidence["token_seen_in"] = seen ? nlohmann::json::array({"the fs API's answer"}) : nlohmann::json::array();
      api_["content_bytes"] = content_.size();
      o.effect = seen ? Effect::kHappened : Effect::kNotHappened;
      o.summary = seen ? "the fs API answered with the target's canary token" : "the canary token never came back";
    }
    o.evidence["fs_api"] = api_;
    return o;
  }

 private:
  const bool write_;
  nlohmann::json api_;
  std::string content_;
};

}  // namespace

std::unique_ptr<Oracle> fs_api_write() { return std::make_unique<FsApi>(true); }
std::unique_ptr<Oracle> fs_api_read() { return std::make_unique<FsApi>(false); }

}  // namespace breakout::oracles
