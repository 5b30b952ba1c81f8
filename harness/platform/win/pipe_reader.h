// A child's stdout/stderr as an overlapped named pipe: one wait loop drains both, bounded by max_capture.
//
// Anonymous pipes (CreatePipe) do not support overlapped I/O (Microsoft Learn,
// "Anonymous Pipe Operations"), so each stream is a one-instance inbound named
// pipe opened FILE_FLAG_OVERLAPPED on our side; the child gets an ordinary
// inheritable client handle. Its event is signalled whenever a read completes.
#pragma once

#include <windows.h>

#include <cstddef>
#include <string>
#include <vector>

#include "harness/platform/win/unique_handle.h"

namespace breakout::win {

// A one-instance overlapped named pipe: `server` is ours (FILE_FLAG_OVERLAPPED), `client`
// the child's inheritable end. inbound: the child writes (stdout/stderr); else it reads (stdin).
struct PipePair {
  UniqueHandle server, client;
};
PipePair create_overlapped_pipe(bool inbound);  // throws Error("win32", "...")

class PipeReader {
 public:
  // What `keep` holds once more than max_capture bytes came: the first ones (run_process's
  // capture) or the last ones (a driver's stderr tail, line_channel.cc).
  enum class Keep { kHead, kTail };
  // Creates the pipe; `child_end()` is the inheritable write end. Throws Error.
  PipeReader(std::string* keep, std::size_t* total, std::size_t max_capture, Keep mode = Keep::kHead);
  ~PipeReader();  // cancels a pending read and waits for it (the buffer must outlive it)
  PipeReader(const PipeReader&) = delete;
  PipeReader& operator=(const PipeReader&) = delete;

  HANDLE child_end() const { return client_.get(); }
  void close_child_end() { client_.reset(); }
  // Issues reads until one is pending or the pipe is at EOF.
  void start();
  // Call when event() is signalled: takes the completed read, then start()s again.
  void on_signalled();
  // Bytes written by the child and not yet taken: in the pipe, or in a completed read
  // on_signalled() has not taken yet.
  std::size_t unread() const;
  // Stops reading (drain bound, cancellation).
  void stop();
  bool open() const { return open_; }
  HANDLE event() const { return event_.get(); }

 private:
  void take(DWORD n);
  UniqueHandle server_, client_, event_;
  OVERLAPPED ov_{};
  std::vector<char> buf_ = std::vector<char>(64 * 1024);
  std::string* keep_;
  std::size_t* total_;
  std::size_t max_capture_;
  Keep mode_;
  bool open_ = true;
  bool pending_ = false;
};

}  // namespace breakout::win
