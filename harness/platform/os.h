// Small facts about the host the harness runs on (one implementation per platform).
#pragma once

#include <filesystem>
#include <optional>
#include <atomic>
#include <string>

namespace breakout {

std::optional<std::string> find_on_path(const std::string& tool);  // absolute path or nullopt
std::string platform_name();     // "linux" or "windows"
std::string kernel_release();    // uname -r, or the Windows build
std::string host_name();
std::filesystem::path self_exe_dir();  // directory of the running breakout binary
bool is_tty(int fd);
// Why `breakout run` cannot attack a sandbox on this platform yet, or nullopt.
std::optional<std::string> run_unsupported_reason();
// Installs SIGINT/SIGTERM handling: the first signal sets `flag` (the run then
// unwinds and cleans up); a second one exits at once.
void install_interrupt_flag(std::atomic<bool>* flag);
}  // namespace breakout
