// The lifetime family's judges, one factory each; lifetime.def names each class's (attempt/oracle_table.cc).
#pragma once

#include <memory>

namespace breakout {

class Oracle;

namespace oracles {

std::unique_ptr<Oracle> lifetime();
std::unique_ptr<Oracle> timeout_kill();

}  // namespace oracles
}  // namespace breakout
