// breakout-probe-io-uring: create a file through io_uring (class io-uring-write; catalog §8).
//
// IORING_OP_OPENAT (io_uring_enter(2)) opens in the kernel's io worker, not
// through the openat(2) syscall: a seccomp filter that denies openat/creat sees
// nothing (io_uring ops are not syscalls; this is why Docker's default seccomp
// profile refuses io_uring_setup). Mount-based sandboxes (bwrap, firejail) still
// apply, since the open resolves the same paths.
//
//   --path P   IORING_OP_OPENAT(AT_FDCWD, P, O_WRONLY|O_CREAT|O_EXCL, 0644), then
//              IORING_OP_WRITE of a line and IORING_OP_CLOSE, all through the ring
//
// Raw syscalls only (io_uring_setup(2), io_uring_enter(2), mmap(2)); no liburing.
// Reports the step and errno (ENOSYS/EPERM at io_uring_setup: io_uring is
// unavailable or disabled here, kernel.io_uring_disabled). Exit 0 ok, 1 failed, 64 usage.
#include <fcntl.h>
#include <linux/io_uring.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <string>

#include "probes/common/args.h"
#include "probes/common/report.h"

namespace {

constexpr const char* kUsage = "usage: breakout-probe-io-uring --path P\n";

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

}  // namespace

int main(int argc, char** argv) {
  using namespace breakout::probe;
  Args args(argc, argv, kUsage, {{"path", Args::kValue}});
  const std::string path = args.require("path");
  ProbeReport rep("io-uring");
  rep.set("path", path);
  Ring ring;
  const char* step = "";
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
