// The expectation rules several families' classes name (class_spec.h), and what the families' own
// rules (harness/classes/<family>/spec.h) build on.
//
// Each cites the policy field it applies (expectation.cc). They are reached only
// through expect() and the table; a new class picks one of these, its family's, or adds its own.
#pragma once

#include <filesystem>
#include <string>

#include "harness/model/class_spec.h"

namespace breakout::rules {

// The rules more than one family names (the others are their family's own, in its spec.h).
Expectation fs_path(const RuleInput& in);          // by the entry's FsRule: writable roots, or deny_read
Expectation race_write(const RuleInput& in);       // the write rule at the path the race aims at
Expectation connect(const RuleInput& in);          // network mode, unix-socket write rule, abstract sockets

// What the families' own rules build on.
Expectation write_at(const std::filesystem::path& path, const ResolvedPolicy& r);  // the write rule at a normal path
Expectation read_at(const std::filesystem::path& path, const ResolvedPolicy& r);   // the read rule (deny_read) there
// The target, which must be of `kind` (else Error("bad-target", "... is not <what>")).
const Target& aimed(const RuleInput& in, TargetKind kind, const char* what);
// A path target as a policy path (resolve_policy_path against the roots).
std::filesystem::path policy_path(const RuleInput& in);
// A write by another mechanism than openat(2) in the probe: the write rule, its sentence after `how`.
Expectation write_by(const RuleInput& in, const std::string& how);

}  // namespace breakout::rules
