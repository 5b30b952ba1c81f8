// The net family's judges, one factory each; net.def names each class's (attempt/oracle_table.cc).
#pragma once

#include <memory>

namespace breakout {

class Oracle;

namespace oracles {

std::unique_ptr<Oracle> connect();       // net-connect, real-net-connect, io-uring-connect
std::unique_ptr<Oracle> bind_alias();    // bind-alias-connect: connect's, at a bind mount of the socket (bind_alias.cc)
std::unique_ptr<Oracle> inbound();       // net-inbound: the harness connects into the probe's listener (inbound.cc)

}  // namespace oracles
}  // namespace breakout
