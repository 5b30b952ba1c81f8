// Live escape fuzzing: each input is a (policy, operation, target, path form, env, cwd, PATH) case run through the REAL spawner.
//
// The bytes decode with harness/live/live_case.h (the same decoder as `breakout
// repro`); the case runs through plan → run_attempt → outside oracles against
// the spawner named by BREAKOUT_LIVE_DRIVER (a driver command) or
// BREAKOUT_LIVE_SPAWNER (none, bwrap, a profile; default bwrap), or the flags
// --driver=CMD / --spawner=NAME (libFuzzer passes "--" flags through). A
// confirmed escape (the target escaped AND its workspace control passed) is
// printed in plain words and traps, so libFuzzer writes the artifact; a broken
// control is neither escape nor pass. What happened (verdict, errno class,
// which form and target, cwd and PATH entry) feeds libFuzzer's extra counters,
// so inputs that make the sandbox answer differently are kept. Proxy cases get
// the external host, its listeners and the name server on their first input.
// Every attempt gets its own tree and fake HOME under one work root; the root and
// the external host's namespace are removed at exit, before a trap, and on Ctrl-C
// (libFuzzer's SIGINT handler _Exits, so ours replaces it on the first input).
// Docs: docs/fuzzing.md.
#include <malloc.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>

#include "harness/paths/attempt_tree.h"
#include "harness/attempt/work_root.h"
#include "harness/core/nonce.h"
#include "harness/core/text.h"
#include "harness/live/live_run.h"
#include "harness/host/spawner_residue.h"
#include "harness/platform/os.h"
#include "harness/spawner/driver_spawner.h"
#include "harness/spawner/spawner.h"

#ifndef BREAKOUT_DATA_DIR
#define BREAKOUT_DATA_DIR "."
#endif

using namespace breakout;
namespace fs = std::filesystem;

namespace {

// Upper bounds of the decoder's tables (live_case.h; checked once in LLVMFuzzerInitialize):
// operations, targets or proxy spellings, path forms, cwds, PATH entries.
constexpr std::size_t kOps = 8, kTargets = 16, kForms = 16, kCwds = 4, kPaths = 8;
constexpr std::size_t kVerdicts = 6, kErrnoClasses = 8;

// libFuzzer reads this section as extra coverage (FuzzerExtraCounters.cpp): one byte per
// (op, form, verdict, errno class), per (op, target, verdict), and per (cwd, PATH entry,
// verdict, errno class); the indices are the case's canonical bytes (encode_live_case).
constexpr std::size_t kFormBlock = kOps * kForms * kVerdicts * kErrnoClasses;
constexpr std::size_t kTargetBlock = kOps * kTargets * kVerdicts;
constexpr std::size_t kExecBlock = kCwds * kPaths * kVerdicts * kErrnoClasses;
constexpr std::size_t kCounterBytes = kFormBlock + kTargetBlock + kExecBlock;
__attribute__((used, section("__libfuzzer_extra_counters"))) std::uint8_t g_counters[kCounterBytes];

std::atomic<bool> g_cancel{false};
std::string g_spawner_flag, g_driver_flag;

struct Live {
  std::unique_ptr<Spawner> spawner;
  std::unique_ptr<WorkRoot> work;
  std::unique_ptr<TreePool> trees;  // a pointer: Live is returned by value below
  std::unique_ptr<LiveNetwork> network;  // made for the first proxy case
  std::unique_ptr<ResidueWatch> residue;  // the spawner's leftovers, removed at the end
  LiveSetup setup;
};

std::string env_or(const char* name, const std::string& fallback) {
  const char* v = std::getenv(name);
  return v && *v ? v : fallback;
}

Live& live() {
  static Live l = [] {
    Live x;
    const fs::path data = BREAKOUT_DATA_DIR;
    const std::string driver = g_driver_flag.empty() ? env_or("BREAKOUT_LIVE_DRIVER", "") : g_driver_flag;
    if (!driver.empty()) {
      DriverSettings s;
      s.argv = split_command_line(driver);
      x.spawner = make_driver_spawner(s);
    } else {
      const std::string name = g_spawner_flag.empty() ? env_or("BREAKOUT_LIVE_SPAWNER", "bwrap") : g_spawner_flag;
      x.spawner = make_spawner(name, env_or("BREAKOUT_LIVE_SPAWNERS", (data / "spawners").string()));
    }
    if (auto why = x.spawner->unavailable_reason()) {
      std::fprintf(stderr, "live_fuzzer: spawner %s unavailable: %s\n", x.spawner->name().c_str(), why->c_str());
      std::exit(2);
    }
    x.work = std::make_unique<WorkRoot>("live-" + random_hex(8));
    x.setup.spawner = x.spawner.get();
    x.setup.probes_dir = env_or("BREAKOUT_LIVE_PROBES", (data / "build" / "bin").string());
    x.setup.work_root = x.work->path();
    x.setup.policies = load_live_policies(env_or("BREAKOUT_LIVE_SCENARIOS", (data / "scenarios").string()));
    x.setup.cancel = &g_cancel;
    // Trees recycled, not deleted and rebuilt per attempt (tree.h: ext4's inode allocator);
    // BREAKOUT_LIVE_TREE_POOL=0 builds each afresh (A/B measurements, docs/fuzzing.md).
    const std::string pool = env_or("BREAKOUT_LIVE_TREE_POOL", "1");
    if (pool != "0") x.trees = std::make_unique<TreePool>();
    x.setup.tree_pool = x.trees.get();
    // BREAKOUT_LIVE_RESIDUE=0 leaves the spawner's residue unwatched (A/B measurements only: what
    // it leaves then stays on the host).
    std::string residue_why = "BREAKOUT_LIVE_RESIDUE=0";
    if (env_or("BREAKOUT_LIVE_RESIDUE", "1") != "0")
      x.residue = ResidueWatch::start(x.setup.probes_dir, x.setup.work_root, &residue_why);
    x.setup.residue = x.residue.get();
    if (!x.residue) std::fprintf(stderr, "live_fuzzer: the spawner's residue is not watched: %s\n", residue_why.c_str());
    std::fprintf(stderr, "live_fuzzer: spawner %s, probes %s, work root %s, tree pool %s\n", x.spawner->name().c_str(),
                 x.setup.probes_dir.c_str(), x.setup.work_root.c_str(), x.setup.tree_pool ? "on" : "off");
    return x;
  }();
  return l;
}

std::size_t errno_class(const AttemptRecord& r) {
  std::string name;
  if (r.probe_report.is_object()) name = r.probe_report.value("errname", "");
  if (r.evidence.contains("fs_api")) name = r.evidence["fs_api"].value("refusal", "");
  if (name.empty()) return 0;
  auto has = [&](const char* a, const char* b) {
    return name.find(a) != std::string::npos || name.find(b) != std::string::npos;
  };
  if (has("EACCES", "PermissionError") || has("EPERM", "outside")) return 1;
  if (has("EROFS", "read-only")) return 2;
  if (has("ENOENT", "FileNotFound")) return 3;
  if (has("EXDEV", "cross-device")) return 4;
  if (has("ELOOP", "ENOTDIR") || has("NotADirectory", "symbolic link")) return 5;
  if (has("EISDIR", "IsADirectory")) return 6;
  return 7;
}

void count(std::size_t at) {
  if (at < kCounterBytes && g_counters[at] < 255) ++g_counters[at];
}

void feed_counters(const LiveCase& c, const AttemptRecord& r) {
  const std::vector<std::uint8_t> b = encode_live_case(c);  // canonical: bytes a case ignores are 0
  const std::size_t op = b[1] % kOps, target = b[2] % kTargets, form = b[3] % kForms;
  const std::size_t cwd = b[5] % kCwds, path = b[6] % kPaths;
  const std::size_t verdict = static_cast<std::size_t>(r.verdict) % kVerdicts, err = errno_class(r);
  count(((op * kForms + form) * kVerdicts + verdict) * kErrnoClasses + err);
  count(kFormBlock + (op * kTargets + target) * kVerdicts + verdict);
  count(kFormBlock + kTargetBlock + ((cwd * kPaths + path) * kVerdicts + verdict) * kErrnoClasses + err);
}

// What must not outlive the process: the external host's namespace (with the listeners and the
// name server in it), the work root, and what the spawner left (its files, its processes outside
// the box). _Exit and the trap run no destructors, so by hand. Idempotent.
void tear_down() {
  Live& l = live();
  if (l.residue) {
    for (const auto& line : residue_lines(l.residue->finish()))
      std::fprintf(stderr, "live_fuzzer: left behind by the spawner itself (removed): %s\n", line.c_str());
    l.setup.residue = nullptr;
    l.residue.reset();
  }
  l.setup.network = nullptr;
  l.network.reset();
  l.work->remove();
}

[[noreturn]] void stop_interrupted() {
  tear_down();
  std::fprintf(stderr, "live_fuzzer: interrupted; attempt trees removed\n");
  std::_Exit(130);
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv) {
  if (all_path_forms().size() > kForms || live_cwds().size() > kCwds || live_path_entries().size() > kPaths ||
      live_proxy_spellings().size() > kTargets) {
    std::fprintf(stderr, "live_fuzzer: a live_case.h table outgrew its counter block\n");
    std::abort();
  }
  for (int i = 1; i < *argc; ++i) {
    const std::string a = (*argv)[i];
    if (a.rfind("--spawner=", 0) == 0) g_spawner_flag = a.substr(10);
    if (a.rfind("--driver=", 0) == 0) g_driver_flag = a.substr(9);
  }
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const bool handlers = [] {
    // glibc gave freed heap back (brk) and mapped/unmapped large buffers once per case, ~5 brk
    // and ~1 munmap per spawning case (strace -c, the 55 probe seeds); keeping up to 64 MiB
    // cut the harness's own CPU ~6 % (perf stat -i, three alternating pairs; mallopt(3)).
    mallopt(M_TRIM_THRESHOLD, 64 << 20);
    mallopt(M_MMAP_THRESHOLD, 32 << 20);
    install_interrupt_flag(&g_cancel);  // after libFuzzer's: ours unwinds the attempt first
    // Registered once live() is built, so it runs before live()'s destructor ([basic.start.term]),
    // never on a destroyed Live (libFuzzer exits through exit(3) after -max_total_time).
    (void)live();
    std::atexit(tear_down);
    return true;
  }();
  (void)handlers;
  if (g_cancel) stop_interrupted();
  Live& l = live();
  const LiveCase c = decode_live_case(data, size);
  if (is_proxy(c.op) && !l.network) {
    l.network = std::make_unique<LiveNetwork>(random_hex(8), l.work->path());
    l.setup.network = l.network.get();
  }
  const LiveOutcome o = run_live_case(c, l.setup);
  if (g_cancel) stop_interrupted();
  feed_counters(c, o.target);
  if (o.escape) {
    std::fprintf(stderr, "\nbreakout live fuzzer: ESCAPE through %s\n%s", l.spawner->name().c_str(),
                 describe_outcome(c, o).c_str());
    tear_down();
    std::fflush(stderr);
    __builtin_trap();  // libFuzzer: deadly signal -> crash-<sha1> artifact; `breakout repro` reruns it
  }
  return 0;
}
