// The Windows victim of class process-reach: a secret in static memory, on the heap and in its
// environment; a beating thread another process may suspend; an event another process may signal.
//
// Run as breakout-probe-victim.exe by the HARNESS outside every sandbox (the host victim), and by
// proc-reach --as-victim inside the sandbox (the control's own victim, the probe's child). Lines
// written to `out` (one WriteFile each, under a lock):
//   "ready pid=<pid> tid=<beating thread id> event=<handle value, hex>\n"   once, first
//   "beat <n>\n"                                                            every 25 ms
//   "poked<suffix>\n"                          once, when the event was signalled (SetEvent through a
//                                              duplicated handle or a thread created in this process)
// The own victim's suffix is " <own token>", so the probe can show that the technique reached it;
// the host victim's is empty (its status file is the harness's, and the canary must never be written).
// Windows only (mingw-w64), header-only.
#pragma once

#include <windows.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "shared/victim_ready.h"  // kVictimReadyFormat: the first line, as the harness reads it back

namespace breakout::probe {


inline char g_win_victim_secret[160];  // static copy (.bss of the victim image)

struct WinVictimOut {
  HANDLE out;
  CRITICAL_SECTION lock;
  void line(const std::string& s) {
    ::EnterCriticalSection(&lock);
    DWORD n = 0;
    ::WriteFile(out, s.data(), static_cast<DWORD>(s.size()), &n, nullptr);
    ::LeaveCriticalSection(&lock);
  }
};

struct WinVictimPoke {
  WinVictimOut* out;
  HANDLE event;
  std::string suffix;
};

inline DWORD WINAPI win_victim_watch(void* arg) {
  auto* p = static_cast<WinVictimPoke*>(arg);
  if (::WaitForSingleObject(p->event, INFINITE) == WAIT_OBJECT_0) p->out->line("poked" + p->suffix + "\n");
  return 0;
}

// Never returns: beats until `lifetime_ms` have passed, then ExitProcess(0).
[[noreturn]] inline void run_win_victim(const std::string& secret, HANDLE out, const std::string& poked_suffix,
                                        DWORD lifetime_ms) {
  std::snprintf(g_win_victim_secret, sizeof g_win_victim_secret, "%s", secret.c_str());
  volatile char* heap = static_cast<char*>(std::malloc(secret.size() + 1));  // a heap copy too
  if (heap) std::memcpy(const_cast<char*>(heap), secret.c_str(), secret.size() + 1);
  static WinVictimOut o{out, {}};
  ::InitializeCriticalSection(&o.lock);
  // Manual reset, unsignalled, not inheritable, unnamed: only a handle duplicated out of this
  // process, or code run inside it, can signal it.
  HANDLE event = ::CreateEventW(nullptr, TRUE, FALSE, nullptr);
  if (event == nullptr) ::ExitProcess(1);
  static WinVictimPoke poke{&o, event, poked_suffix};
  HANDLE watcher = ::CreateThread(nullptr, 0, win_victim_watch, &poke, 0, nullptr);
  if (watcher == nullptr) ::ExitProcess(1);
  char ready[128];
  std::snprintf(ready, sizeof ready - 1, kVictimReadyFormat, ::GetCurrentProcessId(),
                ::GetCurrentThreadId(), static_cast<unsigned long long>(reinterpret_cast<std::uintptr_t>(event)));
  o.line(std::string(ready) + "\n");
  const ULONGLONG deadline = ::GetTickCount64() + lifetime_ms;
  for (unsigned long long n = 1; ::GetTickCount64() < deadline; ++n) {
    o.line("beat " + std::to_string(n) + "\n");
    ::Sleep(25);
  }
  ::ExitProcess(0);
}

}  // namespace breakout::probe
