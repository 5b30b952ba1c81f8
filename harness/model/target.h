// Targets of an attempt: a host path, a network endpoint or an environment variable.
//
// Syntax (scenario files): "fs:<policy path>" (~/.ssh/id_ed25519, sibling/x,
// workspace/x, parent/x, extra/x), "net:<endpoint>" (tcp4-loopback,
// udp4-loopback, tcp6-loopback, udp6-loopback, tcp4-external, udp4-external,
// tcp4-host, tcp6-host (the host's own non-loopback address), unix-workspace, unix-outside, abstract,
// proxy-allowed, proxy-denied (network = "proxy": the destination the spawner's proxy is told to
// admit, and one it is not; both TCP on the external host), name-denied (TCP on the external
// host's second address, where the denied names resolve: host/name_server.h)), "env:<NAME>", "ipc:<host object>"
// (classes/host_object/spec_objects.h: victim, sysv-shm, user-key, pty, own-victim, ...).
#pragma once

#include <string>

namespace breakout {

enum class TargetKind { kPath, kEndpoint, kEnvVar, kEnvOverride, kHostObject };

// Forms of a caller override of the spawner's pinned variables ("pin:<form>",
// class env-pinned); "control" overrides an inherited, unpinned variable.
bool is_known_override_form(const std::string& form);

struct Target {
  TargetKind kind{};
  std::string text;   // as written: "fs:~/.ssh/id_ed25519"
  std::string value;  // after the prefix: "~/.ssh/id_ed25519"
};

// Throws Error("bad-target", "...") for anything else.
Target parse_target(const std::string& text);

// Network reach of an endpoint name: "loopback", "external", "host-address"
// (this host's own non-loopback address, e.g. eth0's), "workspace-socket",
// "host-socket" (unix path socket outside the workspace) or "abstract-socket".
std::string endpoint_reach(const std::string& endpoint);
bool is_known_endpoint(const std::string& endpoint);
// net:proxy-denied sits on the external host's address, as net:proxy-allowed does: only its port
// tells them apart (a proxy allowlist of hosts without ports cannot deny it).
bool told_apart_by_port(const std::string& endpoint);

// Where the harness listens for net:unix-outside: a path socket in the attempt
// tree's parent directory (stand-in for docker.sock, an ssh-agent socket).
inline constexpr const char* kHostSocketPolicyPath = "parent/host-service.sock";
// net:ssh-agent: a fake agent socket beside it, advertised to the caller as SSH_AUTH_SOCK
// (same directory, so the same write rule judges it).
inline constexpr const char* kSshAgentPolicyPath = "parent/ssh-agent.sock";
// Where class bind-alias-connect's harness bind-mounts an endpoint's path socket a second time
// (classes/net/bind_alias.cc), as a policy path: net:unix-outside's in sibling/ (outside every
// writable root, away from the original's directory), net:unix-workspace's inside the workspace
// (the control). nullptr for an endpoint without a path socket of its own to alias.
const char* bind_alias_policy_path(const std::string& endpoint);

}  // namespace breakout
