// What the spawner itself leaves on the host: entries it created in the shared temp directories
// (or in a directory already there) that outlive the run, and its own processes still running once its command ended.
//
// A hygiene finding reported beside the verdicts, never an attempt's verdict: what the
// sandbox's own setup leaves is charged to the spawner, not to the probe (seen here:
// sandbox-runtime leaves /tmp/claude-http-*.sock and a socat per spawn; Codex its
// /tmp/codex-* state). Everything found is removed (files at the end of the run, processes
// with the attempt's box), also when the run is interrupted.
//
//   std::string why;
//   auto watch = ResidueWatch::start(probes_dir, work_root, &why);  // null: why says what is missing
//   watch->enroll(box, ex.id);  ...  watch->before_kill(box, ex.id);  box.kill_all();
//   ResidueFindings f = watch->finish();                  // removes the files it lists
#pragma once

#include <cstddef>
#include <filesystem>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/platform/process.h"

namespace breakout {

// An entry a spawner process created in a watched directory and left there.
struct ResidueFile {
  std::string path;       // as created (printable; the raw name is kept only for removal)
  std::string kind;       // file, directory, socket, fifo, symlink, other
  std::string creator;    // the creating process's comm(5), printable
  std::string execution;  // the execution whose box held the creator
  bool removed = false;   // by the harness at the end of the run
};

// A spawner process still running once the spawn ended (its command returned, or was killed):
// in the box (the box kills it), or outside it, a descendant of the box's processes that left
// the box's cgroup (the harness kills it; a process started for the spawner by a host service,
// systemd or D-Bus activation, has no such ancestry and is not seen).
struct ResidueProcess {
  std::string comm;       // comm(5), printable
  int pid = 0;
  std::string execution;
  int probes_alive = 0;   // the attempt's own probe processes still alive beside it (their oracles judge them)
  bool outside_box = false;
  bool killed = false;    // gone when the harness looked again after its SIGKILL (in the box: the box's kill)
};

struct ResidueFindings {
  std::string unavailable;            // why nothing was watched ("" when it was)
  std::vector<std::string> watched;   // directories watched
  std::size_t subdirs_watched = 0;    // directories already in them at the start, watched too
  std::vector<ResidueFile> files;     // at most kMaxResidueItems each
  std::vector<ResidueProcess> processes;
  std::size_t files_total = 0, processes_total = 0;
  // Entries created while the run was on whose creator exited before it could be identified:
  // counted, never attributed or removed (they may be a stranger's).
  std::size_t unidentified = 0;
  bool overflowed = false;            // the kernel dropped events: the list may miss some
};
inline constexpr std::size_t kMaxResidueItems = 500;

// One line of the report: entries or processes whose names differ only in numbers and tokens.
struct ResidueGroup {
  std::string kind;                    // "file", "process" or "process outside the box"
  std::string pattern;                 // /tmp/claude-http-*.sock, socat
  std::size_t count = 0, removed = 0;  // removed: files the harness deleted, processes it killed
  std::vector<std::string> executions; // the first few, in order
};

// Digit runs become N, alphanumeric tokens of 6+ characters holding a digit become *.
std::string residue_pattern(const std::string& name);
std::vector<ResidueGroup> group_residue(const ResidueFindings& f);

// Adds a shard's findings (breakout merge): lists concatenated within kMaxResidueItems, totals
// summed; a shard that was not watched makes the whole `unavailable` (it names that shard's reason).
void merge_residue(ResidueFindings& into, const ResidueFindings& from);

// Plain-text report lines, one per group, then what limits the watch (unavailable, unidentified,
// dropped events); empty when it watched and found nothing. Markup escaping is the caller's.
std::vector<std::string> residue_lines(const ResidueFindings& f);

nlohmann::json residue_json(const ResidueFindings& f);
ResidueFindings residue_from_json(const nlohmann::json& j);  // tolerant: missing fields stay empty

// The watcher of one run (platform code: host/posix/residue_watch.cc, host/win/residue_watch.cc).
class ResidueWatch {
 public:
  // Starts watching /tmp, /dev/shm and /run, and the directories already in them (at most 256),
  // for entries created inside them. `probes_dir` names the probe binaries: what a probe creates
  // is its attempt's business, not residue. `own_root` (the run's work root) is not watched inside:
  // the harness removes it. Null, with `why_not` set, where the platform or the privileges do not
  // allow it.
  static std::unique_ptr<ResidueWatch> start(const std::filesystem::path& probes_dir,
                                             const std::filesystem::path& own_root, std::string* why_not);
  virtual ~ResidueWatch() = default;

  // From now on, what processes in `box` create is charged to `execution`.
  virtual void enroll(const Containment& box, const std::string& execution) = 0;
  // Called once the spawn is over, before the box is emptied: reads the events so far (their
  // creators are still alive) and records the box's processes that are not probes.
  virtual void before_kill(const Containment& box, const std::string& execution) = 0;
  // Stops watching, removes the listed entries still there (the same inode, never followed),
  // and returns the findings. Later calls return the same findings.
  virtual ResidueFindings finish() = 0;
};

// One attempt's enrolment: `spawn_over()` before the box is emptied, or on the way out of an
// attempt that ended early (a skip, an error), so its creators are identified while alive.
class ResidueEnrollment {
 public:
  ResidueEnrollment(ResidueWatch* watch, const Containment& box, std::string execution)
      : watch_(watch), box_(box), execution_(std::move(execution)) {
    if (watch_) watch_->enroll(box_, execution_);
  }
  ~ResidueEnrollment() {
    try {
      spawn_over();
    } catch (...) {  // on the way out of a failed attempt: its own error is the one to report
    }
  }
  ResidueEnrollment(const ResidueEnrollment&) = delete;
  ResidueEnrollment& operator=(const ResidueEnrollment&) = delete;
  void spawn_over() {
    if (watch_) watch_->before_kill(box_, execution_);
    watch_ = nullptr;
  }

 private:
  ResidueWatch* watch_;
  const Containment& box_;
  std::string execution_;
};

}  // namespace breakout
