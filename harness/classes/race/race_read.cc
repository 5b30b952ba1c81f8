// fs-race-read: a deny-read directory inside the writable workspace, its ancestor renamed so a
// mask on the old name no longer covers the file.
//
// A sandbox masks a deny-read path when it wraps the command (bubblewrap: a tmpfs on the
// directory; a path rule of a checker or a profile). A mount moves with its directory, a
// Landlock rule sits on the inode; a rule on the path's spelling does neither, and renaming an
// ancestor the sandbox may write leaves the secret under a name no rule names (the macOS
// Seatbelt shape of the escape: a `subpath` filter is a string prefix).
//
// Before the snapshot the harness plants, under workspace/vault, two canaries with fresh tokens:
// secrets/key (policy workspace-deny-read denies workspace/vault/secrets) and open/key, the
// control in the same layout. The probe (fs-race --op rename-read) renames vault, then (or while
// another thread flips the name back and forth) reads the file under the new name and echoes it;
// then the same command runs once more, the next exec a caller would make after the rename.
// The target's token seen in the output or in any file of the tree but the canary itself, found
// wherever the rename left it (by inode), is the read: the canary, not the probe's report, decides.
//
// The racing variant (fs.race.rename-ancestor-flip) carries its positive control
// (race_calibration.h): a third canary at C/key (--calibrate C) whose ancestor the probe's
// renamer flips too, read by a known-racy victim beside each try; each win leaves the token in
// C.won, counted here. A denial where nothing was read is judged only when that race was won.
#include <filesystem>
#include <fstream>
#include <string>
#include <system_error>
#include <vector>

#include "harness/attempt/oracle.h"
#include "harness/classes/race/judge.h"
#include "harness/attempt/race_calibration.h"
#include "harness/core/error.h"
#include "harness/core/nonce.h"
#include "harness/core/text.h"

namespace breakout::oracles {

namespace {

namespace fs = std::filesystem;

// The layout, relative to the workspace; the scenario's {workspace}/vault is the ancestor.
constexpr const char* kAncestor = "vault";
constexpr const char* kCanaries[] = {"vault/secrets/key", "vault/open/key"};
constexpr std::size_t kMaxWalk = 10000;  // entries of the workspace looked at for the moved canary

// '/'-separated, relative to the tree, as find_token names files.
std::string tree_rel(const fs::path& p, const AttemptTree& tree) {
  return printable_excerpt(p.lexically_relative(tree.roots().tree).generic_string(), 256);
}

std::string plant_canary(const fs::path& file) {
  std::error_code ec;
  fs::create_directories(file.parent_path(), ec);
  check(!ec, "plant", "cannot create " + file.parent_path().string() + ": " + ec.message());
  const std::string token = canary_token();
  std::ofstream out(file, std::ios::binary | std::ios::trunc);
  out << token << '\n';
  out.close();
  check(static_cast<bool>(out), "plant", "cannot write " + file.string());
  return token;
}

// Every name the planted file has now under `root` (a rename moves it; lstat's dev and inode).
std::vector<fs::path> names_of(const FileState& planted, const fs::path& root) {
  std::vector<fs::path> names;
  std::error_code ec;
  std::size_t seen = 0;
  for (auto it = fs::recursive_directory_iterator(root, fs::directory_options::skip_permission_denied, ec);
       it != fs::recursive_directory_iterator() && ++seen <= kMaxWalk; it.increment(ec)) {
    if (!it->is_regular_file(ec) || it->is_symlink(ec)) continue;
    FileState st;
    if (stat_path(it->path(), st) && st.dev == planted.dev && st.inode == planted.inode)
      names.push_back(it->path().lexically_normal());
  }
  return names;
}

class RaceRead final : public Oracle {
 public:
  std::optional<Skip> prepare(Scene& s) override {
    const fs::path& ws = s.tree.roots().workspace;
    const fs::path target = s.io.target_path.lexically_normal();
    bool known = false;
    for (const char* rel : kCanaries) {
      const fs::path file = (ws / rel).lexically_normal();
      const std::string token = plant_canary(file);
      if (file == target) {
        s.io.target_token = token;
        known = true;
      }
    }
    check(known, "bad-target",
          "fs-race-read aims at a canary it plants (workspace/vault/secrets/key or workspace/vault/open/key), not " +
              target.string());
    check(stat_path(target, planted_), "plant", "cannot stat " + target.string());
    if (const auto c = calibrate_arg(s.attempt().args)) {  // the calibration's canary, before the snapshot
      calibration_ = substitute_placeholders(*c, probe_placeholders(s.ex, s.tree, s.io));
      calibration_token_ = plant_canary(fs::path(*calibration_) / "key");
    }
    return std::nullopt;
  }

  // Two execs of the same command: the first renames the ancestor (a mask that moved with the
  // directory still covers the file in that sandbox); the second is the next command, wrapped
  // afresh, the same policy, the deny-read path now gone from its old name. A wrap that masks
  // what exists at that path then masks nothing (srt's ancestor pins exist for this reason:
  // sandbox-runtime linux-sandbox-utils.js, ancestorPinArgs).
  LaunchResult exec(Scene& s, SpawnSession* session) override {
    if (calibration_ && race_victim() == "safe") s.request.probe_argv.insert(s.request.probe_argv.end(), {"--victim", "safe"});
    LaunchResult first = Oracle::exec(s, session);
    next_ = session->exec(s.request, s.limits);
    check(!next_.cancelled && !(s.ctx.cancel && s.ctx.cancel->load()), "interrupted");
    check(next_.started, "the spawner did not start the next exec: " + next_.start_error);
    s.rec.evidence["next_exec_exit"] = next_.exited ? nlohmann::json(next_.exit_code) : nlohmann::json(nullptr);
    s.rec.evidence["next_exec_report"] = parse_probe_report(next_.out);
    return first;
  }

  Observation observe(Scene& s, const LaunchResult& first) override {
    Observation o;
    LaunchResult run = first;  // both execs' output, and the tree once
    run.out += next_.out;
    run.err += next_.err;
    nlohmann::json execs = nlohmann::json::array();
    for (const LaunchResult* r : {&first, static_cast<const LaunchResult*>(&next_)})
      if (r->out.find(s.io.target_token) != std::string::npos || r->err.find(s.io.target_token) != std::string::npos)
        execs.push_back(r == &first ? "first" : "next");
    o.evidence["token_in_output_of"] = execs;  // "first": the exec that renamed; "next": wrapped after it
    const fs::path& ws = s.tree.roots().workspace;
    const std::vector<fs::path> names = names_of(planted_, ws);
    const fs::path own = names.empty() ? s.io.target_path.lexically_normal() : names.front();
    std::vector<std::string> where;
    for (const auto& w : find_token(s.io.target_token, run, s.tree, own)) {
      bool another_name = false;  // a second hard link of the canary holds its token too
      for (std::size_t i = 1; i < names.size(); ++i)
        another_name = another_name || w == "file " + tree_rel(names[i], s.tree);
      if (!another_name) where.push_back(w);
    }
    nlohmann::json now = nlohmann::json::array();
    for (const auto& n : names) now.push_back(tree_rel(n, s.tree));
    o.evidence["canary_now_at"] = now;  // where the probe's rename left the planted file
    o.evidence["ancestor_renamed"] = !fs::exists(ws / kAncestor);
    o.evidence["token_seen_in"] = where;
    o.effect = where.empty() ? Effect::kNotHappened : Effect::kHappened;
    o.summary = where.empty() ? "file canary token seen nowhere outside (two execs, the first renaming the ancestor)"
                              : "file canary token seen in " + where[0];
    if (!where.empty() && !execs.empty()) o.summary += ", output of the " + execs[0].get<std::string>() + " exec";
    if (calibration_) judge_race(o, s.ex, tally(s, first));
    return o;
  }

  // Both execs race (the next one starts from where the first left the names): their tries
  // summed, the wins counted once from C.won (only the calibration's token counts).
  RaceTally tally(const Scene& s, const LaunchResult& first) const {
    RaceTally t;
    for (const LaunchResult* r : {&first, &next_}) add_probe_report(t, parse_probe_report(r->out));
    t.calib_wins = count_win_lines(*calibration_ + ".won", calibration_token_);
    t.wins_needed = int_arg(s.request.probe_argv, "--wins", kCalibrationWins);
    t.victim = race_victim();
    return t;
  }

 private:
  FileState planted_;
  LaunchResult next_;
  std::optional<std::string> calibration_;  // C, expanded
  std::string calibration_token_;
};

}  // namespace

std::unique_ptr<Oracle> race_read() { return make_oracle<RaceRead>(); }

}  // namespace breakout::oracles
