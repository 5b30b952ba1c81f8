// Internal to the Windows platform layer: CreateProcessW with an explicit inherited-handle list, started inside a job.
//
// Microsoft Learn, "UpdateProcThreadAttribute": with PROC_THREAD_ATTRIBUTE_HANDLE_LIST
// only the listed handles are inherited, even with bInheritHandles TRUE; they must
// be inheritable and not pseudo handles. So concurrent launches in the harness
// never leak each other's pipes, whatever else is inheritable at that moment.
// The child is created CREATE_SUSPENDED, assigned to the job, then resumed, so
// it cannot start a grandchild outside the job ("Job Objects").
#pragma once

#include <windows.h>

#include <string>
#include <vector>

#include "harness/core/env_block.h"
#include "harness/platform/process.h"
#include "harness/platform/win/job.h"
#include "harness/platform/win/unique_handle.h"

namespace breakout::win {

struct Child {
  UniqueHandle process;
  DWORD pid = 0;
};

// Starts spec.argv (command line per core/win_cmdline.h, environment exactly
// spec.env as a sorted UTF-16 block, cwd spec.cwd) with in/out/err as its
// standard handles, inheriting exactly those plus `extra_inherit` (all must be
// inheritable). Throws Error ("[win32] ...", "[bad-argv0] ...", "[not-found] ...");
// a process created before the failure is terminated first.
Child launch_in_job(const LaunchSpec& spec, const JobObject& job, HANDLE in, HANDLE out, HANDLE err,
                    const std::vector<HANDLE>& extra_inherit = {});

// "NAME=value" strings (LaunchSpec::env) as entries for env_block::encode_windows; throws Error("bad-env-entry", "...").
env_block::Entries split_env(const std::vector<std::string>& env);

// argv[0] as CreateProcessW's lpApplicationName: a path is used as given (".exe"
// appended when it names no file); a bare name is searched on PATH from
// spec.env (names are case-insensitive), else on ours. Throws Error("not-found", "...").
std::wstring resolve_program(const std::string& arg0, const std::vector<std::string>& env);

}  // namespace breakout::win
