// Windows implementation of the host facts in platform/os.h (enough for the portable core; the rest lands with the Windows issue).
#include "harness/platform/os.h"

#include <windows.h>

#include <csignal>
#include <cstdlib>
#include <sstream>

namespace breakout {

namespace fs = std::filesystem;

std::optional<std::string> find_on_path(const std::string& tool) {
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path ? path : "");
  for (std::string dir; std::getline(dirs, dir, ';');) {
    for (const char* ext : {"", ".exe"}) {
      const fs::path candidate = fs::path(dir) / (tool + ext);
      std::error_code ec;
      if (fs::is_regular_file(candidate, ec)) return candidate.string();
    }
  }
  return std::nullopt;
}

std::optional<std::string> find_executable(const std::string& program, const std::string& search_path) {
  auto runnable = [](const fs::path& p) -> std::optional<std::string> {
    for (const char* ext : {"", ".exe"}) {
      const fs::path candidate = fs::path(p) += ext;
      std::error_code ec;
      if (fs::is_regular_file(candidate, ec)) return candidate.string();
    }
    return std::nullopt;
  };
  if (program.empty()) return std::nullopt;
  if (program.find_first_of("/\\:") != std::string::npos) return runnable(program);
  std::stringstream dirs(search_path);
  for (std::string dir; std::getline(dirs, dir, ';');)
    if (!dir.empty())
      if (auto found = runnable(fs::path(dir) / program)) return found;
  return std::nullopt;
}

std::string own_search_path() {
  const char* path = std::getenv("PATH");
  return path ? path : "";
}

std::string platform_name() { return "windows"; }
long self_pid() { return static_cast<long>(::GetCurrentProcessId()); }

bool exchange_names(const std::filesystem::path&, const std::filesystem::path&) { return false; }  // no atomic exchange
std::string kernel_release() { return "windows"; }
std::string host_name() {
  const char* n = std::getenv("COMPUTERNAME");
  return n ? n : "unknown";
}
fs::path self_exe_dir() {
  // Microsoft Learn, "GetModuleFileNameW": the return value equals the buffer size when truncated.
  std::wstring buf(1024, L'\0');
  for (int tries = 0; tries < 4; ++tries) {
    const DWORD n = ::GetModuleFileNameW(nullptr, buf.data(), static_cast<DWORD>(buf.size()));
    if (n == 0) break;
    if (n < buf.size()) return fs::path(std::wstring_view(buf.data(), n)).parent_path();
    buf.resize(buf.size() * 4);
  }
  return fs::current_path();
}
bool is_tty(int) { return false; }

// Classes whose probes or oracles do not exist on Windows yet are skipped by the
// planner with their reason (scenario `platforms`, listener skip reasons).
std::optional<std::string> run_unsupported_reason() { return std::nullopt; }

// The default suite would be mostly skips here (Linux-only classes); this one lists what runs.
std::string default_suite_name() { return "windows"; }

std::map<std::string, std::string> caller_base_env(const fs::path& fake_home) {
  // Microsoft Learn, "Recognized environment variables": USERPROFILE is the profile
  // (home) directory; HOME is what ported tools (git, ssh) read. Both name the fake home,
  // so a probe that asks for its home never reaches the real one.
  const char* root = std::getenv("SystemRoot");
  const std::string system_root = root != nullptr && *root != '\0' ? root : "C:\\windows";
  return {{"PATH", system_root + "\\system32;" + system_root},
          {"SystemRoot", system_root},
          {"HOME", fake_home.string()},
          {"USERPROFILE", fake_home.string()}};
}

namespace {
std::atomic<bool>* g_interrupted = nullptr;
extern "C" void on_interrupt(int) {
  if (g_interrupted) g_interrupted->store(true);
}
}  // namespace

void install_interrupt_flag(std::atomic<bool>* flag) {
  g_interrupted = flag;
  std::signal(SIGINT, on_interrupt);
}

}  // namespace breakout
