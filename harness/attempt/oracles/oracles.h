// The class oracles, one factory each; the class table (attempt/class_table.cc) names them.
#pragma once

#include <memory>

namespace breakout {

class Oracle;

namespace oracles {

// fs_change.cc: the snapshot diff against the writable roots.
std::unique_ptr<Oracle> fs_write();      // fs-write (with the path form's excuse)
std::unique_ptr<Oracle> plain_write();   // io-uring-write
// race_write.cc: the snapshot diff, with the race's calibration (race_calibration.h).
std::unique_ptr<Oracle> race_write();    // fs-race
std::unique_ptr<Oracle> path_hijack();   // path-hijack: stubs first on the caller's PATH (path_hijack.cc)
std::unique_ptr<Oracle> fail_open();     // fail-open: the enforcers on PATH cannot work (fail_open.cc)
std::unique_ptr<Oracle> submount_write();  // submount-write: a harness tmpfs in the tree, diffed too (submount.cc)
std::unique_ptr<Oracle> spawner_follow();  // spawner-follow: links planted where the spawner writes (spawner_follow.cc)
std::unique_ptr<Oracle> inbound();       // net-inbound: the harness connects into the probe's listener (inbound.cc)
std::unique_ptr<Oracle> cwd_write();     // cwd-write: the exec's cwd is the target directory
std::unique_ptr<Oracle> leaked_fd();     // fd-leak: the caller leaks fds of the target; every inherited fd is tried
std::unique_ptr<Oracle> abi_write();     // syscall-abi-write (N/A where the host lacks the ABI)
// protected_write.cc: the workspace made an agent's checkout first, then the snapshot diff.
std::unique_ptr<Oracle> protected_write();  // protected-write (deny_write wins over the roots)
// canary_token.cc: the planted secret seen outside.
std::unique_ptr<Oracle> file_read();     // fs-read
std::unique_ptr<Oracle> env_leak();      // env-leak
// race_read.cc: canaries planted in and beside a deny-read directory inside the workspace.
std::unique_ptr<Oracle> race_read();     // fs-race-read
// listener_nonce.cc: the nonce at the target's listener.
std::unique_ptr<Oracle> connect();       // net-connect, real-net-connect, io-uring-connect
std::unique_ptr<Oracle> bind_alias();    // bind-alias-connect: connect's, at a bind mount of the socket (bind_alias.cc)
// heartbeat.cc: the probe's beater still beating after the spawner returned.
std::unique_ptr<Oracle> lifetime();
std::unique_ptr<Oracle> timeout_kill();
// contract.cc: the spawner keeps its execution contract.
std::unique_ptr<Oracle> exit_code();
std::unique_ptr<Oracle> exit_signal();
std::unique_ptr<Oracle> cwd();
std::unique_ptr<Oracle> output_flood();
std::unique_ptr<Oracle> no_timeout();
// env_pins.cc: caller overrides of what the spawner pins.
std::unique_ptr<Oracle> env_pins();
// host_object.cc: the harness's processes, IPC objects, keys, ptys, resolvers, Windows objects.
std::unique_ptr<Oracle> host_object();
// real_home.cc: `run --real-host` only.
std::unique_ptr<Oracle> real_home_read();
std::unique_ptr<Oracle> real_home_write();
// fs_api.cc: the spawner's own file API; no probe runs.
std::unique_ptr<Oracle> fs_api_write();
std::unique_ptr<Oracle> fs_api_read();
std::unique_ptr<Oracle> fs_api_race();  // write_file while the harness flips a workspace link (CWE-367)
// recon.cc: the probe's confinement read from the host.
std::unique_ptr<Oracle> recon();
// session_*.cc, boot_failure.cc: the lifecycle of spawners with sessions.
std::unique_ptr<Oracle> session_shutdown();
std::unique_ptr<Oracle> boot_failure();
std::unique_ptr<Oracle> session_hygiene();
std::unique_ptr<Oracle> session_setup();

}  // namespace oracles
}  // namespace breakout
