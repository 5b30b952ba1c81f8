// The first line the Windows victim writes (probes/win/victim_body.h), read back by the harness's
// host victim (harness/host/win/victim_process.cc) and by proc-reach for its own victim:
//   "ready pid=<pid> tid=<beating thread id> event=<handle value, hex>"
// Portable, header-only: shared by the probes and the harness, which includes no probe header.
#pragma once

namespace breakout::probe {

inline constexpr char kVictimReadyFormat[] = "ready pid=%lu tid=%lu event=%llx";

}  // namespace breakout::probe
