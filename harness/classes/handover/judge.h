// The handover family's judges, one factory each; handover.def names each class's (attempt/oracle_table.cc).
#pragma once

#include <memory>

namespace breakout {

class Oracle;

namespace oracles {

std::unique_ptr<Oracle> leaked_fd();     // fd-leak: the caller leaks fds of the target; every inherited fd is tried
std::unique_ptr<Oracle> path_hijack();   // path-hijack: stubs first on the caller's PATH (path_hijack.cc)
std::unique_ptr<Oracle> fail_open();     // fail-open: the enforcers on PATH cannot work (fail_open.cc)
std::unique_ptr<Oracle> spawner_follow();  // spawner-follow: links planted where the spawner writes (spawner_follow.cc)

}  // namespace oracles
}  // namespace breakout
