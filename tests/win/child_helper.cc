// breakout-win-test-child: the child the Windows launcher tests start (what the probes cannot show: argv, env block, handles, grandchildren).
//
//   breakout-win-test-child argv                 each argument, as the C runtime (wmain) and CommandLineToArgvW split it
//   breakout-win-test-child env                  each entry of GetEnvironmentStringsW, in block order
//   breakout-win-test-child signal-handle H      SetEvent((HANDLE)H): an inherited event becomes signalled
//   breakout-win-test-child sleep MS [TAG]       sleeps MS ms, exits 0 (TAG: only on the command line)
//   breakout-win-test-child grandchild MS [hold|pipe]
//        starts "sleep MS" with no standard handles (STARTF_USESTDHANDLES with none:
//        Wine, like a console parent on Windows, would otherwise hand it ours),
//        prints its pid; "hold": sleeps MS itself too, else exits 0 at once;
//        "pipe": the grandchild inherits our stdout (it holds the harness's pipe)
//   breakout-win-test-child nested-job MS        starts "sleep MS" suspended, assigns it to a job of its own
//        (nested inside whatever job we are in), resumes it, prints its pid, exits 0
//   breakout-win-test-child echo                 LineChannel's peer: each stdin line back as "echo <line>",
//        "err <line>" on stderr; exits 0 at EOF, or 7 after a line "quit"
//   breakout-win-test-child line N               one line of N 'x' then sleeps 30 s (an over-long line)
//   breakout-win-test-child die-mid-line         writes "partial" without '\n', exits 3
//   breakout-win-test-child stderr-flood N       N bytes ("0123456789" repeated) on stderr, then "done" on stdout
// Strings are printed as hex of their WTF-8 bytes, one per line, so any
// character (newline, tab, lone surrogate) survives the trip. Exit: 0, 64 usage.
#include <windows.h>
#include <shellapi.h>

#include <cstdio>
#include <cwchar>
#include <string>

#include "harness/core/wtf8.h"

namespace {

void print_hex(const char* tag, const wchar_t* s, std::size_t n) {
  const std::string bytes =
      breakout::wtf8_from_utf16(std::u16string_view(reinterpret_cast<const char16_t*>(s), n));
  std::printf("%s ", tag);
  for (unsigned char c : bytes) std::printf("%02x", c);
  std::printf("\n");
}

int usage() {
  std::fprintf(stderr, "usage: breakout-win-test-child argv|env|signal-handle H|sleep MS|grandchild MS [hold]\n");
  return 64;
}

int spawn_sleeper(unsigned long ms, bool hand_down_stdout, bool own_job = false) {
  wchar_t self[MAX_PATH];
  ::GetModuleFileNameW(nullptr, self, MAX_PATH);
  std::wstring cmd = L"\"" + std::wstring(self) + L"\" sleep " + std::to_wstring(ms);
  STARTUPINFOW si{};
  si.cb = sizeof si;
  si.dwFlags = STARTF_USESTDHANDLES;
  const HANDLE out = ::GetStdHandle(STD_OUTPUT_HANDLE);
  if (hand_down_stdout) {
    ::SetHandleInformation(out, HANDLE_FLAG_INHERIT, HANDLE_FLAG_INHERIT);
    si.hStdOutput = out;
  }
  PROCESS_INFORMATION pi{};
  if (!::CreateProcessW(self, cmd.data(), nullptr, nullptr, hand_down_stdout, own_job ? CREATE_SUSPENDED : 0,
                        nullptr, nullptr, &si, &pi)) {
    std::printf("spawn failed %lu\n", ::GetLastError());
    return 1;
  }
  if (own_job) {  // deliberately leaked: the job lives until this process exits
    const HANDLE job = ::CreateJobObjectW(nullptr, nullptr);
    if (job == nullptr || !::AssignProcessToJobObject(job, pi.hProcess)) {
      std::printf("nested job failed %lu\n", ::GetLastError());
      ::TerminateProcess(pi.hProcess, 1);
      return 1;
    }
    ::ResumeThread(pi.hThread);
  }
  std::printf("grandchild %lu\n", pi.dwProcessId);
  std::fflush(stdout);
  ::CloseHandle(pi.hThread);
  ::CloseHandle(pi.hProcess);
  return 0;
}

}  // namespace

int wmain(int argc, wchar_t** argv) {
  if (argc < 2) return usage();
  const std::wstring mode = argv[1];
  if (mode == L"argv") {
    for (int i = 0; i < argc; ++i) print_hex("crt", argv[i], std::wcslen(argv[i]));
    int n = 0;
    wchar_t** shell = ::CommandLineToArgvW(::GetCommandLineW(), &n);
    for (int i = 0; shell != nullptr && i < n; ++i) print_hex("shell", shell[i], std::wcslen(shell[i]));
    ::LocalFree(shell);
    return 0;
  }
  if (mode == L"env") {
    wchar_t* block = ::GetEnvironmentStringsW();
    for (const wchar_t* e = block; e != nullptr && *e != L'\0'; e += std::wcslen(e) + 1) print_hex("env", e, std::wcslen(e));
    ::FreeEnvironmentStringsW(block);
    return 0;
  }
  if (mode == L"signal-handle" && argc == 3) {
    const HANDLE h = reinterpret_cast<HANDLE>(static_cast<std::uintptr_t>(std::wcstoull(argv[2], nullptr, 10)));
    if (::SetEvent(h)) std::printf("set\n");
    else std::printf("not set %lu\n", ::GetLastError());
    return 0;
  }
  if (mode == L"sleep" && (argc == 3 || argc == 4)) {  // a 4th argument is a tag for nonce_scan_test.cc
    ::Sleep(static_cast<DWORD>(std::wcstoul(argv[2], nullptr, 10)));
    return 0;
  }
  if (mode == L"grandchild" && argc >= 3) {
    const unsigned long ms = std::wcstoul(argv[2], nullptr, 10);
    const std::wstring how = argc >= 4 ? argv[3] : L"";
    const int rc = spawn_sleeper(ms, how == L"pipe");
    if (rc == 0 && how == L"hold") ::Sleep(ms);
    return rc;
  }
  if (mode == L"nested-job" && argc == 3) return spawn_sleeper(std::wcstoul(argv[2], nullptr, 10), false, true);
  if (mode == L"echo") {
    char line[4096];
    while (std::fgets(line, sizeof line, stdin) != nullptr) {
      std::string l(line);
      while (!l.empty() && (l.back() == '\n' || l.back() == '\r')) l.pop_back();
      if (l == "quit") return 7;
      std::printf("echo %s\n", l.c_str());
      std::fflush(stdout);
      std::fprintf(stderr, "err %s\n", l.c_str());
    }
    return 0;
  }
  if (mode == L"line" && argc == 3) {
    const std::string big(std::wcstoul(argv[2], nullptr, 10), 'x');
    std::fwrite(big.data(), 1, big.size(), stdout);
    std::fputc('\n', stdout);
    std::fflush(stdout);
    ::Sleep(30000);
    return 0;
  }
  if (mode == L"die-mid-line") {
    std::fputs("partial", stdout);
    std::fflush(stdout);
    return 3;
  }
  if (mode == L"stderr-flood" && argc == 3) {
    const unsigned long n = std::wcstoul(argv[2], nullptr, 10);
    std::string chunk;
    for (unsigned long i = 0; i < n; ++i) chunk.push_back(static_cast<char>('0' + i % 10));
    std::fwrite(chunk.data(), 1, chunk.size(), stderr);
    std::fflush(stderr);
    std::printf("done\n");
    return 0;
  }
  return usage();
}
