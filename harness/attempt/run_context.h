// What every attempt of one run shares: probes, work root, spawner, listeners, the interrupt flag.
#pragma once

#include <atomic>
#include <chrono>
#include <filesystem>
#include <optional>

namespace breakout {

class Spawner;
class NonceListeners;
class NameServer;
class RemoteNonceListener;
class TreePool;
class ResidueWatch;
class ExternalHost;

struct RunContext {
  std::filesystem::path probes_dir;   // holds breakout-probe-* binaries
  std::filesystem::path work_root;    // attempt trees are created below it
  const Spawner* spawner = nullptr;
  const NonceListeners* listeners = nullptr;
  // The zone breakout.test for network = "proxy" spawns (host/name_server.h); null: none.
  const NameServer* names = nullptr;
  // The run's external host (platform/netns.h), for host objects inside it (icmp-external); null: none.
  const ExternalHost* external = nullptr;
  const std::atomic<bool>* cancel = nullptr;
  // `run --real-host` only: the user's real HOME, used by real-home-* attempts alone (real_home.h).
  std::optional<std::filesystem::path> real_home;
  // `run --real-host --real-host-endpoint ADDR:PORT` only: the user's `breakout listen` (real-net-connect).
  const RemoteNonceListener* remote = nullptr;
  // The live fuzzer only: attempt trees are recycled through it instead of deleted (tree.h).
  TreePool* tree_pool = nullptr;
  // What the spawner itself leaves on the host, watched for the whole run (spawner_residue.h); null: not watched.
  ResidueWatch* residue = nullptr;
  // How long after the spawner returned the oracles keep watching:
  // heartbeats (Codex's restricted_job_tests wait 300 ms at a 25 ms tick) and
  // listeners (the probe has already sent; this covers scheduling delay).
  std::chrono::milliseconds settle{100};
  std::chrono::milliseconds heartbeat_grace{500};
  std::chrono::milliseconds net_grace{300};
  // Upper bound on any single launch when the policy has no timeout.
  std::chrono::milliseconds safety_cap{120000};
};

}  // namespace breakout
