// The real_home family's judges, one factory each; real_home.def names each class's (attempt/oracle_table.cc).
#pragma once

#include <memory>

namespace breakout {

class Oracle;

namespace oracles {

std::unique_ptr<Oracle> real_home_read();
std::unique_ptr<Oracle> real_home_write();

}  // namespace oracles
}  // namespace breakout
