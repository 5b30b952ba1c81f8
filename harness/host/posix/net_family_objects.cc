// net-family host objects on Linux: ICMP readers, a harness-owned veth pair, a VMADDR_CID_LOCAL listener.
#include "harness/host/posix/net_family_objects.h"

#include <arpa/inet.h>
#include <linux/filter.h>
#include <linux/if_ether.h>
#include <linux/if_link.h>
#include <linux/if_packet.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/veth.h>
#include <linux/vm_sockets.h>
#include <net/if.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <mutex>
#include <thread>
#include <vector>

#include "harness/core/error.h"
#include "harness/core/file_prefix.h"
#include "harness/core/text.h"
#include "harness/host/net_listeners.h"
#include "harness/host/own_object.h"
#include "harness/platform/netns.h"
#include "harness/platform/posix/capabilities.h"
#include "harness/platform/posix/unique_fd.h"

namespace breakout {

namespace {

constexpr int kMaxPackets = 512;              // echo requests drained per inspect (hostile sender)
constexpr std::size_t kMaxBytes = 4096;       // per vsock connection and per alias read
constexpr int kMaxVsockConnections = 16;           // vsock connections read per attempt

std::string marker(const std::string& nonce) { return std::string(kNonceMarker) + nonce; }

// RAII fd.

// ---------------------------------------------------------------------------
// ICMP: an AF_PACKET reader that keeps IPv4 ICMP echo requests only (classic BPF, packet(7)).
class IcmpReader : public HostObject {
 public:
  IcmpReader(bool external, const HostObjectSetup& s) : external_(external), nonce_(s.nonce) {
    int ifindex = 0;  // inside the external namespace: every interface (it has lo and its veth end)
    if (external) {
      check(s.external != nullptr, "icmp-external without an external host (the planner skips it)");
      fd_.reset(s.external->socket_in_namespace(AF_PACKET, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK));
      if (fd_.get() < 0) throw_errno("AF_PACKET socket in the external host's namespace");
      address_ = s.external->address();
    } else {
      fd_.reset(::socket(AF_PACKET, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0));
      if (fd_.get() < 0) throw_errno("AF_PACKET socket");
      ifindex = static_cast<int>(::if_nametoindex("lo"));
      if (ifindex == 0) throw_errno("if_nametoindex lo");
      address_ = "127.0.0.1";
    }
    // Protocol 0 until bind: nothing is queued before the filter is in place.
    static sock_filter code[] = {
        BPF_STMT(BPF_LD | BPF_B | BPF_ABS, 9),             // IPv4 protocol
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, IPPROTO_ICMP, 0, 3),
        BPF_STMT(BPF_LDX | BPF_B | BPF_MSH, 0),            // X = IHL * 4
        BPF_STMT(BPF_LD | BPF_B | BPF_IND, 0),             // ICMP type
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 8, 0, 1),      // echo request
        BPF_STMT(BPF_RET | BPF_K, 0xffff),
        BPF_STMT(BPF_RET | BPF_K, 0),
    };
    sock_fprog prog{static_cast<unsigned short>(std::size(code)), code};
    if (::setsockopt(fd_.get(), SOL_SOCKET, SO_ATTACH_FILTER, &prog, sizeof prog) != 0) throw_errno("SO_ATTACH_FILTER");
    sockaddr_ll a{};
    a.sll_family = AF_PACKET;
    a.sll_protocol = htons(ETH_P_IP);
    a.sll_ifindex = ifindex;
    if (::bind(fd_.get(), reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) throw_errno("bind AF_PACKET");
  }
  std::string spec() const override { return "icmp:" + address_; }
  HostEvidence inspect() override {
    HostEvidence e;
    int requests = 0;
    bool seen = false;
    char buf[2048];
    for (int i = 0; i < kMaxPackets; ++i) {
      const ssize_t n = ::recv(fd_.get(), buf, sizeof buf, MSG_DONTWAIT);
      if (n < 0) break;
      ++requests;
      seen = seen || icmp_echo_carries(std::string_view(buf, static_cast<std::size_t>(n)), nonce_);
    }
    const std::string where = external_ ? "the external host (" + address_ + ")" : "the host's loopback";
    e.evidence["reader"] = external_ ? "AF_PACKET in the external host's namespace" : "AF_PACKET on the host's lo";
    e.evidence["echo_requests_seen"] = requests;
    e.evidence["nonce_in_echo_request"] = seen;
    e.changed = seen;
    e.summary = seen ? "an echo request carrying the nonce reached " + where
                     : "no echo request carrying the nonce reached " + where + " (" + std::to_string(requests) +
                           " other echo requests seen)";
    return e;
  }

 private:
  bool external_;
  std::string nonce_, address_;
  UniqueFd fd_;
};

// ---------------------------------------------------------------------------
// NETLINK_ROUTE, as the harness speaks it: one request, its ack.
class RtMessage {
 public:
  RtMessage(std::uint16_t type, std::uint16_t flags) : buf_(NLMSG_SPACE(sizeof(ifinfomsg)), 0) {
    auto* h = reinterpret_cast<nlmsghdr*>(buf_.data());
    h->nlmsg_type = type;
    h->nlmsg_flags = static_cast<std::uint16_t>(NLM_F_REQUEST | NLM_F_ACK | flags);
    h->nlmsg_seq = 1;
    reinterpret_cast<ifinfomsg*>(NLMSG_DATA(h))->ifi_family = AF_UNSPEC;
  }
  void attr(std::uint16_t type, const void* data, std::size_t len) {
    align();
    rtattr a{static_cast<unsigned short>(RTA_LENGTH(len)), type};
    append(&a, sizeof a);
    append(data, len);
  }
  void attr(std::uint16_t type, const std::string& s) { attr(type, s.c_str(), s.size() + 1); }
  std::size_t begin(std::uint16_t type) {
    align();
    const std::size_t at = buf_.size();
    rtattr a{0, type};
    append(&a, sizeof a);
    return at;
  }
  void end(std::size_t at) {
    reinterpret_cast<rtattr*>(buf_.data() + at)->rta_len = static_cast<unsigned short>(buf_.size() - at);
  }
  void raw(const void* data, std::size_t len) {
    align();
    append(data, len);
  }
  // Sends and waits for the kernel's ack (2 s at most); returns 0 or the errno it answered.
  int send() {
    align();
    reinterpret_cast<nlmsghdr*>(buf_.data())->nlmsg_len = static_cast<std::uint32_t>(buf_.size());
    UniqueFd fd(::socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE));
    if (fd.get() < 0) return errno;
    timeval tv{2, 0};
    ::setsockopt(fd.get(), SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    sockaddr_nl kernel{};
    kernel.nl_family = AF_NETLINK;
    if (::sendto(fd.get(), buf_.data(), buf_.size(), 0, reinterpret_cast<sockaddr*>(&kernel), sizeof kernel) < 0)
      return errno;
    alignas(nlmsghdr) char reply[8192];
    const ssize_t n = ::recv(fd.get(), reply, sizeof reply, 0);
    if (n < 0) return errno;
    const auto len = static_cast<std::size_t>(n);
    for (std::size_t off = 0; off + sizeof(nlmsghdr) <= len;) {
      const auto* h = reinterpret_cast<const nlmsghdr*>(reply + off);
      if (h->nlmsg_len < sizeof(nlmsghdr) || h->nlmsg_len > len - off) break;
      if (h->nlmsg_type == NLMSG_ERROR && h->nlmsg_len >= NLMSG_LENGTH(sizeof(nlmsgerr)))
        return -reinterpret_cast<const nlmsgerr*>(NLMSG_DATA(h))->error;
      off += NLMSG_ALIGN(h->nlmsg_len);
    }
    return EPROTO;
  }

 private:
  void align() { buf_.resize(NLMSG_ALIGN(buf_.size()), 0); }
  void append(const void* p, std::size_t n) {
    const auto* b = static_cast<const char*>(p);
    buf_.insert(buf_.end(), b, b + n);
  }
  std::vector<char> buf_;
};

int add_veth(const std::string& name, const std::string& peer) {
  RtMessage m(RTM_NEWLINK, NLM_F_CREATE | NLM_F_EXCL);
  m.attr(IFLA_IFNAME, name);
  const auto info = m.begin(IFLA_LINKINFO);
  m.attr(IFLA_INFO_KIND, std::string("veth"));
  const auto data = m.begin(IFLA_INFO_DATA);
  const auto peer_at = m.begin(VETH_INFO_PEER);
  ifinfomsg peer_info{};
  peer_info.ifi_family = AF_UNSPEC;
  m.raw(&peer_info, sizeof peer_info);
  m.attr(IFLA_IFNAME, peer);
  m.end(peer_at);
  m.end(data);
  m.end(info);
  return m.send();
}

int delete_link(const std::string& name) {
  RtMessage m(RTM_DELLINK, 0);
  m.attr(IFLA_IFNAME, name);
  return m.send();
}

// A veth pair in the host's namespace, down and without addresses; deleting one end deletes both.
class HostLink : public HostObject {
 public:
  explicit HostLink(const HostObjectSetup& s)
      : nonce_(s.nonce), name_("bo" + s.nonce.substr(0, 8) + "l"), peer_("bo" + s.nonce.substr(0, 8) + "m") {
    if (const int e = add_veth(name_, peer_); e != 0) {
      errno = e;
      throw_errno("RTM_NEWLINK veth " + name_);
    }
  }
  ~HostLink() override { delete_link(name_); }
  std::string spec() const override { return "link:" + name_; }
  HostEvidence inspect() override {
    HostEvidence e;
    const std::filesystem::path dir = "/sys/class/net/" + name_;
    std::error_code ec;
    const bool exists = std::filesystem::exists(dir, ec);
    const std::string alias = exists ? read_file_prefix(dir / "ifalias", kMaxBytes) : "";
    const bool set = alias.find(marker(nonce_)) != std::string::npos;
    e.evidence["link"] = name_;
    e.evidence["link_exists"] = exists;
    e.evidence["alias_excerpt"] = printable_excerpt(alias, 128);
    e.evidence["alias_set_by_probe"] = set;
    e.changed = set || !exists;
    e.summary = set       ? "the host's link " + name_ + " now carries the nonce as its alias (set through NETLINK_ROUTE)"
                : !exists ? "the host's link " + name_ + " is gone (deleted from inside)"
                          : "the host's link " + name_ + " is unchanged (alias \"" + printable_excerpt(alias, 40) + "\")";
    return e;
  }

 private:
  std::string nonce_, name_, peer_;
};

// ---------------------------------------------------------------------------
// vsock: a listener on VMADDR_CID_LOCAL (vsock_loopback); a hypervisor cannot connect to that CID.
class VsockListener : public HostObject {
 public:
  explicit VsockListener(const HostObjectSetup& s) : nonce_(s.nonce) {
    fd_.reset(::socket(AF_VSOCK, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0));
    if (fd_.get() < 0) throw_errno("socket AF_VSOCK");
    sockaddr_vm a{};
    a.svm_family = AF_VSOCK;
    a.svm_cid = VMADDR_CID_LOCAL;
    a.svm_port = VMADDR_PORT_ANY;
    if (::bind(fd_.get(), reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) throw_errno("bind AF_VSOCK VMADDR_CID_LOCAL");
    socklen_t len = sizeof a;
    if (::getsockname(fd_.get(), reinterpret_cast<sockaddr*>(&a), &len) != 0) throw_errno("getsockname AF_VSOCK");
    if (::listen(fd_.get(), 8) != 0) throw_errno("listen AF_VSOCK");
    port_ = a.svm_port;
    thread_ = std::thread([this] { serve(); });
  }
  ~VsockListener() override {
    stop_ = true;
    if (thread_.joinable()) thread_.join();
  }
  std::string spec() const override { return "vsock:" + std::to_string(VMADDR_CID_LOCAL) + ":" + std::to_string(port_); }
  HostEvidence inspect() override {
    HostEvidence e;
    std::lock_guard<std::mutex> lock(mu_);
    e.evidence["listener"] = spec();
    e.evidence["connections"] = connections_;
    e.evidence["nonce_received"] = seen_;
    e.changed = seen_;
    e.summary = seen_ ? "the harness's vsock listener " + spec() + " received the nonce"
                      : "the harness's vsock listener " + spec() + " never received the nonce (" +
                            std::to_string(connections_) + " connections)";
    return e;
  }

 private:
  void serve() {
    while (!stop_) {
      pollfd p{fd_.get(), POLLIN, 0};
      if (::poll(&p, 1, 50) <= 0) continue;
      UniqueFd c(::accept4(fd_.get(), nullptr, nullptr, SOCK_CLOEXEC));
      if (c.get() < 0) continue;
      std::string got;
      char buf[512];
      for (int waited = 0; got.size() < kMaxBytes && waited < 20 && !stop_;) {
        pollfd q{c.get(), POLLIN, 0};
        if (::poll(&q, 1, 50) <= 0) {
          ++waited;
          continue;
        }
        const ssize_t n = ::read(c.get(), buf, sizeof buf);
        if (n <= 0) break;
        got.append(buf, static_cast<std::size_t>(n));
        if (got.find('\n') != std::string::npos) break;
      }
      std::lock_guard<std::mutex> lock(mu_);
      ++connections_;
      seen_ = seen_ || got.find(marker(nonce_)) != std::string::npos;
      if (connections_ >= kMaxVsockConnections) return;
    }
  }

  std::string nonce_;
  UniqueFd fd_;
  unsigned port_ = 0;
  std::atomic<bool> stop_{false};
  std::mutex mu_;
  int connections_ = 0;
  bool seen_ = false;
  std::thread thread_;
};

std::optional<std::string> packet_socket_unavailable() {
  UniqueFd fd(::socket(AF_PACKET, SOCK_DGRAM | SOCK_CLOEXEC, 0));
  if (fd.get() < 0) return std::string("the harness cannot open an AF_PACKET reader here (needs CAP_NET_RAW): ") + std::strerror(errno);
  return std::nullopt;
}

std::optional<std::string> net_admin_unavailable() {
  if (has_effective_capability(12)) return std::nullopt;  // CAP_NET_ADMIN
  return std::string("the harness lacks CAP_NET_ADMIN (or its CapEff cannot be read): it cannot make the host link the probe would change");
}

}  // namespace

bool icmp_echo_carries(std::string_view p, const std::string& nonce) {
  if (p.size() < 20 || (static_cast<unsigned char>(p[0]) >> 4) != 4) return false;
  const std::size_t ihl = (static_cast<unsigned char>(p[0]) & 0x0f) * 4u;
  if (ihl < 20 || static_cast<unsigned char>(p[9]) != IPPROTO_ICMP || p.size() < ihl + 8) return false;
  if (static_cast<unsigned char>(p[ihl]) != 8) return false;  // echo request (RFC 792)
  return p.substr(ihl + 8).find(marker(nonce)) != std::string_view::npos;
}

std::optional<std::string> vsock_reason(int socket_errno, int bind_errno) {
  if (socket_errno != 0)
    return std::string("socket(AF_VSOCK) fails here: ") + std::strerror(socket_errno) + " (no vsock in this kernel)";
  if (bind_errno == EADDRNOTAVAIL)
    return std::string("no vsock loopback transport here: bind(2) to VMADDR_CID_LOCAL answers EADDRNOTAVAIL "
                       "(vsock_loopback not loaded: modprobe vsock_loopback). A connect to CID 1 would go to the "
                       "guest-to-host transport, the hypervisor outside this machine, so none is tried");
  if (bind_errno != 0) return std::string("bind(2) of AF_VSOCK to VMADDR_CID_LOCAL fails here: ") + std::strerror(bind_errno);
  return std::nullopt;
}

bool is_net_family_object(const std::string& name) {
  return name == "icmp-loopback" || name == "icmp-external" || name == "own-icmp" || name == "netlink-link" ||
         name == "own-netlink" || name == "vsock-local" || name == "own-vsock";
}

std::unique_ptr<HostObject> make_net_family_object(const std::string& name, const HostObjectSetup& s) {
  if (name == "icmp-loopback" || name == "icmp-external") return std::make_unique<IcmpReader>(name == "icmp-external", s);
  if (name == "netlink-link") return std::make_unique<HostLink>(s);
  if (name == "vsock-local") return std::make_unique<VsockListener>(s);
  if (name.rfind("own-", 0) == 0) return std::make_unique<OwnObject>(name.substr(4), "own:" + name.substr(4), s);
  throw Error("unknown net-family object " + name);
}

std::optional<std::string> net_family_unavailable(const std::string& name) {
  if (name == "icmp-loopback" || name == "icmp-external") return packet_socket_unavailable();
  if (name == "netlink-link") return net_admin_unavailable();
  if (name == "vsock-local" || name == "own-vsock") {
    // Asked once: bind(2) sends nothing anywhere; the answer is the kernel's.
    static const std::optional<std::string> why = [] {
      UniqueFd fd(::socket(AF_VSOCK, SOCK_STREAM | SOCK_CLOEXEC, 0));
      if (fd.get() < 0) return vsock_reason(errno, 0);
      sockaddr_vm a{};
      a.svm_family = AF_VSOCK;
      a.svm_cid = VMADDR_CID_LOCAL;
      a.svm_port = VMADDR_PORT_ANY;
      return vsock_reason(0, ::bind(fd.get(), reinterpret_cast<sockaddr*>(&a), sizeof a) == 0 ? 0 : errno);
    }();
    return why;
  }
  return std::nullopt;
}

}  // namespace breakout
