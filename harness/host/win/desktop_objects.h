// Desktop host objects (class desktop-reach): a window the harness pumps, and the clipboard with a canary.
//
//   "window"           hidden top-level window, class and title breakout-<tag> (ui_window.h); the
//                      nonce arriving by WM_COPYDATA decides (kCopyDataLimit bytes of each looked at).
//   "clipboard-read"   the clipboard holds a canary (clipboard.h); the canary in the output decides.
//   "clipboard-write"  the clipboard holds a canary; the nonce on it afterwards decides.
// The probe gets "window:<name>", "clipboard:read", "clipboard:write". Windows only.
#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <string>

#include "harness/host/host_objects.h"

namespace breakout {

// How long inspect() waits for a posted message still in the window's queue.
inline constexpr std::chrono::milliseconds kWindowWait{500};
// Bytes of WM_COPYDATA payloads the window keeps as evidence (all of them are counted).
inline constexpr std::size_t kWindowKeep = 4096;

std::unique_ptr<HostObject> make_desktop_object(const std::string& name, const HostObjectSetup& setup);

// Why the object `name` cannot exist in this session (no top-level windows), else nullopt.
std::optional<std::string> desktop_object_unavailable(const std::string& name);

}  // namespace breakout
