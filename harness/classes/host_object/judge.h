// The host_object family's judges, one factory each; host_object.def names each class's (attempt/oracle_table.cc).
#pragma once

#include <memory>

namespace breakout {

class Oracle;

namespace oracles {

std::unique_ptr<Oracle> host_object();

}  // namespace oracles
}  // namespace breakout
