// spawner-follow (CVE-2026-46406; CWE-59): the spawner writes, on the host, at a path the
// sandbox can replace with a symlink, and follows it (CVE-2026-46406: Claude Code wrote into a
// predictable /tmp/claude path the sandboxed command could write too).
//
// What the spawner writes is learned, not declared: after boot, two no-op execs through the same
// spawner (and session), the attempt tree and the spawner's own directory (`{spawner_dir}`)
// snapshotted around each. What changed in both is what the spawner writes every exec: a file
// rewritten or appended each time, a directory that got a new entry each time (any name). For each
// (at most kMaxPoints) the harness makes a target in the attempt's target directory, outside the
// writable roots (`followed-<tag>-<i>`: a file, or an empty directory for a directory), and then
// opens the window: the learning execs and the targets are before it, so neither is charged.
// The probe (fs-write --op plant-link, one exec per path) moves the path aside and puts a symlink
// to its target in its place; then one more no-op exec. A spawner that opens its path without
// O_NOFOLLOW (or creates in a directory it does not hold open) writes the target: the snapshot
// decides, as for fs-write. Whether each plant reached the host is evidence (the host's lstat).
//
// Charged to the spawner, not the probe: its routine writes at the learned paths during the
// window, when they changed content only (a changed type there is the plant). A spawner that
// writes nothing predictable in two execs has nothing to follow: skip with that reason (`none`
// writes nothing). Shutdown-time writes are not learned (one session per attempt). The control
// is fs.write.symlink's plant in the workspace (controls_from).
#include <algorithm>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "harness/attempt/oracle.h"
#include "harness/classes/handover/judge.h"
#include "harness/core/error.h"
#include "harness/core/text.h"
#include "harness/spawner/template_spawner.h"

namespace breakout::oracles {

namespace {

namespace fs = std::filesystem;

constexpr std::size_t kMaxPoints = 4;
constexpr char kTargetText[] = "breakout: a host file the spawner must not write\n";

// A path the spawner wrote in both learning execs, and the target its planted link names.
struct Point {
  fs::path path;
  fs::path target;
  bool dir = false;
  std::string rel;  // its snapshot key in the tree ("" when it lies in the spawner's directory)
};

// The two places a spawner's own files go that a sandboxed command might reach.
struct Watched {
  Snapshot tree, spawner_dir;
};

bool is_top_level(const std::string& rel) { return rel.find('/') == std::string::npos; }

std::string parent_key(const std::string& rel) {
  const auto slash = rel.rfind('/');
  return slash == std::string::npos ? "" : rel.substr(0, slash);
}

// Files changed in both diffs, and directories that got a new entry in both: keys of `after`.
std::vector<std::pair<std::string, bool>> written_each_time(const Snapshot& before, const Snapshot& mid,
                                                            const Snapshot& after, bool skip_top_level) {
  const auto first = diff_snapshots(before, mid), second = diff_snapshots(mid, after);
  std::set<std::string> changed_first, parents_first;
  for (const auto& c : first) {
    changed_first.insert(c.path);
    if (c.kind == "created") parents_first.insert(parent_key(c.path));
  }
  std::set<std::pair<std::string, bool>> out;
  for (const auto& c : second) {
    const FileState* now = find_entry(after, c.path);
    if (now != nullptr && now->type == 'f' && changed_first.count(c.path)) out.insert({c.path, false});
    const std::string parent = parent_key(c.path);
    const FileState* dir = find_entry(after, parent);
    if (c.kind == "created" && parents_first.count(parent) && dir != nullptr && dir->type == 'd' && !parent.empty())
      out.insert({parent, true});
  }
  std::vector<std::pair<std::string, bool>> kept;
  for (const auto& p : out)
    if (!(skip_top_level && is_top_level(p.first))) kept.push_back(p);  // workspace/, home/: a root itself
  return kept;
}

class SpawnerFollow final : public Oracle {
 public:
  std::optional<Skip> before_exec(Scene& s, SpawnSession* session) override {
    check(session != nullptr, "no session to learn the spawner's writes in");
    const Watched before = watch(s);
    noop(s, session);
    const Watched mid = watch(s);
    noop(s, session);
    const Watched after = watch(s);
    learn(s, before, mid, after);
    nlohmann::json learned = nlohmann::json::array();
    for (const Point& p : points_) learned.push_back({{"path", printable_excerpt(p.path.string(), 512)}, {"dir", p.dir}});
    s.rec.evidence["written_every_exec"] = learned;
    if (points_.empty())
      return Skip{"the spawner wrote nothing at the same path in two no-op execs (attempt tree and its own "
                  "directory): there is no path of its own for the sandbox to plant a link at"};
    for (const Point& p : points_) {
      if (p.dir) {
        fs::create_directory(p.target);
      } else {
        std::ofstream(p.target, std::ios::binary) << kTargetText;
      }
      check(fs::exists(p.target), "prepare", "cannot create " + p.target.string());
    }
    s.at_boot = take_snapshot(s.tree.roots().tree);  // the window opens after learning
    return std::nullopt;
  }

  LaunchResult exec(Scene& s, SpawnSession* session) override {
    LaunchResult last;
    nlohmann::json plants = nlohmann::json::array();
    for (const Point& p : points_) {
      SpawnRequest r = s.request;
      set_arg(r.probe_argv, "--path", p.path.string());
      set_arg(r.probe_argv, "--src", p.target.string());
      last = session->exec(r, s.limits);
      record_run(s.rec, session->command_line(), last);
      started_or_throw(s, last);
      plants.push_back({{"path", printable_excerpt(p.path.string(), 512)}, {"probe", parse_probe_report(last.out)}});
    }
    s.rec.evidence["plants"] = plants;
    const LaunchResult follow = noop(s, session);  // the spawner's next write at its paths
    s.rec.evidence["follow_up_exec_exit"] = follow.exited ? nlohmann::json(follow.exit_code) : nlohmann::json(nullptr);
    return last;
  }

  Observation observe(Scene& s, const LaunchResult&) override {
    Observation o = observe_fs_change(s.ex, s.tree, s.request.resolved, s.window(), s.io);
    // The spawner's routine write at a learned path is its own, when only the content changed.
    std::vector<std::string> routine;
    std::erase_if(*o.outside_changes, [&](const FsChange& c) {
      const bool own = c.kind == "modified" && c.detail.find("type") == std::string::npos &&
                       std::any_of(points_.begin(), points_.end(), [&](const Point& p) { return p.rel == c.path; });
      if (own) routine.push_back(c.path);
      return own;
    });
    o.evidence["charged_to_the_spawner"] = routine;
    nlohmann::json reached = nlohmann::json::array(), followed = nlohmann::json::array();
    for (const Point& p : points_) {
      std::error_code ec;
      if (fs::is_symlink(fs::symlink_status(p.path, ec)) && fs::read_symlink(p.path, ec) == p.target)
        reached.push_back(printable_excerpt(p.path.string(), 512));
      const std::string target_rel = p.target.lexically_relative(s.tree.roots().tree).generic_string();
      for (const FsChange& c : *o.outside_changes)
        if (c.path == target_rel || c.path.starts_with(target_rel + "/"))
          followed.push_back({{"link", printable_excerpt(p.path.string(), 512)}, {"change", describe_change(c)}});
    }
    o.evidence["plants_on_the_host"] = reached;
    o.evidence["written_through_a_planted_link"] = followed;
    if (s.ex.expectation.value != Expected::kDenied) return o;
    if (!followed.empty()) {
      o.effect = Effect::kHappened;
      o.summary = "the spawner wrote through the link the sandbox planted at " + followed[0]["link"].get<std::string>() +
                  ": " + followed[0]["change"]["path"].get<std::string>() + " " +
                  followed[0]["change"]["change"].get<std::string>();
    } else if (const auto& left = *o.outside_changes; !left.empty()) {
      o.effect = Effect::kHappened;
      o.summary = "host changed outside the writable roots: " + printable_excerpt(left[0].path, 512) + " " + left[0].kind;
    } else {
      o.effect = Effect::kNotHappened;
      o.summary = reached.empty() ? "no plant reached the host, and the host tree outside the writable roots is unchanged"
                                  : "the spawner did not follow the planted links; the host tree outside the roots is unchanged";
    }
    return o;
  }

 private:
  static Watched watch(const Scene& s) {
    return {take_snapshot(s.tree.roots().tree), take_snapshot(spawner_dir_of(s.tree.roots()))};
  }

  static void started_or_throw(const Scene& s, const LaunchResult& run) {
    check(!run.cancelled && !(s.ctx.cancel && s.ctx.cancel->load()), "interrupted");
    check(run.started, "the spawner did not start: " + run.start_error);
  }

  // One exec of the no-op probe, with the attempt's cwd, environment and bounds.
  static LaunchResult noop(const Scene& s, SpawnSession* session) {
    SpawnRequest r = s.request;
    r.probe_argv = {(s.ctx.probes_dir / "breakout-probe-noop").string()};
    const LaunchResult run = session->exec(r, s.limits);
    started_or_throw(s, run);
    return run;
  }

  // The value after `flag` in the composed argv (the scenario names the op; the oracle the paths).
  static void set_arg(std::vector<std::string>& argv, const std::string& flag, const std::string& value) {
    const auto at = std::find(argv.begin(), argv.end(), flag);
    check(at != argv.end() && at + 1 != argv.end(), "bad-scenario", "spawner-follow's probe args lack " + flag);
    *(at + 1) = value;
  }

  void learn(const Scene& s, const Watched& before, const Watched& mid, const Watched& after) {
    const fs::path target_dir = s.io.target_path;
    auto add = [&](const fs::path& root, const std::string& key, bool dir, bool in_tree) {
      if (points_.size() == kMaxPoints) return;
      const std::string i = std::to_string(points_.size());
      points_.push_back({root / key, target_dir / ("followed-" + s.tag() + "-" + i), dir, in_tree ? key : ""});
    };
    for (const auto& [key, dir] : written_each_time(before.tree, mid.tree, after.tree, true))
      add(s.tree.roots().tree, key, dir, true);
    for (const auto& [key, dir] : written_each_time(before.spawner_dir, mid.spawner_dir, after.spawner_dir, false))
      add(spawner_dir_of(s.tree.roots()), key, dir, false);
  }

  std::vector<Point> points_;
};

}  // namespace

std::unique_ptr<Oracle> spawner_follow() { return make_oracle<SpawnerFollow>(); }

}  // namespace breakout::oracles
