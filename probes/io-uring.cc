// breakout-probe-io-uring: create a file or deliver a nonce through io_uring (io-uring-write/-connect; io_uring_enter(2)).
//
// IORING_OP_OPENAT (io_uring_enter(2)) opens in the kernel's io worker, not
// through the openat(2) syscall: a seccomp filter that denies openat/creat sees
// nothing (io_uring ops are not syscalls; this is why Docker's default seccomp
// profile refuses io_uring_setup). Mount-based sandboxes (bwrap, firejail) still
// apply, since the open resolves the same paths.
//
//   --path P   IORING_OP_OPENAT(AT_FDCWD, P, O_WRONLY|O_CREAT|O_EXCL, 0644), then
//              IORING_OP_WRITE of a line and IORING_OP_CLOSE, all through the ring
//   --connect SPEC --nonce N
//              IORING_OP_SOCKET (Linux 5.19; socket(2) when the kernel lacks it),
//              IORING_OP_CONNECT, IORING_OP_SEND of "BREAKOUT-NONCE N\n",
//              IORING_OP_CLOSE: no connect(2)/sendto(2) syscall, so a seccomp filter
//              on them sees nothing; network namespaces still apply. SPEC is
//              tcp:IPv4:PORT, tcp:[IPv6]:PORT or unix:/path (what the harness's
//              listeners hand out); the listener decides whether it arrived.
//
// Raw syscalls only (io_uring_setup(2), io_uring_enter(2), mmap(2)); no liburing.
// Reports the step and errno (ENOSYS/EPERM at io_uring_setup: io_uring is
// unavailable or disabled here, kernel.io_uring_disabled). Exit 0 ok, 1 failed, 64 usage.
#include <arpa/inet.h>
#include <fcntl.h>
#include <linux/io_uring.h>
#include <netinet/in.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>

#include "probes/common/args.h"
#include "probes/common/report.h"

namespace {

constexpr const char* kUsage = "usage: breakout-probe-io-uring --path P | --connect SPEC --nonce N [--witness PATH]\n";

struct Ring {
  int fd = -1;
  io_uring_params p{};
  char* sq = nullptr;
  char* cq = nullptr;
  io_uring_sqe* sqes = nullptr;
  std::size_t sq_len = 0, cq_len = 0, sqe_len = 0;

  ~Ring() {
    if (sqes) ::munmap(sqes, sqe_len);
    if (cq && cq != sq) ::munmap(cq, cq_len);
    if (sq) ::munmap(sq, sq_len);
    if (fd >= 0) ::close(fd);
  }
  // 0 or errno; *step names the failing call.
  int setup(const char** step) {
    *step = "io_uring_setup";
    fd = static_cast<int>(::syscall(SYS_io_uring_setup, 4, &p));
    if (fd < 0) return errno;
    *step = "mmap ring";
    sq_len = p.sq_off.array + p.sq_entries * sizeof(unsigned);
    cq_len = p.cq_off.cqes + p.cq_entries * sizeof(io_uring_cqe);
    if (p.features & IORING_FEAT_SINGLE_MMAP) sq_len = cq_len = std::max(sq_len, cq_len);
    void* s = ::mmap(nullptr, sq_len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, fd, IORING_OFF_SQ_RING);
    if (s == MAP_FAILED) return errno;
    sq = static_cast<char*>(s);
    if (p.features & IORING_FEAT_SINGLE_MMAP) {
      cq = sq;
    } else {
      void* c = ::mmap(nullptr, cq_len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, fd, IORING_OFF_CQ_RING);
      if (c == MAP_FAILED) return errno;
      cq = static_cast<char*>(c);
    }
    sqe_len = p.sq_entries * sizeof(io_uring_sqe);
    void* e = ::mmap(nullptr, sqe_len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, fd, IORING_OFF_SQES);
    if (e == MAP_FAILED) return errno;
    sqes = static_cast<io_uring_sqe*>(e);
    return 0;
  }
  // Submits one SQE and waits for its CQE; returns the CQE's res (-errno on failure).
  int run(const io_uring_sqe& sqe) {
    auto* tail = reinterpret_cast<std::atomic<unsigned>*>(sq + p.sq_off.tail);
    const unsigned mask = *reinterpret_cast<unsigned*>(sq + p.sq_off.ring_mask);
    const unsigned t = tail->load(std::memory_order_acquire);
    sqes[t & mask] = sqe;
    reinterpret_cast<unsigned*>(sq + p.sq_off.array)[t & mask] = t & mask;
    tail->store(t + 1, std::memory_order_release);
    if (::syscall(SYS_io_uring_enter, fd, 1, 1, IORING_ENTER_GETEVENTS, nullptr, 0) < 0) return -errno;
    auto* head = reinterpret_cast<std::atomic<unsigned>*>(cq + p.cq_off.head);
    const unsigned cmask = *reinterpret_cast<unsigned*>(cq + p.cq_off.ring_mask);
    const unsigned h = head->load(std::memory_order_acquire);
    if (h == reinterpret_cast<std::atomic<unsigned>*>(cq + p.cq_off.tail)->load(std::memory_order_acquire)) return -EAGAIN;
    const int res = reinterpret_cast<io_uring_cqe*>(cq + p.cq_off.cqes)[h & cmask].res;
    head->store(h + 1, std::memory_order_release);
    return res;
  }
};

// SPEC -> socket address; false when SPEC is not one of the forms above.
bool parse_spec(const std::string& spec, sockaddr_storage* sa, socklen_t* len) {
  *sa = {};
  if (spec.rfind("unix:/", 0) == 0) {
    auto* un = reinterpret_cast<sockaddr_un*>(sa);
    const std::string path = spec.substr(5);
    if (path.size() >= sizeof un->sun_path) return false;
    un->sun_family = AF_UNIX;
    std::memcpy(un->sun_path, path.c_str(), path.size() + 1);
    *len = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + path.size() + 1);
    return true;
  }
  if (spec.rfind("tcp:", 0) != 0) return false;
  const std::string hp = spec.substr(4);
  const std::size_t colon = hp.rfind(':');
  if (colon == std::string::npos || colon + 1 >= hp.size() || hp.size() - colon > 6) return false;
  const int port = std::atoi(hp.c_str() + colon + 1);
  if (port < 1 || port > 65535) return false;
  std::string host = hp.substr(0, colon);
  if (host.size() > 2 && host.front() == '[' && host.back() == ']') {
    auto* in6 = reinterpret_cast<sockaddr_in6*>(sa);
    in6->sin6_family = AF_INET6;
    in6->sin6_port = htons(static_cast<std::uint16_t>(port));
    *len = sizeof *in6;
    return ::inet_pton(AF_INET6, host.substr(1, host.size() - 2).c_str(), &in6->sin6_addr) == 1;
  }
  auto* in4 = reinterpret_cast<sockaddr_in*>(sa);
  in4->sin_family = AF_INET;
  in4->sin_port = htons(static_cast<std::uint16_t>(port));
  *len = sizeof *in4;
  return ::inet_pton(AF_INET, host.c_str(), &in4->sin_addr) == 1;
}

// 0 or errno; *step names the failing operation.
int connect_and_send(Ring& ring, const sockaddr_storage& sa, socklen_t len, const std::string& line,
                     breakout::probe::ProbeReport& rep, const char** step) {
  io_uring_sqe sock{};
  sock.opcode = IORING_OP_SOCKET;
  sock.fd = sa.ss_family;
  sock.off = SOCK_STREAM | SOCK_CLOEXEC;
  *step = "IORING_OP_SOCKET";
  int fd = ring.run(sock);
  if (fd == -EINVAL || fd == -EOPNOTSUPP) {  // kernel < 5.19: only the socket comes from socket(2)
    rep.set("socket_via", "socket(2)");
    *step = "socket";
    fd = ::socket(sa.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return errno;
  } else if (fd < 0) {
    return -fd;
  }
  io_uring_sqe conn{};
  conn.opcode = IORING_OP_CONNECT;
  conn.fd = fd;
  conn.addr = reinterpret_cast<unsigned long>(&sa);
  conn.off = len;  // io_uring_enter(2): the address length goes in off
  *step = "IORING_OP_CONNECT";
  int res = ring.run(conn);
  if (res >= 0) {
    io_uring_sqe send{};
    send.opcode = IORING_OP_SEND;
    send.fd = fd;
    send.addr = reinterpret_cast<unsigned long>(line.data());
    send.len = static_cast<unsigned>(line.size());
    send.msg_flags = MSG_NOSIGNAL;
    *step = "IORING_OP_SEND";
    res = ring.run(send);
    if (res >= 0) rep.set("sent", res);
  }
  io_uring_sqe close{};
  close.opcode = IORING_OP_CLOSE;
  close.fd = fd;
  ring.run(close);
  return res < 0 ? -res : 0;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace breakout::probe;
  Args args(argc, argv, kUsage, {{"path", Args::kValue}, {"connect", Args::kValue}, {"nonce", Args::kValue},
                                 {"witness", Args::kValue}});
  ::alarm(15);  // hard bound: a connect the kernel keeps retrying ends here
  ProbeReport rep("io-uring");
  if (auto w = args.get("witness")) rep.witness_to(*w);
  Ring ring;
  const char* step = "";
  if (args.has("connect")) {
    if (args.has("path")) args.usage_error("--path and --connect exclude each other");
    const std::string spec = args.require("connect");
    const std::string nonce = args.require("nonce");
    sockaddr_storage sa;
    socklen_t len = 0;
    if (!parse_spec(spec, &sa, &len)) args.usage_error("bad --connect '" + spec + "'");
    rep.set("target", spec);
    int err = ring.setup(&step);
    if (!err) err = connect_and_send(ring, sa, len, "BREAKOUT-NONCE " + nonce + "\n", rep, &step);
    if (err) rep.fail(step, err);
    else rep.succeed();
    rep.emit();
    return rep.exit_code();
  }
  const std::string path = args.require("path");
  rep.set("path", path);
  int err = ring.setup(&step);
  if (!err) {
    io_uring_sqe open{};
    open.opcode = IORING_OP_OPENAT;
    open.fd = AT_FDCWD;
    open.addr = reinterpret_cast<unsigned long>(path.c_str());
    open.len = 0644;
    open.open_flags = O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC;
    const int fd = ring.run(open);
    step = "IORING_OP_OPENAT";
    if (fd < 0) {
      err = -fd;
    } else {
      static const char kLine[] = "written through io_uring\n";
      io_uring_sqe write{};
      write.opcode = IORING_OP_WRITE;
      write.fd = fd;
      write.addr = reinterpret_cast<unsigned long>(kLine);
      write.len = sizeof kLine - 1;
      const int w = ring.run(write);
      rep.set("written", w);
      io_uring_sqe close{};
      close.opcode = IORING_OP_CLOSE;
      close.fd = fd;
      ring.run(close);
    }
  }
  if (err) rep.fail(step, err);
  else rep.succeed();
  rep.emit();
  return rep.exit_code();
}
