// The probe report: the one line every probe prints LAST on stdout,
//
//   BREAKOUT-REPORT {"probe":"fs-write","ok":false,"errno":13,"errname":"EACCES","detail":"open: ...",...}
//
// It is evidence only: the harness judges escapes from outside (snapshots,
// canaries, listeners, heartbeats) and uses this line to explain them.
//
// JSON is written by hand (no library: probes stay small and portable) and is
// pure ASCII on one line: '"' and '\' are escaped, every byte < 0x20, 0x7f and
// >= 0x80 becomes \u00XX. A byte >= 0x80 is thus encoded as the code point of the
// same value, so a reader maps code points <= 0xff back to bytes to get the raw
// bytes (paths and environment values are bytes, not UTF-8).
//
//   ProbeReport r("fs-write");
//   r.set("op", "create");
//   r.fail("open", errno);   // or r.set_errno(errno) / r.succeed()
//   r.emit();
//   return r.exit_code();    // 0 ok, 1 failed attempt (probes use 64 for usage errors)
//
// Portable: builds with g++, clang++ and mingw-w64.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

namespace breakout::probe {

// `s` as a quoted JSON string (ASCII only, see above).
std::string json_quote(std::string_view s);

// "EACCES" for EACCES, ...; "E<number>" when the value has no known name.
std::string errno_name(int e);

// An ordered JSON object; setting a key again replaces its value in place.
class JsonObject {
 public:
  void set(std::string_view key, std::string_view value) { set_raw(key, json_quote(value)); }
  void set(std::string_view key, const char* value) { set(key, std::string_view(value)); }
  void set(std::string_view key, const std::string& value) { set(key, std::string_view(value)); }
  void set(std::string_view key, bool value) { set_raw(key, value ? "true" : "false"); }
  template <class T>
    requires(std::is_integral_v<T> && !std::is_same_v<T, bool>)
  void set(std::string_view key, T value) {
    set_raw(key, std::is_signed_v<T> ? std::to_string(static_cast<long long>(value))
                                     : std::to_string(static_cast<unsigned long long>(value)));
  }
  // `json` must already be valid JSON (a nested object/array built here).
  void set_raw(std::string_view key, std::string json);
  std::string str() const;  // {"k":v,...}

 private:
  std::vector<std::pair<std::string, std::string>> fields_;  // key (unquoted), JSON value
};

// A JSON array built element by element.
class JsonArray {
 public:
  void add(std::string_view s) { add_raw(json_quote(s)); }
  void add(const char* s) { add(std::string_view(s)); }
  void add(const std::string& s) { add(std::string_view(s)); }
  template <class T>
    requires(std::is_integral_v<T> && !std::is_same_v<T, bool>)
  void add(T value) {
    add_raw(std::is_signed_v<T> ? std::to_string(static_cast<long long>(value))
                                : std::to_string(static_cast<unsigned long long>(value)));
  }
  void add_raw(std::string json);
  std::string str() const;  // [v,...]
  std::size_t count() const { return count_; }

 private:
  std::string body_;
  std::size_t count_ = 0;
};

class ProbeReport {
 public:
  // Starts as {"probe":name,"ok":false,"errno":0,"errname":"","detail":""}.
  explicit ProbeReport(std::string_view probe);

  template <class T>
  void set(std::string_view key, const T& value) {
    fields_.set(key, value);
  }
  void set_raw(std::string_view key, std::string json) { fields_.set_raw(key, std::move(json)); }

  // e == 0: ok=true, errno 0, errname "". Otherwise ok=false with the errno and its name.
  void set_errno(int e);
  void succeed() { set_errno(0); }
  // A failed step: ok=false, errno e, detail "<step>: <strerror(e)>", "step": step.
  void fail(std::string_view step, int e);
  void set_detail(std::string_view d) { fields_.set("detail", d); }
  bool ok() const { return ok_; }
  int exit_code() const { return ok_ ? 0 : 1; }

  std::string line() const;  // "BREAKOUT-REPORT {...}\n"
  // Also leaves line() in a new file at `path` whenever emit() runs: the in-run witness that
  // the probe got past its attempt, which the harness looks for from outside when no control
  // can show the probe works (harness/attempt/witness.h). "" (the default): none.
  void witness_to(std::string path) { witness_ = std::move(path); }
  // Writes line() to `out` (default stdout) and flushes, then the witness if one was asked
  // for. Returns false on a write error.
  bool emit(std::FILE* out = stdout) const;
  // Writes line() to a new/truncated file (used where stdout must stay clean).
  bool emit_to_file(const std::string& path) const;

 private:
  static bool write_line(std::FILE* out, const std::string& l);

  JsonObject fields_;
  bool ok_ = false;
  std::string witness_;
};

}  // namespace breakout::probe
