// DriverSpawner and its per-attempt session: hello, boot, exec, shutdown over protocol v1.
#include "harness/spawner/driver_spawner.h"

#include <mutex>

#include "harness/core/error.h"
#include "harness/core/nonce.h"
#include "harness/core/text.h"
#include "harness/core/toml_schema.h"
#include "harness/driver/connection.h"
#include "harness/driver/protocol.h"
#include "harness/platform/os.h"

namespace breakout {

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

namespace {

using driver::DriverConnection;

std::vector<std::string> env_lines(const std::map<std::string, std::string>& env) {
  std::vector<std::string> out;
  for (const auto& [k, v] : env) out.push_back(k + "=" + v);
  return out;
}

driver::BootPolicy boot_policy(const SpawnRequest& r) {
  driver::BootPolicy p;
  p.workspace = r.roots.workspace.string();
  for (const auto& w : r.resolved.writable)
    if (w != r.roots.workspace) p.writable_roots.push_back(w.string());
  for (const auto& d : r.resolved.deny_read) p.deny_read.push_back(d.string());
  for (const auto& d : r.resolved.deny_write) p.deny_write.push_back(d.string());
  p.network = to_string(r.policy->network);
  p.proxy_allow = r.proxy_allow;
  p.proxy_deny = r.proxy_deny;
  p.env_inherit = r.policy->env.inherit;  // an empty list is "none"
  p.env_set = r.policy->env.pinned;
  return p;
}

class DriverSession final : public SpawnSession {
 public:
  DriverSession(const DriverSettings& settings, const SpawnRequest& boot, const LaunchSpec& limits, Containment* box,
                const std::atomic<bool>* cancel)
      : settings_(settings), session_("s-" + random_hex(6)) {
    DriverConnection::Options o;
    o.argv = settings.argv;
    o.env = env_lines(boot.caller_env);  // the driver runs in the caller's (agent runtime's) environment
    o.lookup_path = settings.lookup_path;  // but is found where the user who started breakout finds it
    // cwd: the harness's own, like the hello connection, so relative driver paths work.
    o.inherit_fds = limits.inherit_fds;
    o.user_namespaces_off = limits.user_namespaces_off;
    o.bind_over = limits.bind_over;
    o.cancel = cancel;
    conn_ = std::make_unique<DriverConnection>(o, box);
    const driver::BootPolicy policy = boot_policy(boot);
    try {
      driver::parse_hello(conn_->call("hello", [](long long id) { return driver::hello_request(id); },
                                      settings.hello_timeout));
      try {
        workspace_ = driver::parse_boot(conn_->call(
            "boot", [&](long long id) { return driver::boot_request(id, session_, policy); }, settings.boot_timeout));
      } catch (const driver::DriverFailure& e) {
        if (!driver::is_refusal_code(e.code)) throw;
        // A clear refusal: the session stays, runs nothing, and answers with it (boot_refusal()).
        boot_refusal_ = Refusal{e.code, printable_excerpt(e.message, kMaxRefusalMessage)};
        return;
      }
    } catch (const std::exception& e) {
      closed_ = true;
      conn_->close(settings.close_grace);
      const std::string tail = conn_->evidence().value("stderr_tail", "");
      throw Error(std::string("boot failed: ") + e.what() +
                  (tail.empty() ? "" : "; driver stderr: " + printable_excerpt(tail, 400)));
    }
    booted_ = true;
  }

  ~DriverSession() override {
    try {
      shutdown();
    } catch (const std::exception&) {
      // already recorded by whoever called shutdown(); a destructor stays quiet
    }
    close();
  }

  void close() override { conn_->close(settings_.close_grace); }

  std::optional<Refusal> boot_refusal() const override { return boot_refusal_; }

  LaunchResult exec(const SpawnRequest& r, const LaunchSpec& limits) override {
    LaunchResult out;
    if (boot_refusal_) {
      out.refusal = boot_refusal_;
      out.start_error = "the driver refused the boot: " + boot_refusal_->text();
      return out;
    }
    const std::optional<double> timeout_s =
        r.timeout ? std::optional<double>(std::chrono::duration<double>(*r.timeout).count()) : std::nullopt;
    const auto bound = limits.timeout.value_or(std::chrono::milliseconds(120000)) + settings_.exec_grace;
    const auto t0 = Clock::now();
    try {
      const driver::ExecResult x = driver::parse_exec(conn_->call(
          "exec",
          [&](long long id) {
            return driver::exec_request(id, session_, r.probe_argv, r.cwd, r.env_overrides, timeout_s);
          },
          bound));
      out.started = true;
      out.exited = x.exit_code.has_value();
      out.exit_code = x.exit_code.value_or(-1);
      out.term_signal = x.signal.value_or(0);
      out.timed_out = x.timed_out;
      out.out_total = x.out.size();
      out.err_total = x.err.size();
      out.out = x.out.substr(0, limits.max_capture);
      out.err = x.err.substr(0, limits.max_capture);
    } catch (const driver::DriverFailure& e) {
      out.start_error = e.what();
      if (driver::is_refusal_code(e.code)) out.refusal = Refusal{e.code, printable_excerpt(e.message, kMaxRefusalMessage)};
    } catch (const Error& e) {
      out.start_error = e.what();
    }
    out.duration = std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - t0);
    return out;
  }

  std::vector<std::string> command_line() const override { return settings_.argv; }

  // Capability fs: a refusal (ok false) is an answer, a protocol violation or timeout stays Error.
  FsAnswer write_file(const std::string& path, const std::string& content) override {
    return fs_call("write_file", [&](long long id) { return driver::write_file_request(id, session_, path, content); });
  }
  FsAnswer read_file(const std::string& path) override {
    return fs_call("read_file", [&](long long id) { return driver::read_file_request(id, session_, path); });
  }

  void shutdown() override {
    std::lock_guard lock(shutdown_mu_);
    if (closed_) return;
    closed_ = true;
    std::string failure;
    if (booted_) {
      try {
        driver::expect_ok(conn_->call(
            "shutdown", [&](long long id) { return driver::shutdown_request(id, session_); },
            settings_.shutdown_timeout));
      } catch (const std::exception& e) {
        failure = e.what();
      }
    }
    if (!failure.empty()) throw Error("shutdown failed: " + failure);
  }

  nlohmann::json evidence() const override {
    nlohmann::json e = conn_->evidence();
    e["session"] = session_;
    if (!workspace_.empty()) e["driver_workspace"] = printable_excerpt(workspace_, 1024);
    if (boot_refusal_) e["boot_refused"] = {{"code", boot_refusal_->code}, {"message", boot_refusal_->message}};
    return e;
  }

 private:
  // A refusal (invalid, unsupported, exec_failed) is an answer; another failure code a broken driver.
  template <typename MakeRequest>
  FsAnswer fs_call(const char* op, MakeRequest make) {
    if (boot_refusal_) return {boot_refusal_, ""};
    driver::Response r = conn_->call(op, make, settings_.exec_grace);
    if (!r.ok && !driver::is_refusal_code(r.error_code)) driver::expect_ok(r);
    if (!r.ok) return {Refusal{r.error_code, printable_excerpt(r.error_message, kMaxRefusalMessage)}, ""};
    return {std::nullopt, std::string(op) == "read_file" ? driver::parse_read_file(r) : std::string()};
  }

  const DriverSettings& settings_;
  std::string session_;
  std::unique_ptr<DriverConnection> conn_;
  std::string workspace_;
  std::optional<Refusal> boot_refusal_;
  bool booted_ = false;
  std::mutex shutdown_mu_;
  bool closed_ = false;
};

class DriverSpawner final : public Spawner {
 public:
  explicit DriverSpawner(DriverSettings s) : settings_(std::move(s)) {
    if (!settings_.lookup_path) settings_.lookup_path = own_search_path();
    if (auto why = driver_program_missing(settings_.argv, *settings_.lookup_path)) {
      unavailable_ = *why;
      return;
    }
    try {
      // Its own containment: nothing the driver starts while saying hello survives it.
      Containment box("driver-hello-" + random_hex(4), random_hex(16));
      DriverConnection::Options o;
      o.argv = settings_.argv;
      o.env = {"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "LANG=C.UTF-8",
               "HOME=/nonexistent/breakout-hello"};  // never the real HOME
      o.lookup_path = settings_.lookup_path;
      DriverConnection conn(o, &box);
      try {
        hello_ = driver::parse_hello(conn.call("hello", [](long long id) { return driver::hello_request(id); },
                                               settings_.hello_timeout));
      } catch (const std::exception& e) {
        conn.close(settings_.close_grace);
        const std::string tail = conn.evidence().value("stderr_tail", "");
        throw Error(std::string(e.what()) + (tail.empty() ? "" : "; driver stderr: " + printable_excerpt(tail, 400)));
      }
      conn.close(settings_.close_grace);
    } catch (const std::exception& e) {
      unavailable_ = std::string("driver handshake failed: ") + e.what();
    }
  }

  std::string name() const override {
    if (!settings_.name.empty()) return settings_.name;
    return hello_.name.empty() ? "driver" : "driver:" + hello_.name;
  }
  std::string description() const override {
    if (!settings_.description.empty()) return settings_.description;
    std::string d = "driver (protocol v1): " + join(settings_.argv, " ");
    if (!hello_.name.empty()) d += " — " + hello_.name + " " + hello_.version + " on " + hello_.platform;
    return d;
  }
  std::string version() const override { return hello_.version; }
  std::optional<std::string> unavailable_reason() const override {
    if (!unavailable_.empty()) return unavailable_;
    return std::nullopt;
  }
  std::optional<std::string> cannot_express(const Policy& policy) const override {
    const std::string mode = to_string(policy.network);
    const auto& modes = hello_.capabilities.network;
    if (std::find(modes.begin(), modes.end(), mode) == modes.end())
      return "the driver does not offer network = " + mode + " (hello capabilities.network: [" + join(modes, ", ") + "])";
    if (!policy.deny_read.empty() && !hello_.capabilities.deny_read)
      return "the driver cannot deny reads (hello capabilities.deny_read is false)";
    if (!policy.deny_write.empty() && !hello_.capabilities.deny_write)
      return "the driver cannot protect paths inside writable roots (hello capabilities.deny_write is false)";
    return std::nullopt;
  }
  // hello.refuses, applied as a profile's [refuses.*] is (model/declared_refusal.h).
  std::optional<std::string> refuses(Mechanism m, const Policy& policy) const override {
    return refusal_reason(hello_.refuses, name(), m, policy.network);
  }
  SpawnPlan plan(const SpawnRequest&) const override {
    throw Error("driver spawners run through sessions (open/exec/shutdown), not single commands");
  }
  std::unique_ptr<SpawnSession> open(const SpawnRequest& boot, const LaunchSpec& limits, Containment* box,
                                     const std::atomic<bool>* cancel) const override {
    return std::make_unique<DriverSession>(settings_, boot, limits, box, cancel);
  }
  bool has_sessions() const override { return true; }
  int concurrent_execs() const override { return hello_.capabilities.concurrent_exec; }
  bool persistent_setup() const override { return hello_.capabilities.persistent_setup; }
  std::map<std::string, std::string> pinned_env() const override { return hello_.pinned_env; }
  std::optional<std::string> no_fs_api_reason() const override {
    if (hello_.capabilities.fs) return std::nullopt;
    return "the driver has no file-system API (hello capabilities.fs is false)";
  }

 private:
  static std::string join(const std::vector<std::string>& v, const char* sep) {
    std::string out;
    for (std::size_t i = 0; i < v.size(); ++i) out += (i ? sep : "") + v[i];
    return out;
  }
  DriverSettings settings_;
  driver::Hello hello_;
  std::string unavailable_;
};

}  // namespace

std::optional<std::string> driver_program_missing(const std::vector<std::string>& argv, const std::string& search_path) {
  if (argv.empty() || argv[0].empty()) return std::string("the driver command is empty");
  if (find_executable(argv[0], search_path)) return std::nullopt;
  const std::string& program = argv[0];
  if (program.find_first_of(platform_name() == "windows" ? "/\\:" : "/") != std::string::npos)
    return "the driver program '" + program + "' is not an executable file";
  return "the driver program '" + program + "' is not found on the caller's PATH (PATH=" +
         (search_path.empty() ? "(unset)" : search_path) + ")";
}

std::vector<std::string> split_command_line(const std::string& text) {
  std::vector<std::string> out;
  std::string cur;
  bool in_word = false;
  char quote = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quote == '\'') {
      if (c == '\'') quote = 0;
      else cur += c;
    } else if (c == '\\' && i + 1 < text.size() && (quote == 0 || text[i + 1] == '"' || text[i + 1] == '\\')) {
      cur += text[++i];
      in_word = true;
    } else if (quote == '"') {
      if (c == '"') quote = 0;
      else cur += c;
    } else if (c == '\'' || c == '"') {
      quote = c;
      in_word = true;
    } else if (c == ' ' || c == '\t' || c == '\n') {
      if (in_word) out.push_back(std::move(cur));
      cur.clear();
      in_word = false;
    } else {
      cur += c;
      in_word = true;
    }
  }
  // The message only on failure: built eagerly it was an excerpt of every command line split.
  if (quote != 0) throw Error("bad-driver-command", "unterminated quote in driver command: " + printable_excerpt(text, 200));
  if (in_word) out.push_back(std::move(cur));
  check(!out.empty(), "bad-driver-command", "the driver command is empty");
  return out;
}

DriverSettings parse_driver_profile(const toml::table& root, const std::string& origin, const fs::path& profile_dir) {
  schema::only_fields(root, {"kind", "name", "description", "notes", "command", "timeouts"}, origin);
  DriverSettings s;
  s.name = schema::required_string(root, "name", origin);
  s.description = schema::optional_string(root, "description", origin).value_or("");
  s.argv = schema::string_array(root, "command", origin, true);
  if (s.argv.empty()) schema::fail("missing-field", origin, "command must not be empty");
  for (auto& a : s.argv) a = substitute_placeholders(a, {{"{profile_dir}", profile_dir.string()}});
  if (const toml::table* t = root["timeouts"].as_table()) {
    const std::string where = origin + ": timeouts";
    schema::only_fields(*t, {"hello_ms", "boot_ms", "exec_grace_ms", "shutdown_ms", "close_grace_ms"}, where);
    auto ms = [&](const char* key, std::chrono::milliseconds& into) {
      if (auto v = schema::optional_int(*t, key, where)) {
        if (*v < 1 || *v > 3600000) schema::fail("bad-timeout", where, std::string(key) + " must be in [1, 3600000]");
        into = std::chrono::milliseconds(*v);
      }
    };
    ms("hello_ms", s.hello_timeout);
    ms("boot_ms", s.boot_timeout);
    ms("exec_grace_ms", s.exec_grace);
    ms("shutdown_ms", s.shutdown_timeout);
    ms("close_grace_ms", s.close_grace);
  }
  return s;
}

std::unique_ptr<Spawner> make_driver_spawner(DriverSettings settings) {
  return std::make_unique<DriverSpawner>(std::move(settings));
}

}  // namespace breakout
