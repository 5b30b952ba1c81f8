// `breakout repro ARTIFACT`: rerun a live-fuzzer find once and say it in plain words; `--save` makes it a regression.
#pragma once

#include <CLI/CLI.hpp>

#include <memory>
#include <optional>

#include "harness/cli/bench_cmd.h"

namespace breakout {

struct ReproCommand;
std::shared_ptr<ReproCommand> add_repro_command(CLI::App& app);

// The exit status when `repro` was given, nullopt otherwise: 3 the escape reproduces,
// 0 it does not, 1 it escaped with a broken control or errored, 2 usage, 130 interrupted.
std::optional<int> run_repro_command(const ReproCommand& cmd, const BenchDirs& dirs);

}  // namespace breakout
