// The command line of the Windows host-object probes (win-object, win-desktop): --target T --nonce N.
//
//   TargetArgs a(argc, wargv, kUsage);   // exits 64 on a bad command line or a nonce under 8 characters
//   if (a.target == "own:pipe") ...; else a.usage_error("unknown target '" + a.target + "'");
//
// The first 8 characters of the nonce name the probe's own objects (the controls), hence the floor.
// Windows only (mingw-w64), header-only.
#pragma once

#include <string>

#include "probes/common/args.h"
#include "probes/common/win32.h"

namespace breakout::probe {

class TargetArgs {
 public:
  TargetArgs(int argc, wchar_t** wargv, const char* usage)
      : wide_(argc, wargv),
        args_(wide_.argc(), wide_.argv(), usage, {{"target", Args::kValue}, {"nonce", Args::kValue}}),
        target(args_.require("target")),
        nonce(args_.require("nonce")) {
    if (nonce.size() < 8) args_.usage_error("the nonce has at least 8 characters");
  }
  [[noreturn]] void usage_error(const std::string& why) const { args_.usage_error(why); }

 private:
  WideArgs wide_;
  Args args_;

 public:
  const std::string target;
  const std::string nonce;
};

}  // namespace breakout::probe
