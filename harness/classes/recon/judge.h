// The recon family's judges, one factory each; recon.def names each class's (attempt/oracle_table.cc).
#pragma once

#include <memory>

namespace breakout {

class Oracle;

namespace oracles {

std::unique_ptr<Oracle> recon();

}  // namespace oracles
}  // namespace breakout
