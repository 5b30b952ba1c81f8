// The fs_read family's judges, one factory each; fs_read.def names each class's (attempt/oracle_table.cc).
#pragma once

#include <memory>

namespace breakout {

class Oracle;

namespace oracles {

std::unique_ptr<Oracle> file_read();     // fs-read: the planted file's canary seen outside (file_read.cc)

}  // namespace oracles
}  // namespace breakout
