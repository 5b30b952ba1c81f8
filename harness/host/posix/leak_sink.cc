// LeakSink on POSIX: a FIFO whose read end the harness holds, or a listening unix stream socket.
#include "harness/host/leak_sink.h"

#include <fcntl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#include <cstring>

#include "harness/core/error.h"
#include "harness/platform/posix/unique_fd.h"

namespace breakout {

namespace {

// Reads what `fd` holds now, up to `max` bytes (O_NONBLOCK: never waits).
void read_available(int fd, std::size_t max, std::string* got) {
  char buf[4096];
  for (ssize_t n; got->size() < max && (n = ::read(fd, buf, std::min(sizeof buf, max - got->size()))) > 0;)
    got->append(buf, static_cast<std::size_t>(n));
}

class FifoSink final : public LeakSink {
 public:
  explicit FifoSink(const std::filesystem::path& p) : LeakSink(p) {
    if (::mkfifo(p.c_str(), 0600) != 0) throw_errno("mkfifo " + p.string());
    // The read end first: the spawn layer's O_WRONLY open then returns at once.
    read_end_.reset(::open(p.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC));
    if (read_end_.get() < 0) {
      const int e = errno;
      ::unlink(p.c_str());
      errno = e;
      throw_errno("open " + p.string());
    }
  }
  ~FifoSink() override { ::unlink(path().c_str()); }
  LaunchSpec::InheritedFd::Open leaked_end() const override { return LaunchSpec::InheritedFd::Open::kAppend; }
  std::string drain(std::size_t max) override {
    std::string got;
    read_available(read_end_.get(), max, &got);
    return got;
  }

 private:
  UniqueFd read_end_;
};

class SocketSink final : public LeakSink {
 public:
  explicit SocketSink(const std::filesystem::path& p) : LeakSink(p) {
    sockaddr_un sa{};
    sa.sun_family = AF_UNIX;
    check(p.string().size() < sizeof sa.sun_path, "leaked socket path too long: " + p.string());
    std::memcpy(sa.sun_path, p.c_str(), p.string().size() + 1);
    listener_.reset(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0));
    if (listener_.get() < 0) throw_errno("socket for " + p.string());
    if (::bind(listener_.get(), reinterpret_cast<sockaddr*>(&sa), sizeof sa) != 0) throw_errno("bind " + p.string());
    if (::listen(listener_.get(), 4) != 0) {
      const int e = errno;
      ::unlink(p.c_str());
      errno = e;
      throw_errno("listen " + p.string());
    }
  }
  ~SocketSink() override { ::unlink(path().c_str()); }
  LaunchSpec::InheritedFd::Open leaked_end() const override { return LaunchSpec::InheritedFd::Open::kUnixConnect; }
  // The spawn layer connected once (the backlog holds it without an accept); what the probe sent
  // through the leaked end waits in that connection.
  std::string drain(std::size_t max) override {
    std::string got;
    for (int i = 0; i < 4 && got.size() < max; ++i) {
      UniqueFd c(::accept4(listener_.get(), nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK));
      if (c.get() < 0) break;
      read_available(c.get(), max, &got);
    }
    return got;
  }

 private:
  UniqueFd listener_;
};

}  // namespace

std::unique_ptr<LeakSink> LeakSink::make(Kind kind, const std::filesystem::path& path) {
  if (kind == Kind::kFifo) return std::make_unique<FifoSink>(path);
  return std::make_unique<SocketSink>(path);
}

}  // namespace breakout
