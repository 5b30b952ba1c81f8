// The results directory of `breakout run --out`: created and proven writable before the first attempt,
// so an unwritable --out is exit 2 at once and never a finished run that cannot be saved.
//
//   ResultsDir out(dir);          // throws Error("bad-out", "--out DIR: ...")
//   ...run...; write_results(out.path(), ...); out.keep();
//   // not kept (an error before anything was written): the directories it made are removed if still empty
#pragma once

#include <filesystem>
#include <vector>

namespace breakout {

class ResultsDir {
 public:
  explicit ResultsDir(std::filesystem::path dir);
  ~ResultsDir();
  ResultsDir(const ResultsDir&) = delete;
  ResultsDir& operator=(const ResultsDir&) = delete;

  const std::filesystem::path& path() const { return dir_; }
  void keep() { keep_ = true; }  // results were written: leave everything

 private:
  void undo();  // removes the directories it made, innermost first, while they are empty
  std::filesystem::path dir_;
  std::vector<std::filesystem::path> created_;  // outermost first
  bool keep_ = false;
};

}  // namespace breakout
