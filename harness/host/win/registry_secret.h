// Registry secrets (class registry-read): a key the harness creates holding a value the probe must not read.
//
//   "hkcu-secret"     HKCU\Software\breakout-secret-<tag>, value "secret" = a fresh canary: where the
//                     user's programs keep tokens and trust decisions.
//   "hklm-secret"     HKLM\Software\breakout-secret-<tag>, the same machine-wide: where services keep
//                     credentials. Needs a harness that may create keys there (elevated on Windows).
//   "reg-grant-read"  HKCU\Software\breakout-grant-read-<tag>, value "secret" = own_token(nonce): the
//                     control, created and named to the probe (the registry's "workspace").
// The probe gets "<root>\<subkey>" as {target} (root HKCU or HKLM) and reads the value "secret";
// the token in its output decides. Keys are volatile (REG_OPTION_VOLATILE: gone when the hive is
// unloaded, at logoff or shutdown, should the harness die before its destructor) and removed by RAII.
// Windows only.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "harness/host/host_objects.h"

namespace breakout {

// The value name every registry-read object holds its data under (args: --value secret).
inline constexpr const wchar_t* kSecretValueName = L"secret";

std::unique_ptr<HostObject> make_registry_secret(const std::string& name, const HostObjectSetup& setup);

// Why the object `name` cannot be created by this harness (HKLM\Software not writable to us), else nullopt.
std::optional<std::string> registry_secret_unavailable(const std::string& name);

}  // namespace breakout
