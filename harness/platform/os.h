// Small facts about the host the harness runs on (one implementation per platform).
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <atomic>
#include <string>

namespace breakout {

std::optional<std::string> find_on_path(const std::string& tool);  // absolute path or nullopt
// `program` as a launcher finds it: a name with a directory part as given (relative to the cwd), a
// bare name in the directories of `search_path` (PATH syntax: ':'-separated, ';' on Windows). Only a
// regular file that is executable counts (Windows: also the name with ".exe" appended). nullopt: none.
std::optional<std::string> find_executable(const std::string& program, const std::string& search_path);
// The PATH breakout itself was started with ("" when unset): where a --driver program is looked up.
std::string own_search_path();
std::string platform_name();     // "linux" or "windows"
std::string kernel_release();    // uname -r, or the Windows build
std::string host_name();
std::filesystem::path self_exe_dir();  // directory of the running breakout binary
long self_pid();                        // the harness's own process id (getpid, GetCurrentProcessId)
// Swaps the two names in one step (Linux: renameat2 RENAME_EXCHANGE); false where the platform has
// no such call or it failed (Windows: none). A race's flipper uses it: one syscall per flip.
bool exchange_names(const std::filesystem::path& a, const std::filesystem::path& b);
bool is_tty(int fd);
// Why `breakout run` cannot attack a sandbox on this platform yet, or nullopt.
std::optional<std::string> run_unsupported_reason();
// The suite `breakout run` and `list` use when none is named: "default" on Linux,
// "windows" (only what runs there, scenarios/suites/windows.toml) on Windows.
std::string default_suite_name();
// The fixed part of the caller environment an attempt hands its spawner: a PATH
// and the attempt's fake home as the platform's home variables (HOME; on Windows
// also USERPROFILE, plus the SystemRoot a Windows process needs to load Winsock).
std::map<std::string, std::string> caller_base_env(const std::filesystem::path& fake_home);
// Installs SIGINT/SIGTERM handling: the first signal sets `flag` (the run then
// unwinds and cleans up); a second one exits at once.
void install_interrupt_flag(std::atomic<bool>* flag);
}  // namespace breakout
