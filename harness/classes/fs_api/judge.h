// The fs_api family's judges, one factory each; fs_api.def names each class's (attempt/oracle_table.cc).
#pragma once

#include <memory>

namespace breakout {

class Oracle;

namespace oracles {

std::unique_ptr<Oracle> fs_api_write();
std::unique_ptr<Oracle> fs_api_read();
std::unique_ptr<Oracle> fs_api_race();  // write_file while the harness flips a workspace link (CWE-367)

}  // namespace oracles
}  // namespace breakout
