// RAII for a registry HKEY: closed exactly once (RegCloseKey), movable, never copied; predefined roots are never closed.
#pragma once

#include <windows.h>

#include <utility>

namespace breakout {

class UniqueHkey {
 public:
  UniqueHkey() = default;
  explicit UniqueHkey(HKEY h) : h_(h) {}
  ~UniqueHkey() { reset(); }
  UniqueHkey(UniqueHkey&& o) noexcept : h_(std::exchange(o.h_, nullptr)) {}
  UniqueHkey& operator=(UniqueHkey&& o) noexcept {
    if (this != &o) reset(std::exchange(o.h_, nullptr));
    return *this;
  }
  UniqueHkey(const UniqueHkey&) = delete;
  UniqueHkey& operator=(const UniqueHkey&) = delete;
  HKEY get() const { return h_; }
  HKEY* out() {  // for the Reg*Ex out-parameter; closes what was held
    reset();
    return &h_;
  }
  explicit operator bool() const { return h_ != nullptr; }
  void reset(HKEY h = nullptr) {
    if (h_ != nullptr) ::RegCloseKey(h_);
    h_ = h;
  }

 private:
  HKEY h_ = nullptr;
};

}  // namespace breakout
