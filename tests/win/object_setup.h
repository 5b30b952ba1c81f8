// The setup a Windows host-object test hands make_host_object: the nonce, and the workspace for the
// objects that place something there (empty: none). One helper for every host-object test.
#pragma once

#include <filesystem>
#include <string>

#include "harness/host/host_objects.h"

namespace breakout::win_test {

inline HostObjectSetup setup_with(const std::string& nonce, const std::filesystem::path& workspace = {}) {
  return {nonce, workspace, workspace, {}};
}

}  // namespace breakout::win_test
