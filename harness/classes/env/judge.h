// The env family's judges, one factory each; env.def names each class's (attempt/oracle_table.cc).
#pragma once

#include <memory>

namespace breakout {

class Oracle;

namespace oracles {

std::unique_ptr<Oracle> env_leak();      // env-leak: the caller variable's canary seen outside (env_leak.cc)
std::unique_ptr<Oracle> env_pins();

}  // namespace oracles
}  // namespace breakout
