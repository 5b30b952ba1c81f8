// DriverConnection: a reader thread matching answer lines to requests by id, with deadlines everywhere.
#include "harness/driver/connection.h"

#include "harness/core/text.h"

namespace breakout::driver {

using namespace std::chrono_literals;

namespace {
constexpr std::size_t kMaxNotes = 20;
constexpr std::chrono::milliseconds kSendTimeout = 5s;
}  // namespace

DriverConnection::DriverConnection(const Options& o, Containment* box) {
  LaunchSpec spec;
  spec.argv = o.argv;
  spec.env = o.env;
  spec.lookup_path = o.lookup_path;
  spec.cwd = o.cwd;
  spec.inherit_fds = o.inherit_fds;
  spec.user_namespaces_off = o.user_namespaces_off;
  spec.bind_over = o.bind_over;
  cancel_ = o.cancel;
  channel_ = LineChannel::start(spec, box, o.limits);
  reader_ = std::thread([this] { read_answers(); });
}

DriverConnection::~DriverConnection() {
  close(0ms);
}

void DriverConnection::close(std::chrono::milliseconds grace) {
  {
    std::lock_guard lock(mu_);
    if (stopping_) return;
    stopping_ = true;
  }
  channel_->close_input();
  std::optional<int> status = channel_->wait_exit(grace);
  if (!status) {
    channel_->kill();
    status = channel_->wait_exit(2s);
  }
  if (reader_.joinable()) reader_.join();
  channel_->finish_stderr(status ? 500ms : 0ms);  // count what the driver wrote before it ended
  std::lock_guard lock(mu_);
  ended_ = status ? describe_wait_status(*status) : "did not exit after SIGKILL";
  if (broken_.empty()) broken_ = "connection closed";
  cv_.notify_all();
}

bool DriverConnection::broken() const {
  std::lock_guard lock(mu_);
  return !broken_.empty();
}

void DriverConnection::mark_broken(const std::string& why) {
  std::lock_guard lock(mu_);
  if (broken_.empty()) broken_ = why;
  cv_.notify_all();
}

void DriverConnection::note(const std::string& what) {
  std::lock_guard lock(mu_);
  if (notes_.size() < kMaxNotes) notes_.push_back(what);
}

void DriverConnection::read_answers() {
  std::string line;
  for (;;) {
    {
      std::lock_guard lock(mu_);
      if (stopping_ && !broken_.empty()) return;
    }
    const LineChannel::Read got = channel_->read_line(&line, 100ms);
    if (got == LineChannel::Read::kTimeout) {
      std::lock_guard lock(mu_);
      if (stopping_) return;
      continue;
    }
    if (got == LineChannel::Read::kEof) {
      const auto status = channel_->wait_exit(200ms);
      return mark_broken("the driver closed its stdout" + (status ? " and " + describe_wait_status(*status) : ""));
    }
    if (got == LineChannel::Read::kTooLong) return mark_broken("the driver sent a line over the bound without a newline");
    if (line.empty() || line == "\r") continue;
    Response r;
    try {
      r = parse_response(line);
    } catch (const ProtocolError& e) {
      return mark_broken(std::string("the driver broke the protocol: ") + e.what());
    }
    std::lock_guard lock(mu_);
    const auto it = pending_.find(r.id);
    if (it != pending_.end() && !it->second.done) {
      it->second.done = true;
      it->second.response = std::move(r);
      cv_.notify_all();
    } else if (notes_.size() < kMaxNotes) {
      const bool repeat = it != pending_.end() || answered_.count(r.id);  // done, not yet collected, or collected
      notes_.push_back(repeat ? "repeated answer for id " + std::to_string(r.id) + " ignored"
                              : "answer for unknown id " + std::to_string(r.id) + " ignored");
    }
  }
}

Response DriverConnection::call(const std::string& op, const std::function<std::string(long long)>& build,
                                std::chrono::milliseconds timeout) {
  long long id;
  {
    std::lock_guard lock(mu_);
    if (!broken_.empty()) throw ProtocolError(op + ": " + broken_);
    id = next_id_++;
    pending_[id];
  }
  try {
    std::lock_guard send_lock(send_mu_);
    channel_->send_line(build(id), kSendTimeout);
  } catch (const Error& e) {
    // Usually the driver is gone: say how it ended, like the reader would.
    const auto status = channel_->wait_exit(200ms);
    mark_broken(std::string("sending ") + op + ": " + e.what() +
                (status ? " (the driver " + describe_wait_status(*status) + ")" : ""));
  }
  std::unique_lock lock(mu_);
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  bool answered = false;
  while (!(answered = pending_[id].done || !broken_.empty()) && std::chrono::steady_clock::now() < deadline) {
    if (cancel_ != nullptr && cancel_->load()) {
      if (broken_.empty()) broken_ = "interrupted";
      break;
    }
    cv_.wait_for(lock, 50ms);  // slices: the interrupt flag is polled, not signalled
  }
  answered = answered || pending_[id].done || !broken_.empty();
  Slot slot = std::move(pending_[id]);
  pending_.erase(id);
  answered_[id] = op;
  if (slot.done) return std::move(slot.response);
  if (!answered) {
    // A driver that missed one deadline is not trusted with the next request.
    const std::string why = "the driver did not answer " + op + " (id " + std::to_string(id) + ") within " +
                            std::to_string(timeout.count()) + " ms";
    if (broken_.empty()) broken_ = why;
    cv_.notify_all();
    throw ProtocolError(why);
  }
  throw ProtocolError(op + ": " + broken_);
}

nlohmann::json DriverConnection::evidence() const {
  // What the driver wrote to stderr before its last answer is counted, not only what the drain
  // thread happened to have read; bounded, as the driver may still be writing.
  channel_->catch_up_stderr(250ms);
  std::lock_guard lock(mu_);
  nlohmann::json e = {{"driver_pid", channel_->pid()},
                      {"stderr_bytes", channel_->stderr_total()},
                      {"stderr_tail", printable_excerpt(channel_->stderr_tail(), 4096)},
                      {"protocol_notes", notes_}};
  if (!ended_.empty()) e["driver_ended"] = ended_;
  if (!broken_.empty() && broken_ != "connection closed") e["connection"] = printable_excerpt(broken_, 1024);
  return e;
}

}  // namespace breakout::driver
