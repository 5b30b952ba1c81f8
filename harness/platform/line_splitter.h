// The bounded line splitting of LineChannel::read_line, shared by platform/posix and platform/win line_channel.cc.
//
//   LineSplitter lines(limits.max_line, /*crlf=*/false);
//   for (;;) {
//     if (const auto got = lines.next(&line)) return *got;   // kLine or kTooLong
//     ... read more, lines.append(chunk, n) ...
//
// Portable, header-only.
#pragma once

#include <cstddef>
#include <optional>
#include <string>

#include "harness/platform/line_channel.h"

namespace breakout {

class LineSplitter {
 public:
  // `crlf`: one '\r' before the '\n' belongs to the line end (text-mode writers on Windows:
  // the C runtime's stdout, Python's sys.stdout; Microsoft Learn, "_setmode").
  LineSplitter(std::size_t max_line, bool crlf) : max_line_(max_line), crlf_(crlf) {}

  void append(const char* data, std::size_t n) { buf_.append(data, n); }

  // The next whole line into *line (without its end): kLine; kTooLong once more than max_line
  // bytes wait without a line end; nullopt when more input is needed.
  std::optional<LineChannel::Read> next(std::string* line) {
    const std::size_t nl = buf_.find('\n', scanned_);  // bytes before scanned_ were searched already
    if (nl != std::string::npos) {
      line->assign(buf_, 0, crlf_ && nl > 0 && buf_[nl - 1] == '\r' ? nl - 1 : nl);
      buf_.erase(0, nl + 1);
      scanned_ = 0;
      return LineChannel::Read::kLine;
    }
    scanned_ = buf_.size();
    // A trailing '\r' may be the first half of a "\r\n" line end: not counted yet.
    const bool cr_pending = crlf_ && !buf_.empty() && buf_.back() == '\r';
    if (buf_.size() > max_line_ + (cr_pending ? 1 : 0)) return LineChannel::Read::kTooLong;
    return std::nullopt;
  }

 private:
  std::size_t max_line_;
  bool crlf_;
  std::string buf_;
  std::size_t scanned_ = 0;
};

}  // namespace breakout
