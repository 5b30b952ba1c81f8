// The fs-api classes: one write_file or read_file through the session, judged by snapshot or canary token.
#include "harness/attempt/fs_api.h"

#include "harness/core/error.h"
#include "harness/core/text.h"

namespace breakout {

Observation exercise_fs_api(const Execution& ex, const AttemptTree& tree, const Snapshot& before, const AttemptIo& io,
                            SpawnSession& session) {
  const bool write = ex.attempt->klass == AttemptClass::kFsApiWrite;
  nlohmann::json api = {{"op", write ? "write_file" : "read_file"}, {"path", printable_excerpt(io.target_spec, 1024)}};
  std::string content;
  try {
    if (write) session.write_file(io.target_spec, "breakout-" + io.nonce + "\n");
    else content = session.read_file(io.target_spec);
    api["answer"] = "ok";
  } catch (const FsRefused& e) {
    api["answer"] = "refused";
    api["refusal"] = printable_excerpt(e.what(), 512);
  }
  Observation o;
  if (write) {
    o = observe_fs_change(ex, tree, before, io);
  } else {
    check(!io.target_token.empty(), "fs-api-read needs a canary target (" + io.target_path.string() + " is none)");
    const bool seen = content.find(io.target_token) != std::string::npos;
    o.evidence["token_seen_in"] = seen ? nlohmann::json::array({"the fs API's answer"}) : nlohmann::json::array();
    api["content_bytes"] = content.size();
    o.effect = seen ? Effect::kHappened : Effect::kNotHappened;
    o.summary = seen ? "the fs API answered with the target's canary token" : "the canary token never came back";
  }
  o.evidence["fs_api"] = api;
  return o;
}

}  // namespace breakout
