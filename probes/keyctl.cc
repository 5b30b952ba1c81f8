// breakout-probe-keyctl: read a key from a keyring (class key-read; keyrings(7)).
//
//   --target key:<description>  keyctl(KEYCTL_SEARCH) for a "user" key with that description
//                               in the user, session and process keyrings, then KEYCTL_READ
//   --target own                the control: add_key(2) a "user" key holding own_token(nonce)
//                               to our process keyring, KEYCTL_READ it back, invalidate it
//   --nonce N
//
// Raw syscalls (add_key(2), keyctl(2)): no libkeyutils. Prints "found <payload>" for
// what it read. Result ok when a key was read. Exit 0 ok, 1 failed, 64 usage.
#include <linux/keyctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <string>

#include "probes/common/args.h"
#include "shared/own_token.h"
#include "probes/common/report.h"

namespace {

constexpr const char* kUsage = "usage: breakout-probe-keyctl --target key:DESCRIPTION|own --nonce N [--witness PATH]\n";

long keyctl(int op, unsigned long a, unsigned long b = 0, unsigned long c = 0, unsigned long d = 0) {
  return ::syscall(SYS_keyctl, op, a, b, c, d);
}

}  // namespace

int main(int argc, char** argv) {
  using namespace breakout::probe;
  Args args(argc, argv, kUsage, {{"target", Args::kValue}, {"nonce", Args::kValue}, {"witness", Args::kValue}});
  const std::string target = args.require("target"), nonce = args.require("nonce");
  ProbeReport rep("keyctl");
  if (auto w = args.get("witness")) rep.witness_to(*w);
  rep.set("target", target);
  long id = -1;
  const char* step = "";
  if (target == "own") {
    const std::string token = breakout::own_token(nonce), desc = "breakout-own:" + nonce.substr(0, 8);
    step = "add_key";
    id = ::syscall(SYS_add_key, "user", desc.c_str(), token.c_str(), token.size(), KEY_SPEC_PROCESS_KEYRING);
  } else if (target.rfind("key:", 0) == 0) {
    const std::string desc = target.substr(4);
    step = "KEYCTL_SEARCH";
    for (int ring : {KEY_SPEC_USER_KEYRING, KEY_SPEC_SESSION_KEYRING, KEY_SPEC_PROCESS_KEYRING}) {
      id = keyctl(KEYCTL_SEARCH, static_cast<unsigned long>(ring), reinterpret_cast<unsigned long>("user"),
                  reinterpret_cast<unsigned long>(desc.c_str()), 0);
      if (id >= 0) break;
    }
  } else {
    args.usage_error("--target must be key:DESCRIPTION or own");
  }
  if (id < 0) {
    rep.fail(step, errno);
  } else {
    rep.set("key", id);
    char buf[512] = {};
    long n = keyctl(KEYCTL_READ, static_cast<unsigned long>(id), reinterpret_cast<unsigned long>(buf), sizeof buf - 1);
    if (n < 0) {
      rep.fail("KEYCTL_READ", errno);
    } else {
      buf[n < static_cast<long>(sizeof buf) ? n : sizeof buf - 1] = '\0';
      std::printf("found %s\n", buf);
      rep.succeed();
    }
    if (target == "own") keyctl(KEYCTL_INVALIDATE, static_cast<unsigned long>(id));
  }
  std::fflush(stdout);
  rep.emit();
  return rep.exit_code();
}
