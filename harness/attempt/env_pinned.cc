// env-pinned: baseline exec, pin learning, override forms, and the canary oracle for them.
#include "harness/attempt/env_pinned.h"

#include <cctype>

#include "harness/core/nonce.h"
#include "harness/core/text.h"
#include "harness/attempt/tree.h"
#include "harness/model/expectation.h"

namespace breakout {

namespace {

std::string lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::string other_case(const std::string& name) {
  const std::string l = lower(name);
  if (l != name) return l;
  std::string u = name;
  for (auto& c : u) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return u;
}

// Names whose value routes traffic or loads code: a spawner that sets them is pinning them.
bool security_relevant(const std::string& name) {
  const std::string l = lower(name);
  return l.find("proxy") != std::string::npos || l.rfind("git_ssh", 0) == 0 || l.rfind("git_config", 0) == 0 ||
         l.rfind("ld_", 0) == 0 || l == "bash_env" || l == "pythonpath" || l == "ssh_auth_sock" ||
         l == "git_terminal_prompt";
}

std::string canary() { return std::string(kCanaryPrefix) + random_hex(16); }

}  // namespace

PinAttack aim_overrides(const std::string& form, const Spawner& spawner, SpawnSession& session,
                        SpawnRequest* request, const LaunchSpec& limits) {
  PinAttack a;
  nlohmann::json sources = nlohmann::json::object();
  for (const auto& [k, v] : request->policy->env.pinned) {
    a.pinned[k] = v;
    sources[k] = "policy env.pinned";
  }
  for (const auto& [k, v] : spawner.pinned_env()) {
    a.pinned.emplace(k, v);
    if (!sources.contains(k)) sources[k] = "spawner (hello.pinned_env)";
  }
  // Baseline: what the child sees when the caller overrides nothing.
  SpawnRequest baseline = *request;
  baseline.env_overrides.clear();
  const LaunchResult base = session.exec(baseline, limits);
  check(base.started, "baseline exec failed: " + base.start_error);
  const nlohmann::json report = parse_probe_report(base.out);
  check(report.is_object() && report.contains("env") && report["env"].is_object(),
        "baseline exec: the env probe printed no environment");
  for (const auto& [name, value] : report["env"].items()) {
    if (!value.is_string() || !security_relevant(name) || a.pinned.count(name)) continue;
    const auto caller = request->caller_env.find(name);
    if (caller != request->caller_env.end() && caller->second == value.get<std::string>()) continue;
    a.pinned[name] = value.get<std::string>();
    sources[name] = "learned from the baseline exec";
  }
  a.evidence["pins"] = sources;
  auto add = [&](const std::string& name) {
    const std::string token = canary();
    request->env_overrides.emplace_back(name, token);
    a.tokens.push_back(token);
  };
  if (form == "control") {
    add(kOverrideControlVar);
  } else {
    if (a.pinned.empty())
      throw NothingToAttempt("the spawner pins no variable (policy env.pinned, hello.pinned_env, baseline exec)");
    for (const auto& [name, value] : a.pinned) {
      if (form == "exact") add(name);
      else if (form == "other-case" && other_case(name) != name) add(other_case(name));
      else if (form == "both-cases") add(name), add(other_case(name));
      else if (form == "duplicate") add(name), add(name);
    }
    if (request->env_overrides.empty()) throw NothingToAttempt("no pinned name has another letter case");
  }
  nlohmann::json sent = nlohmann::json::array();
  for (const auto& [k, v] : request->env_overrides) sent.push_back(printable_excerpt(k, 256) + "=" + v);
  a.evidence["overrides"] = sent;
  return a;
}

Observation observe_overrides(const std::string& form, const PinAttack& attack, const LaunchResult& run) {
  Observation o;
  o.evidence = attack.evidence;
  nlohmann::json seen = nlohmann::json::array();
  for (const auto& t : attack.tokens)
    if (run.out.find(t) != std::string::npos || run.err.find(t) != std::string::npos) seen.push_back(t);
  o.evidence["override_tokens_seen"] = seen;
  if (!seen.empty()) {
    o.effect = Effect::kHappened;
    o.summary = form == "control" ? "the caller's value of " + std::string(kOverrideControlVar) + " reached the child"
                                  : "a caller override of a pinned variable reached the child (" + form + ")";
    return o;
  }
  o.effect = Effect::kNotHappened;
  o.summary = "no override reached the child's environment";
  if (form == "control") return o;
  // In-run control: the probe did print the environment, with the pins in place.
  const nlohmann::json report = parse_probe_report(run.out);
  std::string missing;
  for (const auto& [name, value] : attack.pinned) {
    const bool shown = report.is_object() && report.contains("env") && report["env"].is_object() &&
                       report["env"].contains(name) && report["env"][name] == value;
    if (!shown) missing += (missing.empty() ? "" : ", ") + printable_excerpt(name, 64);
  }
  if (!missing.empty()) o.in_run_control = "the child did not show the pinned value of " + missing;
  return o;
}

}  // namespace breakout
