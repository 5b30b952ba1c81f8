// The session family's judges, one factory each; session.def names each class's (attempt/oracle_table.cc).
#pragma once

#include <memory>

namespace breakout {

class Oracle;

namespace oracles {

std::unique_ptr<Oracle> session_shutdown();
std::unique_ptr<Oracle> boot_failure();
std::unique_ptr<Oracle> session_hygiene();
std::unique_ptr<Oracle> session_setup();

}  // namespace oracles
}  // namespace breakout
