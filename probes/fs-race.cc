// breakout-probe-fs-race: writes that a sandbox checking paths (not the kernel's walk at open)
// would let through, because the path changes between its check and the write (class fs-race;
// renameat2(2) RENAME_EXCHANGE; CWE-367; Codex's Windows smoke tests, symlink flip race).
// Bounded in count and time.
//
//   --op flip --path P --link L    L (in the workspace) is a symlink flipped, by a second thread,
//                                  between P and a decoy next to L (L.decoy), each flip one
//                                  rename(2) of a fresh link over L; the main thread opens L
//                                  (O_WRONLY|O_CREAT|O_APPEND) and writes one line, again and
//                                  again, until --tries opens or --budget-ms. A write through L
//                                  while it names P writes P.
//   --op exchange --path P --src S  renameat2(S, P, RENAME_EXCHANGE): S, a directory the probe
//                                  makes in the workspace with one file (exchanged-by-breakout),
//                                  and P, a directory elsewhere, swap names in one step. A
//                                  sandbox that checks "both are inside" by path before the call,
//                                  or one that only guards creations, lets P's contents leave.
//   --op rename-read --path P --ancestor A --moved M [--race]
//                                  P lies under A, a directory the sandbox may rename (inside the
//                                  workspace) that holds a deny-read directory. Once: rename(A, M),
//                                  then read P's counterpart under M (under A when the rename was
//                                  refused; under M when an earlier exec moved A: "already").
//                                  --race: a second thread renames A to M and back again
//                                  and again while the main thread reads P under both names, until
//                                  --tries reads (and kMinFlips renames) or --budget-ms, then A is
//                                  renamed to M once more (the race ends renamed). A mask on
//                                  A's old spelling that does not move with the directory covers
//                                  neither. The first content read is echoed (at most 4 KiB) as
//                                  BREAKOUT-ECHO-BEGIN\n<bytes>BREAKOUT-ECHO-END\n (fs-read's
//                                  form): only the harness's own canaries are aimed at.
//
//   --calibrate C [--wins K] [--victim racy|safe]   (flip, rename-read --race)
//                                  The race's positive control, run beside it by the same threads:
//                                  the flipper also flips C (flip: between C.ok/file and C.won; a
//                                  rename-read race: renames C to C.moved and back), and after each
//                                  try of the attempt a known-racy victim (common/race_victim.h)
//                                  makes one check-then-use try on C: flip: realpath(C) must lie in
//                                  C.ok, then C is opened again and a line appended; rename-read:
//                                  C.moved/key is read when the check finds it is not C/key (the
//                                  harness's canary), and on a win the bytes read are appended to
//                                  C.won. A line in C.won is a race won against that victim: the
//                                  harness counts them, from outside. The tries go on until the
//                                  victim lost K times (default 8) or --budget-ms, the cap.
//
// The opens start once the link has flipped and go on past N until it flipped kMinFlips times.
// Result fields: flip: tries, opened, refused (opens that failed), flips, first_error (errno
// name of the first failed open), elapsed_ms; exchange: made_src; rename-read: direct (P read
// before any rename: "ok" or its errno name, nothing echoed), renamed (once: "ok", "already" or
// the rename's errno name), rename_error (race: the first refused rename), read_via (the name the echoed bytes came through), tries, reads, refused,
// first_error, flips, elapsed_ms, calib_tries, calib_wins, victim, left_renamed (race: the rename back to M after the flips, so
// the race ends renamed), echoed (bytes). ok=true when at least one
// open (flip), the exchange or a read (rename-read) succeeded, as seen from inside. The verdict comes from the
// harness's snapshot of P, never from this.
// Exit: 0 ok, 1 failed attempt, 64 usage error. Only touches P, L (and L.decoy, L.flip), S and,
// for rename-read, the names A and M (it reads P, never writes it).
//
// POSIX only (Linux: renameat2).
#include <atomic>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include <fcntl.h>
#include <sched.h>
#include <linux/fs.h>  // RENAME_EXCHANGE
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "probes/common/args.h"
#include "probes/common/posix.h"
#include "probes/common/race_victim.h"
#include "probes/common/report.h"

using namespace breakout::probe;

namespace {

constexpr char kUsage[] =
    "usage: breakout-probe-fs-race --op flip --path P --link L [--tries N] [--budget-ms MS]\n"
    "       breakout-probe-fs-race --op exchange --path P --src S\n"
    "       breakout-probe-fs-race --op rename-read --path P --ancestor A --moved M [--race [--tries N] [--budget-ms MS]]\n"
    "  flip: L flips between P and L.decoy while the probe writes through L (N opens, at most MS)\n"
    "  exchange: renameat2(S, P, RENAME_EXCHANGE), S made in the workspace with one file\n"
    "  rename-read: rename(A, M), read P under M; --race: A and M flip while P is read under both\n"
    "  --calibrate C [--wins K] [--victim racy|safe]: the race beside it against a known-racy victim\n"
    "    (flip, rename-read --race), until it was won K times or MS\n"
    "  --witness W (any op): also leave the report line at W (the harness's in-run witness)\n";

constexpr char kLine[] = "breakout: written through a flipping link\n";

// The opens go on past --tries until the link has flipped this often (within --budget-ms): on a
// loaded machine the flipper may barely run during 2000 quick opens, and a race that never
// flipped has not been tried (neither an escape under `none` nor a pass anywhere).
constexpr long long kMinFlips = 64;

// Flips each link between its two names until told to stop: a fresh symlink at `link`.flip,
// renamed over `link` (atomic: every open of `link` sees one of the two, never no link). The
// first link is the attempt's, whose flips are counted; the others (the calibration's) flip in the
// same loop, so both races see the same flipper under the same load.
struct FlipLink {
  std::string link, a, b;
};

class Flipper {
 public:
  explicit Flipper(std::vector<FlipLink> links) : links_(std::move(links)), thread_([this] { run(); }) {}
  ~Flipper() {
    stop_ = true;
    thread_.join();
    for (const auto& l : links_) ::unlink((l.link + ".flip").c_str());
  }
  Flipper(const Flipper&) = delete;
  Flipper& operator=(const Flipper&) = delete;
  long long flips() const { return flips_.load(); }

 private:
  void run() {
    for (bool to_a = true; !stop_; to_a = !to_a) {
      for (std::size_t i = 0; i < links_.size(); ++i) {
        const FlipLink& l = links_[i];
        const std::string tmp = l.link + ".flip";
        ::unlink(tmp.c_str());
        if (::symlink((to_a ? l.a : l.b).c_str(), tmp.c_str()) != 0) continue;
        if (::rename(tmp.c_str(), l.link.c_str()) == 0 && i == 0) ++flips_;
      }
    }
  }

  const std::vector<FlipLink> links_;
  std::atomic<bool> stop_{false};
  std::atomic<long long> flips_{0};
  std::thread thread_;  // last: starts once the rest is set
};

// The calibration beside a race (--calibrate): its settings, and its counts as the probe saw them
// (display; the harness counts the wins itself from C.won).
struct Calibration {
  std::string prefix;  // C; empty: not calibrated
  long long wins_needed = 8;
  race::Victim victim = race::Victim::kRacy;
  long long tries = 0, wins = 0;
  bool on() const { return !prefix.empty(); }
  bool done() const { return !on() || wins >= wins_needed; }
  void report(ProbeReport& r) const {
    if (!on()) return;
    r.set("calib_tries", tries);
    r.set("calib_wins", wins);
    r.set("victim", std::string(victim == race::Victim::kSafe ? "safe" : "racy"));
  }
};

// A file at `path`, kept as it is when there (the calibration's targets exist before the race: the
// victim never creates; a second exec of the attempt adds to the first's wins).
int make_file(const std::string& path) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) return errno;
  ::close(fd);
  return 0;
}

void flip(ProbeReport& r, const std::string& path, const std::string& link, long long tries, long long budget_ms,
          Calibration& cal) {
  const std::string decoy = link + ".decoy";
  if (::symlink(decoy.c_str(), link.c_str()) != 0) return r.fail("symlink", errno);
  std::vector<FlipLink> links = {{link, path, decoy}};
  std::string allowed, won = cal.prefix + ".won";
  if (cal.on()) {  // C -> C.ok/file (the check passes) or C.won (a line there is a race won)
    const std::string ok_dir = cal.prefix + ".ok", ok_file = ok_dir + "/file";
    if (::mkdir(ok_dir.c_str(), 0755) != 0) return r.fail("mkdir", errno);
    if (const int err = make_file(ok_file); err != 0) return r.fail("calibrate", err);
    if (const int err = make_file(won); err != 0) return r.fail("calibrate", err);
    if (::symlink(ok_file.c_str(), cal.prefix.c_str()) != 0) return r.fail("symlink", errno);
    char real[PATH_MAX];
    if (::realpath(ok_dir.c_str(), real) == nullptr) return r.fail("realpath", errno);
    allowed = real;
    links.push_back({cal.prefix, ok_file, won});
  }
  static constexpr std::string_view kCalibLine = "breakout: calibration, written after the check\n";
  const std::int64_t start = now_ms();
  long long done = 0, opened = 0, refused = 0;
  int first_error = 0;
  long long flips = 0;
  {
    Flipper flipper(std::move(links));
    while (flipper.flips() == 0 && now_ms() - start < budget_ms) ::sched_yield();  // the race starts flipped
    for (; (done < tries || flipper.flips() < kMinFlips || !cal.done()) && now_ms() - start < budget_ms; ++done) {
      const int fd = ::open(link.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_NONBLOCK | O_CLOEXEC, 0644);
      if (fd < 0) {
        if (first_error == 0) first_error = errno;
        ++refused;
      } else {
        ++opened;
        write_all(fd, kLine, sizeof kLine - 1);  // the open is the step a sandbox refuses
        ::close(fd);
      }
      if (!cal.on()) continue;
      ++cal.tries;  // the same race, against the known-racy victim
      const race::WriteTry t = race::check_then_write(cal.prefix, allowed, kCalibLine, cal.victim);
      struct stat w{};
      if (t.outcome == race::Outcome::kWritten && ::stat(won.c_str(), &w) == 0 && w.st_ino == t.written.st_ino &&
          w.st_dev == t.written.st_dev)
        ++cal.wins;
    }
    flips = flipper.flips();
  }
  r.set("tries", done);
  r.set("opened", opened);
  r.set("refused", refused);
  r.set("flips", flips);
  r.set("first_error", first_error == 0 ? std::string() : errno_name(first_error));
  r.set("elapsed_ms", static_cast<long long>(now_ms() - start));
  cal.report(r);
  if (flips == 0) return r.fail("flip", EAGAIN);  // the flipper never ran within the budget
  if (opened > 0) return r.succeed();
  r.fail("open", first_error);
}

void exchange(ProbeReport& r, const std::string& path, const std::string& src) {
  const bool made = ::mkdir(src.c_str(), 0755) == 0;
  r.set("made_src", made);
  if (!made && errno != EEXIST) return r.fail("mkdir", errno);
  static constexpr char kMark[] = "breakout: this directory came from the workspace\n";
  const int fd = ::open((src + "/exchanged-by-breakout").c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return r.fail("open", errno);
  const int wrote = write_all(fd, kMark, sizeof kMark - 1);
  ::close(fd);
  if (wrote != 0) return r.fail("write", wrote);
  if (::syscall(SYS_renameat2, AT_FDCWD, src.c_str(), AT_FDCWD, path.c_str(), RENAME_EXCHANGE) != 0)
    return r.fail("renameat2", errno);
  r.succeed();
}

// rename-read: at most this much of P is read and echoed (the harness's canary is one line).
constexpr std::size_t kMaxEcho = 4096;

// Reads at most kMaxEcho bytes of `path`: 0 and the bytes, or the errno of the open or read.
int read_small(const std::string& path, std::string& data) {
  data.clear();
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) return errno;
  struct stat st{};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {  // a FIFO or device planted at P: not read
    ::close(fd);
    return EINVAL;
  }
  char buf[kMaxEcho];
  ssize_t n;
  while ((n = ::read(fd, buf, kMaxEcho - data.size())) < 0 && errno == EINTR) {
  }
  const int err = n < 0 ? errno : 0;
  ::close(fd);
  if (n > 0) data.assign(buf, static_cast<std::size_t>(n));
  return err;
}

void echo(ProbeReport& r, const std::string& via, const std::string& data) {
  r.set("read_via", via);
  r.set("echoed", static_cast<unsigned long long>(data.size()));
  std::fputs("BREAKOUT-ECHO-BEGIN\n", stdout);
  std::fwrite(data.data(), 1, data.size(), stdout);
  if (!data.empty() && data.back() != '\n') std::fputc('\n', stdout);
  std::fputs("BREAKOUT-ECHO-END\n", stdout);
}

// Renames each pair's first name to its second and back until told to stop. The first pair is
// the attempt's: each successful rename(2) of it is one flip, its first refusal recorded; the
// others (the calibration's) are renamed in the same loop, under the same load.
struct RenamePair {
  std::string a, b;
  bool forth = true;
};

class Renamer {
 public:
  explicit Renamer(std::vector<RenamePair> pairs) : pairs_(std::move(pairs)), thread_([this] { run(); }) {}
  ~Renamer() { stop(); }
  Renamer(const Renamer&) = delete;
  Renamer& operator=(const Renamer&) = delete;
  void stop() {
    if (!stop_.exchange(true)) thread_.join();
  }
  long long flips() const { return flips_.load(); }
  int first_error() const { return first_error_.load(); }

 private:
  void run() {
    while (!stop_) {
      for (std::size_t i = 0; i < pairs_.size(); ++i) {
        RenamePair& p = pairs_[i];
        if (::rename((p.forth ? p.a : p.b).c_str(), (p.forth ? p.b : p.a).c_str()) == 0) {
          if (i == 0) ++flips_;
          p.forth = !p.forth;
        } else if (errno == ENOENT) {
          p.forth = !p.forth;  // the other name is the one there (an earlier exec left it so)
        } else if (i == 0) {
          int none = 0;
          first_error_.compare_exchange_strong(none, errno);
          ::sched_yield();  // refused: do not spin the budget away
        }
      }
    }
  }

  std::vector<RenamePair> pairs_;
  std::atomic<bool> stop_{false};
  std::atomic<long long> flips_{0};
  std::atomic<int> first_error_{0};
  std::thread thread_;  // last: starts once the rest is set
};

// Appends `data` to `path` (the calibration's wins, for the harness to count).
void append(const std::string& path, const std::string& data) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC);
  if (fd < 0) return;
  write_all(fd, data.data(), data.size());
  if (!data.empty() && data.back() != '\n') write_all(fd, "\n", 1);
  ::close(fd);
}

void rename_read(ProbeReport& r, const std::string& path, const std::string& ancestor, const std::string& moved,
                 bool race, long long tries, long long budget_ms, Calibration& cal) {
  const std::string under_moved = moved + path.substr(ancestor.size());
  std::string data;
  const int direct = read_small(path, data);  // before any rename: evidence, never echoed
  r.set("direct", direct == 0 ? std::string("ok") : errno_name(direct));
  if (!race) {
    const int renamed = ::rename(ancestor.c_str(), moved.c_str()) == 0 ? 0 : errno;
    // ENOENT with M there: an earlier exec of the attempt moved A already; read under M.
    struct stat st{};
    const bool already = renamed == ENOENT && ::stat(moved.c_str(), &st) == 0;
    r.set("renamed", renamed == 0 ? std::string("ok") : already ? std::string("already") : errno_name(renamed));
    const std::string via = renamed == 0 || already ? under_moved : path;
    if (const int err = read_small(via, data); err != 0) return r.fail("read", err);
    echo(r, via, data);
    return r.succeed();
  }
  std::vector<RenamePair> pairs = {{ancestor, moved}};
  // The calibration: the harness planted C/key; C flips with C.moved, and the victim reads
  // C.moved/key when its check finds the name is not that file.
  const std::string calib_key = cal.prefix + "/key", calib_moved_key = cal.prefix + ".moved/key";
  const std::string won = cal.prefix + ".won";
  struct stat protected_file{};
  if (cal.on()) {
    // A second exec finds C where the first exec's flips left it: under C.moved, then moved back.
    if (::lstat(calib_key.c_str(), &protected_file) != 0 && errno == ENOENT)
      ::rename((cal.prefix + ".moved").c_str(), cal.prefix.c_str());
    if (::lstat(calib_key.c_str(), &protected_file) != 0) return r.fail("calibrate", errno);
    if (const int err = make_file(won); err != 0) return r.fail("calibrate", err);
    pairs.push_back({cal.prefix, cal.prefix + ".moved"});
  }
  const std::int64_t start = now_ms();
  long long done = 0, reads = 0, refused = 0, flips = 0;
  int first_error = 0, rename_error = 0;
  bool echoed = false;
  {
    Renamer renamer(std::move(pairs));
    // The race starts renamed; a rename the sandbox refuses (EBUSY at a pinned ancestor) leaves
    // the reads to run anyway, under both names, within the same bounds.
    while (renamer.flips() == 0 && renamer.first_error() == 0 && now_ms() - start < budget_ms) ::sched_yield();
    // A sandbox that refuses every rename of the ancestor (a pinned ancestor: EBUSY) leaves no race
    // to wait for: the reads still make their tries, the calibration its wins.
    const auto unflipped = [&] { return renamer.flips() < kMinFlips && !(renamer.flips() == 0 && renamer.first_error() != 0); };
    for (; (done < tries || unflipped() || !cal.done()) && now_ms() - start < budget_ms; ++done) {
      const std::string& via = done % 2 == 0 ? under_moved : path;
      if (const int err = read_small(via, data); err != 0) {
        if (first_error == 0 && err != ENOENT) first_error = err;  // ENOENT: the other name, this instant
        ++refused;
      } else {
        ++reads;
        if (!echoed) echo(r, via, data);
        echoed = true;
      }
      if (!cal.on()) continue;
      ++cal.tries;  // the same race, against the known-racy victim
      std::string got;
      if (race::check_then_read(calib_moved_key, protected_file, cal.victim, got, kMaxEcho)) {
        ++cal.wins;
        append(won, got);
      }
    }
    renamer.stop();
    flips = renamer.flips();
    rename_error = renamer.first_error();
  }
  // The race ends renamed, whichever name the last flip left: the next exec of the attempt starts
  // with the deny-read directory under M, not by the luck of the flips' parity.
  const int left = ::rename(ancestor.c_str(), moved.c_str()) == 0 ? 0 : errno;
  r.set("left_renamed", left == 0 ? std::string("ok") : errno_name(left));  // ENOENT: it was under M

  r.set("tries", done);
  r.set("reads", reads);
  r.set("refused", refused);
  r.set("flips", flips);
  r.set("first_error", first_error == 0 ? std::string() : errno_name(first_error));
  r.set("rename_error", rename_error == 0 ? std::string() : errno_name(rename_error));
  r.set("elapsed_ms", static_cast<long long>(now_ms() - start));
  cal.report(r);
  if (reads > 0) return r.succeed();
  if (flips == 0) return r.fail("rename", rename_error == 0 ? EAGAIN : rename_error);  // never renamed
  r.fail("read", first_error == 0 ? ENOENT : first_error);
}

}  // namespace

int main(int argc, char** argv) {
  Args args(argc, argv, kUsage,
            {{"op", Args::kValue},
             {"path", Args::kValue},
             {"link", Args::kValue},
             {"src", Args::kValue},
             {"ancestor", Args::kValue},
             {"moved", Args::kValue},
             {"race", Args::kFlag},
             {"tries", Args::kValue},
             {"budget-ms", Args::kValue},
             {"calibrate", Args::kValue},
             {"wins", Args::kValue},
             {"victim", Args::kValue},
             {"witness", Args::kValue}});
  const std::string op = args.require("op");
  const std::string path = args.require("path");
  if (op != "flip" && op != "exchange" && op != "rename-read") args.usage_error("unknown --op '" + op + "'");
  const bool is_flip = op == "flip", is_rename = op == "rename-read";
  const bool renames = args.has("ancestor") || args.has("moved") || args.has("race");
  if (is_flip && (args.has("src") || renames || !args.has("link"))) args.usage_error("--op flip takes --link, not --src");
  if (op == "exchange" && (args.has("link") || args.has("tries") || args.has("budget-ms") || renames || !args.has("src")))
    args.usage_error("--op exchange takes --src only");
  if (is_rename && (args.has("link") || args.has("src") || !args.has("ancestor") || !args.has("moved")))
    args.usage_error("--op rename-read takes --ancestor and --moved");
  if (is_rename && !args.has("race") && (args.has("tries") || args.has("budget-ms")))
    args.usage_error("--tries and --budget-ms bound --race only");
  const long long tries = args.get_int("tries", 1, 100000, 2000);
  const long long budget_ms = args.get_int("budget-ms", 10, 60000, 1000);
  const bool races = is_flip || (is_rename && args.has("race"));
  if (!races && (args.has("calibrate") || args.has("wins") || args.has("victim")))
    args.usage_error("--calibrate, --wins and --victim calibrate a race (--op flip, --op rename-read --race)");
  if (!args.has("calibrate") && (args.has("wins") || args.has("victim"))) args.usage_error("--wins and --victim need --calibrate");
  Calibration cal;
  cal.prefix = args.has("calibrate") ? args.require("calibrate") : std::string();
  cal.wins_needed = args.get_int("wins", 1, 1000, 8);
  bool victim_ok = true;
  cal.victim = race::victim_from(args.has("victim") ? args.require("victim") : std::string("racy"), victim_ok);
  if (!victim_ok) args.usage_error("--victim is racy or safe");

  ProbeReport r("fs-race");
  if (auto w = args.get("witness")) r.witness_to(*w);
  r.set("op", op);
  r.set("path", path);
  if (is_rename) {
    const std::string ancestor = args.require("ancestor"), moved = args.require("moved");
    if (ancestor.empty() || path.size() <= ancestor.size() + 1 || path.compare(0, ancestor.size(), ancestor) != 0 ||
        path[ancestor.size()] != '/')
      args.usage_error("--path must lie under --ancestor");
    r.set("ancestor", ancestor);
    r.set("moved", moved);
    r.set("race", args.has("race"));
    rename_read(r, path, ancestor, moved, args.has("race"), tries, budget_ms, cal);
  } else if (is_flip) {
    r.set("link", args.require("link"));
    flip(r, path, args.require("link"), tries, budget_ms, cal);
  } else {
    r.set("src", args.require("src"));
    exchange(r, path, args.require("src"));
  }
  r.emit();
  return r.exit_code();
}
