// Registry host objects (class registry-write): an HKCU key the harness watches by value snapshots, and removes what it finds.
//
//   "hkcu-run"    HKCU\Software\Microsoft\Windows\CurrentVersion\Run (autostart: MITRE ATT&CK T1547.001);
//                 shared with every program of the user, so only values named breakout-<tag> or holding
//                 the nonce decide, other differences are listed as unrelated.
//   "hkcu-canary" HKCU\Software\breakout-canary-<tag>, created with a canary value; any difference decides.
//   "reg-grant"   HKCU\Software\breakout-grant-<tag>, the control: created and named to the probe.
// The probe gets the subkey (relative to HKCU) as {target} and sets the value breakout-<tag> = nonce.
// Windows only.
#pragma once

#include <memory>
#include <string>

#include "harness/host/host_objects.h"

namespace breakout {

inline constexpr const wchar_t* kRunKey = L"Software\\Microsoft\\Windows\\CurrentVersion\\Run";

std::unique_ptr<HostObject> make_registry_object(const std::string& name, const HostObjectSetup& setup);

}  // namespace breakout
