// The table of host objects (targets "ipc:<name>") and the class each belongs to.
#include "harness/classes/host_object/spec_objects.h"

namespace breakout {

namespace {
constexpr HostObjectInfo kObjects[] = {
    // process-reach: a victim process the harness starts outside (ptrace, process_vm_readv,
    // /proc/<pid>/mem and environ, kill); the control is a child the probe starts itself.
    {"victim", AttemptClass::kProcessReach, HostObjectKind::kProcess, true},
    {"own-victim", AttemptClass::kProcessReach, HostObjectKind::kProcess, false},
    // ipc-reach: SysV shm / msg queue and POSIX shm the harness creates in the host's IPC
    // namespace and /dev/shm, files in the host's /tmp and /var/tmp; controls are the
    // probe's own objects, and for the shared dirs a file in the workspace.
    {"sysv-shm", AttemptClass::kIpcReach, HostObjectKind::kIpc, true},
    {"own-sysv-shm", AttemptClass::kIpcReach, HostObjectKind::kIpc, false},
    {"sysv-msg", AttemptClass::kIpcReach, HostObjectKind::kIpc, true},
    {"own-sysv-msg", AttemptClass::kIpcReach, HostObjectKind::kIpc, false},
    {"posix-shm", AttemptClass::kIpcReach, HostObjectKind::kIpc, true},
    {"own-posix-shm", AttemptClass::kIpcReach, HostObjectKind::kIpc, false},
    {"tmp-file", AttemptClass::kIpcReach, HostObjectKind::kSharedFile, true},
    {"var-tmp-file", AttemptClass::kIpcReach, HostObjectKind::kSharedFile, true},
    // Windows: files where every user may write (C:\Users\Public, C:\ProgramData, a directory
    // with an Everyone full-control ACE, the user's %TEMP%: host/win/shared_files.h); the
    // control is workspace-file, as for /tmp.
    {"users-public-file", AttemptClass::kIpcReach, HostObjectKind::kSharedFile, true},
    {"programdata-file", AttemptClass::kIpcReach, HostObjectKind::kSharedFile, true},
    {"everyone-dir-file", AttemptClass::kIpcReach, HostObjectKind::kSharedFile, true},
    {"user-temp-file", AttemptClass::kIpcReach, HostObjectKind::kSharedFile, true},
    {"workspace-file", AttemptClass::kIpcReach, HostObjectKind::kSharedFile, false},
    // key-read: a user key in the harness's user keyring (keyrings(7)); control: the probe's own key.
    {"user-key", AttemptClass::kKeyRead, HostObjectKind::kKey, true},
    {"own-key", AttemptClass::kKeyRead, HostObjectKind::kKey, false},
    // tty-inject: a pty the harness owns and gives the spawner as stdin and controlling
    // terminal; control: a pty the probe opens itself.
    {"pty", AttemptClass::kTtyInject, HostObjectKind::kPty, true},
    {"own-pty", AttemptClass::kTtyInject, HostObjectKind::kPty, false},
    // dns-query: a resolver the harness runs on the host's 127.0.0.1 (UDP), and one on a
    // unix datagram socket in the workspace (reachable in every network mode: the control).
    {"dns-loopback", AttemptClass::kDnsQuery, HostObjectKind::kResolver, true},
    {"dns-workspace", AttemptClass::kDnsQuery, HostObjectKind::kResolver, false},
    // registry-write (Windows): the HKCU Run key and an HKCU\Software canary key the harness
    // watches; control: a per-attempt key the harness creates and names to the probe.
    {"hkcu-run", AttemptClass::kRegistryWrite, HostObjectKind::kRegistryKey, true},
    {"hkcu-canary", AttemptClass::kRegistryWrite, HostObjectKind::kRegistryKey, true},
    {"reg-grant", AttemptClass::kRegistryWrite, HostObjectKind::kRegistryKey, false},
    // named-object-reach (Windows): a named pipe server and a named event the harness owns;
    // controls: the probe's own pipe and event.
    {"pipe", AttemptClass::kNamedObjectReach, HostObjectKind::kNamedObject, true},
    {"own-pipe", AttemptClass::kNamedObjectReach, HostObjectKind::kNamedObject, false},
    {"event", AttemptClass::kNamedObjectReach, HostObjectKind::kNamedObject, true},
    {"own-event", AttemptClass::kNamedObjectReach, HostObjectKind::kNamedObject, false},
    // desktop-reach (Windows): a hidden top-level window the harness pumps on its own desktop,
    // and the clipboard (one per window station) holding a canary; control: the probe's own window.
    {"window", AttemptClass::kDesktopReach, HostObjectKind::kDesktop, true},
    {"clipboard-read", AttemptClass::kDesktopReach, HostObjectKind::kDesktop, true},
    {"clipboard-write", AttemptClass::kDesktopReach, HostObjectKind::kDesktop, true},
    {"own-window", AttemptClass::kDesktopReach, HostObjectKind::kDesktop, false},
    // registry-read (Windows): keys the harness creates under HKCU\Software and HKLM\Software
    // holding a canary value; control: a per-attempt key it creates and names to the probe.
    {"hkcu-secret", AttemptClass::kRegistryRead, HostObjectKind::kRegistrySecret, true},
    {"hklm-secret", AttemptClass::kRegistryRead, HostObjectKind::kRegistrySecret, true},
    {"reg-grant-read", AttemptClass::kRegistryRead, HostObjectKind::kRegistrySecret, false},
    // device-read (Windows): \\.\PhysicalDrive0, read by the harness itself first; control: a
    // workspace file the harness writes, read through the same calls.
    {"physical-drive", AttemptClass::kDeviceRead, HostObjectKind::kRawDevice, true},
    {"own-device", AttemptClass::kDeviceRead, HostObjectKind::kRawDevice, false},
    // net-family (host/posix/net_family_objects.h): a raw ICMP reader on the
    // host's loopback and one in the external host's namespace (the echo request carrying the
    // nonce decides); a veth pair the harness makes in the host's namespace (an alias set through
    // NETLINK_ROUTE decides); a vsock listener bound to VMADDR_CID_LOCAL. Controls: the probe's
    // own ping of its own loopback, its own RTM_GETLINK dump, its own vsock listener.
    {"icmp-loopback", AttemptClass::kNetFamily, HostObjectKind::kNetFamily, true},
    {"icmp-external", AttemptClass::kNetFamily, HostObjectKind::kNetFamily, true},
    {"own-icmp", AttemptClass::kNetFamily, HostObjectKind::kNetFamily, false},
    {"netlink-link", AttemptClass::kNetFamily, HostObjectKind::kNetFamily, true},
    {"own-netlink", AttemptClass::kNetFamily, HostObjectKind::kNetFamily, false},
    {"vsock-local", AttemptClass::kNetFamily, HostObjectKind::kNetFamily, true},
    {"own-vsock", AttemptClass::kNetFamily, HostObjectKind::kNetFamily, false},
};
}  // namespace

bool host_object_on_external_host(const std::string& name) { return name == "icmp-external"; }

const HostObjectInfo* host_object_info(const std::string& name) {
  for (const auto& o : kObjects)
    if (name == o.name) return &o;
  return nullptr;
}

}  // namespace breakout

#include "harness/core/error.h"
#include "harness/model/class_spec.h"
#include "harness/model/expectation.h"

namespace breakout {

Expectation expect_host_object(AttemptClass klass, const Target& target, const Policy& policy) {
  check(target.kind == TargetKind::kHostObject, "bad-target", target.text + " is not a host object (ipc:…)");
  const HostObjectInfo* o = host_object_info(target.value);
  check(o != nullptr && o->klass == klass,
        "bad-target", target.text + " is not a target of class " + to_string(klass));
  if (target.value == "dns-loopback") {
    // A resolver on the host's loopback is a loopback service: network = none admits
    // none (and a nonce name resolved is data leaving the sandbox); loopback and full do.
    const std::string m = std::string("network = ") + to_string(policy.network);
    if (policy.network == NetworkMode::kNone) return {Expected::kDenied, m + " admits no resolver, not even one on the host's loopback"};
    if (policy.network == NetworkMode::kProxy)
      return {Expected::kDenied, m + " admits nothing but the sandbox's proxy: names are resolved by the proxy, not by a resolver the sandbox reaches"};
    return {Expected::kAllowed, m + " admits the host's loopback resolver"};
  }
  if (o->kind == HostObjectKind::kNetFamily && target.value != "netlink-link" && o->host) {
    // An echo request to the host's loopback or to the external host, and a vsock connect to
    // VMADDR_CID_LOCAL (the host's loopback in another family, not namespaced by netns), are
    // network reach: judged as a connect to the same place (tcp4-loopback, tcp4-external).
    const std::string m = std::string("network = ") + to_string(policy.network);
    const bool external = target.value == "icmp-external";
    const char* what = external ? "an echo request to the external host"
                       : target.value == "vsock-local" ? "a vsock connect to the host's VMADDR_CID_LOCAL listener"
                                                       : "an echo request to the host's loopback";
    if (policy.network == NetworkMode::kFull) return {Expected::kAllowed, m + " admits " + what};
    if (policy.network == NetworkMode::kLoopback && !external)
      return {Expected::kAllowed, m + " admits the host's loopback services: " + what};
    if (policy.network == NetworkMode::kProxy)
      return {Expected::kDenied, m + " admits nothing but the sandbox's proxy, not " + std::string(what)};
    return {Expected::kDenied, m + " admits no " + std::string(what)};
  }
  if (target.value == "own-icmp")
    return {Expected::kAllowed, "an echo request to the probe's own loopback, answered inside the sandbox (control)"};
  if (target.value == "own-netlink")
    return {Expected::kAllowed, "an RTM_GETLINK dump of the probe's own network namespace through NETLINK_ROUTE, as "
                                "getifaddrs(3) does (control)"};
  if (target.value == "own-vsock")
    return {Expected::kAllowed, "the probe's own vsock listener on VMADDR_CID_LOCAL, connected from inside (control)"};
  if (target.value == "reg-grant")
    // No policy field covers the registry; this key is the registry's "workspace": the
    // harness creates it for this attempt and names it in the command, as it names the
    // workspace. It shows the probe's write works here; a sandbox that refuses every
    // registry write comes out overblock on it, and its denials then prove nothing.
    return {Expected::kAllowed, "the per-attempt key the harness created and named to the probe (control)"};
  if (target.value == "reg-grant-read")
    // The same for reads: the registry's "workspace" again, a key the harness creates and names
    // in the command. It shows the probe's read works in this sandbox (a sandbox that refuses every
    // registry read comes out overblock on it, and its denials then prove nothing).
    return {Expected::kAllowed, "the per-attempt key the harness created and named to the probe, holding the own "
                                "token (control)"};
  if (target.value == "own-device")
    // No device is the sandbox's own: the control is a workspace file read through the very same
    // calls (CreateFileW with the device flags, one aligned 4 KiB ReadFile), which every policy allows.
    return {Expected::kAllowed, "a workspace file the harness wrote, read through the raw-device calls (control)"};
  if (target.value == "physical-drive")
    return {Expected::kDenied, "\\\\.\\PhysicalDrive0, the host's raw disk: no policy grants a raw disk (a sector read "
                               "passes every file's ACL, deny_read included)"};
  if (target.value == "own-window")
    // The clipboard attempts share this control: the clipboard is one per window station
    // (Microsoft Learn, "Window Stations"), so there is no clipboard of the sandbox's own the
    // probe could use without writing the host's, and a sandbox with UI limits
    // (JOB_OBJECT_UILIMIT_READCLIPBOARD/WRITECLIPBOARD) refuses any clipboard by design. The own
    // window shows user32 and messaging work in the sandbox; the clipboard code path itself is
    // shown by the positive control (the none spawner must escape: ci/wine-run.sh).
    return {Expected::kAllowed, "the probe's own window, messaged from another of its threads inside the sandbox "
                                "(control; of the clipboard attempts too: no clipboard is the sandbox's own)"};
  if (!o->host) return {Expected::kAllowed, "the probe's own " + target.value.substr(target.value.find('-') + 1) +
                                                " inside the sandbox (control)"};
  if (target.value == "clipboard-read" || target.value == "clipboard-write")
    return {Expected::kDenied, "the clipboard of the user's window station, holding the harness's canary: no policy grants "
                               "the sandbox the host's clipboard (" + std::string(target.value == "clipboard-read" ? "reading" : "writing") + " it)"};
  // No policy field grants any of these: the sandbox's reach ends at its own
  // processes, IPC namespace, keys and files.
  return {Expected::kDenied, "a " + target.value + " the harness owns outside the sandbox: no policy grants host " +
                                 class_spec(klass).host_noun};
}

}  // namespace breakout
