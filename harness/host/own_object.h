// The probe's own object, the control of a host-object class: nothing on the host; the probe's own token must show up.
//
// The probe creates its own twin of the host object (a child, an IPC object, a key, a pty,
// a pipe, an event) inside the sandbox, uses it through the technique under test and prints
// own_token(nonce) only after reading it back (shared/own_token.h). Portable.
#pragma once

#include <string>
#include <utility>

#include "harness/host/host_objects.h"
#include "shared/own_token.h"

namespace breakout {

class OwnObject : public HostObject {
 public:
  // `spec` is what {target} expands to ("own", "own:<kind>").
  OwnObject(std::string kind, std::string spec, const HostObjectSetup& s)
      : kind_(std::move(kind)), spec_(std::move(spec)), nonce_(s.nonce) {}
  std::string spec() const override { return spec_; }
  HostEvidence inspect() override {
    HostEvidence e;
    e.token = own_token(nonce_);
    e.summary = "the probe's own " + kind_;
    return e;
  }

 protected:
  std::string kind_, spec_, nonce_;
};

}  // namespace breakout
