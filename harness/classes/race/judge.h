// The race family's judges, one factory each; race.def names each class's (attempt/oracle_table.cc).
#pragma once

#include <memory>

namespace breakout {

class Oracle;

namespace oracles {

std::unique_ptr<Oracle> race_write();    // fs-race
std::unique_ptr<Oracle> race_read();     // fs-race-read

}  // namespace oracles
}  // namespace breakout
