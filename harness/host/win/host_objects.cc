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

std::unique_ptr<HostObject> make_host_object(const std::string& name, const HostObjectSetup& setup) {
  const HostObjectInfo* info = host_object_info(name);
  if (info == nullptr || host_object_unavailable(name)) throw Error(*host_object_unavailable(name));
  if (info->klass == AttemptClass::kRegistryWrite) return make_registry_object(name, setup);
  if (info->klass == AttemptClass::kRegistryRead) return make_registry_secret(name, setup);  // reg-grant-read too
  if (info->klass == AttemptClass::kDeviceRead) return make_raw_device(name, setup);         // own-device too
  if (info->klass == AttemptClass::kIpcReach) return make_shared_file(name, setup);  // workspace-file too (host=false)
  if (name == "victim") return make_victim_process(setup);
  if (name == "own-victim") return std::make_unique<OwnObject>("victim", "own", setup);
  if (info->klass == AttemptClass::kDesktopReach && info->host) return make_desktop_object(name, setup);
  if (!info->host) return std::make_unique<OwnObject>(name.substr(4), "own:" + name.substr(4), setup);  // own-pipe, own-event
  return make_named_object(name, setup);
}

std::optional<std::string> host_object_unavailable(const std::string& name) {
  const HostObjectInfo* info = host_object_info(name);
  if (info != nullptr && (info->klass == AttemptClass::kRegistryWrite || info->klass == AttemptClass::kNamedObjectReach))
    return std::nullopt;
  if (info != nullptr && info->klass == AttemptClass::kProcessReach) return std::nullopt;  // victim, own-victim
  if (info != nullptr && info->klass == AttemptClass::kDesktopReach) return desktop_object_unavailable(name);
  if (info != nullptr && info->klass == AttemptClass::kRegistryRead) return registry_secret_unavailable(name);
  if (info != nullptr && info->klass == AttemptClass::kDeviceRead) return raw_device_unavailable(name);
  // ipc-reach: only the shared-location files (shared_files.h); the SysV/POSIX objects stay Linux attempts.
  if (info != nullptr && info->klass == AttemptClass::kIpcReach && is_shared_file(name)) return shared_file_unavailable(name);
  return "host object " + name +
         " is not implemented on Windows (SysV/POSIX IPC, /tmp files, keyrings, terminals and the DNS resolver are Linux attempts)";
}

std::optional<std::string> class_unavailable(AttemptClass klass) {
  if (klass == AttemptClass::kIoUringWrite || klass == AttemptClass::kIoUringConnect) return std::string("io_uring is Linux only");
  if (klass == AttemptClass::kSyscallAbiWrite) return std::string("the i386/x32 syscall ABIs are x86-64 Linux only");
  return std::nullopt;
}

std::optional<std::string> syscall_abi_unavailable(const std::string&) {
  return std::string("the i386/x32 syscall ABIs are x86-64 Linux only");
}

}  // namespace breakout
