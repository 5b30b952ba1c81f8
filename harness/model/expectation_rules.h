// The expectation rules the class table (class_spec.h) names: one per kind of target.
//
// Each cites the policy field it applies (expectation.cc). They are reached only
// through expect() and the table; a new class picks one of these or adds its own.
#pragma once

#include "harness/model/class_spec.h"

namespace breakout::rules {

Expectation fs_path(const RuleInput& in);          // by the entry's FsRule: writable roots, or deny_read
Expectation protected_path(const RuleInput& in);  // deny_write first, also its holders and case variants
Expectation fs_api_write(const RuleInput& in);     // the write rule, through the spawner's fs API
Expectation fs_api_read(const RuleInput& in);      // deny_read first, then confined to the writable roots
Expectation leaked_fd_write(const RuleInput& in);  // the write rule of the leaked directory
Expectation cwd_write(const RuleInput& in);        // the write rule of the requested cwd
Expectation path_hijack(const RuleInput& in);      // the write rule where a PATH stub leaves its marker
Expectation fail_open(const RuleInput& in);        // the write rule, whatever the enforcer could do
Expectation spawner_follow(const RuleInput& in);   // the write rule at the planted link's target
Expectation race_write(const RuleInput& in);       // the write rule at the path the race aims at
Expectation submount_write(const RuleInput& in);   // the write rule where the submount sits
Expectation race_read(const RuleInput& in);        // the read rule at the path the harness planted the canary
Expectation io_uring_write(const RuleInput& in);   // the write rule (IORING_OP_OPENAT)
Expectation abi_write(const RuleInput& in);        // the write rule (i386/x32 syscall numbers)
Expectation connect(const RuleInput& in);          // network mode, unix-socket write rule, abstract sockets
Expectation bind_alias_connect(const RuleInput& in);  // the write rule where the harness bind-mounts the socket
Expectation proxy_connect(const RuleInput& in);    // network = proxy: its allowed destination only; else connect
Expectation env_leak(const RuleInput& in);         // env.inherit and env.pinned
Expectation env_override(const RuleInput& in);     // pins hold; the control must arrive
Expectation host_object(const RuleInput& in);      // the harness's objects denied, the probe's own allowed
Expectation recon(const RuleInput& in);            // network = none's namespace promise, else observed

}  // namespace breakout::rules
