// Host objects on Windows: none yet (the process-reach/ipc/key/tty classes are Linux attempts).
#include "harness/oracle/host_objects.h"

#include "harness/core/error.h"
#include "harness/model/host_object.h"

namespace breakout {

std::unique_ptr<HostObject> make_host_object(const std::string& name, const HostObjectSetup&) {
  throw Error("host object " + name + " is not implemented on Windows");
}

std::optional<std::string> host_object_unavailable(const std::string& name) {
  return "host object " + name + " is not implemented on Windows";
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
