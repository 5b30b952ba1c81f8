// Host objects on Windows: a victim process (process-reach), registry keys (registry-write), a named pipe and event (named-object-reach), a window and the clipboard (desktop-reach), files in shared locations (ipc-reach), registry secrets (registry-read), the raw disk (device-read), and the probe's own twins.
#include "harness/host/host_objects.h"

#include "harness/core/error.h"
#include "harness/classes/host_object/spec_objects.h"
#include "harness/host/availability.h"
#include "harness/host/own_object.h"
#include "harness/host/win/desktop_objects.h"
#include "harness/host/win/named_objects.h"
#include "harness/host/win/raw_device.h"
#include "harness/host/win/registry_key.h"
#include "harness/host/win/registry_secret.h"
#include "harness/host/win/shared_files.h"
#include "harness/host/win/victim_process.h"

namespace breakout {

// By the object's kind (classes/host_object/spec_objects.h), never its class.
std::unique_ptr<HostObject> make_host_object(const std::string& name, const HostObjectSetup& setup) {
  const HostObjectInfo* info = host_object_info(name);
  if (info == nullptr || host_object_unavailable(name)) throw Error(*host_object_unavailable(name));
  switch (info->kind) {
    case HostObjectKind::kRegistryKey: return make_registry_object(name, setup);
    case HostObjectKind::kRegistrySecret: return make_registry_secret(name, setup);  // reg-grant-read too
    case HostObjectKind::kRawDevice: return make_raw_device(name, setup);            // own-device too
    case HostObjectKind::kSharedFile: return make_shared_file(name, setup);          // workspace-file too (host=false)
    case HostObjectKind::kProcess:
      if (info->host) return make_victim_process(setup);
      return std::make_unique<OwnObject>("victim", "own", setup);
    case HostObjectKind::kDesktop:
      if (info->host) return make_desktop_object(name, setup);
      break;
    default: break;
  }
  if (!info->host) return std::make_unique<OwnObject>(name.substr(4), "own:" + name.substr(4), setup);  // own-pipe, own-event, own-window
  return make_named_object(name, setup);
}

std::optional<std::string> host_object_unavailable(const std::string& name) {
  const HostObjectInfo* info = host_object_info(name);
  switch (info != nullptr ? info->kind : HostObjectKind::kIpc) {
    case HostObjectKind::kRegistryKey:
    case HostObjectKind::kNamedObject:
    case HostObjectKind::kProcess: return std::nullopt;  // victim, own-victim
    case HostObjectKind::kDesktop: return desktop_object_unavailable(name);
    case HostObjectKind::kRegistrySecret: return registry_secret_unavailable(name);
    case HostObjectKind::kRawDevice: return raw_device_unavailable(name);
    // Only the shared-location files (shared_files.h); /tmp and /var/tmp stay Linux attempts.
    case HostObjectKind::kSharedFile:
      if (is_shared_file(name)) return shared_file_unavailable(name);
      break;
    default: break;
  }
  return "host object " + name +
         " is not implemented on Windows (SysV/POSIX IPC, /tmp files, keyrings, terminals and the DNS resolver are Linux attempts)";
}

std::optional<std::string> requirement_unavailable(Requirement r) {
  switch (r) {
    case Requirement::kNone: return std::nullopt;
    case Requirement::kIoUring: return std::string("io_uring is Linux only");
  }
  return std::nullopt;
}

std::optional<std::string> syscall_abi_unavailable(const std::string&) {
  return std::string("the i386/x32 syscall ABIs are x86-64 Linux only");
}

}  // namespace breakout
