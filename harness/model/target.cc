// Target parsing and endpoint classification.
#include "harness/model/target.h"

#include <array>
#include <string_view>

#include "harness/core/error.h"
#include "harness/classes/host_object/spec_objects.h"

namespace breakout {

namespace {
// real-external: the `breakout listen` a real-host run names (--real-host-endpoint); host/remote_listener.h.
// proxy-allowed, proxy-denied: the two destinations of network = "proxy", on the external host.
// name-denied: network = "proxy"'s denied destination by name, on the external host's second address.
constexpr std::array<std::string_view, 16> kEndpoints = {
    "tcp4-loopback", "udp4-loopback", "tcp6-loopback", "udp6-loopback", "tcp4-external", "udp4-external",
    "tcp4-host",     "tcp6-host",     "unix-workspace", "unix-outside", "ssh-agent",     "abstract",
    "real-external", "proxy-allowed", "proxy-denied", "name-denied"};
}

bool is_known_override_form(const std::string& form) {
  return form == "exact" || form == "other-case" || form == "both-cases" || form == "duplicate" || form == "control";
}

bool is_known_endpoint(const std::string& endpoint) {
  for (auto e : kEndpoints)
    if (e == endpoint) return true;
  return false;
}

std::string endpoint_reach(const std::string& endpoint) {
  if (endpoint == "unix-workspace") return "workspace-socket";
  if (endpoint == "unix-outside" || endpoint == "ssh-agent") return "host-socket";
  if (endpoint == "abstract") return "abstract-socket";
  if (endpoint.ends_with("-external") || endpoint == "proxy-allowed" || endpoint == "proxy-denied" ||
      endpoint == "name-denied")
    return "external";
  if (endpoint.ends_with("-host")) return "host-address";
  return "loopback";
}

bool told_apart_by_port(const std::string& endpoint) { return endpoint == "proxy-denied"; }

const char* bind_alias_policy_path(const std::string& endpoint) {
  if (endpoint == "unix-outside") return "sibling/bind-alias.sock";
  if (endpoint == "unix-workspace") return "workspace/bind-alias.sock";
  return nullptr;
}

Target parse_target(const std::string& text) {
  auto starts = [&](std::string_view p) { return std::string_view(text).substr(0, p.size()) == p; };
  Target t;
  t.text = text;
  if (starts("fs:")) {
    t.kind = TargetKind::kPath;
    t.value = text.substr(3);
    if (t.value.empty()) throw Error("bad-target", "target '" + text + "' names no path");
    return t;
  }
  if (starts("net:")) {
    t.kind = TargetKind::kEndpoint;
    t.value = text.substr(4);
    if (!is_known_endpoint(t.value)) throw Error("bad-target", "unknown endpoint in '" + text + "'");
    return t;
  }
  if (starts("env:")) {
    t.kind = TargetKind::kEnvVar;
    t.value = text.substr(4);
    if (t.value.empty() || t.value.find('=') != std::string::npos)
      throw Error("bad-target", "bad variable name in '" + text + "'");
    return t;
  }
  if (starts("pin:")) {
    t.kind = TargetKind::kEnvOverride;
    t.value = text.substr(4);
    if (!is_known_override_form(t.value))
      throw Error("bad-target", "'" + text + "': pin: takes exact, other-case, both-cases, duplicate or control");
    return t;
  }
  if (starts("ipc:")) {
    t.kind = TargetKind::kHostObject;
    t.value = text.substr(4);
    if (!host_object_info(t.value)) throw Error("bad-target", "unknown host object in '" + text + "'");
    return t;
  }
  throw Error("bad-target", "target '" + text + "' must start with fs:, net:, env:, pin: or ipc:");
}

}  // namespace breakout
