// RealTree keeps an input's first ops on disk for the next input: at every form the disk must be what a tree that kept nothing shows.
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "harness/paths/forms.h"
#include "harness/paths/posix/real_tree.h"

using namespace breakout::paths;

namespace {

// Every name below directory `dirfd`: relative path, type, link count, symlink text; by *at()
// calls, since deep chains pass PATH_MAX.
void list_below(int dirfd, const std::string& prefix, std::vector<std::string>& out) {
  const int fd = ::openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  ASSERT_GE(fd, 0);
  DIR* d = ::fdopendir(fd);
  ASSERT_NE(d, nullptr);
  std::vector<std::string> names;
  while (const dirent* e = ::readdir(d))
    if (std::string_view(e->d_name) != "." && std::string_view(e->d_name) != "..") names.emplace_back(e->d_name);
  for (const std::string& n : names) {
    struct stat st {};
    ASSERT_EQ(::fstatat(dirfd, n.c_str(), &st, AT_SYMLINK_NOFOLLOW), 0) << n;
    std::string entry = prefix + n + " nlink=" + std::to_string(st.st_nlink);
    if (S_ISLNK(st.st_mode)) {
      char buf[4096];
      const ssize_t len = ::readlinkat(dirfd, n.c_str(), buf, sizeof buf);
      entry += " -> " + std::string(buf, static_cast<std::size_t>(std::max<ssize_t>(len, 0)));
    } else if (S_ISDIR(st.st_mode)) {
      entry += " dir";
      const int sub = ::openat(dirfd, n.c_str(), O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
      ASSERT_GE(sub, 0);
      list_below(sub, prefix + n + "/", out);
      ::close(sub);
    }
    out.push_back(entry);
  }
  ::closedir(d);
}

void replace_all(std::string& text, const std::string& what, const std::string& with) {
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + with.size()))
    text.replace(at, what.size(), with);
}

// What differs between two trees for the same input, in symlink texts: the names of the tree's
// two top directories (spelled with '//' and '/./' between them) and the descriptors' numbers
// (/proc/self/fd/N), written as their rank in the model's descriptor table instead.
std::string tree_independent(std::string text, const RealTree& tree, const ModelFs& m) {
  replace_all(text, tree.roots().tree.parent_path().filename().string(), "TMP");
  replace_all(text, tree.roots().tree.filename().string(), "TREE");
  int rank = 0;
  for (const auto& [fd, opened] : m.fds()) {
    const std::string number = "fd/" + std::to_string(fd);
    const std::string symbol = "fd/#" + std::to_string(rank++);
    for (std::size_t at = text.find(number); at != std::string::npos; at = text.find(number, at + symbol.size())) {
      const std::size_t end = at + number.size();
      if (end < text.size() && text[end] >= '0' && text[end] <= '9') continue;  // fd/13 in fd/130
      text.replace(at, number.size(), symbol);
    }
  }
  return text;
}

std::vector<std::string> listing(const RealTree& tree, const ModelFs& m) {
  std::vector<std::string> out;
  const int gen = ::open((tree.roots().workspace / "gen").c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
  EXPECT_GE(gen, 0);
  list_below(gen, "", out);
  ::close(gen);
  for (std::string& e : out) e = tree_independent(std::move(e), tree, m);
  std::sort(out.begin(), out.end());
  return out;
}

// One input as path_model_fuzzer.cc runs it. At each form: gen's listing and the kernel's answer
// (errno, path), and the model's identity of the object must be the kernel's
// (a reused op must give the model its objects' identities like a fresh one).
std::vector<std::string> run(RealTree& tree, const std::string& input) {
  std::vector<std::string> seen;
  ByteReader in(input);
  in.byte();
  ModelFs& m = tree.reset();
  const Scope scope = tree.scope();
  const auto check = [&](const Form& f) {
    const RealResolved got = tree.resolve(f);
    const Resolved want = resolve_form(m, f);
    if (want.outcome == Outcome::kOk && got.err == 0) {
      EXPECT_EQ(got.dev, m.node(want.node).dev) << describe(f);
      EXPECT_EQ(got.ino, m.node(want.node).ino) << describe(f);
    }
    seen.push_back("form errno=" + std::to_string(got.err) + " " + tree_independent(got.fd_path, tree, m));
    for (const std::string& e : listing(tree, m)) seen.push_back(e);
  };
  for (int step = 0; step < 12 && !in.empty(); ++step) {
    if (in.byte() % 3 != 0) {
      const Op op = next_op(in, m, scope);
      const bool model_ok = apply(m, op);
      const bool real_ok = tree.apply(op, m);
      EXPECT_EQ(model_ok, real_ok);
      seen.push_back(real_ok ? "op ok" : "op failed");
    } else {
      check(next_form(in, m, scope));
    }
  }
  check(next_form(in, m, scope));
  tree.undo();
  return seen;
}

// libFuzzer's next input is mostly a one-spot mutation of the last one; these are too, a fifth of
// them in the first ops, with the occasional fresh input, cut and longer one: kept prefixes are
// reused whole, in part (a form or another op comes where a kept op was) and not at all.
TEST(RealTree, KeptOpsLeaveTheDiskAsAFreshTreeWould) {
  RealTree reused;
  RealTree fresh;
  std::mt19937 rng(20261130);
  std::string input;
  for (int i = 0; i < 300; ++i) {
    const unsigned what = rng() % 10;
    if (input.empty() || what == 0) {
      input.assign(40 + rng() % 160, '\0');
      for (char& c : input) c = static_cast<char>(rng());
    } else if (what == 1) {
      input.resize(input.size() / 2);
    } else if (what == 2) {
      input.push_back(static_cast<char>(rng()));
    } else if (what == 4 || what == 5) {  // in the first ops: a kept prefix matched in part
      input[rng() % std::min<std::size_t>(input.size(), 16)] = static_cast<char>(rng());
    } else if (what != 3) {  // 3: the same input again
      input[rng() % input.size()] = static_cast<char>(rng());
    }
    fresh.clear();
    const std::vector<std::string> want = run(fresh, input);
    fresh.clear();
    const std::vector<std::string> got = run(reused, input);
    const auto diff = std::mismatch(got.begin(), got.end(), want.begin(), want.end());
    ASSERT_EQ(got, want) << "input " << i << ": first difference at " << (diff.first - got.begin()) << ": '"
                         << (diff.first == got.end() ? "(end)" : *diff.first) << "' vs '"
                         << (diff.second == want.end() ? "(end)" : *diff.second) << "'";
  }
}

}  // namespace
