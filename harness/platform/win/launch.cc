// CreateProcessW suspended, with STARTUPINFOEX + PROC_THREAD_ATTRIBUTE_HANDLE_LIST, into a job, then resumed (see launch.h).
#include "harness/platform/win/launch.h"

#include <cstdlib>
#include <filesystem>
#include <memory>

#include "harness/core/env_block.h"
#include "harness/core/error.h"
#include "harness/core/win_cmdline.h"
#include "harness/platform/win/win_util.h"

namespace breakout::win {

namespace fs = std::filesystem;

// A Windows name may start with '=' ("=C:", the per-drive current directories), so the
// name ends at the first '=' after its first character.
env_block::Entries split_env(const std::vector<std::string>& env) {
  env_block::Entries out;
  for (const std::string& kv : env) {
    const std::size_t eq = kv.size() < 2 ? std::string::npos : kv.find('=', 1);
    check(eq != std::string::npos, "bad-env-entry", "'" + kv.substr(0, 80) + "' is not NAME=value");
    out.emplace_back(kv.substr(0, eq), kv.substr(eq + 1));
  }
  return out;
}

namespace {

bool is_file(const fs::path& p) {
  std::error_code ec;
  return fs::is_regular_file(p, ec);
}

// The attribute list of STARTUPINFOEXW: sized by a first call, then initialized
// (Microsoft Learn, "InitializeProcThreadAttributeList"); deleted exactly once.
class AttributeList {
 public:
  explicit AttributeList(DWORD count) {
    SIZE_T size = 0;
    ::InitializeProcThreadAttributeList(nullptr, count, 0, &size);  // ERROR_INSUFFICIENT_BUFFER, by design
    storage_ = std::make_unique<char[]>(size);
    list_ = reinterpret_cast<LPPROC_THREAD_ATTRIBUTE_LIST>(storage_.get());
    if (!::InitializeProcThreadAttributeList(list_, count, 0, &size)) {
      list_ = nullptr;
      throw_last_error("InitializeProcThreadAttributeList");
    }
  }
  ~AttributeList() {
    if (list_ != nullptr) ::DeleteProcThreadAttributeList(list_);
  }
  AttributeList(const AttributeList&) = delete;
  AttributeList& operator=(const AttributeList&) = delete;
  LPPROC_THREAD_ATTRIBUTE_LIST get() const { return list_; }

 private:
  std::unique_ptr<char[]> storage_;
  LPPROC_THREAD_ATTRIBUTE_LIST list_ = nullptr;
};

// Terminates a created-but-not-yet-handed-over process when launching fails half way.
struct KillUnlessReleased {
  HANDLE process;
  ~KillUnlessReleased() {
    if (process != nullptr) ::TerminateProcess(process, kKilledExitCode);
  }
};

}  // namespace

std::wstring resolve_program(const std::string& arg0, const std::vector<std::string>& env) {
  check(!arg0.empty(), "not-found", "argv[0] is empty");
  if (arg0.find_first_of("\\/:") != std::string::npos) {
    const fs::path p(wide(arg0));
    if (!is_file(p) && !p.has_extension() && is_file(fs::path(p).concat(L".exe")))
      return fs::path(p).concat(L".exe").wstring();
    return p.wstring();  // CreateProcessW reports what is wrong with it
  }
  const env_block::Entries entries = split_env(env);
  std::string path;
  if (const std::string* v = env_block::find_windows(entries, "PATH")) {
    path = *v;
  } else if (const char* ours = std::getenv("PATH")) {
    path = ours;
  }
  std::size_t start = 0;
  for (;;) {
    const std::size_t semi = path.find(';', start);
    const std::string dir = path.substr(start, semi == std::string::npos ? std::string::npos : semi - start);
    if (!dir.empty()) {
      const fs::path base = fs::path(wide(dir)) / wide(arg0);
      if (is_file(fs::path(base).concat(L".exe"))) return fs::path(base).concat(L".exe").wstring();
      if (base.has_extension() && is_file(base)) return base.wstring();
    }
    if (semi == std::string::npos) break;
    start = semi + 1;
  }
  throw Error("not-found", "'" + arg0 + "' not found on PATH (" + path + ")");
}

Child launch_in_job(const LaunchSpec& spec, const JobObject& job, HANDLE in, HANDLE out, HANDLE err,
                    const std::vector<HANDLE>& extra_inherit) {
  check(!spec.argv.empty(), "bad-argv", "empty argv");
  check(spec.inherit_fds.empty() && spec.controlling_tty.empty() && spec.bind_over.empty() &&
            !spec.user_namespaces_off,
        "unsupported", "inherit_fds, controlling_tty, bind_over and user_namespaces_off are POSIX only");
  const std::wstring program = resolve_program(
      spec.argv[0], spec.lookup_path ? std::vector<std::string>{"PATH=" + *spec.lookup_path} : spec.env);
  std::wstring cmdline = wide(build_windows_command_line(spec.argv));  // CreateProcessW may write to it
  const std::u16string env = env_block::encode_windows(split_env(spec.env));
  const std::wstring cwd = spec.cwd.empty() ? std::wstring() : wide(spec.cwd);

  std::vector<HANDLE> inherit = {in, out, err};
  inherit.insert(inherit.end(), extra_inherit.begin(), extra_inherit.end());
  AttributeList attrs(1);
  if (!::UpdateProcThreadAttribute(attrs.get(), 0, PROC_THREAD_ATTRIBUTE_HANDLE_LIST, inherit.data(),
                                   inherit.size() * sizeof(HANDLE), nullptr, nullptr))
    throw_last_error("UpdateProcThreadAttribute(HANDLE_LIST)");

  STARTUPINFOEXW si{};
  si.StartupInfo.cb = sizeof si;
  si.StartupInfo.dwFlags = STARTF_USESTDHANDLES;
  si.StartupInfo.hStdInput = in;
  si.StartupInfo.hStdOutput = out;
  si.StartupInfo.hStdError = err;
  si.lpAttributeList = attrs.get();
  PROCESS_INFORMATION pi{};
  // Microsoft Learn, "CreateProcessW": lpEnvironment is a UTF-16 block with
  // CREATE_UNICODE_ENVIRONMENT; EXTENDED_STARTUPINFO_PRESENT makes it read lpAttributeList.
  const DWORD flags = CREATE_SUSPENDED | CREATE_UNICODE_ENVIRONMENT | EXTENDED_STARTUPINFO_PRESENT;
  if (!::CreateProcessW(program.c_str(), cmdline.data(), nullptr, nullptr, TRUE, flags,
                        const_cast<char16_t*>(env.data()), cwd.empty() ? nullptr : cwd.c_str(),
                        &si.StartupInfo, &pi))
    throw_last_error("CreateProcessW " + narrow(program) + (cwd.empty() ? "" : " (cwd " + spec.cwd + ")"));
  Child child{UniqueHandle(pi.hProcess), pi.dwProcessId};
  UniqueHandle thread(pi.hThread);
  KillUnlessReleased guard{child.process.get()};
  job.assign(child.process.get());
  if (::ResumeThread(thread.get()) == static_cast<DWORD>(-1)) throw_last_error("ResumeThread");
  guard.process = nullptr;
  return child;
}

}  // namespace breakout::win
