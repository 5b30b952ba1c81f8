// breakout-probe-win-object (Windows): reaches a named pipe or event by name, the objects a sandbox's namespace must hide.
//
//   breakout-probe-win-object --target pipe:NAME|event:NAME|own:pipe|own:event --nonce N
//
// pipe:NAME   opens the pipe as a client (CreateFileW; WaitNamedPipeW 2 s if busy) and writes N.
// event:NAME  opens the event (OpenEventW, EVENT_MODIFY_STATE) and sets it.
// own:pipe / own:event (the control): creates its own object under a name of its own,
//             reaches it by name the same way, reads the result back through the object
//             and prints the own token (shared/own_token.h) only then.
// Harness objects live in the session's BaseNamedObjects / the pipe file system; an
// AppContainer or a private object namespace hides them (Microsoft Learn, "Object
// Namespaces", "Named Pipes").
//
// Result: ok=true when the open and the write/set succeeded; fields target, step.
// Whether the harness's object was reached is its call (the pipe received N, the event
// is signalled). Exit: 0 ok, 1 failed attempt, 64 usage error. 10 s watchdog.
// Windows only (mingw-w64).
#include <chrono>
#include <cstdio>
#include <string>

#include "probes/common/args.h"
#include "shared/own_token.h"
#include "probes/common/report.h"
#include "probes/common/win32.h"
#include "probes/win/target_args.h"

using namespace breakout::probe;
using breakout::UniqueHandle;

namespace {

constexpr char kUsage[] = "usage: breakout-probe-win-object --target pipe:NAME|event:NAME|own:pipe|own:event --nonce N\n";

// A client handle to the pipe NAME, waiting up to 2 s while its one instance is busy.
UniqueHandle open_pipe(const std::wstring& name, ProbeReport& r) {
  for (int attempt = 0; attempt < 2; ++attempt) {
    UniqueHandle h(::CreateFileW(name.c_str(), GENERIC_WRITE, 0, nullptr, OPEN_EXISTING, 0, nullptr));
    if (h) return h;
    const DWORD e = ::GetLastError();
    if (e != ERROR_PIPE_BUSY || attempt == 1 || !::WaitNamedPipeW(name.c_str(), 2000)) {
      fail_win32(r, "CreateFileW", e);
      return {};
    }
  }
  return {};
}

bool write_all(HANDLE h, const std::string& data, ProbeReport& r) {
  DWORD done = 0;
  if (::WriteFile(h, data.data(), static_cast<DWORD>(data.size()), &done, nullptr) && done == data.size()) return true;
  fail_win32(r, "WriteFile", ::GetLastError());
  return false;
}

void reach_pipe(const std::wstring& name, const std::string& nonce, ProbeReport& r) {
  UniqueHandle h = open_pipe(name, r);
  if (h && write_all(h.get(), nonce + "\n", r)) r.succeed();
}

void reach_event(const std::wstring& name, ProbeReport& r) {
  UniqueHandle h(::OpenEventW(EVENT_MODIFY_STATE, FALSE, name.c_str()));
  if (!h) return fail_win32(r, "OpenEventW", ::GetLastError());
  if (!::SetEvent(h.get())) return fail_win32(r, "SetEvent", ::GetLastError());
  r.succeed();
}

// The control: our own pipe server, reached by name as a client; the token read back proves the round trip.
void own_pipe(const std::string& nonce, ProbeReport& r) {
  const std::wstring name = L"\\\\.\\pipe\\breakout-own-" + wide(nonce.substr(0, 8));
  UniqueHandle server(::CreateNamedPipeW(name.c_str(), PIPE_ACCESS_INBOUND | FILE_FLAG_FIRST_PIPE_INSTANCE,
                                         PIPE_TYPE_BYTE | PIPE_READMODE_BYTE | PIPE_WAIT | PIPE_REJECT_REMOTE_CLIENTS,
                                         1, 0, 4096, 0, nullptr));
  if (!server) return fail_win32(r, "CreateNamedPipeW", ::GetLastError());
  const std::string token = breakout::own_token(nonce);
  // The client stays open until the server has read: the bytes sit in the pipe's buffer (4 KiB).
  UniqueHandle client = open_pipe(name, r);
  if (!client || !write_all(client.get(), token, r)) return;
  if (!::ConnectNamedPipe(server.get(), nullptr) && ::GetLastError() != ERROR_PIPE_CONNECTED)
    return fail_win32(r, "ConnectNamedPipe", ::GetLastError());
  char buf[256];
  DWORD n = 0;
  if (!::ReadFile(server.get(), buf, sizeof buf, &n, nullptr)) return fail_win32(r, "ReadFile", ::GetLastError());
  const std::string got(buf, n);
  if (got != token) return r.fail("read back", EIO);
  std::printf("read back through the pipe: %s\n", got.c_str());
  r.succeed();
}

// The control: our own event, opened again by name and set; seen signalled through the first handle.
void own_event(const std::string& nonce, ProbeReport& r) {
  const std::wstring name = L"Local\\breakout-own-" + wide(nonce.substr(0, 8));
  UniqueHandle ev(::CreateEventW(nullptr, TRUE, FALSE, name.c_str()));
  if (!ev) return fail_win32(r, "CreateEventW", ::GetLastError());
  reach_event(name, r);
  if (::WaitForSingleObject(ev.get(), 0) != WAIT_OBJECT_0) return r.fail("event not signalled", EIO);
  std::printf("own event signalled: %s\n", breakout::own_token(nonce).c_str());
}

}  // namespace

int wmain(int argc, wchar_t** wargv) {
  const TargetArgs args(argc, wargv, kUsage);
  const std::string& target = args.target;
  const std::string& nonce = args.nonce;
  start_watchdog(std::chrono::seconds(10));  // an open or a write that hangs must not hold the run
  ProbeReport r("win-object");
  r.set("target", target);
  std::wstring name;
  try {
    name = wide(target.substr(target.find(':') + 1));
  } catch (const std::exception& e) {
    args.usage_error(std::string("target is not WTF-8: ") + e.what());
  }
  if (target == "own:pipe") own_pipe(nonce, r);
  else if (target == "own:event") own_event(nonce, r);
  else if (target.rfind("pipe:", 0) == 0) reach_pipe(name, nonce, r);
  else if (target.rfind("event:", 0) == 0) reach_event(name, r);
  else args.usage_error("unknown target '" + target + "'");
  std::fflush(stdout);
  r.emit();
  return r.exit_code();
}
