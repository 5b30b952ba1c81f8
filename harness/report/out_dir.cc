// ResultsDir: create --out, write and remove a file in it, undo the creation when nothing was written.
#include "harness/report/out_dir.h"

#include <fstream>

#include "harness/core/error.h"
#include "harness/core/nonce.h"

namespace breakout {

namespace fs = std::filesystem;

namespace {

[[noreturn]] void refuse(const fs::path& dir, const std::string& why) {
  throw Error("bad-out", "--out " + dir.string() + ": " + why + " (results.json, junit.xml, results.sarif and the report go there)");
}

}  // namespace

ResultsDir::ResultsDir(fs::path dir) : dir_(std::move(dir)) {
  std::error_code ec;
  const fs::path abs = fs::absolute(dir_, ec);
  if (ec) refuse(dir_, "cannot resolve it: " + ec.message());
  // Which ancestors are missing: those are ours to remove again if the run fails before writing.
  std::vector<fs::path> missing;
  for (fs::path p = abs.lexically_normal(); !p.empty() && !fs::exists(p, ec); p = p.parent_path()) {
    missing.push_back(p);
    if (p == p.parent_path()) break;
  }
  try {
    fs::create_directories(abs, ec);
    if (ec) refuse(dir_, "cannot create the directory: " + ec.message());
    if (!fs::is_directory(abs, ec)) refuse(dir_, "not a directory");
  } catch (...) {
    for (const auto& p : missing) fs::remove(p, ec);  // what create_directories got to make
    throw;
  }
  created_.assign(missing.rbegin(), missing.rend());
  // A file written, read back and removed: a read-only mount, a full disk or a directory without
  // write permission fails here rather than after the run.
  const fs::path probe = abs / (".breakout-write-check-" + random_hex(4));
  std::string why;
  {
    std::ofstream out(probe, std::ios::binary);
    if (!out) why = "cannot create a file there";
    else if (!(out << "breakout\n").flush()) why = "cannot write a file there";
  }
  if (why.empty() && fs::file_size(probe, ec) != 9) why = "a file written there does not read back";
  fs::remove(probe, ec);
  if (why.empty() && ec) why = "cannot remove a file written there: " + ec.message();
  if (!why.empty()) {
    undo();  // no destructor runs for an object whose constructor threw
    refuse(dir_, why);
  }
}

ResultsDir::~ResultsDir() {
  if (!keep_) undo();
}

void ResultsDir::undo() {
  std::error_code ec;
  // Innermost first, and only while empty: fs::remove of a directory with contents fails and stops.
  for (auto it = created_.rbegin(); it != created_.rend(); ++it)
    if (!fs::remove(*it, ec)) break;
  created_.clear();
}

}  // namespace breakout
