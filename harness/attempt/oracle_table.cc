// The oracle of every attempt class, in enum order (checked at compile time), beside its model entry.
//
// The model's entry (model/class_table.cc) says what a class is and what the policy
// expects of it; this row says which oracle judges it. Two rows in two layers, so the
// model (and the fuzz targets built on it) never links the runner.
#include "harness/attempt/oracle.h"
#include "harness/attempt/oracles/oracles.h"
#include "harness/core/error.h"
#include "harness/model/class_spec.h"

namespace breakout {

namespace {

using C = AttemptClass;
using OracleFactory = std::unique_ptr<Oracle> (*)();

struct OracleRow {
  AttemptClass klass;
  OracleFactory make;
};

constexpr OracleRow kOracles[] = {
    {C::kFsWrite, oracles::fs_write},
    {C::kFsRead, oracles::file_read},
    {C::kNetConnect, oracles::connect},
    {C::kEnvLeak, oracles::env_leak},
    {C::kFdLeak, oracles::leaked_fd},
    {C::kLifetime, oracles::lifetime},
    {C::kTimeoutKill, oracles::timeout_kill},
    {C::kExitCode, oracles::exit_code},
    {C::kExitSignal, oracles::exit_signal},
    {C::kCwd, oracles::cwd},
    {C::kOutputFlood, oracles::output_flood},
    {C::kNoTimeout, oracles::no_timeout},
    {C::kEnvPinned, oracles::env_pins},
    {C::kSessionShutdown, oracles::session_shutdown},
    {C::kBootFailure, oracles::boot_failure},
    {C::kSessionHygiene, oracles::session_hygiene},
    {C::kSessionSetup, oracles::session_setup},
    {C::kProcessReach, oracles::host_object},
    {C::kIpcReach, oracles::host_object},
    {C::kKeyRead, oracles::host_object},
    {C::kTtyInject, oracles::host_object},
    {C::kDnsQuery, oracles::host_object},
    {C::kIoUringWrite, oracles::plain_write},
    {C::kIoUringConnect, oracles::connect},
    {C::kSyscallAbiWrite, oracles::abi_write},
    {C::kRegistryWrite, oracles::host_object},
    {C::kNamedObjectReach, oracles::host_object},
    {C::kDesktopReach, oracles::host_object},
    {C::kRealHomeRead, oracles::real_home_read},
    {C::kRealHomeWrite, oracles::real_home_write},
    {C::kRealNetConnect, oracles::connect},
    {C::kFsApiWrite, oracles::fs_api_write},
    {C::kFsApiRead, oracles::fs_api_read},
    {C::kRecon, oracles::recon},
    {C::kProtectedWrite, oracles::protected_write},
    {C::kProxyConnect, oracles::connect},
    {C::kCwdWrite, oracles::cwd_write},
    {C::kPathHijack, oracles::path_hijack},
    {C::kFailOpen, oracles::fail_open},
    {C::kNetInbound, oracles::inbound},
    {C::kSpawnerFollow, oracles::spawner_follow},
    {C::kFsRace, oracles::race_write},
    {C::kRegistryRead, oracles::host_object},
    {C::kDeviceRead, oracles::host_object},
    {C::kNetFamily, oracles::host_object},
    {C::kFsRaceRead, oracles::race_read},
    {C::kSubmountWrite, oracles::submount_write},
    {C::kFsApiRace, oracles::fs_api_race},
    {C::kBindAliasConnect, oracles::bind_alias},
};

constexpr bool in_enum_order() {
  for (std::size_t i = 0; i < std::size(kOracles); ++i)
    if (static_cast<std::size_t>(kOracles[i].klass) != i || kOracles[i].make == nullptr) return false;
  return true;
}
static_assert(std::size(kOracles) == kAttemptClassCount, "every AttemptClass needs its oracle in kOracles");
static_assert(in_enum_order(), "kOracles is out of enum order or a row has no factory");

}  // namespace

std::unique_ptr<Oracle> make_oracle_for(AttemptClass c) {
  const auto i = static_cast<std::size_t>(c);
  if (i >= std::size(kOracles)) throw Error("bad-class", "not an attempt class: " + std::to_string(i));
  return kOracles[i].make();
}

}  // namespace breakout
