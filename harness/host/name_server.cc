// The zone of the run's name server (name_server.h); the serving loop is the platform's.
#include "harness/host/name_server.h"

namespace breakout {

namespace {

bool is_or_under(const std::string& name, const std::string& domain) {
  return name == domain ||
         (name.size() > domain.size() && name.compare(name.size() - domain.size(), domain.size(), domain) == 0 &&
          name[name.size() - domain.size() - 1] == '.');
}

}  // namespace

ZoneAnswer zone_answer(const std::string& name, std::uint16_t type, const ZoneAddresses& z) {
  std::optional<std::array<unsigned char, 4>> a;
  if (name == "loop.allowed.breakout.test") a = std::array<unsigned char, 4>{127, 0, 0, 1};
  else if (name == "denied.allowed.breakout.test") a = z.second;
  else if (is_or_under(name, "allowed.breakout.test")) a = z.external;
  else if (is_or_under(name, "denied.breakout.test")) a = z.second;
  if (!a) return {};
  if (type != 1) return {ZoneAnswer::Kind::kNoData, {}};  // A only: getaddrinfo asks AAAA too
  return {ZoneAnswer::Kind::kA, *a};
}

std::string endpoint_host_name(const std::string& endpoint) {
  if (endpoint == "proxy-allowed") return "allowed.breakout.test";
  if (endpoint == "name-denied") return "denied.breakout.test";
  return "";
}

}  // namespace breakout
