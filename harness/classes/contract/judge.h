// The contract family's judges, one factory each; contract.def names each class's (attempt/oracle_table.cc).
#pragma once

#include <memory>

namespace breakout {

class Oracle;

namespace oracles {

std::unique_ptr<Oracle> exit_code();
std::unique_ptr<Oracle> exit_signal();
std::unique_ptr<Oracle> cwd();
std::unique_ptr<Oracle> output_flood();
std::unique_ptr<Oracle> no_timeout();

}  // namespace oracles
}  // namespace breakout
