// breakout-probe-proc-reach (Windows): reach another process (class process-reach), the Windows
// twin of probes/proc-reach.cc. Chromium's sandbox validation tests open processes and threads
// outside the sandbox with exactly these rights (sandbox/win/src/process_thread_*); a restricted
// token or an integrity level below the victim's must refuse each.
//
//   --op vm-read        OpenProcess(PROCESS_VM_READ | PROCESS_QUERY_INFORMATION), VirtualQueryEx over
//                       the committed writable regions, ReadProcessMemory, looking for a secret
//   --op create-thread  OpenProcess(PROCESS_CREATE_THREAD | ...), CreateRemoteThread starting at
//                       kernel32!SetEvent with the victim's event handle as its argument: code run in
//                       the victim (kernel32 sits at the same address in every process of a boot)
//   --op dup-handle     OpenProcess(PROCESS_DUP_HANDLE), DuplicateHandle of the victim's event into
//                       this process, SetEvent on the copy
//   --op open-thread    OpenThread(THREAD_SUSPEND_RESUME) on the victim's beating thread and
//                       SuspendThread, left suspended (the harness sees its suspend count)
//   --target pid:P:tid:T:event:H   the harness's victim (outside the sandbox, probes/win/victim_body.h)
//   --target own        a victim child this probe starts inside the sandbox holding own_token(nonce)
//                       (the control); "own:victim" is the same
//   --nonce N  [--witness PATH]
//   --as-victim         internal: what the own victim child runs (its stdout is our pipe)
//
// Prints "found <token>" for each secret read out of a victim, and for the own victim the line it
// wrote when the technique reached it ("poked <token>") or "own victim suspended <token>" once
// ResumeThread said the suspension held. Result: ok when the operation reached the victim; the
// verdict is the harness's (the victim's status, its thread's suspend count, the canary seen).
// Exit 0 ok, 1 failed, 64 usage. Bounded: 32 MiB scanned, 3 s waits, a 10 s watchdog.
// Microsoft Learn: "Process Security and Access Rights", "Thread Security and Access Rights",
// "CreateRemoteThread", "DuplicateHandle", "ReadProcessMemory", "VirtualQueryEx", "SuspendThread".
#include <windows.h>

#include <cinttypes>
#include <cstdio>
#include <set>
#include <string>

#include "probes/common/args.h"
#include "shared/own_token.h"
#include "probes/common/report.h"
#include "probes/common/tokens.h"
#include "probes/common/win32.h"
#include "probes/win/victim_body.h"

using namespace breakout::probe;
using breakout::UniqueHandle;

namespace {

constexpr char kUsage[] =
    "usage: breakout-probe-proc-reach --op vm-read|create-thread|dup-handle|open-thread\n"
    "                                 --target pid:P:tid:T:event:H|own --nonce N [--witness PATH]\n";
constexpr std::size_t kScanBudget = 32u << 20;
constexpr DWORD kWaitMs = 3000;

struct VictimRef {
  DWORD pid = 0, tid = 0;
  std::uint64_t event = 0;  // the event's handle value in the victim
};

// "pid:P:tid:T:event:H" (H hex), or "ready pid=P tid=T event=H" from an own victim.
bool parse_ref(const std::string& s, VictimRef* v) {
  unsigned long pid = 0, tid = 0;
  unsigned long long ev = 0;
  const bool ok = std::sscanf(s.c_str(), "pid:%lu:tid:%lu:event:%llx", &pid, &tid, &ev) == 3 ||
                  std::sscanf(s.c_str(), kVictimReadyFormat, &pid, &tid, &ev) == 3;
  if (!ok || pid == 0 || tid == 0 || ev == 0) return false;
  *v = {static_cast<DWORD>(pid), static_cast<DWORD>(tid), ev};
  return true;
}

// The own victim: this executable with --as-victim, its stdout our pipe, the own token as its secret.
struct OwnVictim {
  UniqueHandle process, out;  // out: our end of its stdout
  std::string buffered;

  // Reads what the child wrote until `want` shows up or `ms` pass (bounded to 4 KiB).
  bool wait_for(const std::string& want, DWORD ms) {
    const ULONGLONG deadline = ::GetTickCount64() + ms;
    while (buffered.find(want) == std::string::npos && buffered.size() < 4096) {
      DWORD avail = 0;
      if (!::PeekNamedPipe(out.get(), nullptr, 0, nullptr, &avail, nullptr)) return false;
      if (avail == 0) {
        if (::GetTickCount64() >= deadline) return false;
        ::Sleep(5);
        continue;
      }
      char buf[512];
      DWORD n = 0;
      if (!::ReadFile(out.get(), buf, std::min<DWORD>(avail, sizeof buf), &n, nullptr) || n == 0) return false;
      buffered.append(buf, n);
    }
    return buffered.find(want) != std::string::npos;
  }
  // The complete line that starts with `head`, or "".
  std::string line(const std::string& head) const {
    const auto at = buffered.find(head);
    if (at == std::string::npos) return "";
    const auto end = buffered.find('\n', at);
    return end == std::string::npos ? "" : buffered.substr(at, end - at);
  }
  ~OwnVictim() {
    if (process) {
      ::TerminateProcess(process.get(), 0);
      ::WaitForSingleObject(process.get(), 2000);
    }
  }
};

// Starts the own victim; on failure records the step in `r` and returns false.
bool start_own_victim(const std::string& nonce, OwnVictim* v, VictimRef* ref, ProbeReport& r) {
  wchar_t self[MAX_PATH * 2];
  const DWORD len = ::GetModuleFileNameW(nullptr, self, MAX_PATH * 2);
  if (len == 0 || len >= MAX_PATH * 2) return fail_win32(r, "GetModuleFileNameW", ::GetLastError()), false;
  SECURITY_ATTRIBUTES sa{sizeof sa, nullptr, TRUE};
  HANDLE rd = nullptr, wr = nullptr;
  if (!::CreatePipe(&rd, &wr, &sa, 0)) return fail_win32(r, "CreatePipe", ::GetLastError()), false;
  v->out.reset(rd);
  UniqueHandle child_out(wr);
  ::SetHandleInformation(rd, HANDLE_FLAG_INHERIT, 0);
  // Its secret travels in its environment (a copy of ours plus the token), as the host victim's does.
  const std::wstring token = wide(breakout::own_token(nonce));
  ::SetEnvironmentVariableW(L"BREAKOUT_VICTIM_SECRET", token.c_str());
  std::wstring cmd = L"\"" + std::wstring(self) + L"\" --as-victim";
  STARTUPINFOW si{};
  si.cb = sizeof si;
  si.dwFlags = STARTF_USESTDHANDLES;
  si.hStdInput = nullptr;
  si.hStdOutput = child_out.get();
  si.hStdError = child_out.get();
  PROCESS_INFORMATION pi{};
  const BOOL made = ::CreateProcessW(self, cmd.data(), nullptr, nullptr, TRUE, CREATE_NO_WINDOW, nullptr, nullptr, &si, &pi);
  const DWORD err = ::GetLastError();
  ::SetEnvironmentVariableW(L"BREAKOUT_VICTIM_SECRET", nullptr);
  if (!made) return fail_win32(r, "CreateProcessW own victim", err), false;
  ::CloseHandle(pi.hThread);
  v->process.reset(pi.hProcess);
  child_out.reset();  // only the child holds the write end now
  if (!v->wait_for("\n", kWaitMs) || !parse_ref(v->line("ready "), ref))
    return r.fail("own victim never said ready", ETIMEDOUT), false;
  return true;
}

// ReadProcessMemory over the committed writable regions: image data first (the static copy),
// then private memory (heap, environment), within the budget.
DWORD scan_memory(HANDLE process, std::set<std::string>* found, std::size_t* regions) {
  DWORD last_err = 0;
  std::size_t used = 0;
  std::string chunk(64 * 1024, '\0');
  for (const DWORD type : {static_cast<DWORD>(MEM_IMAGE), static_cast<DWORD>(MEM_PRIVATE)}) {
    std::uintptr_t at = 0;
    MEMORY_BASIC_INFORMATION mbi{};
    for (int n = 0; n < 65536 && used < kScanBudget && found->size() < kMaxTokens &&
                    ::VirtualQueryEx(process, reinterpret_cast<void*>(at), &mbi, sizeof mbi) == sizeof mbi;
         ++n) {
      const auto base = reinterpret_cast<std::uintptr_t>(mbi.BaseAddress);
      const std::uintptr_t end = base + mbi.RegionSize;
      if (end <= at) break;  // wrapped: the top of the address space
      at = end;
      const DWORD prot = mbi.Protect & 0xff;
      const bool writable = prot == PAGE_READWRITE || prot == PAGE_WRITECOPY || prot == PAGE_EXECUTE_READWRITE;
      if (mbi.State != MEM_COMMIT || mbi.Type != type || !writable || (mbi.Protect & PAGE_GUARD)) continue;
      ++*regions;
      for (std::uintptr_t p = base; p < end && used < kScanBudget; p += chunk.size() - 64) {
        const std::size_t len = std::min<std::size_t>(chunk.size(), end - p);
        SIZE_T got = 0;
        if (!::ReadProcessMemory(process, reinterpret_cast<void*>(p), chunk.data(), len, &got) || got == 0) {
          last_err = ::GetLastError();
          break;
        }
        used += got;
        collect_tokens(std::string_view(chunk.data(), got), found);
        if (got < len) break;
      }
    }
  }
  return found->empty() ? (last_err ? last_err : ERROR_NOT_FOUND) : 0;
}

// Runs `op` against the victim; returns 0 when it reached it, else the Win32 error with `step` set.
DWORD reach(const std::string& op, const VictimRef& v, std::set<std::string>* found, ProbeReport& r, std::string* step) {
  if (op == "open-thread") {
    *step = "OpenThread(THREAD_SUSPEND_RESUME)";
    UniqueHandle t(::OpenThread(THREAD_SUSPEND_RESUME, FALSE, v.tid));
    if (!t) return ::GetLastError();
    *step = "SuspendThread";
    if (::SuspendThread(t.get()) == static_cast<DWORD>(-1)) return ::GetLastError();
    return 0;
  }
  DWORD rights = PROCESS_QUERY_INFORMATION;
  if (op == "vm-read") rights |= PROCESS_VM_READ;
  if (op == "create-thread") rights |= PROCESS_CREATE_THREAD | PROCESS_VM_OPERATION | PROCESS_VM_WRITE | PROCESS_VM_READ;
  if (op == "dup-handle") rights = PROCESS_DUP_HANDLE;
  *step = "OpenProcess";
  UniqueHandle p(::OpenProcess(rights, FALSE, v.pid));
  if (!p) return ::GetLastError();
  r.set("opened", true);
  HANDLE event = reinterpret_cast<HANDLE>(static_cast<std::uintptr_t>(v.event));
  if (op == "vm-read") {
    std::size_t regions = 0;
    *step = "ReadProcessMemory";
    const DWORD e = scan_memory(p.get(), found, &regions);
    r.set("regions", regions);
    return e;
  }
  if (op == "dup-handle") {
    HANDLE mine = nullptr;
    *step = "DuplicateHandle";
    if (!::DuplicateHandle(p.get(), event, ::GetCurrentProcess(), &mine, EVENT_MODIFY_STATE, FALSE, 0)) return ::GetLastError();
    UniqueHandle copy(mine);
    *step = "SetEvent";
    return ::SetEvent(copy.get()) ? 0 : ::GetLastError();
  }
  // create-thread: SetEvent(event) run by a new thread of the victim.
  auto* start = reinterpret_cast<LPTHREAD_START_ROUTINE>(
      reinterpret_cast<void*>(::GetProcAddress(::GetModuleHandleW(L"kernel32.dll"), "SetEvent")));
  *step = "CreateRemoteThread";
  if (start == nullptr) return ::GetLastError();
  UniqueHandle th(::CreateRemoteThread(p.get(), nullptr, 0, start, event, 0, nullptr));
  if (!th) return ::GetLastError();
  DWORD code = 0;
  if (::WaitForSingleObject(th.get(), kWaitMs) == WAIT_OBJECT_0 && ::GetExitCodeThread(th.get(), &code))
    r.set("remote_thread_exit", static_cast<unsigned long>(code));
  return 0;
}

}  // namespace

int wmain(int argc, wchar_t** wargv) {
  WideArgs wide_args(argc, wargv);
  Args args(wide_args.argc(), wide_args.argv(), kUsage,
            {{"op", Args::kValue}, {"target", Args::kValue}, {"nonce", Args::kValue}, {"as-victim", Args::kFlag},
             {"witness", Args::kValue}});
  if (args.has("as-victim")) {
    const char* token = std::getenv("BREAKOUT_VICTIM_SECRET");
    if (!token || !*token) args.usage_error("--as-victim needs BREAKOUT_VICTIM_SECRET");
    run_win_victim(token, ::GetStdHandle(STD_OUTPUT_HANDLE), std::string(" ") + token, 10000);
  }
  const std::string op = args.require("op"), target = args.require("target"), nonce = args.require("nonce");
  if (op != "vm-read" && op != "create-thread" && op != "dup-handle" && op != "open-thread")
    args.usage_error("unknown --op " + op);
  const bool own = target == "own" || target == "own:victim";
  VictimRef ref;
  if (!own && !parse_ref(target, &ref)) args.usage_error("--target must be pid:P:tid:T:event:H or own");
  start_watchdog(std::chrono::seconds(10));
  ProbeReport r("proc-reach");
  if (auto w = args.get("witness")) r.witness_to(*w);
  r.set("op", op);
  r.set("target", target);
  OwnVictim own_victim;
  if (own && !start_own_victim(nonce, &own_victim, &ref, r)) {
    r.emit();
    return r.exit_code();
  }
  r.set("pid", static_cast<unsigned long>(ref.pid));
  std::set<std::string> found;
  std::string step;
  const DWORD err = reach(op, ref, &found, r, &step);
  if (err == 0 && own) {
    // Show the technique reached our own victim: the line it wrote when poked, or the suspension.
    const std::string token = breakout::own_token(nonce);
    if ((op == "create-thread" || op == "dup-handle") && own_victim.wait_for("poked", kWaitMs))
      std::printf("own victim %s\n", own_victim.line("poked").c_str());
    if (op == "open-thread") {
      UniqueHandle t(::OpenThread(THREAD_SUSPEND_RESUME, FALSE, ref.tid));
      if (t && ::ResumeThread(t.get()) == 1) std::printf("own victim suspended %s\n", token.c_str());
    }
  }
  for (const auto& t : found) std::printf("found %s\n", t.c_str());
  r.set("found", found.size());
  if (err == 0) r.succeed();
  else fail_win32(r, step, err);
  std::fflush(stdout);
  r.emit();
  return r.exit_code();
}
